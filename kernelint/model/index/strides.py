"""Strides a launch takes from one tensor for the address of another whose layout differs.

A kernel addresses pointer ``p`` with stride parameters (``p + rows * stride_m + cols *
stride_n``). When the launch passes ``q.stride(i)`` for such a parameter (``q`` another tensor
than the one passed for ``p``; also ``sm, sn = q.stride()``, ``q.stride()[i]``, ``*q.stride()``),
the address is right only if ``p``'s stride along that dimension is ``q``'s. ``foreign_strides``
reports the parameters where the host facts give both tensors' strides and they differ for every
size past 1 (``sign.differs``): ``p = q.t()`` (strides ``(1, N)`` against ``(N, 1)``), an output
of ``N - 1`` columns addressed with the input's row stride ``N``, ``p = q[:, ::2]`` (column stride
2 against 1).

Which dimension of ``p`` the parameter strides is read the way the launch reads ``q``'s: the
parameter that receives ``q.stride(i)`` strides dimension ``i`` of ``p``. That needs ``p`` and
``q`` of one rank; and when the launch passes ``q``'s strides to ``p``'s parameters in another
order than the kernel lists them (``q.stride(1), q.stride(0)`` for a transposed ``p``, on
purpose), the mapping is the author's and nothing is reported. Unknown stays quiet: a tensor
whose strides are not known (a parameter of the wrapper that is not made contiguous), ranks that
differ (a flat buffer addressed as rows), a dimension of size 1, strides that are equal for some
sizes (``M`` against ``N``).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.index.access import CONST, PARAM, Access
from kernelint.model.index.axes import stride_read
from kernelint.model.index.carried import carried_index
from kernelint.model.index.sign import differs
from kernelint.model.index.symexpr import Poly
from kernelint.model.project import shapes

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel
    from kernelint.model.project.view import Site


@dataclass(frozen=True)
class ForeignStride:
    """Kernel parameter ``parameter`` strides dimension ``axis`` of ``access``'s pointer; the launch
    passes ``argument``, ``source``'s stride (``passed``), while ``target``, the tensor passed for
    the pointer, has ``actual``."""

    access: Access
    parameter: str
    argument: ast.expr
    source: str
    target: str
    axis: int
    passed: Poly
    actual: Poly


def foreign_strides(kernel_ctx: "FileContext", kernel: "Kernel", site: "Site") -> list[ForeignStride]:
    """The stride parameters of ``kernel``'s accesses (read in ``kernel_ctx``) that the launch
    ``site`` reads from a tensor whose stride differs from the addressed tensor's; one per
    parameter and pointer."""
    index = carried_index(kernel_ctx, kernel)  # pointers stepped in a K loop carry their strides too
    order = {p.arg: i for i, p in enumerate(kernel.params)}
    passed = _arguments(site)
    found: list[ForeignStride] = []
    seen: set[tuple[str, str]] = set()
    for access in index.accesses:
        if access.pointer is None or access.offset is None:
            continue
        parameters = sorted({n.split(":", 1)[1] for n in access.offset.symbols() if n.startswith((PARAM, CONST))},
                            key=lambda n: order.get(n, len(order)))
        for stride in _foreign(site, passed, access, parameters):
            if (access.pointer, stride.parameter) not in seen:
                seen.add((access.pointer, stride.parameter))
                found.append(stride)
    return found


def _foreign(site: "Site", passed: dict[str, ast.expr], access: Access, parameters: list[str]) -> list[ForeignStride]:
    target = passed.get(access.pointer)
    if target is None:
        return []
    view = site.ctx.project
    reads: dict[str, tuple[ast.expr, int]] = {}
    for name in parameters:
        argument = passed.get(name)
        read = stride_read(site.ctx, argument) if argument is not None else None
        if read is not None and ast.dump(read[0]) != ast.dump(target):
            reads[name] = read
    if not reads:
        return []
    for source_dump in {ast.dump(source) for source, _ in reads.values()}:
        # q's strides given to p's parameters in another order than the kernel lists them: the
        # author maps the dimensions (a transposed p on purpose), not this check
        axes = [axis for source, axis in reads.values() if ast.dump(source) == source_dump]
        if axes != sorted(set(axes)):
            return []
    addressed = shapes.tensor_of(view, site.ctx, target)
    if addressed is None or not addressed.shape:
        return []
    rank = len(addressed.shape)
    found = []
    for name, (source, axis) in reads.items():
        read_from = shapes.tensor_of(view, site.ctx, source)
        if read_from is None or len(read_from.shape) != rank or not -rank <= axis < rank:
            continue
        extent = addressed.shape[axis]
        if extent is None or (extent.is_const and extent.constant <= 1):
            continue
        stride, actual = read_from.stride(axis), addressed.stride(axis)
        if stride is None or actual is None or not differs(stride, actual):
            continue
        found.append(ForeignStride(access, name, passed[name], ast.unparse(source), ast.unparse(target),
                                   axis % rank, stride, actual))
    return found


def _arguments(site: "Site") -> dict[str, ast.expr]:
    """What the launch passes per kernel parameter, ``*q.stride()`` spread over as many
    parameters as ``q`` has dimensions (``q.stride()[k]`` for the ``k``-th)."""
    launch = site.launch
    passed = launch.bound_arguments()
    kernel = launch.kernel
    if kernel is None or not any(isinstance(a, ast.Starred) for a in launch.args):
        return passed
    params = [p.arg for p in kernel.params]
    at = 0
    for argument in launch.args:
        if at >= len(params):
            break
        if not isinstance(argument, ast.Starred):
            passed.setdefault(params[at], argument)
            at += 1
            continue
        value = argument.value
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "stride"
                and not value.args and not value.keywords):
            break
        tensor = shapes.tensor_of(site.ctx.project, site.ctx, value.func.value)
        if tensor is None or not tensor.shape:
            break
        for k in range(len(tensor.shape)):
            if at < len(params):
                item = ast.Subscript(value=value, slice=ast.Constant(k), ctx=ast.Load())
                passed.setdefault(params[at], ast.copy_location(item, argument))  # reported at `*q.stride()`
                at += 1
    return passed
