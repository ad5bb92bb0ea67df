import torch
import triton

from pkg.tma_copy import tma_copy


def run(x, y):
    # set_allocator is called by the benchmark harness of another project, not here
    tma_copy[(1,)](x, y, x.shape[0], x.shape[1], BM=64, BN=64)
