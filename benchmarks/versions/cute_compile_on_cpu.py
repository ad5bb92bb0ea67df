import importlib.util, json, sys, traceback, warnings
warnings.simplefilter("always")
_caught = warnings.catch_warnings(record=True)
_log = _caught.__enter__()
path = sys.argv[1]
out = {"file": path}
try:
    import cutlass, cutlass.cute as cute
    out["cutlass_dsl"] = getattr(cutlass, "__version__", None)
    spec = importlib.util.spec_from_file_location("pair_module", path)
    m = importlib.util.module_from_spec(spec); sys.modules["pair_module"] = m; spec.loader.exec_module(m)
    import torch
    from cutlass.cute.runtime import from_dlpack
    x = torch.randn(256, 128); o = torch.empty_like(x)
    compiled = cute.compile(m.scale, from_dlpack(x), from_dlpack(o))
    out.update(status="ok", stage="compile")
except Exception as e:
    out.update(status="error", error=f"{type(e).__name__}: {e}"[-500:])
out["warnings"] = sorted({str(w.message)[:160] for w in _log if "make_fragment" in str(w.message) or "deprecat" in str(w.message).lower()})
print(json.dumps(out))
