"""tritonbench grouped GEMM stores leading dimensions in an int32 table (KL102): the kernel's
``row * lda`` is then computed in 32 bits and wraps once a group's A spans 2^31 elements."""
from harness import max_error, main

BUG = {
    "repo": "meta-pytorch/tritonbench", "repo_dir": "tritonbench",
    "commit": "db2155c80",
    "file": "tritonbench/operators/grouped_gemm/kernels.py", "line": 180, "rule": "KL102",
    "what": "rows past 2^31 elements of A are read from wrapped addresses",
    "trigger": "one group, A 65664x32768 fp16 (2.15e9 elements), B 32768x128",
    "fix": [
        {"line": 180, "old": "dtype=torch.int32", "new": "dtype=torch.int64"},
    ],
    "fix_why": "the flagged table of leading dimensions made int64, as the rule says: the kernel's "
               "row * lda products are then 64-bit",
}


def confirm(module, torch):
    torch.manual_seed(0)
    m, k, n = 65664, 32768, 128
    a = torch.randn((m, k), device="cuda", dtype=torch.float16) / 64
    b = torch.randn((k, n), device="cuda", dtype=torch.float16) / 64
    expected = (a[-256:].float() @ b.float())
    try:
        out = module.triton_group_gemm_fn([a], [b])[0]
        torch.cuda.synchronize()
    except Exception as error:  # an illegal address is the defect showing
        return {"outcome": "confirmed" if "illegal" in str(error).lower() else "error",
                "error": f"{type(error).__name__}: {error}"[:500]}
    tail = max_error(out[-256:], expected)
    head = max_error(out[:256], a[:256].float() @ b.float())
    return {"outcome": "confirmed" if head < 0.05 and tail > 0.5 else "not-reproduced",
            "max_abs_error_first_rows": head, "max_abs_error_rows_past_2^31": tail}


if __name__ == "__main__":
    main(BUG, confirm)
