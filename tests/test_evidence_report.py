"""Evidence people look at: `kernelint prove --report`, the charts in docs/evidence/, and the page
opened in a real (headless) browser."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from kernelint.docs_generator import CHART_FOLDER, expected_charts, stale_charts
from kernelint.evidence import evidence_codes, load_record
from kernelint.prove import report

RECORDS = report.committed_records()
CHARTED = [r for r in RECORDS if report.chart_data(r) is not None]


def test_every_perf_and_numerics_record_has_a_chart_and_nothing_else_does():
    assert CHARTED, "no committed perf or numerics record"
    for record in RECORDS:
        has_chart = report.chart_data(record) is not None
        measured = record.get("verdict") != "skipped" and any(c.get("bad") for c in record.get("cases") or [])
        assert has_chart == (record["evidence_class"] in report.CHART_CLASSES and measured), record["code"]


def test_chart_staleness_is_judged_by_the_figures_not_the_bytes(tmp_path):
    charts = expected_charts(tmp_path)
    assert len(charts) == len(CHARTED)
    assert set(stale_charts(tmp_path)) == set(charts), "missing charts are stale"
    first, data = next(iter(charts.items()))
    first.parent.mkdir(parents=True)
    for path, figures in charts.items():  # any bytes will do, as long as they carry the right hash
        path.write_text(f"<svg><metadata>kernelint-chart-source sha256:{report.source_hash(figures)}</metadata></svg>")
    assert stale_charts(tmp_path) == []
    changed = {**data, "rows": data["rows"][:-1]}
    first.write_text(f"<svg>kernelint-chart-source sha256:{report.source_hash(changed)}</svg>")
    orphan = first.parent / "KL999.svg"
    orphan.write_text("<svg/>")
    assert set(stale_charts(tmp_path)) == {first, orphan}


def test_evidence_page_embeds_each_chart():
    page = (ROOT / "docs" / "evidence.md").read_text(encoding="utf-8")
    for record in CHARTED:
        link = f"({CHART_FOLDER}/{record['code']}.svg)"
        assert link in page, record["code"]
        assert (ROOT / "docs" / CHART_FOLDER / f"{record['code']}.svg").is_file()


def test_failures_are_quoted_exactly():
    compile_records = [r for r in RECORDS if r["evidence_class"] == "compile" and r["verdict"] == "reproduced"]
    assert compile_records
    for record in compile_records:
        lines = report.failure_lines(record)
        assert len(lines) == len(record["cases"])
        counted = [line for line, case in zip(lines, record["cases"]) if not case.get("control")]
        assert all("bad `" in line for line in counted), lines


def test_read_records_from_a_run_file_and_a_folder(tmp_path):
    record = load_record(evidence_codes()[0])
    run = {"environment": record.get("environment"), "date": "d", "command": "c", "kernelint": "0",
           "pairs": [{k: v for k, v in record.items() if k not in ("environment", "date", "command", "kernelint")}]}
    (tmp_path / "run.json").write_text(json.dumps(run))
    from_run = report.read_records(tmp_path / "run.json")
    assert [r["code"] for r in from_run] == [record["code"]] and from_run[0]["environment"] == record["environment"]
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / f"{record['code']}.json").write_text(json.dumps(record))
    assert report.read_records(folder) == [record]
    with pytest.raises(report.ReportError):
        report.read_records(tmp_path / "missing.json")


def test_report_usage_errors(tmp_path):
    done = subprocess.run([sys.executable, "-m", "kernelint", "prove", "--report", str(tmp_path), "--json", "x.json"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "--report runs nothing" in done.stderr
    done = subprocess.run([sys.executable, "-m", "kernelint", "prove", "--report", str(tmp_path), "KL998"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "no record for KL998" in done.stderr


@pytest.mark.full  # matplotlib: the full tier
def test_svg_charts_are_repeatable_and_carry_their_source_hash():
    pytest.importorskip("matplotlib")
    data = report.chart_data(CHARTED[0])
    first, second = report.draw(data), report.draw(data)
    assert first == second
    assert report.svg_source_hash(first.decode()) == report.source_hash(data)
    assert report.draw(data, "png").startswith(b"\x89PNG")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    pytest.importorskip("matplotlib")
    out = tmp_path_factory.mktemp("report")
    done = subprocess.run([sys.executable, "-m", "kernelint", "prove", "--report", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return out / "index.html"


@pytest.mark.full  # matplotlib: the full tier
def test_report_has_a_section_per_record(page):
    text = page.read_text(encoding="utf-8")
    for record in RECORDS:
        assert f'<section id="{record["code"]}">' in text
    assert text.count("<svg") == len(CHARTED), "charts are inline: the page stands alone"
    assert not any(tag in text for tag in ("<script", "src=\"http", "href=\"http"))
    for record in CHARTED:
        assert (page.parent / "charts" / f"{record['code']}.svg").is_file()


@pytest.mark.full  # matplotlib: the full tier
def test_report_shows_every_rule_with_a_pair(page):
    """Issue 10: the page shows every rule; one whose pair has no record yet says so."""
    from conftest import pair_dirs

    text = page.read_text(encoding="utf-8")
    codes = {directory.name.split("_", 1)[0] for directory in pair_dirs()}
    measured = {record["code"] for record in RECORDS}
    for code in codes:
        assert f'<section id="{code}">' in text, code
    for rule in report.unmeasured_rules(RECORDS):
        assert rule["code"] in codes - measured
        section = text[text.index(f'<section id="{rule["code"]}">'):]
        section = section[:section.index("</section>")]
        assert "not measured yet" in section and f"kernelint prove {rule['code']}" in section


def _browser() -> str | None:
    return next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome", "chrome")
                 if shutil.which(name)), None)


@pytest.mark.full  # matplotlib: the full tier
def test_report_renders_in_a_headless_browser(page, tmp_path):
    browser = _browser()
    if browser is None:
        if os.environ.get("CI") == "true":
            pytest.fail("no Chromium in CI: .ci/run installs Debian's chromium for this test")
        pytest.skip("no Chromium or Chrome installed (apt-get install chromium)")
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    dom = subprocess.run([*flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    for record in [*RECORDS, *report.unmeasured_rules(RECORDS)]:
        assert f'id="{record["code"]}"' in dom.stdout
    shot = tmp_path / "report.png"
    subprocess.run([*flags, "--window-size=1200,2400", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, text=True, timeout=120, check=True)
    import matplotlib.image

    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[:2] == (2400, 1200)
    assert pixels.std() > 0.05, "the screenshot is blank"
    coloured = ((abs(pixels[..., 0] - pixels[..., 2]) > 0.3)).mean()
    assert coloured > 0.001, "no chart bars drawn"
