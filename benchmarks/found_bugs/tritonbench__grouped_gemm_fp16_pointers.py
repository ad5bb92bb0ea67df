"""tritonbench grouped GEMM casts every group's address to an fp16 pointer (KL101): with
``--precision bf16`` (a tritonbench option) the kernel reads bf16 bits as fp16."""
from harness import max_error, main

BUG = {
    "repo": "meta-pytorch/tritonbench", "repo_dir": "tritonbench",
    "commit": "db2155c80",
    "file": "tritonbench/operators/grouped_gemm/kernels.py", "line": 109, "rule": "KL101",
    "what": "bf16 groups read through fp16 pointers give wrong products",
    "trigger": "4 groups of 256x256 @ 256x256 in bfloat16 (tritonbench --precision bf16)",
    "fix": [
        {"line": 90, "old": "BLOCK_SIZE_K: tl.constexpr,", "new": "BLOCK_SIZE_K: tl.constexpr, DTYPE: tl.constexpr,"},
        {"line": 109, "old": "tl.pointer_type(tl.float16)", "new": "tl.pointer_type(DTYPE)"},
        {"line": 110, "old": "tl.pointer_type(tl.float16)", "new": "tl.pointer_type(DTYPE)"},
        {"line": 111, "old": "tl.pointer_type(tl.float16)", "new": "tl.pointer_type(DTYPE)"},
        {"line": 189, "old": "group_size,",
         "new": "group_size, DTYPE={torch.float16: tl.float16, torch.bfloat16: tl.bfloat16}[group_A[0].dtype],"},
    ],
    "fix_why": "the three flagged casts (lines 109-111) take the element type from a DTYPE constexpr, "
               "as the rule says, declared with the kernel's other constexprs (line 90) and passed "
               "from the first group's dtype at the launch (line 189); line 134's fp16 conversion of "
               "the accumulator is left as is (tl.store converts to the pointer's type)",
}


def confirm(module, torch):
    errors = {}
    for dtype in (torch.float16, torch.bfloat16):
        torch.manual_seed(0)
        a = [torch.rand((256, 256), device="cuda", dtype=dtype) for _ in range(4)]
        b = [torch.rand((256, 256), device="cuda", dtype=dtype) for _ in range(4)]
        out = module.triton_group_gemm_fn(a, b)
        errors[str(dtype)] = max(max_error(c, x.float() @ y.float()) for c, x, y in zip(out, a, b))
    # The products are sums of 256 terms in [0, 1): around 64; fp16 rounding gives < 0.1.
    good, bad = errors["torch.float16"], errors["torch.bfloat16"]
    return {"outcome": "confirmed" if good < 0.5 and bad > 1.0 else "not-reproduced",
            "max_abs_error_fp16_control": good, "max_abs_error_bf16": bad}


if __name__ == "__main__":
    main(BUG, confirm)
