"""fp32 GEMM whose operands reach ct.mma as float32: cuTile multiplies them in full fp32."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def matmul(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    bid_m, bid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.astype(ct.load(A, index=(bid_m, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO), ct.float32)
        b = ct.astype(ct.load(B, index=(k, bid_n), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO), ct.float32)
        acc = ct.mma(a, b, acc)  # expect: KL403
    ct.store(C, index=(bid_m, bid_n), tile=ct.astype(acc, C.dtype))


def run(a, b):
    tm, tn, tk = 64, 64, 32
    c = torch.empty((a.shape[0], b.shape[1]), device=a.device, dtype=torch.float32)
    grid = (ct.cdiv(a.shape[0], tm), ct.cdiv(b.shape[1], tn))
    ct.launch(torch.cuda.current_stream(), grid, matmul, (a, b, c, tm, tn, tk))
    return c
