"""mamba's SSD chunk-state kernel puts ``batch * nchunks`` on grid axis 1 (KL126): CUDA allows
at most 65535 there, so a batch of short sequences (or long sequences) past that fails to launch."""
from harness import grid_outcome, main

BUG = {
    "repo": "state-spaces/mamba", "repo_dir": "mamba", "commit": "e9594ce1c",
    "file": "mamba_ssm/ops/triton/ssd_chunk_state.py", "line": 828, "rule": "KL126",
    "as_package": True, "skip_init": ["mamba_ssm"],
    "what": "the chunk-state launch fails once batch x chunks exceeds 65535",
    "trigger": "_chunk_state_fwd with batch 65536 (and a 65535 control), seqlen = chunk = 64, 1 head",
    "fix": [
        {"line": 827, "old": "(triton.cdiv(headdim, META['BLOCK_SIZE_M']) * triton.cdiv(dstate, META['BLOCK_SIZE_N']),", "new": "(batch * nchunks, triton.cdiv(headdim, META['BLOCK_SIZE_M']) * triton.cdiv(dstate, META['BLOCK_SIZE_N']),"},
        {"line": 828, "old": 'batch * nchunks, nheads)', "new": 'nheads)'},
        {"line": 209, "old": 'pid_bc = tl.program_id(axis=1)', "new": 'pid_bc = tl.program_id(axis=0)'},
        {"line": 214, "old": 'pid_m = tl.program_id(axis=0) // num_pid_n', "new": 'pid_m = tl.program_id(axis=1) // num_pid_n'},
        {"line": 215, "old": 'pid_n = tl.program_id(axis=0) % num_pid_n', "new": 'pid_n = tl.program_id(axis=1) % num_pid_n'},
    ],
    "fix_why": "batch * nchunks moved to grid axis 0 in the flagged launch (lines 827-828), and the kernel's program_id reads swapped to match",
}


def confirm(module, torch):
    def run_at(batch):
        seqlen, heads, headdim, dstate, chunk = 64, 1, 32, 16, 64
        x = torch.randn(batch, seqlen, heads, headdim, device="cuda", dtype=torch.float16)
        b = torch.randn(batch, seqlen, 1, dstate, device="cuda", dtype=torch.float16)
        dt = torch.rand(batch, heads, 1, chunk, device="cuda", dtype=torch.float32)
        da = -torch.rand(batch, heads, 1, chunk, device="cuda", dtype=torch.float32).cumsum(-1)
        module._chunk_state_fwd(b, x, dt, da)

    return grid_outcome(run_at, over=65536, under=65535)


if __name__ == "__main__":
    main(BUG, confirm)
