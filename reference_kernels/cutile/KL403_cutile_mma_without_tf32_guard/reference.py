import torch


def _round_to_tf32(x):
    """Round fp32 values to tf32 (10 mantissa bits), to nearest with ties to even."""
    bits = x.contiguous().view(torch.int32)
    bits = (bits + 0xFFF + ((bits >> 13) & 1)) & ~0x1FFF
    return bits.view(torch.float32)


def make_inputs(case, device):
    gen = torch.Generator(device="cpu").manual_seed(0)
    a = torch.randn(case["m"], case["k"], generator=gen)
    b = torch.randn(case["k"], case["n"], generator=gen)
    if case.get("tf32_exact"):
        a, b = _round_to_tf32(a), _round_to_tf32(b)
    return {"a": a.to(device), "b": b.to(device)}


def reference(a, b):
    """What a Triton port computes with tl.dot's default input_precision="tf32": operands
    rounded to tf32, products accumulated (here in fp64, then rounded to fp32)."""
    return (_round_to_tf32(a).double() @ _round_to_tf32(b).double()).float()
