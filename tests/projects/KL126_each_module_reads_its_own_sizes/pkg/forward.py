import triton

from pkg.kernels import scale_kernel


def forward(x):
    # B and H are read here and in pkg/backward.py: two causes, two findings.
    B, H, T, D = x.shape
    grid = (triton.cdiv(T, 64), B * H)  # expect: KL126
    scale_kernel[grid](x, T, D=D, BLOCK_T=64)
