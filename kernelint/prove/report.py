"""Evidence people can look at: ``kernelint prove --report DIR`` writes ``DIR/index.html`` (one
self-contained page, charts inline) and ``DIR/charts/<CODE>.svg`` (or ``.png``) from measured
records: the committed ones by default, or a ``--json`` run / a folder of ``<CODE>.json``.

Per perf rule a bar chart of the bad and good kernel's time per shape with the ratio over each
pair; per numerics rule the bad and good max abs error against the tolerance; per crash, compile
and hang rule the exact failure as text. The docs generator draws the same charts into
``docs/evidence/``.

matplotlib is imported only when a chart is drawn (never by ``kernelint check``). SVG output is
made repeatable: a fixed hash salt, no date, and the hash of the figures the chart shows stored
in its metadata (``chart_source_hash``), so a chart's staleness can be checked without
matplotlib and without comparing bytes.
"""
from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import re
from pathlib import Path

from kernelint.evidence import load_record, machine, record_name, record_names
from kernelint.prove import roofline
from kernelint.prove.text import describe_run, error_line, number, params

#: Bump when the drawing changes, so committed charts count as stale and are redrawn.
CHART_VERSION = 1
CHART_CLASSES = ("perf", "numerics")
_SOURCE_HASH = re.compile(r"kernelint-chart-source sha256:([0-9a-f]{64})")
_BAD, _GOOD, _CONTROL = "#c0392b", "#2e86c1", "#95a5a6"


class ReportError(Exception):
    """Records that cannot be read, or a drawing library that is missing."""


# --- records ----------------------------------------------------------------------------------

def committed_records() -> list[dict]:
    """Every committed record (``reference_kernels/evidence/<CODE>.json``, and ``<CODE>-<dsl>.json``
    for a rule's further pair in another DSL), by name."""
    return [record for name in record_names() if (record := load_record(name)) is not None]


def unmeasured_rules(records: list[dict], codes: set[str] | None = None) -> list[dict]:
    """The rules with a reference pair but no record among ``records`` (``codes``: only these),
    each as ``{"code", "name", "evidence_class", "claim", "command"}``, so the page can show every
    rule, the unmeasured ones as such."""
    from kernelint.prove.manifest import ManifestError, default_root, load_pair, pair_dirs
    from kernelint.rules import all_rules

    measured = {record["code"] for record in records if record_name(record["code"], record.get("dsl")) == record["code"]}
    claims = {}
    for directory in pair_dirs(default_root()):
        try:
            pair = load_pair(directory)
        except ManifestError:
            continue
        if pair.record == pair.code:  # the rule's pair in its home DSL
            claims[pair.code] = pair.claim
    pending = []
    for rule in sorted(all_rules(), key=lambda rule: rule.code):
        if rule.code in measured or rule.code not in claims or (codes and rule.code not in codes
                                                                  and rule.name not in codes):
            continue
        pending.append({"code": rule.code, "name": rule.name, "evidence_class": rule.evidence_class,
                        "claim": claims[rule.code],
                        "command": f"kernelint prove {rule.code} --json run.json --evidence-dir reference_kernels/evidence"})
    return pending


def read_records(source: Path) -> list[dict]:
    """Records from a ``kernelint prove --json`` file, one ``<CODE>.json`` record, or a folder of them."""
    paths = sorted(source.glob("*.json")) if source.is_dir() else [source]
    records = []
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            raise ReportError(f"cannot read {path}: {error}") from None
        if isinstance(data, dict) and isinstance(data.get("pairs"), list):  # a whole run
            context = {k: data.get(k) for k in ("environment", "date", "command", "kernelint")}
            records += [{**context, **pair} for pair in data["pairs"]]
        elif isinstance(data, dict) and "code" in data:
            records.append(data)
    if not records:
        raise ReportError(f"no evidence records in {source}")
    return sorted(records, key=lambda r: record_name(r["code"], r.get("dsl")))


# --- charts -----------------------------------------------------------------------------------

def chart_data(record: dict) -> dict | None:
    """The figures a record's chart shows (None when its class has no chart or nothing was measured)."""
    cls = record.get("evidence_class")
    cases = [c for c in record.get("cases") or [] if c.get("bad") and c.get("good")]
    if cls not in CHART_CLASSES or record.get("verdict") == "skipped" or not cases:
        return None
    rows = []
    for case in cases:
        bad, good = case["bad"], case["good"]
        row = {"name": case["name"], "control": bool(case.get("control"))}
        if cls == "perf":
            if not isinstance(bad.get("time_ms"), (int, float)) or not isinstance(good.get("time_ms"), (int, float)):
                continue
            row.update(bad=bad["time_ms"], good=good["time_ms"], ratio=case.get("ratio"),
                       share=roofline.fraction(good, (record.get("environment") or {}).get("gpu")))
        else:
            row.update(bad=bad.get("max_abs"), good=good.get("max_abs"))
        rows.append(row)
    if not rows:
        return None
    data = {"version": CHART_VERSION, "code": record["code"], "name": record.get("name"), "class": cls,
            "verdict": record.get("verdict"), "rows": rows}
    if cls == "perf":
        data.update(median=record.get("median_ratio"), threshold=record.get("threshold"))
    else:
        data.update(atol=record.get("atol"), rtol=record.get("rtol"))
    return data


def source_hash(data: dict) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def svg_source_hash(svg: str) -> str | None:
    """The ``chart_source_hash`` a chart drawn by :func:`draw` carries."""
    found = _SOURCE_HASH.search(svg)
    return found.group(1) if found else None


#: What to install for the charts: the one extra that holds matplotlib and nothing else.
MATPLOTLIB_MISSING = "charts need matplotlib: pip install 'kernelint[report]'"


def require_matplotlib() -> None:
    """Raise the install hint before anything is written when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ReportError(MATPLOTLIB_MISSING) from None


def draw(data: dict, image_format: str = "svg") -> bytes:
    """Render ``chart_data(record)`` as SVG or PNG bytes."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ReportError(MATPLOTLIB_MISSING) from None
    rows = data["rows"]
    labels = [_wrap(r["name"]) + ("\n(control)" if r["control"] else "")
              + (f"\ngood: {r['share']:.0%} of peak" if isinstance(r.get("share"), (int, float)) else "")
              for r in rows]
    with matplotlib.rc_context({"svg.hashsalt": "kernelint", "svg.fonttype": "none", "font.size": 9,
                                "font.family": "DejaVu Sans"}):
        figure, axes = plt.subplots(figsize=(max(6.5, 1.35 * len(rows) + 3.2), 3.9))
        positions = range(len(rows))
        width = 0.38
        if data["class"] == "perf":
            _perf_bars(axes, rows, positions, width)
            median = data.get("median")
            title = f"{data['code']} {data['name']}: bad vs good time per shape"
            if isinstance(median, (int, float)):
                title += f" (median {median:.2f}x, threshold {data.get('threshold') or 1.2:g}x)"
        else:
            _error_bars(axes, rows, positions, width, data.get("atol"), data.get("rtol"))
            title = f"{data['code']} {data['name']}: max abs error vs tolerance"
        axes.set_title(title, fontsize=10)
        axes.set_xticks(list(positions), labels, fontsize=7.5)
        if data["class"] != "perf":
            axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
        axes.grid(axis="y", which="major", alpha=0.3)
        axes.set_axisbelow(True)
        figure.tight_layout()
        buffer = io.BytesIO()
        metadata = ({"Date": None, "Creator": "kernelint",
                     "Description": f"kernelint-chart-source sha256:{source_hash(data)}"}
                    if image_format == "svg" else {"Software": "kernelint"})
        figure.savefig(buffer, format=image_format, metadata=metadata, dpi=110)
        plt.close(figure)
    return buffer.getvalue()


def _perf_bars(axes, rows, positions, width) -> None:
    from matplotlib.patches import Patch

    bad = [r["bad"] for r in rows]
    good = [r["good"] for r in rows]
    for offset, values, color in ((-width / 2, bad, _BAD), (width / 2, good, _GOOD)):
        bars = axes.bar([p + offset for p in positions], values, width, color=color, edgecolor="white")
        for bar, row in zip(bars, rows):
            if row["control"]:
                bar.set_alpha(0.45)
                bar.set_hatch("//")
    axes.set_yscale("log")
    axes.set_ylabel("median time per call (ms, log scale)")
    axes.set_ylim(min(bad + good) / 2.5, max(bad + good) * 6)
    for position, row in zip(positions, rows):
        ratio = row.get("ratio")
        if isinstance(ratio, (int, float)):
            axes.annotate(f"{ratio:.2f}x", (position, max(row["bad"], row["good"])), xytext=(0, 4),
                          textcoords="offset points", ha="center", va="bottom", fontsize=8.5,
                          fontweight="bold", color=_BAD if ratio >= 1.2 else "#34495e")
    axes.legend(handles=[Patch(color=_BAD, label="bad"), Patch(color=_GOOD, label="good"),
                         Patch(facecolor="white", edgecolor=_CONTROL, hatch="//", label="control\n(not counted)")],
                loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)


def _error_bars(axes, rows, positions, width, atol, rtol) -> None:
    finite = [v for r in rows for v in (r["bad"], r["good"]) if isinstance(v, (int, float)) and v > 0]
    floor = min(finite + [atol or 1.0]) / 100 if finite or atol else 1e-12
    ceiling = max(finite + [atol or 1.0]) * 100

    def height(value):
        if isinstance(value, str):  # "inf" / "nan" are kept as text in records
            return ceiling
        return value if isinstance(value, (int, float)) and value > 0 else floor

    for offset, key, color in ((-width / 2, "bad", _BAD), (width / 2, "good", _GOOD)):
        heights = [height(r[key]) for r in rows]
        bars = axes.bar([p + offset for p in positions], heights, width, label=f"{key} max abs error",
                        color=color, edgecolor="white")
        for bar, row in zip(bars, rows):
            value = row[key]
            text = value if isinstance(value, str) else number(value) if value is not None else "n/a"
            axes.annotate(text, (bar.get_x() + bar.get_width() / 2, bar.get_height()), xytext=(0, 2),
                          textcoords="offset points", ha="center", va="bottom", fontsize=6.5)
    axes.set_yscale("log")
    axes.set_ylim(floor, ceiling * 10)
    if isinstance(atol, (int, float)) and atol > 0:
        axes.axhline(atol, color="#27ae60", linestyle="--", linewidth=1.2,
                     label=f"tolerance: atol {atol:g} (+ rtol {rtol or 0:g} x |reference|)")
    axes.set_ylabel("max abs error (log scale)")


def _wrap(name: str, width: int = 16) -> str:
    parts, line = [], ""
    for piece in re.split(r"(?<=-)", name):
        if line and len(line) + len(piece) > width:
            parts.append(line)
            line = ""
        line += piece
    return "\n".join(parts + [line])


def failure_lines(record: dict) -> list[str]:
    """Markdown lines, one per case, with the bad run's exact failure (crash, compile, hang pairs)."""
    lines = []
    for case in record.get("cases") or []:
        bad, good = case.get("bad") or {}, case.get("good") or {}
        label = f"`{case['name']}`" + (" (control)" if case.get("control") else "")
        if bad.get("outcome") in ("error", "broken") and "error_type" in bad:
            what = f"`{error_line(bad)}`"
        elif bad.get("outcome") == "died":
            what = f"process died (`{(bad.get('error_text') or '').splitlines()[0] if bad.get('error_text') else '?'}`)"
        else:
            what = describe_run(bad) if bad else "not run"
        good_text = "ran and matched the reference" if good.get("outcome") == "ok" else describe_run(good) if good else "not run"
        lines.append(f"- {label}: bad {what}; good {good_text}.")
    return lines


# --- the page ---------------------------------------------------------------------------------

def write_report(records: list[dict], out_dir: Path, image_format: str = "svg",
                 unmeasured: list[dict] = ()) -> Path:
    """Write ``out_dir/index.html`` and ``out_dir/charts/``; returns the page's path. ``unmeasured``
    (see ``unmeasured_rules``) get a section saying so, after the measured ones."""
    if image_format not in ("svg", "png"):
        raise ReportError(f"charts are svg or png, not {image_format!r}")
    charts = [chart_data(record) for record in records]
    if any(data is not None for data in charts):
        require_matplotlib()  # before any folder exists: a failed run leaves nothing behind
    charts_dir = out_dir / "charts"
    charts_dir.mkdir(parents=True, exist_ok=True)
    sections = []
    for record, data in zip(records, charts):
        image = None
        if data is not None:
            image = draw(data, image_format)
            (charts_dir / f"{_anchor(record)}.{image_format}").write_bytes(image)
        sections.append(_section(record, image, image_format))
    sections += [_unmeasured_section(rule) for rule in unmeasured]
    page = out_dir / "index.html"
    page.write_text(_page([*records, *unmeasured], sections), encoding="utf-8")
    return page


def _unmeasured_section(rule: dict) -> str:
    code = html.escape(rule["code"])
    return "\n".join([
        f'<section id="{code}">', f"<h2>{code} <code>{html.escape(rule['name'])}</code></h2>",
        f'<p class="meta">{html.escape(rule["evidence_class"])} &middot; '
        '<span class="verdict unmeasured">not measured yet</span></p>',
        "<p>The reference pair is written; no GPU record is committed. Run "
        f"<code>{html.escape(rule['command'])}</code> on a GPU.</p>",
        f'<p class="claim">Seed claim: {html.escape(rule["claim"])}</p>',
        "</section>",
    ])


def _section(record: dict, image: bytes | None, image_format: str) -> str:
    code, name = html.escape(_anchor(record)), html.escape(record.get("name") or "")
    parts = [f'<section id="{code}">', f"<h2>{code} <code>{name}</code></h2>",
             f'<p class="meta">{html.escape(record.get("evidence_class") or "?")} &middot; '
             f'<span class="verdict {html.escape(record.get("verdict") or "")}">{html.escape(record.get("verdict") or "?")}</span>'
             f" &middot; {html.escape(record.get('reason') or '')}</p>"]
    if record.get("outcome"):
        parts.append(f"<p><b>Measured:</b> {html.escape(record['outcome'])}</p>")
    if image is not None:
        if image_format == "svg":
            svg = image.decode("utf-8")
            parts.append('<figure class="chart">' + svg[svg.index("<svg"):] + "</figure>")
        else:
            encoded = base64.b64encode(image).decode("ascii")
            parts.append(f'<figure class="chart"><img alt="{code} chart" src="data:image/png;base64,{encoded}"></figure>')
    parts.append(_case_table(record))
    if record.get("claim"):
        parts.append(f'<p class="claim">Seed claim: {html.escape(record["claim"])}</p>')
    parts.append(f'<p class="meta">Measured on {html.escape(machine(record))}, '
                 f"{html.escape(str(record.get('date', 'date unknown')))}, by "
                 f"<code>{html.escape(str(record.get('command', 'kernelint prove')))}</code>.</p>")
    parts.append("</section>")
    return "\n".join(parts)


def _case_table(record: dict) -> str:
    cls = record.get("evidence_class")
    gpu = (record.get("environment") or {}).get("gpu")
    if cls == "perf":
        head = ["case", "bad ms", "good ms", "bad/good", "bad throughput", "good throughput", "good, share of peak"]
    elif cls == "numerics":
        head = ["case", "bad max abs", "bad max rel", "good max abs", "good max rel", "out of tolerance"]
    else:
        head = ["case", "bad kernel: exact failure", "good kernel"]
    rows = []
    for case in record.get("cases") or []:
        bad, good = case.get("bad") or {}, case.get("good") or {}
        label = html.escape(case["name"]) + (" <i>(control)</i>" if case.get("control") else "")
        label += f'<br><small>{html.escape(params(case))}</small>'
        if cls == "perf":
            share = roofline.fraction(good, gpu)
            cells = [_ms(bad), _ms(good), f"{case['ratio']:.2f}x" if isinstance(case.get("ratio"), (int, float)) else "n/a",
                     _throughput(bad), _throughput(good), "n/a" if share is None else f"{share:.1%}"]
        elif cls == "numerics":
            cells = [number(bad.get("max_abs")), number(bad.get("max_rel")), number(good.get("max_abs")),
                     number(good.get("max_rel")), f"{bad.get('mismatched', 0):,} of {bad.get('numel', 0):,}"]
        else:
            cells = [_failure(bad), html.escape(describe_run(good)) if good else "n/a"]
        rows.append("<tr><td>" + label + "</td>" + "".join(
            f"<td>{c if cls not in CHART_CLASSES else html.escape(c)}</td>" for c in cells) + "</tr>")
    header = "".join(f"<th>{h}</th>" for h in head)
    return f'<table><thead><tr>{header}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _failure(run: dict) -> str:
    """The bad run's failure, exactly: the error line, then the end of its message or stderr."""
    if not run:
        return "n/a"
    outcome = run.get("outcome")
    if outcome == "error" or (outcome == "broken" and "error_type" in run):
        detail = run.get("error_message") or ""
        return (f"<b>{html.escape(error_line(run))}</b>"
                + (f"<pre>{html.escape(_last_lines(detail))}</pre>" if detail.count("\n") else ""))
    if outcome == "died":
        return f"<b>process died</b><pre>{html.escape(_last_lines(run.get('error_text', '')))}</pre>"
    return html.escape(describe_run(run))


def _last_lines(text: str, count: int = 8) -> str:
    return "\n".join(text.strip().splitlines()[-count:])


def _ms(run: dict) -> str:
    return f"{run['time_ms']:.4f}" if isinstance(run.get("time_ms"), (int, float)) else run.get("outcome", "?")


def _throughput(run: dict) -> str:
    return f"{run['throughput']:.1f} {run.get('throughput_unit', '')}" if "throughput" in run else "n/a"


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { border-top: 1px solid #ddd; padding-top: 1em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.8em 0; }
td, th { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #f4f6f7; } pre { white-space: pre-wrap; margin: 0.3em 0; font-size: 0.9em; }
.meta { color: #555; font-size: 0.9em; } .claim { font-style: italic; color: #555; }
.verdict { font-weight: bold; } .reproduced { color: #1e8449; } .not-reproduced { color: #b9770e; }
.good-failed { color: #c0392b; } .unmeasured { color: #777; } figure.chart { margin: 0.5em 0; } figure.chart svg { max-width: 100%; height: auto; }
nav a { margin-right: 0.8em; }
"""


def _anchor(record: dict) -> str:
    """A record's section and chart name: its record name (``KL126``, ``KL126-cutile``)."""
    return record_name(record["code"], record.get("dsl"))


def _count(entries: list[dict]) -> str:
    unmeasured = sum("verdict" not in entry for entry in entries)
    text = f"{len(entries) - unmeasured} record(s)"
    return text + (f", {unmeasured} rule(s) not measured yet" if unmeasured else "")


def _page(records: list[dict], sections: list[str]) -> str:
    index = " ".join(f'<a href="#{html.escape(_anchor(r))}">{html.escape(_anchor(r))}</a>' for r in records)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<title>kernelint evidence</title>\n<style>" + _STYLE + "</style>\n</head>\n<body>\n"
        "<h1>kernelint evidence</h1>\n<p>What each rule's bad/good reference pair measured on a GPU: "
        "perf pairs as time per shape (ratio bad/good over each pair; control cases hatched), numerics pairs "
        "as error against the tolerance, crash, compile and hang pairs as the exact failure. "
        f"{_count(records)}.</p>\n<nav>{index}</nav>\n" + "\n".join(sections) + "\n</body>\n</html>\n"
    )
