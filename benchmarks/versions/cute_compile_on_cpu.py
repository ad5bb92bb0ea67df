"""Trace and compile one CuTe DSL pair file for the GPU on a machine without one, with whichever
nvidia-cutlass-dsl this interpreter imports, and print one JSON line: the release, the outcome and
the deprecation warnings seen (KL319's version boundaries, issue 22).

    PYTHONPATH=/opt/cutedsl:/opt/cutedsl/nvidia_cutlass_dsl/dsl_packages \\
        python benchmarks/versions/cute_compile_on_cpu.py reference_kernels/cute/KL319_cute_api_not_in_target/bad.py

The file must define ``scale(src, dst)`` taking two (rows, 128) fp32 tensors.
"""
import importlib.util
import json
import sys
import warnings


def main(path: str) -> dict:
    out = {"file": path}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            import cutlass
            import cutlass.cute as cute
            import torch
            from cutlass.cute.runtime import from_dlpack

            out["cutlass_dsl"] = getattr(cutlass, "__version__", None)
            spec = importlib.util.spec_from_file_location("pair_module", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules["pair_module"] = module
            spec.loader.exec_module(module)
            x = torch.randn(256, 128)
            cute.compile(module.scale, from_dlpack(x), from_dlpack(torch.empty_like(x)))
            out.update(status="ok", stage="compile")
        except Exception as error:  # the outcome is what is recorded
            out.update(status="error", error=f"{type(error).__name__}: {error}"[-500:])
    out["warnings"] = sorted({str(w.message)[:160] for w in caught
                              if "make_fragment" in str(w.message) or "deprecat" in str(w.message).lower()})
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
