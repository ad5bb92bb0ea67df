import torch

from .kernels import swiglu_for_layers


class SwiGLU(torch.nn.Module):
    def forward(self, a, b):
        with torch.cuda.device(a.device):
            return swiglu_for_layers(a, b)
