import torch

from pkg.launcher import grouped_row_sums


def expert_row_sums(n_experts, hidden):
    experts = [torch.randn(64, hidden, device="cuda", dtype=torch.bfloat16) for _ in range(n_experts)]
    return grouped_row_sums(experts)
