"""FileContext: the semantic model of one file, as rules see it."""
from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Iterable, Iterator

from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import cutile, triton
from kernelint.model.kernels import Kernel, config_dict_keys, find_kernel
from kernelint.model.launch import Launch, launched_kernel_expr
from kernelint.model.core.names import ImportTable
from kernelint.model.core.reaching import reaching_definitions
from kernelint.model.core.values import BINDING_NODES, Definition, bindings, fold_int
from kernelint.model.core.walk import EVERY_NODE_CLASS, ancestors, enclosing, index_tree, parent, subtree

_DEF_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)
_FUNCTION_NODES = (*_DEF_NODES, ast.Lambda)
_SCOPE_NODES = (*_FUNCTION_NODES, ast.ClassDef, ast.Module)
_LOOP_NODES = (ast.For, ast.AsyncFor, ast.While)
_SCOPE = "_kl_scope"
_FUNCTION = "_kl_function"
_LAUNCH_STYLE = {"triton": "subscript", "cutile": "cutile", "cute": "cute"}
_LIST_GROWERS = frozenset({"append", "extend", "insert"})
#: Host tensor methods that hand on the same values (moved, made contiguous, pinned).
_VALUE_KEEPING_METHODS = frozenset({"cuda", "to", "contiguous", "pin_memory"})


def _bound_name(definition: Definition) -> str | None:
    node = definition.node
    if isinstance(node, ast.arg):
        return node.arg
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    if isinstance(node, ast.Name):
        return node.id
    for name, found in bindings(node) if not isinstance(node, ast.comprehension) else ():
        if found == definition:
            return name
    return None


_SKELETON = "_kl_skeleton"
#: A qualified name not looked up yet (None is an answer: the name resolves to nothing known).
_UNASKED = object()


@dataclass(frozen=True)
class _Skeleton:
    """The parts of a file model that depend on the tree alone (never on the target or the
    options a model is built with), shared by every model of the same tree."""

    indexed: frozenset
    buckets: dict
    definitions: dict
    kernels: tuple
    kernel_by_node: dict


class FileContext:
    """Everything a rule may ask about one parsed file. Built from a single traversal."""

    def __init__(self, path: str, source: str, tree: ast.Module, wanted: Iterable[type[ast.AST]],
                 imports: ImportTable | None = None, target_sm: int | None = None, target_versions=None):
        self.path = path
        #: ``kernelint.versions.Targets`` the engine resolved for this file (None: resolve lazily).
        self._target_versions = target_versions
        self.source = source
        self.tree = tree
        #: Compute capability of the configured ``target-arch`` (90 for sm_90); None if unset.
        self.target_sm = target_sm
        self.imports = imports if imports is not None else ImportTable.from_tree(tree)
        self._qualnames: dict[int, str | None] = {}
        self._loads: dict[str, list[ast.Name]] | None = None
        self._nodes_by_function: dict[type, dict[int, list[ast.AST]]] = {}
        skeleton = tree.__dict__.get(_SKELETON)
        if skeleton is None:
            skeleton = self._skeleton(tree, wanted)
            setattr(tree, _SKELETON, skeleton)
        #: Per node type, its nodes in source order: a copy, since types no walk bucketed yet
        #: (the shared singletons) are added on first use.
        self._buckets = dict(skeleton.buckets)
        self._indexed = set(skeleton.indexed)
        self._defs = skeleton.definitions
        #: ``definitions`` answers by (scope, name): the bindings visible from that scope.
        self._visible: dict[tuple[int, str], list[Definition]] = {}
        self.kernels: list[Kernel] = list(skeleton.kernels)
        self._kernel_by_node = skeleton.kernel_by_node

    def _skeleton(self, tree: ast.Module, wanted: Iterable[type[ast.AST]]) -> "_Skeleton":
        """What the file model reads from the tree alone, kept on the tree: a module the project
        view read for another file's question and then checked itself (or the other way round)
        is walked once, not once per model. Every node type is bucketed in the one walk (about
        a sixth more than the model's own types, and rules ask for most types anyway); the
        shared operator and context singletons only when a rule declares one."""
        indexed = {*wanted, *EVERY_NODE_CLASS}
        buckets = index_tree(tree, indexed)
        self._buckets, self._indexed = buckets, indexed  # scope_of and qualname need no more
        defs: dict[tuple[int, str], list[Definition]] = defaultdict(list)
        for node_type in BINDING_NODES:
            for node in buckets.get(node_type, ()):
                scope = node if isinstance(node, _FUNCTION_NODES) else self.scope_of(node)
                for name, definition in bindings(node):
                    defs[(id(scope), name)].append(definition)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    defs[(id(self.scope_of(node)), node.name)].append(Definition(node, None, "def"))
        self._defs, self._visible = defs, {}
        kernels: list[Kernel] = []
        kernel_by_node: dict[int, Kernel] = {}
        for node_type in (ast.FunctionDef, ast.AsyncFunctionDef):
            for node in buckets.get(node_type, ()):
                kernel = find_kernel(node, self.qualname, self._autotune_keys)
                if kernel is not None:
                    kernels.append(kernel)
                    kernel_by_node[id(node)] = kernel
        kernels.sort(key=lambda k: k.node.lineno)
        return _Skeleton(frozenset(indexed), buckets, defs, tuple(kernels), kernel_by_node)

    @cached_property
    def project(self):
        """The program around this file (``model/project/view.py``): launches, callers and host
        facts in other modules. Built on first use, so a file no rule asks about pays nothing."""
        from kernelint.model.project.view import ProjectView

        return ProjectView(self)

    def project_reads(self) -> dict[str, str]:
        """The facts from other files that answers about this file read (empty if none); the
        other modules' models it used are handed back (``ProjectView.release``)."""
        view = self.__dict__.get("project")
        if view is None:
            return {}
        view.release()
        return dict(view.reads)

    def dismantle(self, with_tree: bool) -> None:
        """Take this model and its project view apart, and the tree too ``with_tree``, for a
        caller that is done with them and knows nothing else holds them (the engine when no
        kernel findings are kept; the tree only when it parsed it itself). Parent links, and the
        answers the model keeps on nodes and in its own tables, make a checked file one big
        reference cycle that only the collector frees, tracing every object of it first;
        emptied, it is freed as soon as it is dropped (over the corpus, one process: 2.7 s of
        young collections down to 0.4 s). The shared operator and context singletons are never
        touched."""
        view = self.__dict__.get("project")
        if view is not None:
            view.release()
            view.__dict__.clear()
        skeleton = self.tree.__dict__.get(_SKELETON) if with_tree else None
        if skeleton is not None:
            for node_type, nodes in skeleton.buckets.items():
                if node_type in EVERY_NODE_CLASS:
                    for node in nodes:
                        node.__dict__.clear()
        self.__dict__.clear()

    # --- target releases ---------------------------------------------------------------------

    def target(self, dsl: str):
        """The ``kernelint.versions.Target`` of ``dsl`` (``"triton"``, ``"cute"``, ``"cutile"``) for
        this file: configured, else pinned by its project, else installed, else the newest known."""
        if self._target_versions is None:
            from kernelint.versions import targets_for

            self._target_versions = targets_for(self.path)
        return self._target_versions.of(dsl)

    # --- names -------------------------------------------------------------------------------

    def qualname(self, expr: ast.AST) -> str | None:
        """Canonical dotted name of ``expr`` (memoised per node: rules ask about the same calls)."""
        found = self._qualnames.get(id(expr), _UNASKED)
        if found is _UNASKED:
            found = self._qualnames[id(expr)] = self.imports.qualname(expr)
        return found

    def source_segment(self, node: ast.AST) -> str | None:
        """The source text of ``node`` (as ``ast.get_source_segment``, which splits the whole
        file again on every call: 8 ms a finding on large files). Lines are split once."""
        end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None:
            return None
        lines = self.__dict__.get("_source_lines")
        if lines is None:
            lines = self.__dict__["_source_lines"] = [line.encode("utf-8") for line in self.source.split("\n")]
        first, last = node.lineno - 1, end_line - 1
        if last >= len(lines):
            return None
        if first == last:
            return lines[first][node.col_offset:end_col].decode("utf-8", errors="replace")
        parts = [lines[first][node.col_offset:], *lines[first + 1:last], lines[last][:end_col]]
        return b"\n".join(parts).decode("utf-8", errors="replace")

    def call_name(self, node: ast.AST) -> str | None:
        """Qualified name of the function a call calls (``tl.load(...)`` -> ``triton.language.load``)."""
        return self.qualname(node.func) if isinstance(node, ast.Call) else None

    def is_call(self, node: ast.AST, *qualnames: str) -> bool:
        return isinstance(node, ast.Call) and self.qualname(node.func) in qualnames

    def nodes(self, node_type: type[ast.AST]) -> list[ast.AST]:
        """Every node of ``node_type`` in the file, in source order; what a rule sees never depends
        on which other rules run."""
        if node_type not in self._indexed:  # a shared singleton type (every other is indexed)
            self._buckets[node_type] = index_tree(self.tree, (node_type,)).get(node_type, [])
            self._indexed.add(node_type)
        return self._buckets.get(node_type, [])

    def calls_to(self, keys: frozenset[str]) -> list[ast.Call]:
        """The calls of the file that ``keys`` name, in source order. A key is a called name
        (``triton.language.load``), or ``.name`` for every call of a function last named
        ``name``, as written or as resolved (``.to`` matches ``x.to(...)``, ``.create`` matches
        ``PipelineTmaAsync.create(...)``, ``.load`` matches ``ld(...)`` after ``from
        triton.language import load as ld``). The calls are grouped by key once per file."""
        calls = self.nodes(ast.Call)
        by_key = self.__dict__.get("_calls_by_key")
        if by_key is None:
            by_key = self.__dict__["_calls_by_key"] = {}
            for position, call in enumerate(calls):
                func = call.func
                name = self.qualname(func)
                written = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
                keys_of_call = {name, "." + name.rsplit(".", 1)[-1]} if name is not None else set()
                if written is not None:
                    keys_of_call.add("." + written)
                for key in keys_of_call:
                    by_key.setdefault(key, []).append(position)
        positions = sorted({position for key in keys for position in by_key.get(key, ())})
        return [calls[position] for position in positions]

    # --- scopes ------------------------------------------------------------------------------

    def scope_of(self, node: ast.AST) -> ast.AST:
        """The function, class or module whose local names ``node`` reads. Kept on each node
        on the way up (the value followers ask it for every name they meet)."""
        found = node.__dict__.get(_SCOPE)  # ``enclosing``'s first step, inlined: asked millions of times
        if found is None:
            found = enclosing(node, _SCOPE_NODES, _SCOPE)
        return found or self.tree  # the tree: a node outside it

    def statement_of(self, node: ast.AST) -> ast.stmt | None:
        """The innermost statement that contains ``node``."""
        for ancestor in ancestors(node):
            if isinstance(ancestor, ast.stmt):
                return ancestor
        return None

    def function_of(self, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The innermost ``def`` around ``node`` (None at module or class level). Kept on each
        node on the way up, like ``scope_of``."""
        found = node.__dict__.get(_FUNCTION)
        return enclosing(node, _DEF_NODES, _FUNCTION) if found is None else found or None

    def kernels_of(self, dsl: str) -> list[Kernel]:
        """The file's kernels of ``dsl``, in source order."""
        return [kernel for kernel in self.kernels if kernel.dsl == dsl]

    def kernel_of(self, node: ast.AST, dsl: str | None = None) -> Kernel | None:
        """The kernel whose body contains ``node`` (nested helpers excluded), or None; with
        ``dsl``, only a kernel of that DSL."""
        function = self.function_of(node)
        kernel = self._kernel_by_node.get(id(function)) if function is not None else None
        return kernel if kernel is not None and (dsl is None or kernel.dsl == dsl) else None

    def calls_in(self, function: ast.AST) -> list[ast.Call]:
        """The calls in ``function``'s own body (not in functions nested in it), in source order."""
        return self.nodes_in(function, ast.Call)

    def nodes_in(self, function: ast.AST, node_type: type[ast.AST]) -> list[ast.AST]:
        """The nodes of ``node_type`` in ``function``'s own body (not in functions nested in
        it), in source order; every function's are grouped in one pass over the file's nodes
        of that type, so asking for each kernel in turn stays linear in the file."""
        grouped = self._nodes_by_function.get(node_type)
        if grouped is None:
            grouped = self._nodes_by_function[node_type] = {}
            for node in self.nodes(node_type):
                owner = self.function_of(node)
                if owner is not None:
                    grouped.setdefault(id(owner), []).append(node)
        return list(grouped.get(id(function), ()))

    def local_functions_called(self, call: ast.Call) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """The functions of this file that ``call`` may call: ``helper(...)`` by name (a function,
        not a method), or ``self.helper(...)`` / ``cls.helper(...)`` by method name (any class
        of the file)."""
        func = call.func
        if isinstance(func, ast.Name):
            name, in_class = func.id, False
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
            name, in_class = func.attr, True
        else:
            return []
        # `helper(...)` never calls a method, and `self.helper(...)` only a method.
        return list(self._functions_by_name.get((name, in_class), ()))

    @cached_property
    def _functions_by_name(self) -> dict[tuple[str, bool], list[ast.FunctionDef | ast.AsyncFunctionDef]]:
        """(name, is a method) -> the ``def``s of the file, in source order."""
        found: dict[tuple[str, bool], list] = {}
        for d in self.nodes(ast.FunctionDef) + self.nodes(ast.AsyncFunctionDef):
            found.setdefault((d.name, isinstance(self.parent(d), ast.ClassDef)), []).append(d)
        return found

    def call_or_its_helpers(self, call: ast.Call, predicate, depth: int = 2) -> bool:
        """``predicate`` holds for ``call`` itself or for a call inside a function of this file
        that ``call`` calls, following helpers up to ``depth`` calls deep."""
        if predicate(call):
            return True
        if depth == 0:
            return False
        return any(
            self.call_or_its_helpers(inner, predicate, depth - 1)
            for helper in self.local_functions_called(call)
            for inner in subtree(helper) if isinstance(inner, ast.Call)
        )

    def kernel_named(self, name: str) -> Kernel | None:
        matches = self.kernels_named(name)
        return matches[0] if len(matches) == 1 else None

    def kernels_named(self, name: str) -> list[Kernel]:
        """The file's kernels called ``name``, in source order."""
        return list(self._kernels_by_name.get(name, ()))

    @cached_property
    def _kernels_by_name(self) -> dict[str, list[Kernel]]:
        found: dict[str, list[Kernel]] = {}
        for kernel in self.kernels:
            found.setdefault(kernel.name, []).append(kernel)
        return found

    def launch_at(self, call: ast.Call, dsl: str | None = None) -> Launch | None:
        """The launch of this file's kernel that ``call`` is (of ``dsl``'s own launch form, when
        given), or None."""
        if dsl is not None:
            by_call = self.__dict__.setdefault("_launch_at", {}).get(dsl)
            if by_call is None:
                by_call = self.__dict__["_launch_at"][dsl] = {}
                for launch in self.launches_of(dsl):
                    by_call.setdefault(id(launch.node), launch)
        else:
            by_call = self.__dict__.get("_launch_at_any")
            if by_call is None:
                by_call = self.__dict__["_launch_at_any"] = {}
                for launch in self.launches:
                    by_call.setdefault(id(launch.node), launch)
        return by_call.get(id(call))

    def loops_of(self, node: ast.AST, stop_at_function: bool = True) -> list[ast.AST]:
        """Enclosing loops, innermost first."""
        loops = []
        for ancestor in ancestors(node):
            if stop_at_function and isinstance(ancestor, _FUNCTION_NODES):
                break
            if isinstance(ancestor, _LOOP_NODES):
                loops.append(ancestor)
        return loops

    parent = staticmethod(parent)
    ancestors = staticmethod(ancestors)

    # --- values ------------------------------------------------------------------------------

    def definitions(self, name: str, at: ast.AST) -> list[Definition]:
        """Bindings of ``name`` visible at ``at``: its own scope's, else an enclosing one's."""
        first = self.scope_of(at)
        key = (id(first), name)
        found = self._visible.get(key)
        if found is not None:
            return found
        scope = first
        while True:
            found = self._defs.get((id(scope), name))
            if found or scope is self.tree:
                break
            scope = self.scope_of(scope)
        found = found or []
        self._visible[key] = found
        return found

    def values_of(self, expr: ast.expr, depth: int = 8) -> Iterator[ast.expr | None]:
        """The expressions ``expr`` may evaluate to, following plain name copies.
        Yields None for a binding that cannot be read (parameters, loop variables, ...)."""
        if depth <= 0:
            yield None
            return
        if not isinstance(expr, ast.Name):
            yield expr
            return
        definitions = self.definitions(expr.id, expr)
        if not definitions:
            yield None
        for definition in definitions:
            if definition.value is None:
                yield None
            else:
                yield from self.values_of(definition.value, depth - 1)

    def resolve_int(self, expr: ast.AST, depth: int = 8) -> int | None:
        """Fold ``expr`` to an int through literals, single-assignment names and module constants."""

        def lookup(name: ast.Name) -> int | None:
            if depth <= 0:
                return None
            definitions = self.definitions(name.id, name)
            if len(definitions) != 1 or definitions[0].value is None:
                return None
            value = definitions[0].value
            if isinstance(value, ast.Call) and self.qualname(value.func) in {
                triton.CONSTEXPR, "cutlass.Constexpr", triton.NEXT_POWER_OF_2,
            } and len(value.args) == 1:
                inner = self.resolve_int(value.args[0], depth - 1)
                if inner is None or self.qualname(value.func) != triton.NEXT_POWER_OF_2:
                    return inner
                return 1 << max(inner - 1, 0).bit_length()
            return self.resolve_int(value, depth - 1)

        return fold_int(expr, lookup)

    def uses_of(self, definition: Definition) -> list[ast.Name]:
        """The reads of a name that ``definition`` may give their value (ruff's references):
        loads of the same name in its scope, or in nested scopes that do not rebind it, that the
        binding reaches."""
        if self._loads is None:
            self._loads = defaultdict(list)
            for name in self.nodes(ast.Name):
                if isinstance(name.ctx, ast.Load):
                    self._loads[name.id].append(name)
        bound = _bound_name(definition)
        if bound is None:
            return []
        return [
            use for use in self._loads.get(bound, ())
            if any(d.node is definition.node for d in reaching_definitions(self, use))
        ]

    def result_never_read(self, expr: ast.expr) -> bool:
        """``expr`` is stored in a name or attribute (``self.bar = NamedBarrier(...)``) that nothing
        in the file reads: whatever it builds is never used. False when it is not stored so."""
        holder = self.parent(expr)
        if not (isinstance(holder, ast.Assign) and len(holder.targets) == 1):
            return False
        target = holder.targets[0]
        if isinstance(target, ast.Attribute):
            return not any(
                n.attr == target.attr and isinstance(n.ctx, ast.Load) for n in self.nodes(ast.Attribute)
            )
        if isinstance(target, ast.Name):
            return not any(n.id == target.id and isinstance(n.ctx, ast.Load) for n in self.nodes(ast.Name))
        return False

    def list_growth(self, name: ast.Name) -> list[ast.expr]:
        """What the code adds to the list ``name`` holds, in its scope: the arguments of
        ``name.append(...)``, ``.extend(...)``, ``.insert(i, ...)`` and the right side of
        ``name += ...``."""
        scope = self.scope_of(name)
        added: list[ast.expr] = []
        for node in subtree(scope):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _LIST_GROWERS
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == name.id
            ):
                added.extend(node.args[1:] if node.func.attr == "insert" else node.args)
            elif (
                isinstance(node, ast.AugAssign)
                and isinstance(node.op, ast.Add)
                and isinstance(node.target, ast.Name)
                and node.target.id == name.id
            ):
                added.append(node.value)
        return added

    def launch_receiving(self, expr: ast.expr, dsl: str = "triton", depth: int = 4,
                         imported: bool = False) -> tuple["Launch | None", ast.arg | None]:
        """The launch of a ``dsl`` kernel of this file that receives the value of host expression
        ``expr`` (through ``.to(...)``/``.cuda()``-style chains and names it is assigned to), and
        the kernel parameter it binds (None when passed past a ``*args``); (None, None) if no
        launch here receives it."""
        expr = self._outermost_chain(expr)
        for launch in self.launches_of(dsl, imported):
            name = next((n for n, argument in launch.bound_arguments().items() if argument is expr), None)
            if name is not None:
                return launch, next((p for p in launch.kernel.params if p.arg == name), None)
            if any(argument is expr for argument in launch.args):
                return launch, None
        holder = self.parent(expr)
        if depth > 0 and isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
            for definition in self.definitions(holder.targets[0].id, holder):
                if definition.node is holder:
                    for use in self.uses_of(definition):
                        found = self.launch_receiving(use, dsl, depth - 1, imported)
                        if found[0] is not None:
                            return found
        return None, None

    def _outermost_chain(self, expr: ast.expr) -> ast.expr:
        """``torch.tensor(...).to(dev).contiguous()`` from its innermost part."""
        node = expr
        while True:
            attribute = self.parent(node)
            outer = self.parent(attribute) if attribute is not None else None
            if (
                isinstance(attribute, ast.Attribute)
                and attribute.attr in _VALUE_KEEPING_METHODS
                and isinstance(outer, ast.Call)
                and outer.func is attribute
            ):
                node = outer
            else:
                return node

    # --- kernels and launches ----------------------------------------------------------------

    def _autotune_keys(self, configs: ast.expr) -> tuple[set[str], bool]:
        """Config keys of an autotune ``configs=`` expression: a literal list or comprehension,
        a module-level list, or a local function that builds the configs."""
        sources: list[ast.AST] = []
        for value in self.values_of(configs):
            if value is None:
                return set(), False
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                builder = [
                    d.node for d in self.definitions(value.func.id, value)
                    if isinstance(d.node, (ast.FunctionDef, ast.AsyncFunctionDef))
                ]
                if len(builder) != 1:
                    return set(), False
                sources.append(builder[0])
            else:
                sources.append(value)
        keys: set[str] = set()
        complete = True
        seen_config = False
        for source in sources:
            for node in ast.walk(source):
                if isinstance(node, ast.Call) and self.qualname(node.func) == triton.CONFIG:
                    seen_config = True
                    config_keys = config_dict_keys(node)
                    if config_keys is None:
                        complete = False
                    else:
                        keys |= config_keys
        return keys, complete and seen_config

    def _kernel_for(self, expr: ast.expr) -> Kernel | None:
        if isinstance(expr, ast.Name):
            return self.kernel_named(expr.id)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in ("self", "cls"):
            return self.kernel_named(expr.attr)
        return None

    @cached_property
    def launches(self) -> list[Launch]:
        launches = []
        for call in self.nodes(ast.Call):
            func = call.func
            if isinstance(func, ast.Subscript):
                kernel_expr = launched_kernel_expr(self, func.value)
                kernel = self._kernel_for(kernel_expr)
                if kernel is not None:
                    keywords = {k.arg: k.value for k in call.keywords if k.arg}
                    launches.append(Launch(call, "subscript", kernel_expr, kernel, func.slice, list(call.args), keywords))
            elif self.qualname(func) == cutile.LAUNCH:
                signature = cutile.SIGNATURES[cutile.LAUNCH]
                kernel_expr = signature_argument(call, signature, "kernel")
                if kernel_expr is None:
                    continue
                args = signature_argument(call, signature, "kernel_args")
                if args is None:
                    arg_list = []
                elif isinstance(args, (ast.Tuple, ast.List)):
                    arg_list = list(args.elts)
                else:
                    arg_list = [args]
                launches.append(Launch(call, "cutile", kernel_expr, self._kernel_for(kernel_expr),
                                       signature_argument(call, signature, "grid"), arg_list, {}))
            elif (
                isinstance(func, ast.Attribute)
                and func.attr == "launch"
                and isinstance(func.value, ast.Call)
            ):
                inner = func.value
                kernel = self._kernel_for(inner.func)
                if kernel is not None and kernel.dsl == "cute":
                    inner_keywords = {k.arg: k.value for k in inner.keywords if k.arg}
                    grid = next((k.value for k in call.keywords if k.arg == "grid"), None)
                    launches.append(Launch(call, "cute", inner.func, kernel, grid, list(inner.args), inner_keywords))
        return launches

    def launches_of(self, dsl: str, imported: bool = False) -> list[Launch]:
        """Launches of this file's ``dsl`` kernels in that DSL's own launch form (a Triton kernel
        passed to ``ct.launch`` is a different mistake, not a Triton launch). With ``imported``,
        also the launches here of kernels other modules define (``Launch.kernel_ctx`` is then
        that module's model)."""
        local = self.__dict__.setdefault("_local_launches", {}).get(dsl)
        if local is None:
            style = _LAUNCH_STYLE[dsl]
            local = self.__dict__["_local_launches"][dsl] = [
                launch for launch in self.launches
                if launch.style == style and launch.kernel is not None and launch.kernel.dsl == dsl
            ]
        return local + self._imported_launches(dsl) if imported else list(local)

    def launches_here(self, kernel: Kernel) -> list[Launch]:
        """The launches in this file of ``kernel``, a kernel of this file, in its DSL's own launch
        form (``launches_of``), in source order; grouped by kernel once per file."""
        by_kernel = self.__dict__.get("_launches_by_kernel")
        if by_kernel is None:
            by_kernel = self.__dict__["_launches_by_kernel"] = {}
            for dsl in {k.dsl for k in self.kernels}:
                for launch in self.launches_of(dsl):
                    by_kernel.setdefault(id(launch.kernel.node), []).append(launch)
        return list(by_kernel.get(id(kernel.node), ()))

    def _imported_launches(self, dsl: str) -> list[Launch]:
        cache = self.__dict__.setdefault("_imported_launch_cache", {})
        if dsl in cache:
            return cache[dsl]
        from kernelint.model.project.view import launch_forms

        found: list[Launch] = []
        for template in launch_forms(self, dsl):
            if self._kernel_for(template.kernel_expr) is not None:
                continue
            expr = template.kernel_expr
            if not isinstance(expr, (ast.Name, ast.Attribute)) or self._is_local_name(expr):
                continue
            resolved = self.project.kernel_for(expr, self)
            if resolved is None or resolved[0].dsl != dsl:
                continue
            launch = replace(template)
            launch.kernel, launch.kernel_ctx = resolved
            found.append(launch)
        cache[dsl] = found
        return found

    def _is_local_name(self, expr: ast.expr) -> bool:
        """``expr`` starts with a name bound in a function (a parameter, a local), which no
        import can explain."""
        while isinstance(expr, ast.Attribute):
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return True
        return any(not isinstance(d.node, (ast.Import, ast.ImportFrom)) and self.scope_of(d.node) is not self.tree
                   for d in self.definitions(expr.id, expr))
