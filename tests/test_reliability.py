"""Reliability of one file's check: whatever the file holds or whatever sits at its path, the
engine returns findings (KL001 where CPython's parser fails, KL002 where kernelint gives up,
with a reason) in bounded time and memory, never an exception."""
from __future__ import annotations

import ast
import os
import sys
import time
from dataclasses import replace

import pytest

from kernelint.engine import Options, check_file, check_source
from kernelint.model.core.values import MAX_FOLD_BITS, fold_int
from kernelint.reading import MAX_FILE_BYTES, Unreadable, read_bytes, syntax_message
from kernelint.rules import all_rules

ALL = Options(frozenset(rule.code for rule in all_rules()))

#: A fixed-tile Triton GEMM launch (KL202 folds its tile sizes, KL108 its grid values): the
#: module constant BLOCK is what constant folding has to get through.
FOLDED_KERNEL = '''\
import torch
import triton
import triton.language as tl

BLOCK = {block}


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_am = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_bn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + offs_am[:, None] * N + offs_bn[None, :], acc)


def run(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    grid = (triton.cdiv(M, BLOCK), triton.cdiv(N, 64))
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        BLOCK_M=BLOCK, BLOCK_N=64, BLOCK_K=32)
    return c
'''


def codes(findings) -> list[str]:
    return [f.code for f in findings]


def messages(findings) -> str:
    return "\n".join(f"{f.code} {f.message}" for f in findings)


# --- constant folding is bounded ----------------------------------------------------------------

def fold(text: str):
    return fold_int(ast.parse(text, mode="eval").body, lambda name: None)


@pytest.mark.parametrize("text", ["1 << (1 << 34)", "(2**64)**64", "10**400", f"1 << {MAX_FOLD_BITS}",
                                  "2**-1", f"{1 << MAX_FOLD_BITS} * 1"])
def test_fold_gives_up_beyond_the_bound(text):
    started = time.monotonic()
    assert fold(text) is None
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize("text, value", [("1 << 10", 1024), ("2**31 - 1", 2**31 - 1), ("-(64 * 64)", -4096),
                                         ("(1 << 40) // 3", (1 << 40) // 3), ("7 % 0", None)])
def test_fold_keeps_ordinary_constants(text, value):
    assert fold(text) == value


def test_folding_is_live_in_the_kernel_module():
    """The module really is folded: with an ordinary BLOCK, KL202 reports the fixed tiles."""
    assert "KL202" in codes(check_source("k.py", FOLDED_KERNEL.format(block="64"), ALL))


@pytest.mark.parametrize("block", ["1 << (1 << 34)", "1 << (1 << 16)", "(2**64)**64 + 1"])
def test_huge_constants_in_a_kernel_module_are_not_an_internal_error(block):
    started = time.monotonic()
    findings = check_source("k.py", FOLDED_KERNEL.format(block=block), ALL)
    assert "KL002" not in codes(findings), messages(findings)
    assert time.monotonic() - started < 10


def test_names_used_many_times_do_not_make_folding_exponential():
    # Without a bound on work, a8 expands to 10**8 leaves through the name lookups.
    chain = "\n".join(f"a{i} = " + " + ".join([f"a{i - 1}"] * 10) for i in range(1, 9))
    source = FOLDED_KERNEL.format(block="a8").replace("BLOCK = a8", f"a0 = 2\n{chain}\nBLOCK = a8")
    started = time.monotonic()
    findings = check_source("k.py", source, ALL)
    assert "KL002" not in codes(findings), messages(findings)
    assert time.monotonic() - started < 20


# --- the cuTile launch model ------------------------------------------------------------------

@pytest.mark.parametrize("call", ["ct.launch(stream, grid, kernel)", "ct.launch(stream, grid)", "ct.launch()",
                                  "ct.launch(*args)", "ct.launch(stream, grid, kernel, (x,), extra)"])
def test_half_typed_cutile_launch_is_not_an_internal_error(call):
    source = (
        "import cuda.tile as ct\n\n\n@ct.kernel\ndef kernel(x, TILE: ct.Constant[int]):\n"
        "    ct.store(x, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)))\n\n\n"
        f"def host(stream, grid, x, args):\n    {call}\n"
    )
    findings = check_source("host.py", source, ALL)
    assert "KL002" not in codes(findings), messages(findings)


# --- reading: size, kind of file ----------------------------------------------------------------

def test_a_50_mb_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.py"
    with open(path, "wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # sparse: no 50 MB written
    started = time.monotonic()
    findings = check_file(str(path), ALL)
    assert codes(findings) == ["KL002"]
    assert "larger than 10 MiB" in findings[0].message
    assert time.monotonic() - started < 5


def test_a_large_text_from_a_front_end_is_refused_without_parsing():
    source = "import triton\n" + "x = 1\n" * (MAX_FILE_BYTES // 6 + 1)
    findings = check_source("big.py", source, ALL)
    assert codes(findings) == ["KL002"] and "larger than" in findings[0].message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_named_like_a_python_file_does_not_block(tmp_path):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    with pytest.raises(Unreadable, match="not a regular file"):
        read_bytes(str(fifo))
    assert codes(check_file(str(fifo), ALL)) == ["KL002"]


def test_a_device_named_like_a_python_file_is_not_read(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    link = tmp_path / "zero.py"
    link.symlink_to("/dev/zero")
    findings = check_file(str(link), ALL)
    assert codes(findings) == ["KL002"] and "not a regular file" in findings[0].message


def test_a_file_deleted_before_it_is_read(tmp_path):
    findings = check_file(str(tmp_path / "gone.py"), ALL)
    assert codes(findings) == ["KL002"] and "cannot read file" in findings[0].message


# --- parsing: KL001 exactly where CPython's parser fails, with a reason -------------------------

DEEP = {
    "parentheses": "x = " + "(" * 100_000 + "1" + ")" * 100_000 + "\n",
    "lists": "x = " + "[" * 100_000 + "]" * 100_000 + "\n",
    "unary minus": "import triton\nx = " + "-" * 100_000 + "1\n",
    "additions": "import triton\nx = " + " + ".join(["1"] * 100_000) + "\n",
    "attributes": "import triton\nx = a" + ".b" * 100_000 + "\n",
    "calls": "import triton\nx = f" + "()" * 100_000 + "\n",
    "blocks": "import triton\n" + "".join("    " * i + "if x:\n" for i in range(100)) + "    " * 100 + "pass\n",
}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_deep_nesting_gives_a_finding_with_a_reason(name):
    source = "import triton\n" + DEEP[name]
    try:
        ast.parse(source)
        parses = True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        parses = False
    started = time.monotonic()
    findings = check_source("deep.py", source, ALL)
    assert time.monotonic() - started < 30
    if not parses:
        assert codes(findings) == ["KL001"], messages(findings)
        assert findings[0].message.split(":", 1)[1].strip(), "the reason must not be empty"
    else:
        assert "KL001" not in codes(findings)


@pytest.mark.parametrize("data", [
    b"import triton\nx = 1\0\n",
    b"\xff\xfe\x00import triton\n",
    b"\xef\xbb\xbfimport triton\r\nx = 1\r\n",
    b"# -*- coding: latin-1 -*-\nimport triton\nname = '\xe9'\n",
    b"# -*- coding: no-such-codec -*-\nimport triton\n",
    bytes(range(256)) * 64,
    b"import triton\n\x00\x01\x02\x03" * 1000,
])
def test_odd_bytes_never_raise(tmp_path, data):
    path = tmp_path / "odd.py"
    path.write_bytes(data)
    findings = check_file(str(path), ALL)
    assert set(codes(findings)) <= {"KL001"}, messages(findings)


def newer(msg: str, text: str) -> SyntaxError:
    return SyntaxError(msg, ("k.py", 1, 1, text))


@pytest.mark.parametrize("msg, text, needed", [
    ("expected '('", "def add[T](a: T, b: T) -> T:\n", "3.12"),
    ("invalid syntax", "class Box[T]:\n", "3.12"),
    ("invalid syntax", "type Vector = list[float]\n", "3.12"),
    ("f-string: unmatched '['", 'y = f"{row["name"]}"\n', "3.12"),
    ("unexpected character after line continuation character", 'y = f"{"\\n".join(z)}"\n', "3.12"),
    ("invalid syntax", "except* ValueError:\n", "3.11"),
    ("multiple exception types must be parenthesized", "except A, B:\n", "3.14"),
])
def test_syntax_of_a_newer_python_names_the_version_needed(msg, text, needed):
    message = syntax_message(newer(msg, text), running=(3, 10))
    assert f"Python {needed} or newer" in message and "Python 3.10" in message


@pytest.mark.parametrize("msg, text", [
    ("invalid syntax", "def f(:\n"),
    ("f-string: empty expression not allowed", "x = 1 + 2\n"),
    ("'(' was never closed", 'print(f"{x}"\n'),
])
def test_plain_syntax_errors_stay_plain(msg, text):
    assert syntax_message(newer(msg, text), running=(3, 11)) == f"file does not parse: {msg}"


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the running Python accepts PEP 695")
@pytest.mark.parametrize("source", ["def add[T](a: T) -> T:\n    return a\n"])  # PEP 701 f-strings are read
def test_real_parse_of_newer_syntax_names_the_version(source):
    findings = check_source("new.py", "import triton\n" + source, ALL)
    assert codes(findings) == ["KL001"]
    assert "Python 3.12 or newer" in findings[0].message


def test_the_collector_is_paused_during_a_check_and_resumed_after(monkeypatch):
    """Every front end (the CLI's workers, the language server, flake8, pylint) checks a file
    with the collector paused and runs it over the young generation after; a caller that paused
    it itself keeps it paused."""
    import gc

    from kernelint import engine

    seen = []
    real_parse = engine.parse
    monkeypatch.setattr(engine, "parse", lambda *a, **k: seen.append(gc.isenabled()) or real_parse(*a, **k))
    source = FOLDED_KERNEL.format(block=64)
    assert gc.isenabled()
    check_source("k.py", source, ALL)
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        check_source("k.py", source, ALL)
        assert seen == [False, False] and not gc.isenabled()
    finally:
        gc.enable()


def _parsed_trees(monkeypatch) -> list:
    """Every tree the engine parses from now on, held strongly."""
    from kernelint import engine

    trees = []
    real_parse = engine.parse
    monkeypatch.setattr(engine, "parse", lambda *a, **k: trees.append(real_parse(*a, **k)) or trees[-1])
    return trees


def test_a_checked_tree_is_freed_without_the_collector(monkeypatch):
    """Parent links and kept answers make a checked file's tree and model one big cycle; after a
    batch check the engine takes them apart, so they are freed when dropped instead of waiting
    for the collector to trace them (``FileContext.dismantle``)."""
    import gc
    import weakref

    trees = _parsed_trees(monkeypatch)
    gc.disable()  # a caller that paused the collector keeps it paused: no collection at the end
    try:
        findings = check_source("k.py", FOLDED_KERNEL.format(block=64), ALL)
        freed = weakref.ref(trees.pop())
        assert findings and freed() is None
    finally:
        gc.enable()


def test_a_tree_the_engine_did_not_parse_or_keeps_is_left_whole(monkeypatch):
    """A front end's own tree (flake8 passes its parse) and the language server's kept checks
    still hold their trees after a check: only a tree the engine parsed for a batch check is
    taken apart, and a second check of a tree handed in finds the same."""
    from kernelint import engine

    source = FOLDED_KERNEL.format(block=64)
    tree = ast.parse(source)
    first = check_source("k.py", source, ALL, tree=tree)
    assert first and check_source("k.py", source, ALL, tree=tree) == first
    assert tree.body and all(hasattr(node, "_kl_parent") for node in tree.body)
    trees = _parsed_trees(monkeypatch)
    engine.keep_kernel_findings(True)
    try:
        assert check_source("kept.py", source, ALL) == [replace(f, path="kept.py") for f in first]
    finally:
        engine.keep_kernel_findings(False)
    assert trees[0].body and all(hasattr(node, "_kl_parent") for node in trees[0].body)
