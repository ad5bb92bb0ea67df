import torch
import triton.language as tl

# The type each input dtype is rounded through when emulating low-precision storage: fp32 inputs
# are rounded to bf16 on purpose. The kernels convert values with it; no pointer is typed by it.
ROUND_TO = {
    torch.float32: tl.bfloat16,  # ok: KL121
    torch.float16: tl.float16,
    torch.bfloat16: tl.bfloat16,
}
