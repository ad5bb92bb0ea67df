"""Analyses of Triton kernels: tiles, memory accesses, dtypes, autotuning, backends, shared memory."""
