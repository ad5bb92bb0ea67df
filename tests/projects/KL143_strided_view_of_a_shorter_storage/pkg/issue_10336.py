# triton-lang/triton#10336 as its report wrote it: `bins` is every other element of a
# 5-element tensor (3 elements, stride 2), masked with the length of `vals` (4).
import torch
import triton
import triton.language as tl


@triton.jit
def oob_load_kernel(vals_ptr, bins_ptr, out_ptr, L: tl.constexpr, SV: tl.constexpr, SB: tl.constexpr):
    offs = tl.arange(0, 8)
    v = tl.load(vals_ptr + offs * SV, mask=offs < L, other=0)  # ok: KL143
    b = tl.load(bins_ptr + offs * SB, mask=offs < L, other=-1)  # expect: KL143
    tl.store(out_ptr + offs, v * 100 + b, mask=offs < L)  # ok: KL143


def run_issue_10336():
    vals_base = torch.tensor([1, 2, 3, 4], dtype=torch.int32, device="cuda")
    bins_base = torch.tensor([10, 99, 11, 99, 12], dtype=torch.int32, device="cuda")
    vals = vals_base
    bins = bins_base[0::2]
    out = torch.empty((4,), dtype=torch.int32, device="cuda")
    oob_load_kernel[(1,)](vals, bins, out, L=4, SV=vals.stride(0), SB=bins.stride(0))
    return out


def run_masked_by_the_view():
    vals = torch.tensor([1, 2, 3], dtype=torch.int32, device="cuda")
    bins = torch.tensor([10, 99, 11, 99, 12], dtype=torch.int32, device="cuda")[0::2]
    out = torch.empty((3,), dtype=torch.int32, device="cuda")
    oob_load_kernel[(1,)](vals, bins, out, L=bins.numel(), SV=vals.stride(0), SB=bins.stride(0))
    return out
