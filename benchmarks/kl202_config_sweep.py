"""KL202's fair race, the other half of the record: for every timed shape of the pair, the median
time of each of good.py's autotune configs run alone, and the config the autotuner picks.

The record of ``kernelint prove KL202`` says how much the fixed tile of bad.py loses per shape; this
says whether that tile is the best one for some shape (so the race is fair) and by how much each
other config wins elsewhere. Needs a GPU:

    python benchmarks/kl202_config_sweep.py --json out/kl202-sweep.json
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

PAIR = Path(__file__).resolve().parents[1] / "reference_kernels" / "triton" / "KL202_fixed_tiles_no_autotune"


def _module(name: str):
    spec = importlib.util.spec_from_file_location(f"kl202_{name}", PAIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _config_name(config) -> str:
    tile = "x".join(str(config.kwargs[key]) for key in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
    return f"{tile} w{config.num_warps} s{config.num_stages}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, required=True)
    parser.add_argument("--device", default="cuda", help="cpu: a dry run on the control case (TRITON_INTERPRET=1)")
    args = parser.parse_args(argv)

    import tomllib

    import torch
    import triton
    from triton.testing import do_bench

    sys.path.insert(0, str(PAIR))
    reference, good = _module("reference"), _module("good")
    autotuned = good.matmul_kernel
    cases = [case for case in tomllib.loads((PAIR / "pair.toml").read_text())["cases"]
             if bool(case.get("control")) == (args.device == "cpu")]
    rows = []
    for case in cases:
        inputs = reference.make_inputs(case, args.device)
        a, b = inputs["a"], inputs["b"]
        M, K = a.shape
        N = b.shape[1]
        good.run(a, b)
        if args.device == "cuda":
            torch.cuda.synchronize()
        picked = _config_name(autotuned.best_config)
        times = {}
        for config in autotuned.configs:
            c = torch.empty((M, N), dtype=a.dtype, device=a.device)
            grid = (triton.cdiv(M, config.kwargs["BLOCK_M"]) * triton.cdiv(N, config.kwargs["BLOCK_N"]),)

            def launch(config=config, c=c, grid=grid):
                autotuned.fn[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                   c.stride(0), c.stride(1), GROUP_M=8, num_warps=config.num_warps,
                                   num_stages=config.num_stages, **config.kwargs)

            median = do_bench(launch, quantiles=[0.5])
            times[_config_name(config)] = float(median[0] if isinstance(median, (list, tuple)) else median)
        best = min(times, key=times.get)
        rows.append({"case": case["name"], "autotune_picked": picked, "fastest_alone": best, "median_ms": times})
        print(f"{case['name']}: autotune picked {picked}; fastest alone {best}; "
              + ", ".join(f"{name} {ms:.3f} ms" for name, ms in times.items()), flush=True)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"gpu": torch.cuda.get_device_name() if args.device == "cuda" else "cpu", "torch": torch.__version__,
                                     "triton": triton.__version__, "cases": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
