"""Compile a cuTile kernel for a GPU architecture without a GPU: `export_kernel` traces the kernel,
type-checks it and runs tileiras to a cubin. Needs cuda-tile and the nvidia-cuda-tileiras,
-nvcc, -nvvm, -crt and -runtime wheels of one major.minor (DEVELOPERS.md)."""
import io

import cuda.tile as ct
from cuda.tile.compilation import (ArrayConstraint, CallingConvention, ConstantConstraint, KernelSignature,
                                   ScalarConstraint, export_kernel)

__all__ = ["array", "constant", "scalar", "compile_for", "ct"]


def array(dtype, ndim):
    """A contiguous-enough array parameter: int32 indices, 16-byte aligned base, no aliasing."""
    return ArrayConstraint(dtype, ndim, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
                           may_alias_internally=False, stride_constant=None, shape_constant=None,
                           stride_divisible_by=1, shape_divisible_by=1, base_addr_divisible_by=16)


def constant(value):
    return ConstantConstraint(value)


def scalar(dtype):
    return ScalarConstraint(dtype)


def compile_for(kernel, parameters, arch="sm_90"):
    """``"ok (N bytes)"`` or ``"ErrorType: message"`` (first lines)."""
    signature = KernelSignature(parameters, CallingConvention.cutile_python_v1())
    buffer = io.BytesIO()
    try:
        export_kernel(kernel, [signature], buffer, gpu_code=arch, output_format="cubin")
        return f"ok ({len(buffer.getvalue())} bytes of cubin)"
    except Exception as error:  # the outcome is what is being recorded
        return f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"
