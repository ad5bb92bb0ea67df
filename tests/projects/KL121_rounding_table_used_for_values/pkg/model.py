import torch

from pkg.ops import emulate_rounding, rounded_sum


def quantization_aware_step(weights):
    return emulate_rounding(weights.float()), rounded_sum(weights)
