"""The program model across files: the project index, other modules parsed on demand, kernel
launches and host facts wherever they live, read through a recording ``ProjectView``."""
from kernelint.model.project.index import project_root, runs_with_allocator

__all__ = ["project_root", "runs_with_allocator"]
