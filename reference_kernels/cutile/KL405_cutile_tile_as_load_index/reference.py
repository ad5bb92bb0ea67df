import torch


def make_inputs(case, device):
    gen = torch.Generator(device="cpu").manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    lut = torch.randint(0, case["rows"], (case["lut"],), generator=gen, dtype=torch.int32)
    table = torch.randn(case["rows"], case["d"], generator=gen).to(dtype)
    return {"lut": lut.to(device), "table": table.to(device)}


def reference(lut, table):
    return table[lut.long()]
