"""``cutlass.pipeline`` objects in CuTe DSL kernels: which calls create a pipeline (and which
kind), how many producer arrivals its barriers wait for, and which side a pipeline state was
made for. Values are followed through local names (``ctx.values_of``) and folded with
``cute_static.cute_int``."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.core.calls import argument
from kernelint.model.cute.static import cute_int
from kernelint.model.dsl.cute import AGENT_THREAD, COOPERATIVE_GROUP, MAKE_PIPELINE_STATE, PIPELINE, PIPELINE_USER_TYPES

if TYPE_CHECKING:
    from kernelint.model.context import FileContext


#: The calls ``created_pipeline`` can answer for (any ``.create``: the class is checked there).
PIPELINE_CREATES = frozenset({".create"})


def created_pipeline(ctx: "FileContext", call: ast.Call) -> str | None:
    """The pipeline class (qualified name) when ``call`` is ``<cutlass.pipeline class>.create(...)``."""
    name = ctx.call_name(call) or ""
    if name.startswith(PIPELINE) and name.endswith(".create"):
        return name[: -len(".create")]
    return None


def _single_value(ctx: "FileContext", expr: ast.expr | None) -> ast.expr | None:
    values = list(ctx.values_of(expr)) if expr is not None else []
    return values[0] if len(values) == 1 else None


def thread_group_size(ctx: "FileContext", group: ast.expr | None) -> int | None:
    """The size of a ``CooperativeGroup(Agent.Thread, size)`` that ``group`` holds (1 when the
    size is left out); None when it is not such a group or the size does not fold."""
    value = _single_value(ctx, group)
    if not isinstance(value, ast.Call) or ctx.call_name(value) != COOPERATIVE_GROUP:
        return None
    agent = argument(value, "agent", 0)
    if agent is None or ctx.qualname(agent) != AGENT_THREAD:
        return None
    size = argument(value, "size", 1)
    return 1 if size is None else cute_int(ctx, size)


def state_side(ctx: "FileContext", state: ast.expr | None) -> str | None:
    """``"producer"`` or ``"consumer"`` for a state made by
    ``make_pipeline_state(PipelineUserType.Producer/Consumer, stages)``; None otherwise."""
    value = _single_value(ctx, state)
    if not isinstance(value, ast.Call) or ctx.call_name(value) != MAKE_PIPELINE_STATE:
        return None
    user_type = argument(value, "type", 0)
    return PIPELINE_USER_TYPES.get(ctx.qualname(user_type) or "") if user_type is not None else None
