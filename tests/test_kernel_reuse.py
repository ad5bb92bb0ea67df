"""Per-kernel findings kept between checks of a file (``kernelint/reuse.py``), as the language
server keeps them: after every edit the answer equals a fresh check's, and an edit in one kernel
runs the per-kernel rules only on that kernel and the kernels it calls or is called by."""
from __future__ import annotations

import textwrap
from collections import Counter

import pytest

from kernelint import engine
from kernelint.lsp.server import Server
from kernelint.model.kernels import Kernel
from kernelint.model.project import facts
from kernelint.reuse import KernelFindings, KernelKeys
from kernelint.rules import all_rules

SOURCE = textwrap.dedent('''\
    """Three kernels, a helper and their launches."""
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def _block_start(tile, BLOCK: tl.constexpr):
        return tile + tl.arange(0, BLOCK)


    @triton.jit
    def row_sum_kernel(x_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        row_ptr = x_ptr + row * stride
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for start in range(0, n_cols, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            acc += tl.load(row_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        tl.store(out_ptr + row, tl.sum(acc, axis=0))


    @triton.jit
    def offset_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = _block_start(pid, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(out_ptr + offs, x * scale, mask=offs < n)


    @triton.jit
    def scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        tl.store(out_ptr + offs, x * scale)


    def row_sums(x):
        rows, cols = x.shape
        out = torch.empty(rows, device=x.device, dtype=torch.float32)
        row_sum_kernel[(rows,)](x, out, x.stride(0), cols, BLOCK=1024)
        return out


    def shifted(x, s):
        out = torch.empty_like(x)
        n = x.numel()
        offset_kernel[(triton.cdiv(n, 1024),)](x, out, n, s, BLOCK=1024)
        return out


    def scaled(x):
        n = x.numel()
        buffer = torch.full((n + 1024,), -1.0, dtype=x.dtype, device=x.device)
        out = buffer[:n]
        scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, 2.0, BLOCK=1024)
        return buffer
''')

#: Edits applied one after another, each ``(old, new)`` once: in a kernel, in a helper, in host
#: code, lines added and removed, and back.
EDITS = [
    ("    row = tl.program_id(0)\n", "    row = tl.program_id(0).to(tl.int64)\n"),  # KL103 goes
    ("    return tile + tl.arange", "    return tile * BLOCK + tl.arange"),  # KL117 goes (helper)
    ("    mask = offs < n\n", "\n    mask = offs < n\n"),  # a line added: every position after moves
    ("    return tile * BLOCK + tl.arange", "    return tile + tl.arange"),  # KL117 back
    ("    tl.store(out_ptr + offs, x * scale)\n", "    tl.store(out_ptr + offs, x * scale, mask=mask)\n"),
    ("    row = tl.program_id(0).to(tl.int64)\n", "    row = tl.program_id(0)\n"),  # KL103 back
    ("    rows, cols = x.shape\n", "    rows, cols = x.shape[0], 4096\n"),  # host: a known size
    ("    out = buffer[:n]\n", "    out = buffer[:n]  # a view\n"),
    ("\n    mask = offs < n\n", "    mask = offs < n\n"),  # the line removed again
    ("    tl.store(out_ptr + offs, x * scale, mask=mask)\n", "    tl.store(out_ptr + offs, x * scale)\n"),
]


def _options() -> engine.Options:
    return engine.Options(frozenset(r.code for r in all_rules()))


def _per_kernel_codes() -> set[str]:
    return {r.code for r in all_rules() if r.per_kernel}


@pytest.fixture
def kept():
    engine.keep_kernel_findings(True)
    yield
    engine.keep_kernel_findings(False)


@pytest.fixture
def ops(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    path = tmp_path / "ops.py"
    path.write_text(SOURCE)
    return path


def _fresh(path, source, options=None, calls=None) -> list:
    """A check with nothing kept (``calls``: a kernel-check counter it leaves as it found it)."""
    saved, engine._KEPT = engine._KEPT, None
    counted = Counter(calls) if calls is not None else None
    try:
        return engine.check_source(str(path), source, options or _options())
    finally:
        engine._KEPT = saved
        if calls is not None:
            calls.clear()
            calls.update(counted)


def test_every_edit_gives_what_a_fresh_check_gives(ops, kept):
    source = SOURCE
    answers = [engine.check_source(str(ops), source, _options())]
    assert answers[0] == _fresh(ops, source)
    for old, new in EDITS:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
        answers.append(engine.check_source(str(ops), source, _options()))
        assert answers[-1] == _fresh(ops, source), (old, new)
    per_kernel = [{(f.code, f.line, f.message) for f in a if f.code in _per_kernel_codes()} for a in answers]
    # the edits change the per-kernel findings (else the test could not fail)
    assert sum(a != b for a, b in zip(per_kernel, per_kernel[1:])) >= 6
    assert {"KL103", "KL117", "KL136"} <= {code for a in per_kernel for code, _, _ in a}


def _count_kernel_checks(monkeypatch) -> Counter:
    calls: Counter = Counter()
    for rule in all_rules():
        if rule.per_kernel:
            def counted(self, kernel, ctx, real=rule.check_kernel, code=rule.code):
                calls[code, kernel.name] += 1
                return real(self, kernel, ctx)
            monkeypatch.setattr(rule, "check_kernel", counted)
    return calls


def test_an_edit_in_one_kernel_runs_only_its_component(ops, kept, monkeypatch):
    calls = _count_kernel_checks(monkeypatch)
    engine.check_source(str(ops), SOURCE, _options())
    rules = len(_per_kernel_codes())
    assert sum(calls.values()) == 4 * rules
    calls.clear()
    # within one line of the helper: the helper and its caller run again, not the other two
    edited = SOURCE.replace("return tile + tl.arange", "return tile  + tl.arange")
    assert engine.check_source(str(ops), edited, _options()) == _fresh(ops, edited, calls=calls)
    assert {name for _, name in calls} == {"_block_start", "offset_kernel"}
    calls.clear()
    # the same text again: nothing runs
    engine.check_source(str(ops), edited, _options())
    assert not calls
    # host code: the kernels it launches or that read it run again, not the others
    edited = edited.replace("n = x.numel()\n", "n = x.numel()  # elements\n", 1)  # in shifted()
    assert engine.check_source(str(ops), edited, _options()) == _fresh(ops, edited, calls=calls)
    assert {name for _, name in calls} == {"_block_start", "offset_kernel"}
    calls.clear()
    # a comment line between functions: nothing reads it
    edited = edited.replace("\n\ndef scaled", "\n# scaled\ndef scaled")
    assert engine.check_source(str(ops), edited, _options()) == _fresh(ops, edited, calls=calls)
    assert not calls
    # a comment on the import of `tl`, which every kernel spells: what it binds is unchanged
    edited = edited.replace("import triton.language as tl\n", "import triton.language as tl  # the DSL\n")
    assert engine.check_source(str(ops), edited, _options()) == _fresh(ops, edited, calls=calls)
    assert not calls
    # `tl` bound another way: every kernel runs again
    edited = edited.replace("import triton.language as tl  # the DSL\n", "from triton import language as tl\n")
    assert engine.check_source(str(ops), edited, _options()) == _fresh(ops, edited, calls=calls)
    assert sum(calls.values()) == 4 * rules


def test_a_line_added_reruns_only_the_kernels_with_findings(ops, kept, monkeypatch):
    """A line added in one kernel moves every position after it: the kernels it reaches run
    again, and so does every kernel that had findings (their positions moved); a kernel without
    findings keeps none."""
    calls = _count_kernel_checks(monkeypatch)
    engine.check_source(str(ops), SOURCE, _options())
    calls.clear()
    edited = SOURCE.replace("    return tile + tl.arange", "    tile = tile\n    return tile + tl.arange")
    assert engine.check_source(str(ops), edited, _options()) == _fresh(ops, edited, calls=calls)
    rules = len(_per_kernel_codes())
    assert sum(n for (_, name), n in calls.items() if name in ("_block_start", "offset_kernel")) == 2 * rules
    assert {(code, name) for code, name in calls if name not in ("_block_start", "offset_kernel")} \
        == {("KL103", "row_sum_kernel"), ("KL136", "scale_kernel"), ("KL146", "scale_kernel")}


def test_a_line_added_after_a_kernel_moves_the_launch_its_finding_names(ops, kept):
    """KL103's finding in ``row_sum_kernel`` says where the kernel is launched: a line added in a
    later kernel moves that launch, so the finding is not kept as it was."""
    first = engine.check_source(str(ops), SOURCE, _options())
    edited = SOURCE.replace("    mask = offs < n\n", "\n    mask = offs < n\n")
    after = engine.check_source(str(ops), edited, _options())
    assert after == _fresh(ops, edited)
    launched = [fact.text for f in first + after if f.code == "KL103" for fact in f.facts if "launched" in fact.text]
    assert len(launched) == 2 and launched[0] != launched[1]


def test_other_options_other_findings(ops, kept, monkeypatch):
    calls = _count_kernel_checks(monkeypatch)
    engine.check_source(str(ops), SOURCE, _options())
    calls.clear()
    hopper = engine.Options(_options().codes, target_arch="sm_90")
    assert engine.check_source(str(ops), SOURCE, hopper) == _fresh(ops, SOURCE, hopper, calls)
    assert sum(calls.values()) == 4 * len(_per_kernel_codes())


def _two_launching_modules(tmp_path):
    """``pkg/kernels.py`` holds two kernels; ``launch_rows.py`` launches the first with a
    data-sized tensor (KL103 in it), ``launch_scale.py`` the second. Returns the three paths."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    kernels = tmp_path / "pkg" / "kernels.py"
    kernels.write_text(SOURCE[:SOURCE.index("def row_sums")])
    rows = tmp_path / "pkg" / "launch_rows.py"
    rows.write_text("import torch\nimport triton\nfrom pkg.kernels import row_sum_kernel\n\n\n"
                    + SOURCE[SOURCE.index("def row_sums"):SOURCE.index("def shifted")])
    scale = tmp_path / "pkg" / "launch_scale.py"
    scale.write_text("import torch\nimport triton\nfrom pkg.kernels import scale_kernel\n\n\n"
                     + SOURCE[SOURCE.index("def scaled"):])
    return kernels, rows, scale


def test_a_change_on_disk_drops_what_read_it(tmp_path, kept):
    """Facts from another module hold only until the server looks at the files again (a save,
    a watched file): the launcher's shapes change on disk, the kernel's buffer does not."""
    kernels, rows, _ = _two_launching_modules(tmp_path)
    kernel_text = kernels.read_text()
    first = engine.check_source(str(kernels), kernel_text, _options())
    assert "KL103" in {f.code for f in first}
    rows.write_text(rows.read_text().replace("rows, cols = x.shape", "rows, cols = x.shape[0], 16"))
    Server._forget_settings()  # what a save or a watched-file change does
    after = engine.check_source(str(kernels), kernel_text, _options())
    assert after == _fresh(kernels, kernel_text)
    assert "KL103" not in {f.code for f in after}


def test_a_save_that_changes_nothing_they_read_keeps_them(tmp_path, kept, monkeypatch):
    """Saving the buffer itself, or another module none of its answers read, runs no kernel
    again; a module that only the check before last read, for a kernel kept since, still
    counts."""
    kernels, rows, _ = _two_launching_modules(tmp_path)
    (tmp_path / "pkg" / "unrelated.py").write_text("X = 1\n")
    kernel_text = kernels.read_text()
    calls = _count_kernel_checks(monkeypatch)
    engine.check_source(str(kernels), kernel_text, _options())
    edited = kernel_text.replace("    x = tl.load(x_ptr + offs, mask=mask, other=0.0)\n",
                                 "    x = tl.load(x_ptr + offs, mask=mask, other=0.0)  # typed\n")
    engine.check_source(str(kernels), edited, _options())  # scale_kernel runs again, row_sum_kernel is kept
    kernels.write_text(edited)
    (tmp_path / "pkg" / "unrelated.py").write_text("X = 2\n")
    Server._forget_settings()
    calls.clear()
    assert engine.check_source(str(kernels), edited, _options()) == _fresh(kernels, edited, calls=calls)
    assert not calls
    rows.write_text(rows.read_text().replace("rows, cols = x.shape", "rows, cols = x.shape[0], 16"))
    Server._forget_settings()
    after = engine.check_source(str(kernels), edited, _options())
    assert after == _fresh(kernels, edited, calls=calls) and "KL103" not in {f.code for f in after}
    assert calls[("KL103", "row_sum_kernel")] == 1


def test_a_kept_answer_depends_on_what_its_own_check_read(tmp_path):
    """A check that reuses every answer asks no other module anything; the answers still hold
    only while what the check that found them read does."""
    import ast

    other = tmp_path / "other.py"
    other.write_text("X = 1\n")
    tree = ast.parse(SOURCE)
    kernels = [Kernel(node, "triton", ["triton.jit"]) for node in tree.body if isinstance(node, ast.FunctionDef)
               and node.decorator_list]
    store = KernelFindings()

    def check(reads: dict) -> list:
        one = store.for_check("ops.py", SOURCE, tree, kernels, None)
        kept = [one.get("KL103", kernel) for kernel in kernels]
        for kernel, entry in zip(kernels, kept):
            if entry is None:
                one.new("KL103", kernel, ())
        one.done(reads)
        return kept

    assert check({f"file:{other}": facts.current(f"file:{other}")}) == [None] * 4
    assert None not in check({})  # everything kept, nothing read
    store.look_again()
    assert None not in check({})  # nothing changed on disk
    other.write_text("X = 2\n")
    store.look_again()
    assert check({}) == [None] * 4


def _keys(source: str) -> dict[str, object]:
    import ast

    tree = ast.parse(source)
    kernels = [Kernel(node, "triton", ["triton.jit"]) for node in tree.body if isinstance(node, ast.FunctionDef)]
    keys = KernelKeys(source, tree, kernels, None)
    return {k.name: keys.of(k) for k in kernels}


def test_keys_follow_the_call_graph_by_name():
    text = "def a(x):\n    return b(x)\n\n\ndef b(x):\n    return x\n\n\ndef c(x):\n    return x\n"
    before = _keys(text)
    assert len(set(before.values())) == 3  # one component, one key per kernel all the same
    after = _keys(text.replace("    return x\n\n\ndef c", "    return x + 1\n\n\ndef c"))  # b's body
    assert before["a"] != after["a"] and before["b"] != after["b"] and before["c"] == after["c"]
    moved = _keys(text.replace("    return b(x)\n", "    y = x\n    return b(y)\n"))  # a line more in a
    assert all(before[name] != moved[name] for name in "abc")


def test_bodies_that_could_bind_module_names_are_always_read():
    text = "def a(x):\n    global N\n    N = x\n\n\ndef b(x):\n    return x + N\n\n\ndef c(x): return x\n"
    before = _keys(text)
    assert before["b"] != _keys(text.replace("N = x", "N = 2 * x"))["b"]  # a binds the module name b reads
    assert before["c"] == _keys(text.replace("N = x", "N = 2 * x"))["c"]  # c reads no N
    one_line = text.replace("x + N", "x + c(x)")  # b calls c, whose body is on its signature's line
    assert _keys(one_line)["b"] != _keys(one_line.replace("def c(x): return x", "def c(x): return 2"))["b"]


def test_line_ends_as_python_counts_them():
    """``\\r\\n`` and ``\\r`` end lines; a form feed inside a line does not (``str.splitlines``
    would break there and misplace every body after it)."""
    text = "def a(x):\r\n    y = '\x0c'\r\n    return y + N\r\n\r\n\r\ndef b(x):\r    return x + N\r\nN = 1\r\n"
    before = _keys(text)
    body_of_b = _keys(text.replace("return x", "return 3"))
    assert before["a"] == body_of_b["a"] and before["b"] != body_of_b["b"]
    host = _keys(text.replace("N = 1", "N = 2"))
    assert before["a"] != host["a"] and before["b"] != host["b"]


def test_the_server_keeps_findings_while_it_serves(monkeypatch):
    import io
    import json

    body = json.dumps({"jsonrpc": "2.0", "method": "exit"}).encode()
    server = Server(io.BytesIO(b"Content-Length: %d\r\n\r\n" % len(body) + body), io.BytesIO())
    kept_while_serving = []
    real = Server._dispatch
    monkeypatch.setattr(Server, "_dispatch", lambda self, m: kept_while_serving.append(engine._KEPT) or real(self, m))
    server.serve()
    assert kept_while_serving and kept_while_serving[0] is not None
    assert engine._KEPT is None


def _bundled_multi_kernel_files() -> list:
    import ast
    from pathlib import Path

    root = Path(__file__).parent.parent
    found = []
    for path in sorted([*(root / "reference_kernels").rglob("*.py"), *(root / "tests" / "fixtures").rglob("*.py"),
                        *(root / "tests" / "projects").rglob("*.py")]):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        if len(_jitted(tree)) >= 2:
            found.append(path)
    return found


def _jitted(tree) -> list:
    import ast

    return sorted((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and any("jit" in ast.unparse(d) for d in n.decorator_list)), key=lambda n: n.lineno)


def _edits(source: str) -> list[str]:
    """Three texts after ``source``: a comment in the first kernel, a line added in the last,
    a comment in the host code (a module-level function that is not a kernel)."""
    import ast

    tree = ast.parse(source)
    kernels = _jitted(tree)
    lines = source.split("\n")

    def one_line_statements(function):
        return [n.lineno for n in ast.walk(function) if isinstance(n, ast.stmt) and n is not function
                and n.lineno == n.end_lineno and not isinstance(n, (ast.If, ast.For, ast.While, ast.With))]

    texts = []
    first = one_line_statements(kernels[0])
    if first:
        edited = list(lines)
        edited[max(first) - 1] += "  # edited"
        texts.append("\n".join(edited))
    last = one_line_statements(kernels[-1])
    if last:
        edited = list(texts[-1].split("\n") if texts else lines)
        edited.insert(min(last) - 1, "")
        texts.append("\n".join(edited))
    host = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n not in kernels]
    if host and texts:
        edited = texts[-1].split("\n")
        shift = 1 if len(texts) == 2 and host[0].lineno >= min(last) else 0
        edited[host[0].lineno - 1 + shift] += "  # host"
        texts.append("\n".join(edited))
    return texts


def test_kept_answers_equal_fresh_ones_on_the_bundled_kernels(kept):
    """Every fixture, pair and project file with two or more kernels, edited three times."""
    files = _bundled_multi_kernel_files()
    assert len(files) >= 50
    compared = 0
    for path in files:
        source = path.read_text(encoding="utf-8")
        engine.check_source(str(path), source, _options())
        for text in _edits(source):
            assert engine.check_source(str(path), text, _options()) == _fresh(path, text), path
            compared += 1
    assert compared >= 3 * 50
