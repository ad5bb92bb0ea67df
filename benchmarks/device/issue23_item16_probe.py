"""Issue 23 item 16's run-time claims, measured on an SM90 GPU (kernels in
``issue23_item16_kernels.py``): cluster mbarriers used before their init is visible, and fully
masked ``-inf`` rows in an online softmax.

  python issue23_item16_probe.py compile            # no GPU: compile every variant for sm_90a, print PTX facts
  python issue23_item16_probe.py run OUT_DIR        # GPU: every variant in its own process, OUT_DIR/item16.json
  python issue23_item16_probe.py one KIND VARIANT   # one variant in this process (what `run` starts)

``run`` gives each variant a watchdog (``--timeout``, 45 s): a hang is a result here, recorded as
``"hang"``, never waited out. The JSON holds, per variant, what happened, so nothing is claimed
that the run did not show. Needs nvidia-cutlass-dsl on PYTHONPATH (DEVELOPERS.md).
"""
import argparse
import glob
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
CLUSTERS = 264            # 528 CTAs, two clusters per SM of an H200 and more
CLUSTER_LAUNCHES = 200    # launches per cluster variant (the race is per launch)
DELAY_CYCLES = 200_000    # cta_delayed: ~0.1 ms at H200 clocks before rank 1's init
ROWS, COLS = 4096, 256


def _kernels():
    sys.path.insert(0, str(HERE))
    import issue23_item16_kernels as k
    return k


def compile_all() -> int:
    """No GPU: trace and lower each variant for sm_90a, keep the PTX, and print the facts a reader
    can check: the cluster barrier and the remote arrive in the cluster kernels, the -inf guard's
    selects in the softmax."""
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
    dump = tempfile.mkdtemp()
    os.environ["CUTE_DSL_DUMP_DIR"] = dump
    import cutlass
    import cutlass.cute as cute
    from cutlass.cute.runtime import make_fake_tensor
    k = _kernels()
    import importlib.metadata
    print(f"nvidia-cutlass-dsl {importlib.metadata.version('nvidia-cutlass-dsl')}, target {os.environ['CUTE_DSL_ARCH']}")
    facts = {}
    out = make_fake_tensor(cutlass.Int32, (CLUSTERS * k.CLUSTER,), stride=(1,))
    for publish in k.PUBLISH:
        for old in glob.glob(dump + "/*"):
            os.remove(old)
        cute.compile(k.cluster_exchange, out, cutlass.Int32(DELAY_CYCLES), publish, options="--keep-ptx")
        ptx = pathlib.Path(glob.glob(dump + "/*.ptx")[0]).read_text()
        facts[f"cluster/{publish}"] = {
            "mbarrier.init": len(re.findall(r"mbarrier\.init", ptx)),
            "fence.mbarrier_init": len(re.findall(r"fence\.mbarrier_init", ptx)),
            "barrier.cluster.arrive": len(re.findall(r"barrier\.cluster\.arrive", ptx)),
            "barrier.cluster.wait": len(re.findall(r"barrier\.cluster\.wait", ptx)),
            "bar.sync/barrier.sync": len(re.findall(r"\bbar(?:rier)?\.sync", ptx)),
            "mapa": len(re.findall(r"\bmapa\b", ptx)),
            "remote arrive (shared::cluster)": len(re.findall(r"mbarrier\.arrive[^;]*shared::cluster", ptx)),
            "clock64 reads": len(re.findall(r"%clock64", ptx)),
        }
    s = make_fake_tensor(cutlass.Float32, (ROWS, COLS), stride=(COLS, 1))
    v = make_fake_tensor(cutlass.Float32, (COLS,), stride=(1,))
    bound = make_fake_tensor(cutlass.Int32, (ROWS,), stride=(1,))
    o = make_fake_tensor(cutlass.Float32, (ROWS,), stride=(1,))
    for guard in k.SOFTMAX:
        for old in glob.glob(dump + "/*"):
            os.remove(old)
        cute.compile(k.row_softmax, s, v, bound, bound, o, guard, options="--keep-ptx")
        ptx = pathlib.Path(glob.glob(dump + "/*.ptx")[0]).read_text()
        facts[f"softmax/{guard}"] = {
            "ex2.approx": len(re.findall(r"ex2\.approx", ptx)),
            "rcp.approx": len(re.findall(r"rcp\.approx", ptx)),
            "selp.f32": len(re.findall(r"selp\.f32", ptx)),
            "-inf constant (0fFF800000)": len(re.findall(r"0fFF800000", ptx)),
            "setp.eq/ne/nan on f32": len(re.findall(r"setp\.(?:eq|ne|equ|neu|nan|num)\.f32", ptx)),
        }
    for name, values in facts.items():
        print(f"{name}: " + ", ".join(f"{key} {value}" for key, value in values.items()))
    return 0


def one(kind: str, variant: str) -> dict:
    """Run one variant on the GPU in this process and describe what it did."""
    import torch
    import cutlass
    from cutlass.cute.runtime import from_dlpack
    k = _kernels()
    result = {"kind": kind, "variant": variant, "gpu": torch.cuda.get_device_name()}
    if kind == "cluster":
        out = torch.zeros(CLUSTERS * k.CLUSTER, dtype=torch.int32, device="cuda")
        expected = torch.arange(out.numel(), device="cuda", dtype=torch.int32) % k.CLUSTER + 1
        import cutlass.cute as cute
        compiled = cute.compile(k.cluster_exchange, from_dlpack(out), cutlass.Int32(DELAY_CYCLES), variant)
        wrong = 0
        began = time.monotonic()
        for launch in range(CLUSTER_LAUNCHES):
            out.zero_()
            compiled(from_dlpack(out), cutlass.Int32(DELAY_CYCLES))
            torch.cuda.synchronize()
            wrong += int((out != expected).sum().item())
            result["launches_done"] = launch + 1
        result.update(wrong_ctas=wrong, ctas_per_launch=out.numel(), seconds=round(time.monotonic() - began, 3))
    elif kind == "softmax":
        s, v, start, stop, reference, groups = softmax_case(k, "cuda")
        out = torch.empty(ROWS, device="cuda")
        import cutlass.cute as cute
        tensors = [from_dlpack(t) for t in (s, v, start, stop, out)]
        cute.compile(k.row_softmax, *tensors, variant)(*tensors)
        torch.cuda.synchronize()
        result.update(summarize(out, reference, groups))
    return result


def softmax_case(k, device: str):
    """The softmax probe's inputs, its float64 reference (a row with nothing kept: 0) and the row
    groups: every fourth row keeps all columns; from row 1 nothing; from row 2 the first two
    blocks are masked; from row 3 a short prefix is kept."""
    import torch
    gen = torch.Generator().manual_seed(0)
    s = torch.randn(ROWS, COLS, generator=gen)
    v = torch.randn(COLS, generator=gen)
    start = torch.zeros(ROWS, dtype=torch.int32)
    stop = torch.full((ROWS,), COLS, dtype=torch.int32)
    rows = torch.arange(ROWS)
    stop[rows % 4 == 1] = 0
    start[rows % 4 == 2] = 2 * k.BLOCK + 5
    stop[rows % 4 == 3] = k.BLOCK // 2
    cols = torch.arange(COLS)
    kept = (cols[None, :] >= start[:, None]) & (cols[None, :] < stop[:, None])
    logits = torch.where(kept, s.double(), torch.tensor(float("-inf"), dtype=torch.float64))
    weights = torch.softmax(logits, dim=1).nan_to_num(0.0)
    reference = (weights * v.double()[None, :]).sum(dim=1)
    groups = {"all kept": rows % 4 == 0, "nothing kept": rows % 4 == 1,
              "first two blocks masked": rows % 4 == 2, "short prefix kept": rows % 4 == 3}
    return (s.to(device), v.to(device), start.to(device), stop.to(device), reference.to(device),
            {name: rows_of.to(device) for name, rows_of in groups.items()})


def summarize(out, reference, groups) -> dict:
    """Per row group: rows, NaN rows, and the largest error of the others against the reference."""
    summary = {}
    for name, picked in groups.items():
        got, want = out[picked].double(), reference[picked]
        summary[name] = {"rows": int(picked.sum().item()), "nan": int(got.isnan().sum().item()),
                         "max_abs_error_non_nan": float((got - want).abs().nan_to_num(0.0).max().item())}
    return summary


def run_all(out_dir: pathlib.Path, timeout: float) -> int:
    k = _kernels()
    out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for kind, variants in (("softmax", k.SOFTMAX), ("cluster", k.PUBLISH)):  # hangs last
        for variant in variants:
            began = time.monotonic()
            command = [sys.executable, str(pathlib.Path(__file__).resolve()), "one", kind, variant]
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, start_new_session=True)
                lines = [l for l in done.stdout.splitlines() if l.startswith("RESULT ")]
                entry = json.loads(lines[-1][len("RESULT "):]) if lines else {
                    "kind": kind, "variant": variant, "outcome": "error", "returncode": done.returncode,
                    "stderr_tail": done.stderr[-2000:]}
                entry.setdefault("outcome", "ok" if lines else "error")
            except subprocess.TimeoutExpired as expired:
                partial = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
                entry = {"kind": kind, "variant": variant, "outcome": "hang",
                         "note": f"killed after {timeout:.0f} s", "stdout_tail": partial[-1000:]}
            entry["wall_s"] = round(time.monotonic() - began, 1)
            results.append(entry)
            print(json.dumps(entry), flush=True)
    (out_dir / "item16.json").write_text(json.dumps(results, indent=1) + "\n")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("compile")
    run = sub.add_parser("run")
    run.add_argument("out_dir", type=pathlib.Path)
    run.add_argument("--timeout", type=float, default=45.0)
    single = sub.add_parser("one")
    single.add_argument("kind", choices=("cluster", "softmax"))
    single.add_argument("variant")
    args = parser.parse_args()
    if args.command == "compile":
        return compile_all()
    if args.command == "run":
        return run_all(args.out_dir, args.timeout)
    print("RESULT " + json.dumps(one(args.kind, args.variant)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
