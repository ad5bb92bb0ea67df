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
   *entry* the harness calls (the grid is the binding of its name that reaches the launch, or a
   one-line `def grid(meta): return (...)`). The entry's parameters are read from its source:
   `B, T, H = g.shape` names a tensor's dimensions, `*batch, n_cols = x.shape` its last ones (built
   with one leading dimension), `assert w.shape == (N,)` a whole shape, `x.view(-1, x.shape[-1])`
   a tensor of any rank flattened to rows, `x is None` that None is accepted, and a call of the
   entry elsewhere in the project (often a test: `A_log = torch.randn(H)`) the shape of a tensor
   the entry only passes on, or a number it leaves open (`eps`, forwarded from a caller's
   `eps=1e-6` default); a kernel whose `@triton.heuristics` test an argument against None takes
   None there. `assert q.dtype in [torch.float16, torch.bfloat16]` picks the dtype; `A = group[i]`
   makes `group` a list of such tensors; `if n_cols <= 8192: ... else: <launch>` makes the sizes
   take the branch that reaches the flagged launch. `B, T, H, K, V = *k.shape, v.shape[-1]` builds
   `v` as `(B, T, H, V)`, an assumption the harness lists. A parameter with a literal default is
   passed by name with that default (a `torch.library` op's schema may carry no defaults). A
   finding at a host value (KL102's int32 table) is followed to the launch that receives it.
   Nothing is imported to find this; the module is imported from the folder above the project root
   while that root is itself a package (flash-attention keeps a `pyproject.toml` in `flash_attn/`).
2. **Builds the triggering input from the rule's recipe** (`kernelint/confirm/recipes.py`; every
   crash and numerics rule names its recipe or says why it has none):
   - `grid-axis-65536` (KL126): the flagged grid axis at 65,536 programs, evaluated from the launch's
     grid expression, and a control at 65,535; confirmed when the control runs and the launch fails.
   - `elements-past-int32` (KL103, KL102): the tensor the flagged product addresses grown past 2^31
     elements (rows of 4,096), with grid axes 1 and 2 kept within 65,535 (the tensor's last
     dimension is widened instead when its rows are also a grid axis: otherwise the launch fails
     before any address is formed); confirmed when it fails with an illegal address and the fixed
     copy runs, or its last rows differ from the fixed copy's. The harness checks free device
     memory before it allocates and refuses ("cannot build input: needs 12.0 GiB, ... free") when
     it is short.
   - `bf16-through-fp16-pointer` (KL101, KL121): the same values as bf16 and as fp16 (exact in
     both); confirmed when the bf16 outputs are far from the fp16 control's.
   - `length-not-multiple-of-block` (KL110, KL111, KL120, KL136, KL137, KL140-KL143): lengths of 1,000 and
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
it by hand. Where neither the entry nor a call of it shows a size or a type (a tensor the entry
only passes on, a scalar no call fixes), the command says so instead of guessing; `--set`
supplies it. An int parameter the source leaves to the caller is set to 64 and the harness says
so. `--interpret` runs under `TRITON_INTERPRET=1` on the CPU, where the mask recipe works on small
sizes (tests/test_confirm.py confirms a padded load end to end and, as the negative control, does
not confirm the same kernel with the load masked); the crash recipes need a GPU, and so does the
autotune recipe (Triton's autotuner needs a GPU driver to benchmark).
`benchmarks/found_bugs/confirm_all.py` runs `confirm` on every found bug of `docs/found-bugs.md`
and, with `--extra`, on its list of corpus findings that have no hand-written harness.

### Measured on the H200

`kernelint confirm` reproduces **all 10** confirmations that hand-written harnesses made in
[found-bugs.md](found-bugs.md) from harnesses it generated (no hand-written harness code, no
`--set`; fla chunk_h keeps the hand harness's `--max-configs 3`), and confirms **12** corpus
findings that have no hand-written harness (found-bugs #15 and #28 among them, now counted as
confirmed there), 22 of 22 (`benchmarks/found_bugs/results/confirm-h200-2026-12-01-run2.json` and `.log`:
kernelint f9955dd, NVIDIA H200, driver 580.159.04, torch 2.11.0+cu130, Triton 3.6.0; 139 s for
the 22, six side by side). Each int32 verdict is the as-is run failing with `CUDA error: an
illegal memory access was encountered` while the copy with only the flagged index made int64 ran
clean; each grid verdict is the launch at 65,536 failing with `Triton Error [CUDA]: invalid
argument` while the same entry at 65,535 ran.

| finding | recipe, input | as is | control |
|---|---|---|---|
| tritonbench `grouped_gemm/kernels.py:109` KL101 (#1) | 4 groups of 128x128 in bf16, control fp16 | outputs off by up to 2.28e18 (outputs up to 43.5) | fp16 run |
| tritonbench `grouped_gemm/kernels.py:180` KL102 (#2) | one group, A 524,544 x 4,096 bf16 | illegal memory access | int64 table: ran |
| fla `common/chunk_h_parallel.py:202` KL115 (#3) | B=1, T=512, H=64, K=V=64, first call in a process | first call differs from the second by 3.98e20 | (second call) |
| Liger `ops/softmax.py:24` KL103 (#9) | x 524,544 x 4,096 bf16 | illegal memory access | fixed copy ran |
| mamba `triton/layer_norm.py:221` KL103 (#12) | x 524,544 x 4,096 bf16 | illegal memory access | fixed copy ran |
| mamba `triton/k_activations.py:36` KL103 (#13) | xy 524,544 x 4,096 bf16 | illegal memory access | fixed copy ran |
| mamba `triton/ssd_chunk_state.py:828` KL126 (#14) | batch 65,536 | invalid argument | batch 65,535 ran |
| flash-attention `ops/triton/layer_norm.py:216` KL103 (#16) | x 524,544 x 4,096 bf16 (through `layer_norm_fwd_impl`, eps assumed 1e-5) | illegal memory access | fixed copy ran |
| TileGym `02_softmax/triton_kernel.py:52` KL103 (#18) | 262,400 x 8,192 bf16 | illegal memory access | fixed copy ran |
| fla `gated_delta_rule/gate.py:180` KL126 (#19) | B=65,536, H=1 (`A_log`'s shape from the project's test) | invalid argument | B=65,535 ran |
| mamba `triton/ssd_chunk_scan.py:1283` KL126 (#15, new) | batch 65,536 | invalid argument | batch 65,535 ran |
| mamba `triton/layernorm_gated.py:68` KL103 (#28, new) | x 524,544 x 4,096 bf16 | illegal memory access | fixed copy ran |
| mamba `triton/ssd_combined.py:307` KL126 (new) | batch 65,536 | invalid argument | batch 65,535 ran |
| mamba `triton/ssd_state_passing.py:52` KL103 (new) | states 33,024 x 16 x 16 x 256 bf16 | illegal memory access | fixed copy ran |
| mamba `triton/ssd_chunk_scan.py:1224` KL103 (new) | prev_states 2,304 x 16 x 16 x 16 x 256 bf16 | illegal memory access | fixed copy ran |
| TileGym `02_softmax/triton_kernel.py:107` KL103 (new) | 131,328 x 16,384 bf16 (the multi-block branch) | illegal memory access | fixed copy ran |
| TileGym `03_layernorm/triton_kernel.py:55` KL103 (new) | 524,544 x 4,096 bf16 | illegal memory access | fixed copy ran |
| fla `utils/cumsum.py:264` KL126 (new) | B=65,536, H=1 | invalid argument | B=65,535 ran |
| fla `comba/utils.py:82` KL126 (new) | B=65,536, H=1 | invalid argument | B=65,535 ran |
| fla `kda/gate.py:493` KL126 (new) | B=65,536, H=1 | invalid argument | B=65,535 ran |
| fla `rwkv6/chunk.py:105` KL126 (new) | B=65,536, H=1 | invalid argument | B=65,535 ran |
| fla `utils/pooling.py:129` KL126 (new) | B=65,536, H=1 | invalid argument | B=65,535 ran |

(#n: the row of found-bugs.md.) fla's `chunk_size` and the other ints the source leaves to the
caller were 64, as the harnesses say. The first run (`confirm-h200-2026-12-01.json`, kernelint
5d2a86f, 126 s) confirmed 19 of the 22: flash-attention #16 failed in both runs with
`layer_norm_fwd_impl() is missing value for argument 'residual'` (a `torch.library` op whose schema
has no defaults; literal defaults are now passed), and mamba `ssd_state_passing.py:52` and
`ssd_chunk_scan.py:1224` failed with `invalid argument` in both runs (the rows grown past 2^31 were
`batch`, a grid axis; the recipe now keeps grid axes 1 and 2 within 65,535). Both result files
are committed as measured.

Not run, and why: flash-attention `flash_attn_triton.py:851` (KL126): its harness generates, but
the kernel calls `tl.dot(..., trans_b=True)`, which Triton removed in 2.1, so neither run can
compile it. fla `gated_oja_rule/chunk_kkt.py:448` (KL126): `beta` defaults to None in the entry
and the kernel loads it unconditionally (seen under the interpreter). Most of fla's other 75
KL126 findings: the entry passes on a tensor it never unpacks (`q`, `w`, `beta`), whose rank
`confirm` does not guess (`cannot build input`, with `--set` named). mamba's `_swiglu_bwd`
(k_activations.py:98, KL103): `dout` is half as wide as `xy`, a relation the source states only as
an assertion on a view. Eleven more KL103 harnesses generate but were not run on the GPU: ten on
mamba's chunk-scan and chunk-state kernels (four plan 229-244 GiB, more than the GPU holds; two
plan 27-28 GiB and were not checked first; `ssd_chunk_scan.py:509`'s entry asked for one 77 GB
allocation even at the reduced sizes of a CPU check; three were not checked because the interpreter is too
slow at their sizes) and TileGym's `05_attention/triton_kernel.py:95` (60 GiB).

Run it: copy only what the harnesses import (`python benchmarks/found_bugs/pack_checkouts.py
--corpus DIR --commits DIR/COMMITS --out .found-bugs-corpus --extra`, a git-ignored folder, 25 MB
here with each project's tests), then on the GPU machine `pip install --no-deps
--no-build-isolation .` and `python benchmarks/found_bugs/confirm_all.py --corpus
.found-bugs-corpus --out confirm.json --extra --jobs 6` (each int32 run plans 12-24 GiB and checks
free memory first; the 22 took 139 s).
"""
