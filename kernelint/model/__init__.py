"""The semantic model rules query: names, scopes, kernels, launches and values of one file."""
from kernelint.model.context import FileContext, Launch
from kernelint.model.kernels import Autotune, Kernel
from kernelint.model.core.values import Definition

__all__ = ["Autotune", "Definition", "FileContext", "Kernel", "Launch"]
