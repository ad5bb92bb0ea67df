"""Concrete sizes for a recipe: values for the symbols the entry's shapes are named by.

Grid axes are evaluated from the entry's source with a small evaluator over ``ast`` (sums,
products, ``cdiv``, ``next_power_of_2``, ``min``/``max``): the analyzed code is never run.
"""
from __future__ import annotations

import ast
import math

from kernelint.confirm.entry import Param, Target
from kernelint.confirm.recipes import GRID_AXIS_LIMIT, INT32_LIMIT

#: Value of an int parameter the source leaves open (a power of two: most are block sizes).
ASSUMED_INT = 64
DEFAULT_DIM = 64
#: Sizes that are not on the flagged grid axis, in the grid recipe (16: the smallest tl.dot block).
GRID_OTHER_DIM = 16
ROWS_PAST = 256
WIDE = 4096


class Unknown(Exception):
    pass


def evaluate(text: str, values: dict[str, int]) -> int:
    def value(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in values:
                return values[node.id]
            raise Unknown(node.id)
        if isinstance(node, ast.BinOp):
            left, right = value(node.left), value(node.right)
            ops = {ast.Add: lambda: left + right, ast.Sub: lambda: left - right, ast.Mult: lambda: left * right,
                   ast.FloorDiv: lambda: left // right, ast.Mod: lambda: left % right}
            if type(node.op) in ops:
                return ops[type(node.op)]()
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func).split(".")[-1]
            args = [value(a) for a in node.args]
            if name == "cdiv" and len(args) == 2:
                return -(-args[0] // args[1])
            if name == "next_power_of_2" and len(args) == 1:
                return 1 << max(args[0] - 1, 0).bit_length()
            if name in ("min", "max") and args:
                return (min if name == "min" else max)(args)
        raise Unknown(ast.unparse(node))

    return value(ast.parse(text, mode="eval").body)


def symbols(target: Target) -> list[str]:
    found: list[str] = []
    for param in target.params:
        for dim in param.dims or ():
            if dim not in found:
                found.append(dim)
    return found


def tensors(target: Target) -> list[Param]:
    return [p for p in target.params if p.kind in ("tensor", "tensor-list") and p.dims is not None]


def namespace(target: Target, sizes: dict[str, int]) -> dict[str, int]:
    """Symbols, int parameters and the entry's assignments that evaluate from them."""
    values = dict(sizes)
    values.update({p.name: ASSUMED_INT for p in target.params if p.kind == "int"})
    for name, text in target.assignments:
        if name not in values:
            try:
                values[name] = evaluate(text, values)
            except (Unknown, ZeroDivisionError, SyntaxError):
                pass
    return values


def grid_axis(message: str) -> int | None:
    import re

    match = re.search(r"grid axis (\d)", message)
    return int(match.group(1)) if match else None


def _over_grid_limit(target: Target, sizes: dict[str, int]) -> bool:
    """Whether grid axis 1 or 2 of the launch evaluates past 65,535 at these sizes (an axis that
    does not evaluate is not counted)."""
    values = namespace(target, sizes)
    for text in target.grid_axes[1:]:
        try:
            if evaluate(text, values) >= GRID_AXIS_LIMIT:
                return True
        except (Unknown, ZeroDivisionError, SyntaxError):
            continue
    return False


def _holds(value: int, op: str, constant: int) -> bool:
    return {"<": value < constant, "<=": value <= constant, ">": value > constant, ">=": value >= constant,
            "==": value == constant, "!=": value != constant}[op]


def branch_sizes(target: Target, names: list[str]) -> dict[str, int]:
    """Values that take the launch's branches (``if n_cols <= 8192: ... else: <launch>`` gives
    n_cols 16,384): powers of two just past the constant, or just under it."""
    fixed: dict[str, int] = {}
    for name, op, constant, holds in target.branches:
        if name not in names:
            continue
        above = 1 << max(constant, 1).bit_length()  # a power of two > constant
        for value in (above, constant, max(constant - 1, 1), max(constant // 2, 1)):
            if _holds(value, op, constant) == holds:
                fixed[name] = value
                break
    return fixed


def recipe_sizes(recipe: str, target: Target) -> tuple[dict[str, int], dict[str, int] | None, list[str]]:
    """``(sizes, control sizes or None, problems)``, taking the branches that reach the launch."""
    names = symbols(target)
    fixed = branch_sizes(target, names)
    sizes, control, problems = _recipe_sizes(recipe, target, fixed)
    for name, value in fixed.items():
        if sizes.get(name) != value:
            problems.append(f"the launch is reached only with `{name}` = {value} (the entry's branch), and the "
                            f"recipe needs it at {sizes.get(name)}")
    return sizes, control, problems


def _recipe_sizes(recipe: str, target: Target,
                  fixed: dict[str, int]) -> tuple[dict[str, int], dict[str, int] | None, list[str]]:
    names = symbols(target)
    sizes = {name: DEFAULT_DIM for name in names}
    sizes.update(fixed)
    problems: list[str] = []
    if recipe == "grid-axis-65536":
        axis = grid_axis(target.message)
        if axis is None or axis >= len(target.grid_axes):
            return sizes, None, [f"the launch's grid axis named by the finding is not read ({target.grid_axes})"]
        text = target.grid_axes[axis]
        used = [n for n in names if n in {x.id for x in ast.walk(ast.parse(text, mode="eval")) if isinstance(x, ast.Name)}]
        if not used:
            return sizes, None, [f"grid axis {axis} `{text}` names no input size the entry reads"]
        # The other sizes small: only the flagged axis needs to be large.
        sizes = {name: GRID_OTHER_DIM for name in names}
        sizes.update(fixed)
        for name in used[1:]:
            sizes[name] = 1
        driver = used[0]

        def axis_at(n: int) -> int:
            return evaluate(text, namespace(target, {**sizes, driver: n}))

        try:
            low, high = 1, 1
            while axis_at(high) < GRID_AXIS_LIMIT:
                high *= 2
                if high > 2**26:
                    return sizes, None, [f"grid axis `{text}` does not reach 65,536 by growing `{driver}`"]
            while low < high:
                middle = (low + high) // 2
                low, high = (middle + 1, high) if axis_at(middle) < GRID_AXIS_LIMIT else (low, middle)
        except Unknown as name:
            return sizes, None, [f"grid axis `{text}` reads `{name}`, which the entry does not fix from its inputs"]
        control = {**sizes, driver: low - 1}
        sizes[driver] = low
        if axis_at(low - 1) >= GRID_AXIS_LIMIT or low - 1 < 1:
            return sizes, None, [f"no size of `{driver}` puts grid axis `{text}` just under 65,536"]
        return sizes, control, problems
    if recipe == "elements-past-int32":
        import re

        named = re.search(r"to address `(\w+)`", target.message)
        candidates = sorted(tensors(target), key=lambda p: (not (named and p.name == named.group(1)), -len(p.dims)))
        if not candidates:
            return sizes, None, ["no tensor input with a known rank to grow past 2^31 elements"]
        big = candidates[0]
        # Every other size small: only the addressed tensor is grown past 2^31 elements.
        sizes = {name: GRID_OTHER_DIM for name in names}
        if len(big.dims) == 2:
            sizes[big.dims[-1]] = WIDE
        sizes.update({name: value for name, value in fixed.items() if name != big.dims[0]})
        rows, grown = big.dims[0], big.dims[-1]

        def grow_rows() -> None:
            inner = math.prod(sizes[d] for d in big.dims[1:])
            sizes[rows] = -(-INT32_LIMIT // inner) + ROWS_PAST

        grow_rows()
        # The rows may also count programs on grid axis 1 or 2 (mamba's state passing launches
        # (cdiv(dim, B), batch, nheads)): past 65,535 the launch fails before any address is formed.
        # Widen the last dimension instead, so that fewer rows pass 2^31 elements.
        while len(big.dims) > 1 and grown not in fixed and _over_grid_limit(target, sizes) and sizes[grown] < 2**20:
            sizes[grown] *= 2
            grow_rows()
        if _over_grid_limit(target, sizes):
            problems.append(f"no sizes put `{big.name}` past 2^31 elements with grid axes 1 and 2 within 65,535 "
                            f"({', '.join(target.grid_axes[1:])})")
        return sizes, None, problems
    if recipe == "length-not-multiple-of-block":
        for param in tensors(target):
            dims = param.dims
            for position, dim in enumerate(reversed(dims)):
                if dim in sizes and sizes[dim] != DEFAULT_DIM:
                    continue
                sizes[dim] = (1000 if len(dims) == 1 else 96) if position == 0 else 1000 if position == 1 else 2
        return sizes, None, problems
    if recipe == "second-call-after-autotune":
        # Several blocks along the second dimension (a sequence of 512 is 8 chunks of 64: an
        # in-place prefix over chunks then has something to accumulate), a batch of 1.
        for param in tensors(target):
            for position, dim in enumerate(param.dims):
                if sizes[dim] == DEFAULT_DIM:
                    sizes[dim] = 1 if position == 0 and len(param.dims) > 2 else 512 if position == 1 else DEFAULT_DIM
                    sizes[dim] = sizes[dim] or DEFAULT_DIM
        return sizes, None, problems
    if recipe == "bf16-through-fp16-pointer":
        return {**{name: 128 for name in names}, **fixed}, None, problems
    return sizes, None, problems
