import torch

from pkg.rope import RotaryFunction


class Rotary(torch.nn.Module):
    def forward(self, q, cos):
        return RotaryFunction.apply(q, cos)
