"""Liger-Kernel's softmax addresses row ``row_id * X_row_stride`` with the program id in int32
(KL103): on a matrix past 2^31 elements the rows beyond it are read from wrapped addresses."""
from harness import main, rows_past_int32, tail_outcome

BUG = {
    "repo": "linkedin/Liger-Kernel", "repo_dir": "Liger-Kernel", "commit": "ead96b618",
    "file": "src/liger_kernel/ops/softmax.py", "line": 24, "rule": "KL103", "as_package": True,
    "what": "rows past 2^31 elements are read and written at wrapped addresses",
    "trigger": "softmax over a 524,544 x 4096 bf16 matrix (2.15e9 elements)",
    "fix": [
        {"line": 20, "old": 'row_id = tl.program_id(0)', "new": 'row_id = tl.program_id(0).to(tl.int64)'},
    ],
    "fix_why": "the row index the flagged product reads, made int64 (the kernel's other row products read it too)",
}


def confirm(module, torch):
    cols = 4096
    x = torch.randn(rows_past_int32(cols), cols, device="cuda", dtype=torch.bfloat16)
    return tail_outcome(lambda: module.LigerSoftmaxFunction.apply(x),
                        lambda rows: torch.softmax(x[rows].float(), dim=-1))


if __name__ == "__main__":
    main(BUG, confirm)
