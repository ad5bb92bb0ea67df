"""Compile one Triton kernel of a file for sm_90 on a machine without a GPU, with whatever Triton
this interpreter imports, and print one JSON line: the Triton version and the outcome.

    python benchmarks/versions/compile_on_cpu.py FILE KERNEL 'x_ptr=*fp32,n=i32' 'BLOCK=128'

Used for the version boundaries of KL132 and KL133 (issue 22): the front end (AST -> TTIR) is
where Triton rejects a non-constexpr global or a ``**meta`` parameter, and it runs without a
device. ``triton.compile`` continues to PTX with the bundled ptxas when it can; the outcome says
how far it got. Runs each supported ASTSource spelling (2.3: indices and ``constants``; 3.0-3.2:
names and ``constants``; 3.3+: ``constexprs``).
"""
from __future__ import annotations

import importlib.util
import json
import sys
import traceback


def main(path: str, kernel: str, signature: str, constants: str) -> dict:
    import triton

    outcome = {"triton": triton.__version__, "file": path, "kernel": kernel}
    try:
        spec = importlib.util.spec_from_file_location("pair_module", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["pair_module"] = module
        spec.loader.exec_module(module)
        fn = getattr(module, kernel)
    except Exception as error:  # the decorator itself may refuse the kernel (3.9: **meta)
        outcome.update(stage="import", status="error", error=f"{type(error).__name__}: {error}"[-600:])
        return outcome
    sig = dict(item.split("=", 1) for item in signature.split(",") if item)
    const = {k: int(v) for k, v in (item.split("=", 1) for item in constants.split(",") if item)}
    from triton.compiler import ASTSource

    try:
        from triton.backends.compiler import GPUTarget
        target = GPUTarget("cuda", 90, 32)
    except ImportError:  # 2.x: a (backend, capability) tuple
        target = ("cuda", 90)
    names = list(sig) + [k for k in const if k not in sig]
    attempts = [
        dict(signature={**sig, **{k: "constexpr" for k in const}}, constexprs=const),
        dict(signature=sig, constants=const),
        dict(signature={names.index(k): v for k, v in sig.items()}, constants={names.index(k): v for k, v in const.items()}),
    ]
    if isinstance(target, tuple):  # 2.x keys the signature by position
        attempts.reverse()
    source = None
    for kwargs in attempts:
        try:
            source = ASTSource(fn=fn, **kwargs)
            break
        except TypeError:
            continue
    try:
        compiled = triton.compile(source, target=target)
        outcome.update(stage="compile", status="ok", asm=sorted(compiled.asm.keys()))
    except Exception as error:
        text = f"{type(error).__name__}: {error}"
        outcome.update(stage="compile", status="error", error=text[-600:],
                       front_end="Cannot access global variable" in text or "meta" in text,
                       traceback_tail="".join(traceback.format_exception(error))[-800:])
    return outcome


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:5])))
