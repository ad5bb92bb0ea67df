"""TileGym's Triton softmax example (the skill that teaches cuTile-to-Triton conversion) offsets
``row_idx * input_row_stride`` with the program id in int32 (KL103); code converted from it
inherits the wrap past 2^31 elements."""
from harness import main, rows_past_int32, tail_outcome

BUG = {
    "repo": "NVIDIA/TileGym", "repo_dir": "TileGym", "commit": "75a143077",
    "file": "skills/tilegym-converting-cutile-to-triton/examples/02_softmax/triton_kernel.py",
    "line": 52, "rule": "KL103",
    "what": "rows past 2^31 elements are read and written at wrapped addresses",
    "trigger": "softmax over a 524,544 x 4096 fp16 matrix (2.15e9 elements)",
    "fix": [
        {"line": 49, "old": 'row_idx = tl.program_id(axis=0)', "new": 'row_idx = tl.program_id(axis=0).to(tl.int64)'},
    ],
    "fix_why": "the row index the flagged product reads, made int64 (the kernel's other row products read it too)",
}


def confirm(module, torch):
    cols = 4096
    x = torch.randn(rows_past_int32(cols), cols, device="cuda", dtype=torch.float16)
    return tail_outcome(lambda: module.softmax(x), lambda rows: torch.softmax(x[rows].float(), dim=-1))


if __name__ == "__main__":
    main(BUG, confirm)
