"""TODO: what this bad kernel does (the line with the construct carries `# expect: KL319`)."""
import torch
import cutlass
import cutlass.cute as cute


def run(x):
    raise NotImplementedError("TODO")
