"""mamba's SSD chunk-state kernel puts ``batch * nchunks`` on grid axis 1 (KL126): CUDA allows
at most 65535 there, so a batch of short sequences (or long sequences) past that fails to launch."""
from harness import grid_outcome, main

BUG = {
    "repo": "state-spaces/mamba", "repo_dir": "mamba", "commit": "e9594ce1c",
    "file": "mamba_ssm/ops/triton/ssd_chunk_state.py", "line": 828, "rule": "KL126",
    "as_package": True, "skip_init": ["mamba_ssm"],
    "what": "the chunk-state launch fails once batch x chunks exceeds 65535",
    "trigger": "_chunk_state_fwd with batch 65536 (and a 65535 control), seqlen = chunk = 64, 1 head",
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
