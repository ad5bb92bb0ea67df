"""kernelint: a static analyzer for GPU kernels written in Python (Triton, cuTile, CuTe DSL)."""
__version__ = "0.1.0"
