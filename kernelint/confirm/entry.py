"""Where a finding's kernel is entered from, read from the source (nothing here imports it).

``locate`` finds the finding (by running the rule on the file), the kernel it is in or launches,
a launch of that kernel in the project (``ctx.project.launches_of``), and the top-level function
around that launch: the *entry* the harness calls. The entry's parameters are read from its body:
``B, T, H = g.shape`` names a tensor's dimensions, ``N = x.shape[-1]`` one of them,
``assert w.shape == (N,)`` a whole shape, ``x is None`` tests that None is accepted. Sizes are
named by those symbols; a recipe gives the symbols values. What cannot be read is listed in
``problems`` and becomes the verdict "cannot build input".
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from kernelint.model.context import FileContext
from kernelint.model.core.reaching import reaching_definitions, value_at
from kernelint.model.project.host import dtypes_of
from kernelint.model.project.index import project_root
from kernelint.model.project.shapes import dimension_read, shape_source, shape_unpacking

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TENSOR_ANNOTATIONS = re.compile(r"\b(Tensor|LongTensor|FloatTensor)\b")
_TENSOR_METHODS = frozenset({"stride", "size", "numel", "dim", "contiguous", "view", "reshape", "is_contiguous",
                             "data_ptr", "element_size", "new_empty", "new_zeros", "flatten", "transpose"})
_TENSOR_ATTRIBUTES = frozenset({"shape", "dtype", "device", "ndim", "T"})


@dataclass
class Param:
    name: str
    #: "tensor", "int", "float", "bool", "none" (the body accepts None), "default" (keep the
    #: default), or "unknown".
    kind: str
    #: A tensor's dimensions as symbols (a name the entry binds, or ``<param>.d<i>``); None when
    #: its rank is unknown.
    dims: tuple[str, ...] | None = None
    #: Host dtypes the program model finds for the value the entry receives (may be empty).
    dtypes: tuple[str, ...] = ()
    #: Where a shape not shown by the entry was read (a call of the entry in the project).
    source: str | None = None
    #: A literal given with ``--set`` (kind "literal"), or the default's source text (kind "default").
    value: str | None = None
    #: Why a shape was assumed rather than read (the harness lists it among its assumptions).
    assumed: str | None = None


@dataclass
class Target:
    code: str
    path: Path
    line: int
    message: str
    kernel: str
    kernel_path: Path
    root: Path | None
    entry_path: Path | None = None
    entry: str | None = None
    entry_line: int | None = None
    params: list[Param] = field(default_factory=list)
    #: The launch the entry makes (its grid expression's text per axis).
    grid_axes: list[str] = field(default_factory=list)
    #: The entry's local assignments, in order, as ``(name, expression text)`` (for evaluating
    #: a grid axis from the sizes).
    assignments: list[tuple[str, str]] = field(default_factory=list)
    #: The finding's related sites (the same cause) as ``(line, column, end_line, end_column)``.
    sites: list[tuple[int, int, int, int]] = field(default_factory=list)
    finding_fix: list[dict] = field(default_factory=list)
    #: The conditions on the way to the launch: ``(name, op, constant, holds)`` for each
    #: ``if n_cols <= 8192:`` around it (``holds``: the launch is in the body, not the else).
    branches: list[tuple[str, str, int, bool]] = field(default_factory=list)
    #: The entry takes its arguments by position only (``Function.apply``).
    positional: bool = False
    problems: list[str] = field(default_factory=list)

    def module_name(self, path: Path | None) -> str | None:
        """The dotted name ``path`` imports as from the project root (``src/`` layouts too)."""
        if path is None or self.root is None:
            return None
        try:
            parts = list(path.resolve().relative_to(self.root).with_suffix("").parts)
        except ValueError:
            return None
        if parts and parts[0] == "src":
            parts = parts[1:]
        if parts and parts[-1] == "__init__":
            parts = parts[:-1]
        return ".".join(parts) if parts and all(p.isidentifier() for p in parts) else None


def import_root(root: Path | None) -> Path | None:
    """The folder the project's modules import from: the project root, or above it while it is
    itself a package (flash-attention keeps a ``pyproject.toml`` inside ``flash_attn/`` for its CuTe
    build; its modules still import as ``flash_attn.ops...`` from the folder above)."""
    while root is not None and (root / "__init__.py").is_file() and root.parent != root:
        root = root.parent
    return root


class LocateError(Exception):
    """The finding is not there (nothing to confirm)."""


def find_finding(path: Path, line: int, code: str | None):
    """The finding at ``path:line`` (of ``code``, or of any rule with a recipe)."""
    from kernelint.confirm.recipes import DECLARED
    from kernelint.engine import Options, check_file

    codes = frozenset({code}) if code else frozenset(DECLARED)
    findings = check_file(str(path), Options(codes=codes))
    at_line = [f for f in findings if f.line == line or any(s.line == line for s in f.related)]
    if not at_line:
        raise LocateError(f"no {code or 'crash or numerics'} finding at {path}:{line}"
                          + (f" (findings of it in the file: lines {', '.join(str(f.line) for f in findings)})"
                             if findings else ""))
    return at_line[0]


def _context(path: Path) -> FileContext:
    source = path.read_text(encoding="utf-8")
    return FileContext(str(path), source, ast.parse(source, str(path)), ())


def _encloses(node: ast.AST, line: int) -> bool:
    return node.lineno <= line <= (node.end_lineno or node.lineno)


def locate(path: Path, line: int, code: str | None) -> Target:
    finding = find_finding(path, line, code)
    from kernelint.confirm.recipes import Recipe, recipe_for

    declared = recipe_for(finding.code)
    if not isinstance(declared, Recipe):
        why = getattr(declared, "why", "the rule declares no recipe")
        raise LocateError(f"cannot build input: {finding.code} has no confirm recipe: {why}")
    ctx = _context(path)
    kernel, kernel_ctx, launch_here = None, ctx, None
    for candidate in ctx.kernels:
        if _encloses(candidate.node, finding.line):
            kernel = candidate
    if kernel is None:
        for launch in ctx.launches_of("triton", imported=True):
            if _encloses(launch.node, finding.line):
                launch_here = launch
                found = launch.kernel and (launch.kernel, launch.kernel_ctx or ctx)
                found = found or ctx.project.kernel_for(launch.kernel_expr)
                if found:
                    kernel, kernel_ctx = found
    if kernel is None:
        launch_here = _launch_receiving_value_at(ctx, finding) or _launch_with_grid_at(ctx, finding.line)
        if launch_here is not None:
            found = launch_here.kernel and (launch_here.kernel, launch_here.kernel_ctx or ctx)
            found = found or ctx.project.kernel_for(launch_here.kernel_expr)
            if found:
                kernel, kernel_ctx = found
    if kernel is None:
        raise LocateError(f"{path}:{line}: the finding is neither inside a Triton kernel nor at a launch of one")
    target = Target(code=finding.code, path=path, line=finding.line, message=finding.message, kernel=kernel.name,
                    kernel_path=Path(kernel_ctx.path).resolve(), root=import_root(project_root(path)))
    target.sites = [(finding.line, finding.column, finding.end_line, finding.end_column)] + [
        (s.line, s.column, s.end_line, s.end_column) for s in finding.related if Path(s.path).resolve() == path.resolve()]
    if finding.fix is not None:
        target.finding_fix = [{"line": e.line, "col": e.col, "end_line": e.end_line, "end_col": e.end_col,
                               "replacement": e.replacement} for e in finding.fix.edits]
    if launch_here is not None:
        sites = [(launch_here.node, ctx, launch_here)]
    else:
        sites = [(s.node, s.ctx, s.launch) for s in ctx.project.launches_of(kernel, kernel_ctx)]
    for node, site_ctx, launch in sites:
        function = site_ctx.function_of(node)
        if function is not None and function in site_ctx.tree.body:
            _read_entry(target, site_ctx, function, launch, kernel, kernel_ctx)
            return target
    for node, site_ctx, launch in sites:
        function = site_ctx.function_of(node)
        owner = site_ctx.parent(function) if function is not None else None
        if function is not None and function.name == "forward" and isinstance(owner, ast.ClassDef) \
                and owner in site_ctx.tree.body and any(ast.unparse(b).endswith("Function") for b in owner.bases):
            # A torch.autograd.Function: the entry is Cls.apply(...), positional, without ctx.
            _read_entry(target, site_ctx, function, launch, kernel, kernel_ctx)
            target.entry, target.positional = f"{owner.name}.apply", True
            return target
    target.problems.append(f"no launch of `{kernel.name}` inside a top-level function or an autograd "
                           f"Function's forward ({len(sites)} launch(es) found)")
    return target


def _grid_value(ctx: FileContext, launch) -> ast.AST | None:
    """The launch's grid, through the one binding of its name that reaches the launch
    (``grid = lambda META: (...)``; a function that rebinds ``grid`` before each of its launches)."""
    grid = launch.grid
    if isinstance(grid, ast.Name):
        value = value_at(ctx, grid)
        if value is not None:
            return value
        reaching = reaching_definitions(ctx, grid)
        if len(reaching) == 1 and isinstance(reaching[0].node, _FUNCTIONS) and len(reaching[0].node.body) == 1 \
                and isinstance(reaching[0].node.body[0], ast.Return):
            # def grid(meta): return (cdiv(K, meta['BK']), cdiv(V, meta['BV']), N * H)
            return reaching[0].node.body[0].value
    return grid


def _launch_receiving_value_at(ctx: FileContext, finding):
    """The launch that receives the host value the finding is at (KL102: the int32 table
    ``torch.tensor(g_lds, dtype=torch.int32)``, passed to the kernel through a name)."""
    for node in ctx.nodes(ast.Call):
        if node.lineno == finding.line and node.col_offset + 1 == finding.column:
            launch, _ = ctx.launch_receiving(node, imported=True)
            if launch is not None:
                return launch
    return None


def _launch_with_grid_at(ctx: FileContext, line: int):
    for launch in ctx.launches_of("triton", imported=True):
        grid = _grid_value(ctx, launch)
        if grid is not None and grid is not launch.grid and _encloses(grid, line):
            return launch
    return None


def _read_entry(target: Target, ctx: FileContext, function, launch, kernel, kernel_ctx) -> None:
    target.entry_path = Path(ctx.path).resolve()
    target.entry, target.entry_line = function.name, function.lineno
    grid = _grid_value(ctx, launch) if launch is not None else None
    if isinstance(grid, ast.Lambda):
        grid = grid.body
    if isinstance(grid, (ast.Tuple, ast.List)):
        target.grid_axes = [ast.unparse(e) for e in grid.elts]
    elif grid is not None:
        target.grid_axes = [ast.unparse(grid)]
    facts = _body_facts(function)
    target.assignments = facts.assignments
    target.branches = _branches_to(ctx, launch.node, function) if launch is not None else []
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    from_callers = _shapes_from_callers(ctx, function, facts)
    none_accepted = _none_accepted_by_kernels(ctx, function)
    for arg in [*positional, *args.kwonlyargs]:
        if arg.arg in ("self", "cls", "ctx"):
            if arg.arg != "ctx" or arg is not positional[0]:
                target.problems.append(f"the entry `{function.name}` is a method; call it yourself")
            continue
        param = _param(arg, defaults, facts)
        if param.kind in ("tensor", "unknown") and param.dims is None and arg.arg in from_callers:
            param.kind, param.dims, param.dtypes, param.source = "tensor", *from_callers[arg.arg]
        elif param.kind in ("tensor", "unknown") and param.dims is None and arg.arg in none_accepted:
            param.kind, param.source = "none", none_accepted[arg.arg]
        elif param.kind == "unknown":
            literal = _literal_from_callers(ctx, function, arg.arg)
            if literal is not None:
                param.kind, param.value, param.source = "literal", *literal
        if param.kind == "tensor":
            found = dtypes_of(ctx.project, ctx, ast.Name(arg.arg, ast.Load()))
            param.dtypes = tuple(sorted(found.known)) or param.dtypes
            allowed = facts.dtypes_allowed.get(arg.arg) or next(
                (facts.dtypes_allowed[other] for group in facts.same_dtype if arg.arg in group
                 for other in group if other in facts.dtypes_allowed), None)
            if allowed:
                param.dtypes = tuple(d for d in param.dtypes if d in allowed) or tuple(allowed)
        target.params.append(param)
        if param.kind == "unknown":
            target.problems.append(f"parameter `{arg.arg}` of `{function.name}`: its type is not read from the source")
        elif param.kind == "tensor" and param.dims is None:
            target.problems.append(f"parameter `{arg.arg}` of `{function.name}`: a tensor whose rank the entry "
                                   "does not show (no `.shape` unpacking or shape assertion)")


@dataclass
class _Facts:
    dims: dict[str, list[str | None]] = field(default_factory=dict)
    #: tensor -> {index: symbol} from ``N = x.shape[-1]`` and ``x.shape[i]`` uses.
    indexed: dict[str, dict[int, str]] = field(default_factory=dict)
    none_tested: set[str] = field(default_factory=set)
    tensor_used: set[str] = field(default_factory=set)
    assignments: list[tuple[str, str]] = field(default_factory=list)
    ints: set[str] = field(default_factory=set)
    flattened: set[str] = field(default_factory=set)
    #: list -> the name its elements are read into (``A = group_A[i]``).
    element_of: dict[str, str] = field(default_factory=dict)
    #: x -> y for ``y = x.view(-1, ...)``: y's unpacked names name x's rows and columns.
    flattened_into: dict[str, str] = field(default_factory=dict)
    #: ``assert x.dtype in [...]``: the dtypes the entry accepts for x.
    dtypes_allowed: dict[str, list[str]] = field(default_factory=dict)
    same_dtype: list[list[str]] = field(default_factory=list)
    #: ``assert a.shape == b.shape``: a -> b.
    same_shape: dict[str, str] = field(default_factory=dict)
    #: ``B, T, H, K, V = *k.shape, v.shape[-1]``: v -> (k, "V").
    last_dim_of_like: dict[str, tuple[str, str]] = field(default_factory=dict)


def _merge(facts: _Facts, tensor: str, dims: list[str | None]) -> None:
    """A tensor's dimensions from one more statement: a name fills a dimension still unnamed."""
    known = facts.dims.get(tensor)
    if known is None or len(known) != len(dims):
        facts.dims.setdefault(tensor, dims)
        return
    facts.dims[tensor] = [old or new for old, new in zip(known, dims)]


def _shape_of(node: ast.AST) -> str | None:
    """``x`` for ``x.shape`` or ``x.size()`` of a name (the model reads the form: ``shapes.shape_source``)."""
    source = shape_source(node)
    return source.id if isinstance(source, ast.Name) else None


def _dim_index(node: ast.AST) -> tuple[str, int] | None:
    """``(x, i)`` for ``x.shape[i]`` or ``x.size(i)`` of a name with a literal ``i`` (``shapes.dimension_read``)."""
    read = dimension_read(node)
    return (read[0].id, read[1]) if read is not None and isinstance(read[0], ast.Name) else None


def _body_facts(function) -> _Facts:
    facts = _Facts()
    for node in ast.walk(function):
        unpacked = shape_unpacking(node)
        if unpacked is not None and isinstance(unpacked.tensor, ast.Name):
            tensor = unpacked.tensor.id
            if unpacked.starred:
                # *batch, n_cols = x.shape: any rank from len(names) up; built with one leading
                # dimension (the rows a flattening view makes) before the named ones
                _merge(facts, tensor, [None, *unpacked.names])
            else:
                _merge(facts, tensor, list(unpacked.names))
            for name, element in unpacked.rest:  # B, T, H, K, V = *k.shape, v.shape[-1]
                indexed = _dim_index(element)
                if indexed:
                    facts.indexed.setdefault(indexed[0], {})[indexed[1]] = name
                    if indexed[1] == -1:
                        # v in `B, T, H, K, V = *k.shape, v.shape[-1]`: the sizes of one problem
                        facts.last_dim_of_like[indexed[0]] = (tensor, name)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if isinstance(target, ast.Name) and isinstance(value, ast.Subscript) \
                    and isinstance(value.value, ast.Name) and not isinstance(value.slice, ast.Constant):
                # A = group_A[i]: A is an element of the list group_A
                facts.element_of.setdefault(value.value.id, target.id)
            elif isinstance(target, ast.Name):
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                        and value.func.attr in ("view", "reshape") and isinstance(value.func.value, ast.Name):
                    facts.flattened_into.setdefault(value.func.value.id, target.id)
                indexed = _dim_index(value)
                if indexed:
                    facts.indexed.setdefault(indexed[0], {})[indexed[1]] = target.id
                facts.assignments.append((target.id, ast.unparse(value)))
        elif isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1 \
                and isinstance(node.test.ops[0], ast.Eq) and _shape_of(node.test.left):
            right = node.test.comparators[0]
            if isinstance(right, ast.Tuple):
                _merge(facts, _shape_of(node.test.left),
                       [e.id if isinstance(e, ast.Name) and e.id != "_" else None for e in right.elts])
            elif _shape_of(right):
                facts.same_shape[_shape_of(node.test.left)] = _shape_of(right)
        elif isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) \
                and all(isinstance(op, ast.Eq) for op in node.test.ops) \
                and all(isinstance(e, ast.Attribute) and e.attr == "dtype" and isinstance(e.value, ast.Name)
                        for e in [node.test.left, *node.test.comparators]):
            # assert q.dtype == k.dtype == v.dtype
            facts.same_dtype.append([e.value.id for e in [node.test.left, *node.test.comparators]])
        elif isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1 \
                and isinstance(node.test.left, ast.Attribute) and node.test.left.attr == "dtype" \
                and isinstance(node.test.left.value, ast.Name):
            # assert q.dtype in [torch.float16, torch.bfloat16] / assert q.dtype == torch.float32
            right = node.test.comparators[0]
            options = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
            names = [ast.unparse(o).rsplit(".", 1)[-1] for o in options if isinstance(o, ast.Attribute)]
            if names and isinstance(node.test.ops[0], (ast.In, ast.Eq)):
                facts.dtypes_allowed.setdefault(node.test.left.value.id, names)
        elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and len(node.ops) == 1 \
                and isinstance(node.ops[0], (ast.Is, ast.IsNot)) \
                and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None:
            facts.none_tested.add(node.left.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
                node.attr in _TENSOR_ATTRIBUTES or node.attr in _TENSOR_METHODS):
            facts.tensor_used.add(node.value.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("view", "reshape") and isinstance(node.func.value, ast.Name) \
                and len(node.args) == 2 and isinstance(node.args[0], ast.UnaryOp) \
                and ast.unparse(node.args[0]) == "-1":
            # x.view(-1, x.shape[-1]): the entry takes any rank and flattens it to rows
            facts.flattened.add(node.func.value.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "cdiv":
            facts.ints.update(a.id for a in node.args if isinstance(a, ast.Name))
        indexed = _dim_index(node)
        if indexed:
            facts.indexed.setdefault(indexed[0], {})
    return facts


def _param(arg: ast.arg, defaults: dict, facts: _Facts) -> Param:
    name = arg.arg
    annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
    if name in defaults:
        return Param(name, "default", value=ast.unparse(defaults[name]))
    if name in facts.none_tested:
        return Param(name, "none")
    element = facts.element_of.get(name)
    if element is not None and element in facts.dims:
        dims = tuple(d or f"{element}.d{i}" for i, d in enumerate(facts.dims[element]))
        return Param(name, "tensor-list", dims)
    shape_of = facts.same_shape.get(name, name) if name not in facts.dims else name
    if shape_of in facts.dims:
        dims = tuple(d or f"{shape_of}.d{i}" for i, d in enumerate(facts.dims[shape_of]))
        return Param(name, "tensor", dims)
    like = facts.last_dim_of_like.get(name)
    if like is not None and like[0] in facts.dims and all(facts.dims[like[0]]):
        # Assumed, and said so in the harness: v has k's leading dimensions (the entry reads only its last).
        dims = (*facts.dims[like[0]][:-1], like[1])
        return Param(name, "tensor", tuple(dims),
                     assumed=f"`{name}` is ({', '.join(dims)}): `{like[0]}`'s leading dimensions, as "
                             f"`{', '.join(facts.dims[like[0]])}, {like[1]} = *{like[0]}.shape, {name}.shape[-1]` "
                             "reads them together (the entry shows only its last)")
    tensorish = _TENSOR_ANNOTATIONS.search(annotation) or name in facts.tensor_used
    if tensorish:
        indexed = facts.indexed.get(name)
        if name in facts.flattened:
            named = facts.dims.get(facts.flattened_into.get(name, ""))
            if named is not None and len(named) == 2 and all(named):
                return Param(name, "tensor", tuple(named))
            return Param(name, "tensor", (f"{name}.rows", (indexed or {}).get(-1, f"{name}.cols")))
        # x.shape[i] alone shows a lower bound of the rank, not the rank
        return Param(name, "tensor", None)
    if annotation in ("int", "bool", "float"):
        return Param(name, annotation)
    if name in facts.ints:
        return Param(name, "int")
    return Param(name, "unknown")


_ALLOCATORS = frozenset({"torch.randn", "torch.rand", "torch.empty", "torch.zeros", "torch.ones"})


def _allocation(ctx: FileContext, name: ast.Name) -> tuple[list[str], str | None] | None:
    """``(size texts, dtype)`` of ``name = torch.randn(a, b, dtype=...)`` bound once where it is used."""
    bound = [d for d in ctx.definitions(name.id, name) if d.value is not None]
    if len(bound) != 1 or not isinstance(bound[0].value, ast.Call):
        return None
    call = bound[0].value
    if ctx.qualname(call.func) not in _ALLOCATORS:
        return None
    sizes = call.args[0].elts if len(call.args) == 1 and isinstance(call.args[0], (ast.Tuple, ast.List)) else call.args
    if not sizes or any(isinstance(a, ast.Starred) for a in sizes):
        return None
    dtype = next((ast.unparse(k.value).rsplit(".", 1)[-1] for k in call.keywords if k.arg == "dtype"), None)
    return [ast.unparse(a) for a in sizes], dtype


def _shapes_from_callers(ctx: FileContext, function, facts: _Facts) -> dict[str, tuple]:
    """Shapes of entry parameters the entry does not show, read from a call of the entry in the
    project (often a test): ``raw = torch.randn(B, T, HV); A_log = torch.randn(HV);
    entry(raw, A_log)`` gives ``A_log`` the dimension of ``raw`` that the entry names ``H``.
    A size the call's tensors do not relate to a named one stays unknown (no shape)."""
    params = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    found: dict[str, tuple] = {}
    try:
        sites = ctx.project.callers_of(function, ctx)
    except Exception:  # noqa: BLE001 - the program model could not answer: no facts from callers
        return found
    for site in sites[:16]:
        call = site.node
        passed = dict(zip(params[site.shift:], call.args))
        passed.update({k.arg: k.value for k in call.keywords if k.arg})
        allocated = {name: _allocation(site.ctx, value) for name, value in passed.items()
                     if isinstance(value, ast.Name)}
        renaming: dict[str, str] = {}
        for name, made in allocated.items():
            if made and name in facts.dims and len(facts.dims[name]) == len(made[0]):
                for text, symbol in zip(made[0], facts.dims[name]):
                    if symbol:
                        renaming.setdefault(text, symbol)
        for name, made in allocated.items():
            if made is None or name in facts.dims or name in found:
                continue
            dims = [renaming.get(text) for text in made[0]]
            if all(dims):
                found[name] = (tuple(dims), (made[1],) if made[1] else (), site.where)
    return found


def _none_accepted_by_kernels(ctx: FileContext, function) -> dict[str, str]:
    """Entry parameters passed straight to a kernel whose ``@triton.heuristics`` test that
    argument against None (``lambda args: args['h0'] is not None``): the kernel is written to take
    None there. Maps the entry's parameter to the kernel and parameter that accept it."""
    found: dict[str, str] = {}
    for launch in ctx.launches_of("triton", imported=True):
        if ctx.function_of(launch.node) is not function:
            continue
        kernel = launch.kernel or (ctx.project.kernel_for(launch.kernel_expr) or (None,))[0]
        if kernel is None:
            continue
        tested = set()
        for decorator in kernel.node.decorator_list:
            for node in ast.walk(decorator):
                if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)) \
                        and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None \
                        and isinstance(node.left, ast.Subscript) and isinstance(node.left.slice, ast.Constant):
                    tested.add(node.left.slice.value)
        launch.kernel = launch.kernel or kernel
        for name, value in launch.bound_arguments().items():
            if name in tested and isinstance(value, ast.Name):
                found.setdefault(value.id, f"`{kernel.name}`'s heuristics test `{name}` against None")
    return found


def _literal_from_callers(ctx: FileContext, function, name: str) -> tuple[str, str] | None:
    """A number a call of the entry in the project passes for ``name``: a literal, or the literal
    default of the calling function's own parameter it forwards (``forward(ctx, x, ..., eps=1e-6)``
    calling ``_layer_norm_fwd(x, w, b, eps)``). ``(text, where)``; None when no call fixes one."""
    params = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    try:
        sites = ctx.project.callers_of(function, ctx)
    except Exception:  # noqa: BLE001 - the program model could not answer: no facts from callers
        return None
    for site in sites[:16]:
        passed = dict(zip(params[site.shift:], site.node.args))
        passed.update({k.arg: k.value for k in site.node.keywords if k.arg})
        value = passed.get(name)
        if isinstance(value, ast.Name):
            caller = site.ctx.function_of(site.node)
            if caller is None:
                continue
            args = caller.args
            positional = [*args.posonlyargs, *args.args]
            defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
            defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
            value = defaults.get(value.id)
        if isinstance(value, ast.Constant) and isinstance(value.value, (int, float)) \
                and not isinstance(value.value, bool):
            return repr(value.value), f"the call at {site.where}"
    return None


_OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


def _branches_to(ctx: FileContext, node: ast.AST, function) -> list[tuple[str, str, int, bool]]:
    """``if NAME <op> INT:`` statements of the entry that the launch is under, and on which side."""
    found = []
    child, parent = node, ctx.parent(node)
    while parent is not None and parent is not function:
        if isinstance(parent, ast.If) and isinstance(parent.test, ast.Compare) and len(parent.test.ops) == 1 \
                and isinstance(parent.test.left, ast.Name) and type(parent.test.ops[0]) in _OPS \
                and isinstance(parent.test.comparators[0], ast.Constant) \
                and isinstance(parent.test.comparators[0].value, int):
            holds = any(child is statement for statement in parent.body)
            found.append((parent.test.left.id, _OPS[type(parent.test.ops[0])], parent.test.comparators[0].value, holds))
        child, parent = parent, ctx.parent(parent)
    return found
