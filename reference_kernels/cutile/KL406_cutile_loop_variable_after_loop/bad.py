"""TODO: what this bad kernel does (the line with the construct carries `# expect: KL406`)."""
import torch
import cuda.tile as ct


def run(x):
    raise NotImplementedError("TODO")
