"""fla's gated-delta-rule gate cumsum launches with ``B * H`` on grid axis 1 (KL126): past 65535
(4096 sequences of 16 heads) the launch fails."""
from harness import grid_outcome, main

BUG = {
    "repo": "fla-org/flash-linear-attention", "repo_dir": "flash-linear-attention",
    "commit": "bc3b101dc",
    "file": "fla/ops/gated_delta_rule/gate.py", "line": 180, "rule": "KL126", "as_package": True,
    "what": "the gate cumsum fails to launch once batch x heads exceeds 65535",
    "trigger": "gdn_gate_chunk_cumsum on g of shape (B, 64, 16) with B = 4096 (and a B = 4095 control)",
    "fix": [
        {"line": 180, "old": '[(NT, B * H)]', "new": '[(B * H, NT)]'},
        {"line": 79, "old": 'i_t, i_bh = tl.program_id(0).to(tl.int64), tl.program_id(1).to(tl.int64)', "new": 'i_t, i_bh = tl.program_id(1).to(tl.int64), tl.program_id(0).to(tl.int64)'},
    ],
    "fix_why": "B * H moved to grid axis 0 (up to 2^31 - 1 programs) in the flagged launch, and the kernel's program_id reads swapped to match",
}


def confirm(module, torch):
    def run_at(grid_axis):
        heads = 16
        g = torch.randn(grid_axis // heads, 64, heads, device="cuda", dtype=torch.float32)
        a_log = torch.randn(heads, device="cuda", dtype=torch.float32)
        module.gdn_gate_chunk_cumsum(g, a_log, chunk_size=64)

    return grid_outcome(run_at, over=65536, under=65520)


if __name__ == "__main__":
    main(BUG, confirm)
