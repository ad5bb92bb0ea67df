"""TODO: what this bad kernel does (the line with the construct carries `# expect: KL139`)."""
import torch
import triton
import triton.language as tl


def run(x):
    raise NotImplementedError("TODO")
