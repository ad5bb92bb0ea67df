import torch

from pkg.launcher import grouped_scale


def expert_weights(n_experts, hidden):
    return [torch.randn(64, hidden, device="cuda", dtype=torch.bfloat16) for _ in range(n_experts)]


def scaled_experts(n_experts, hidden):
    # The model keeps its experts in bf16: the kernel reads their bits as fp16.
    return grouped_scale(expert_weights(n_experts, hidden), 0.5)
