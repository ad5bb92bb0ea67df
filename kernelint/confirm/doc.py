"""The ``kernelint confirm`` section of ``docs/evidence.md`` (the docs generator appends it)."""

SECTION = """
## Confirming a finding on your own code: `kernelint confirm`

A reference pair shows that a rule's defect is real on kernelint's own example. `kernelint confirm`
shows it on *your* kernel: it writes a harness for one finding, runs it, and says whether the
defect showed.

```sh
kernelint confirm src/ops/softmax.py:52:KL103            # a finding by place (and code)
kernelint confirm --from kernelint.sarif                 # the first finding with a recipe in a report
kernelint confirm src/ops/gate.py:180 --dry-run          # write the harness only (no GPU needed)
kernelint confirm src/ops/norm.py:221 --set eps=1e-6     # a value the source leaves open
kernelint confirm src/ops/gate.py:180 --set "A_log=shape:(H,)"   # a shape, in the entry's size names
```

What it does:

1. **Finds the entry.** It re-runs the rule on the file, takes the finding at that line, finds the
   kernel it is in (or the launch it is at), a launch of that kernel anywhere in the project
   (the program model's `launches_of`), and the top-level function around that launch: the
   *entry* the harness calls. The entry's parameters are read from its source: `B, T, H = g.shape`
   names a tensor's dimensions, `assert w.shape == (N,)` a whole shape, `x.view(-1, x.shape[-1])`
   a tensor of any rank flattened to rows, `x is None` that None is accepted, and a call of the
   entry elsewhere in the project (often a test: `A_log = torch.randn(H)`) the shape of a tensor
   the entry only passes on, or a number it leaves open (`eps`, forwarded from a caller's
   `eps=1e-6` default); a kernel whose `@triton.heuristics` test an argument against None takes
   None there. `assert q.dtype in [torch.float16, torch.bfloat16]` picks the dtype; `A = group[i]`
   makes `group` a list of such tensors; `if n_cols <= 8192: ... else: <launch>` makes the sizes
   take the branch that reaches the flagged launch. A finding at a host value (KL102's int32
   table) is followed to the launch that receives it. Nothing is imported to find this.
2. **Builds the triggering input from the rule's recipe** (`kernelint/confirm/recipes.py`; every
   crash and numerics rule names its recipe or says why it has none):
   - `grid-axis-65536` (KL126): the flagged grid axis at 65,536 programs, evaluated from the launch's
     grid expression, and a control at 65,535; confirmed when the control runs and the launch fails.
   - `elements-past-int32` (KL103, KL102): the tensor the flagged product addresses grown past 2^31
     elements (rows of 4,096); confirmed when it fails with an illegal address or its last rows
     differ from the fixed copy's. The harness checks free device memory before it allocates and
     refuses ("cannot build input: needs 12.0 GiB, ... free") when it is short.
   - `bf16-through-fp16-pointer` (KL101, KL121): the same values as bf16 and as fp16 (exact in
     both); confirmed when the bf16 outputs are far from the fp16 control's.
   - `length-not-multiple-of-block` (KL110, KL111, KL120, KL136, KL137): lengths of 1,000 and
     head sizes of 96, every tensor carved from a buffer whose tail is NaN in one run and zero in
     the control; confirmed when the outputs differ (a read past a tensor) or a guard changed (a
     write past one).
   - `second-call-after-autotune` (KL115): the entry twice in a fresh process; confirmed when the
     first (tuning) call's outputs differ from the second's. `--max-configs N` keeps the first N
     configs of the flagged kernel's autotuner.
3. **Runs it as is and against a control**, each run in its own process group under `prove`'s
   watchdog (`--timeout`, default 120 s per kernel call; a hang is a result), with the project's
   own module imported from the checkout (for the fixed run, from a temporary copy of the
   project with only the flagged line changed: for KL103 the index made int64 where it is
   defined, or the rule's own mechanical fix). Your checkout is never changed.
4. **Prints the verdict** (`confirmed`, `not reproduced`, or `cannot build input`, each with why)
   and writes the record (`kernelint-confirm/<CODE>-<file>-<line>/runs/verdict.json`: the finding,
   recipe, sizes, assumptions, each run's outcome and time, the verdict) next to the harness.

`confirm` runs your project's code; `check` never does, and `confirm` runs only when you ask for
it. The harness is a readable script: `--dry-run` writes it without running it, and
`python harness.py run --variant as-is --out DIR` then `python harness.py judge --out DIR` runs
it by hand. Where neither the entry nor a call of it shows a size or a type (a tensor read only
as `v.shape[-1]`, a scalar no call fixes), the command says so instead of guessing; `--set`
supplies it. An int parameter the source leaves to the caller is set to 64 and the harness says
so. `--interpret` runs under `TRITON_INTERPRET=1` on the CPU, where the mask recipe works on small
sizes (tests/test_confirm.py confirms a padded load end to end and, as the negative control, does
not confirm the same kernel with the load masked); the crash recipes need a GPU, and so does the
autotune recipe (Triton's autotuner needs a GPU driver to benchmark).
`benchmarks/found_bugs/confirm_all.py` runs `confirm` on every found bug of `docs/found-bugs.md`.
"""
