"""mamba's SwiGLU kernel offsets ``row * stride_x_row`` with the program id in int32 (KL103):
the gate/up input is twice as wide as the output, so it wraps already at 2^30 output elements."""
from harness import main, rows_past_int32, tail_outcome

BUG = {
    "repo": "state-spaces/mamba", "repo_dir": "mamba", "commit": "e9594ce1c",
    "file": "mamba_ssm/ops/triton/k_activations.py", "line": 36, "rule": "KL103",
    "as_package": True, "skip_init": ["mamba_ssm"],
    "what": "rows whose input starts past 2^31 elements are computed from wrapped addresses",
    "trigger": "_swiglu_fwd on xy of 262,400 x 8192 bf16 (2.15e9 elements)",
    "fix": [
        {"line": 34, "old": 'row = tl.program_id(0)', "new": 'row = tl.program_id(0).to(tl.int64)'},
    ],
    "fix_why": "the row index the flagged product reads, made int64 (the kernel's other row products read it too)",
}


def confirm(module, torch):
    cols = 4096
    xy = torch.randn(rows_past_int32(2 * cols), 2 * cols, device="cuda", dtype=torch.bfloat16)

    def reference(rows):
        x, y = xy[rows].float().chunk(2, dim=-1)
        return torch.nn.functional.silu(x) * y

    return tail_outcome(lambda: module._swiglu_fwd(xy), reference)


if __name__ == "__main__":
    main(BUG, confirm)
