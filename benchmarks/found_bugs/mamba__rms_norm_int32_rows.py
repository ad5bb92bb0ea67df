"""mamba's fused RMSNorm addresses ``row * stride_x_row`` with the program id in int32 (KL103):
past 2^31 elements (e.g. 512k tokens of a 4096-wide model) rows land on wrapped addresses."""
from harness import main, rows_past_int32, tail_outcome

BUG = {
    "repo": "state-spaces/mamba", "repo_dir": "mamba", "commit": "e9594ce1c",
    "file": "mamba_ssm/ops/triton/layer_norm.py", "line": 221, "rule": "KL103",
    "as_package": True, "skip_init": ["mamba_ssm"],
    "what": "rows past 2^31 elements are normalised from wrapped addresses",
    "trigger": "rms_norm_fn over 524,544 x 4096 bf16 (2.15e9 elements)",
    "fix": [
        {"line": 220, "old": 'row = tl.program_id(0)', "new": 'row = tl.program_id(0).to(tl.int64)'},
    ],
    "fix_why": "the row index the flagged product reads, made int64 (the kernel's other row products read it too)",
}


def confirm(module, torch):
    cols = 4096
    x = torch.randn(rows_past_int32(cols), cols, device="cuda", dtype=torch.bfloat16)
    weight = torch.randn(cols, device="cuda", dtype=torch.float32)

    def reference(rows):
        xf = x[rows].float()
        return xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * weight

    return tail_outcome(lambda: module.rms_norm_fn(x, weight, None, eps=1e-6), reference)


if __name__ == "__main__":
    main(BUG, confirm)
