"""KL145 store-load-race-without-barrier: a program stores to global memory and loads other
threads' elements back with no ``tl.debug_barrier()`` between."""
from __future__ import annotations

from kernelint.findings import Severity
from kernelint.model.triton.readback import cross_position_readbacks
from kernelint.rules import Because, Report, Rule


def _position(values: tuple[int, ...]) -> str:
    return str(values[0]) if len(values) == 1 else "(" + ", ".join(map(str, values)) + ")"


class StoreLoadRaceWithoutBarrier(Rule):
    code = "KL145"
    name = "store-load-race-without-barrier"
    family = "triton-correctness"
    dsl = "triton"
    severity = Severity.INFO
    default_enabled = False
    evidence_class = "numerics"
    summary = ("A `tl.load` reads global elements that other threads of the same program stored just "
               "before, with no `tl.debug_barrier()` between: it can read them before they are written.")
    per_kernel = "triton"
    doc = """
## What it does
Flags a `tl.load` that reads back, at other tile positions, global memory the same program
stored earlier in the kernel with `tl.store`, when no `tl.debug_barrier()` lies between them: a
tile written row-major to a scratch buffer and read back transposed (`cols[None, :] * BLOCK +
rows[:, None]`), reversed (`BLOCK - 1 - offs`) or shifted by less than a tile (`offs + 1`).
The rule compares the two offsets as the index engine reads them: the same program region (the
parts that do not depend on `tl.arange` lanes are equal, loop variables of loops over the same
range identified) and, with the tile's sizes set to a small sample value, some position's load
address is an address the store wrote at another position.

It stays silent on a thread reading back its own element (the same offset, such as a row stored
in one loop and reloaded in a second loop over the same range), on a load or store whose offset
depends on loaded data or divides a lane (`offs // D`, `offs % D`), on reads of another
program's region (a neighbour's tile, a per-program partial sum read by a later program: a
barrier does not order programs), on `volatile=True` loads (the form used for flags polled
across programs), on a store and load in the two branches of one `if`, and whenever a
`tl.debug_barrier()` is between them.

## Why is this bad?
A program's tile is spread over its threads (each holds some of the elements), and Triton orders
accesses to shared memory for you but not to global memory: a `tl.store` and a later `tl.load`
of the same buffer are not synchronised. When the element a thread loads was stored by another
thread, typically another warp, the load can run before that store reaches memory and return
the old contents. The result depends on warp timing, so it can pass tests and fail under load
or on another GPU (intel-xpu-backend-for-triton PR #7494: a kernel that wrote a global buffer and
read it back with a different layout; pytorch #190517: the same in an Inductor kernel).
`tl.debug_barrier()` (a CTA-wide barrier) between the store and the load makes every store of
the program visible to all its threads before any of them loads.

A thread reading back the element it stored itself is not flagged, though Triton does not
promise that the stored value and the loaded tile give the element to the same thread (the
layouts are the compiler's choice, pytorch #190517); where they differ that form races too.

Not reproduced on the H200 (Triton 3.6.0): the reference pair (each program transposes a
32 x 32 or 64 x 64 fp32 tile through its scratch region, 8 warps, 4,096 and 16,384 tiles) gave
the right result in 3 of 3 cases, and in 10 repeated runs of each of 4,096 tiles of 32 x 32 and
64 x 64 no element was wrong (0 of 4.2 and 16.8 million per run). The race is in the compiled code
(Triton 3.6.0 for sm_90, 8 warps, BLOCK 64: each thread's 16 `st.global` to the scratch tile are
followed by its 16 `ld.global` of other threads' elements with no `bar.sync` between; the good
kernel has one), but on the H200 every program's stores landed before its loads read them in
every run. The reports the rule comes from are on Intel GPUs.
The rule is info and off by default: the code is still unsynchronised (no guarantee from Triton
or CUDA), but no failure was measured. Turn it on with `extend-select = ["KL145"]`.

## Example
```python
tl.store(scratch_ptr + base + rows[:, None] * BLOCK + cols[None, :], tile)
transposed = tl.load(scratch_ptr + base + cols[None, :] * BLOCK + rows[:, None])
```

## Use instead
```python
tl.store(scratch_ptr + base + rows[:, None] * BLOCK + cols[None, :], tile)
tl.debug_barrier()
transposed = tl.load(scratch_ptr + base + cols[None, :] * BLOCK + rows[:, None])
```
or transpose in registers (`tl.trans(tile)`), which needs no round trip through memory.
"""
    references = """
- intel/intel-xpu-backend-for-triton PR #7494 ("Add barrier for global buffer read back with a
  different layout") and #7962; triton-lang/triton PR #10925 and its review ("there's no guarantee
  that tl.store and the following tl.load on the same address should avoid data race").
- pytorch/pytorch #190517: an Inductor kernel stored a buffer and read it back in the same kernel
  with no barrier; accuracy failure.
- Issue 23, item 5.
"""

    def check_kernel(self, kernel, ctx):
        for readback in cross_position_readbacks(ctx, kernel):
            store, load = readback.store, readback.load
            yield Report(
                load.node,
                f"this load reads `{store.pointer}` at elements other threads of the program stored at line "
                f"{store.node.lineno} (tile position {_position(readback.reader)} reads what position "
                f"{_position(readback.writer)} stored), with no `tl.debug_barrier()` between: it can run before "
                f"those stores land and read stale data; put `tl.debug_barrier()` after the store",
                facts=(Because(f"`{store.pointer}` stored here", store.node),
                       Because("tile sizes set to a sample value of 4 to compare the positions")),
            )
