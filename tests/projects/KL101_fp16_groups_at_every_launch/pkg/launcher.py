import torch

from pkg.kernels import grouped_matmul_kernel


def group_gemm(group_A, group_B):
    device = group_A[0].device
    A_addrs, B_addrs, C_addrs, sizes, lds, group_C = [], [], [], [], [], []
    for i in range(len(group_A)):
        A = group_A[i]
        B = group_B[i]
        M, K = A.shape
        K, N = B.shape
        C = torch.empty((M, N), device=device, dtype=A.dtype)
        group_C.append(C)
        A_addrs.append(A.data_ptr())
        B_addrs.append(B.data_ptr())
        C_addrs.append(C.data_ptr())
        sizes += [M, N, K]
        lds += [A.stride(0), B.stride(0), C.stride(0)]
    d_a = torch.tensor(A_addrs, device=device)
    d_b = torch.tensor(B_addrs, device=device)
    d_c = torch.tensor(C_addrs, device=device)
    d_sizes = torch.tensor(sizes, dtype=torch.int32, device=device)
    d_lds = torch.tensor(lds, dtype=torch.int64, device=device)
    grouped_matmul_kernel[(132,)](d_a, d_b, d_c, d_sizes, d_lds, len(group_A), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return group_C
