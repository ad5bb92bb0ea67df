import triton

from pkg.kernels import scale_kernel


def launch_forward(x, B, H, T, D):
    # B and H are read once, in pkg/layer.py: this launch and pkg/backward.py's are one cause.
    grid = (triton.cdiv(T, 64), B * H)  # expect: KL126
    scale_kernel[grid](x, T, D=D, BLOCK_T=64)
