"""Segment lengths from a table of segment starts: program i reads starts[i] and starts[i + 1],
the last program masked to read the total instead. The table is the first n entries of a larger
buffer (like one batch's slice of a packed index)."""
import torch
import triton
import triton.language as tl


@triton.jit
def segment_length_kernel(starts_ptr, out_ptr, n, total):
    pid = tl.program_id(0)
    start = tl.load(starts_ptr + pid)
    end = tl.load(starts_ptr + pid + 1, mask=pid + 1 < n, other=total)
    tl.store(out_ptr + pid, end - start)


def run(starts, total):
    n = starts.numel()
    buffer = torch.full((n + 16,), -1000, dtype=starts.dtype, device=starts.device)
    buffer[:n] = starts
    table = buffer[:n]
    out = torch.empty(n, dtype=starts.dtype, device=starts.device)
    segment_length_kernel[(n,)](table, out, n, total)
    return out
