"""A file's top-level statements as units, and the units a kernel's findings may read
(``reuse.KernelKeys``): an edit in host code then runs again only the kernels whose launches,
callers, sizes or constants it can touch, not every kernel of the file.

A unit is one top-level statement (with its decorators), or one member of a top-level class
(a method, a nested class) with the class's own lines (header, class-level statements) as the
member's *shell*. Statements that share a line are one unit. Comment and blank lines between
units belong to none.

The units a kernel's findings may read are found by name, from its component (the kernel and the
kernels its text names or that name it):

- *up*, to where it is launched and called: every unit whose text holds a name the kernel, or a
  unit already found this way, hands out. A unit hands out its own name (a function, a class, a
  method and its class), and the names that take a value from text holding such a name: module
  names, attributes, subscripted and appended-to containers (``KERNELS["fwd"] = fwd_kernel``,
  ``self.fn = kernel``, ``fns.append(kernel)``), following local names within the unit
  (``fn = kernel; self.table[key] = fn``);
- *down*, to what those read: every unit that binds or changes a name the text of a unit found
  either way holds (module names, ``global`` names, attribute names, containers by their module
  name or attribute), transitively;
- a star import is read by every kernel; a class member found brings its shell.

Another kernel's definition is never read this way: a per-kernel rule reads only its kernel's
component (``docs/adding-a-rule.md``). A host unit's words are the names its code spells and
the words of its strings (``getattr(module, "kernel")``), not its comments; a kernel's are those
of its text.
"""
from __future__ import annotations

import ast
import re
from typing import Iterable, Iterator

_WORD = re.compile(r"\w+")
#: Methods that change the container they are called on (a kernel put into a table).
_MUTATORS = frozenset({"append", "extend", "insert", "update", "setdefault", "add", "pop", "popitem", "remove",
                       "discard", "clear", "sort", "reverse", "__setitem__", "__delitem__"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def words(text: str) -> set[str]:
    """The words of ``text`` (identifiers, keywords, numbers), as the keys compare them."""
    return set(_WORD.findall(text))


class Unit:
    """Some lines of the file that are read, or not, as a whole."""

    def __init__(self, shell: "Unit | None" = None) -> None:
        self.nodes: list[tuple[ast.AST, str]] = []  # (statement, "module" | "class" | "shell")
        self.lines: list[int] = []  # 0-based, ascending
        self.shell = shell
        self.kernel = False  # one kernel's definition, its body cut out
        self.words: set[str] = set()
        #: Names it binds or changes (module names, attributes, containers): read *down*.
        self.binds: set[str] = set()
        #: Names it hands out when it is found *up*: its own name, its class's.
        self.named: set[str] = set()
        #: Per statement that binds, changes or returns: (names its value refers to, names it
        #: calls, local names it assigns, names it binds or changes, the function it returns from).
        self.flows: list[tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str], str | None]] = []
        #: For a unit of import statements only (no star): name -> what it is bound to, as
        #: ``(module, name, asname, level, place in the unit)`` per binding. What a kernel reads
        #: of such a unit is the bindings of the names it spells, not its text.
        self.imports: dict[str, tuple] | None = None
        self.reads: list[Unit] | None = None  # the units that bind one of its words
        self._flow_names: tuple[frozenset[str], frozenset[str]] | None = None

    def flow_names(self) -> tuple[frozenset[str], frozenset[str]]:
        """(the names its flows refer to, the names they call): a flow taints nothing unless one
        of them holds a kernel or returns one (its locals are tainted only through these)."""
        if self._flow_names is None:
            self._flow_names = (frozenset().union(*(f[0] for f in self.flows)),
                                frozenset().union(*(f[1] for f in self.flows)))
        return self._flow_names


class HostUnits:
    """The units of one file, and per component of kernels the units its findings may read."""

    def __init__(self, tree: ast.Module, lines: list[str], cut: dict[int, tuple[int, int]],
                 known: dict | None = None, facts: dict | None = None) -> None:
        """``cut``: ``id`` of a kernel's node -> its body's lines ``[start, end)``, left out of
        the units' text (each kernel's key holds the bodies of its component on their own).
        ``known``: ``facts`` of an earlier check of the file, reused for units of the same text;
        ``facts``: where this check's are put."""
        self._known = known or {}
        #: A unit's kind, text, the bodies cut out of it and its class -> what it was read to hold.
        self.facts: dict[tuple, tuple] = facts if facts is not None else {}
        self._lines = lines
        self._cut = cut
        self._body_at = {start: (end, kernel) for kernel, (start, end) in cut.items()}
        self.units: list[Unit] = []
        self.owner: list[Unit | None] = [None] * len(lines)
        for statement in tree.body:
            self._add(statement)
        self._everyone: list[Unit] = []
        self._by_word: dict[str, list[Unit]] | None = None
        self._by_binding: dict[str, list[Unit]] | None = None

    # -- units -------------------------------------------------------------------------------

    def _add(self, statement: ast.stmt) -> None:
        start, end = _first_line(statement) - 1, statement.end_lineno or statement.lineno
        if isinstance(statement, ast.ClassDef) and not self._shares(start):
            self._add_class(statement, start, end)
            return
        unit = self._unit_at(start) or self._new()
        unit.nodes.append((statement, "module"))
        self._own(unit, range(start, end))
        unit.kernel = len(unit.nodes) == 1 and id(statement) in self._cut

    def _add_class(self, cls: ast.ClassDef, start: int, end: int) -> None:
        shell = self._new()
        shell.nodes.append((cls, "shell"))
        header_end = max([cls.lineno, *(n.end_lineno or 0 for n in [*cls.bases, *cls.keywords])])
        self._own(shell, range(start, header_end))
        for member in cls.body:
            first, last = _first_line(member) - 1, member.end_lineno or member.lineno
            if isinstance(member, (*_FUNCTIONS, ast.ClassDef)) and not self._shares(first):
                unit = self._new(shell)
                unit.nodes.append((member, "class"))
                unit.kernel = id(member) in self._cut
                self._own(unit, range(first, last))
            else:
                shell.nodes.append((member, "class"))
                self._own(shell, range(first, last))

    def _shares(self, line: int) -> bool:
        return line < len(self.owner) and self.owner[line] is not None

    def _unit_at(self, line: int) -> Unit | None:
        found = self.owner[line] if line < len(self.owner) else None
        if found is not None and found.kernel:
            found.kernel = False  # shares a line with another statement: plain host text
        return found

    def _new(self, shell: Unit | None = None) -> Unit:
        unit = Unit(shell)
        self.units.append(unit)
        return unit

    def _own(self, unit: Unit, lines: range) -> None:
        for line in lines:
            if line < len(self.owner) and self.owner[line] is None:
                self.owner[line] = unit
                unit.lines.append(line)

    def text_pieces(self, unit: Unit) -> Iterator[tuple[int, str] | int]:
        """``unit``'s text in order: ``(first line, text)`` for host text, and the ``id`` of
        the kernel node for each body cut out of it."""
        bodies = self._body_at
        piece: list[str] = []
        first = None
        skip_to = -1
        for line in unit.lines:
            if line < skip_to:
                continue
            if line in bodies:
                if piece:
                    yield first, "".join(piece)
                    piece = []
                skip_to, kernel = bodies[line]
                yield kernel
                continue
            if not piece:
                first = line
            elif line != first + len(piece):
                yield first, "".join(piece)
                piece, first = [], line
            piece.append(self._lines[line])
        if piece:
            yield first, "".join(piece)

    # -- facts -------------------------------------------------------------------------------

    def _index(self) -> None:
        if self._by_word is not None:
            return
        self._by_word, self._by_binding = {}, {}
        cut_in: dict[int, list[tuple[int, int]]] = {}  # id of a unit -> the bodies cut out of it
        for start, (end, _) in sorted(self._body_at.items()):
            owner = self.owner[start]
            if owner is not None:
                cut_in.setdefault(id(owner), []).append((start - owner.lines[0], end - owner.lines[0]))
        for unit in self.units:
            if unit.kernel:  # read only by its component (``read_by``), from its text
                continue
            text = tuple(self._lines[line] for line in unit.lines)
            cuts = tuple(cut_in.get(id(unit), ()))
            key = (unit.nodes[0][1], text, cuts, unit.shell is not None and _class_name(unit.shell))
            known = self._known.get(key)
            if known is None:
                _Facts(unit, self._cut).read()
                known = (unit.words, unit.binds, unit.named, unit.flows, unit.imports)
            else:
                unit.words, unit.binds, unit.named, unit.flows, unit.imports = known
            self.facts[key] = known
            for word in unit.words:
                self._by_word.setdefault(word, []).append(unit)
            for name in unit.binds:
                self._by_binding.setdefault(name, []).append(unit)
        self._everyone = [u for u in self.units if "*" in u.binds]

    def _reads(self, unit: Unit) -> list[Unit]:
        """The units that bind or change a word of ``unit`` (once per check)."""
        if unit.reads is None:
            if unit.kernel:  # the words of its decorators and signature
                unit.words = set().union(*(words(piece[1]) for piece in self.text_pieces(unit)
                                           if isinstance(piece, tuple)))
            assert self._by_binding is not None
            found: dict[int, Unit] = {}
            for word in unit.words & self._by_binding.keys():
                for other in self._by_binding[word]:
                    found[id(other)] = other
            unit.reads = list(found.values())
        return unit.reads

    def read_by(self, component: Iterable[ast.AST], names: set[str], body_words: set[str]) -> list[Unit]:
        """The units the findings of a component's kernels may read, in file order.
        ``component``: the kernels' nodes; ``names``: their names; ``body_words``: the words of
        their bodies."""
        self._index()
        by_word, by_binding = self._by_word, self._by_binding
        assert by_word is not None and by_binding is not None
        found: set[Unit] = set()
        todo: list[Unit] = []

        def add(unit: Unit | None) -> None:
            if unit is not None and unit not in found:
                found.add(unit)
                todo.append(unit)

        for node in component:
            add(self.owner[_first_line(node) - 1])
        for unit in self._everyone:
            add(unit)
        for word in body_words & by_binding.keys():
            for unit in by_binding[word]:
                add(unit)
        handed = set(names)  # a unit that spells one of these may launch or call what was found
        values = set(names)  # names that hold a kernel
        returners: set[str] = set()  # functions that return one
        asked: set[str] = set()
        while todo:
            while todo:  # down: what the units found read, and their classes
                unit = todo.pop()
                handed |= unit.named
                add(unit.shell)
                for other in self._reads(unit):
                    add(other)
            grew = True
            while grew:  # up: what they hand on, until no flow of theirs hands on more
                grew = False
                for unit in sorted(found, key=_first):  # in file order: the same answer every run
                    refs, calls = unit.flow_names()
                    if not (refs & values or calls & returners):
                        continue
                    exposed, returning = _handed(unit, values, returners)
                    if not (exposed <= values and returning <= returners):
                        grew = True
                        values |= exposed
                        returners |= returning
                        handed |= exposed | returning
            for name in (handed - asked) & by_word.keys():
                for unit in by_word[name]:
                    if not unit.kernel:
                        add(unit)
            asked |= handed
        return sorted(found, key=_first)


def _first(unit: Unit) -> int:
    return unit.lines[0] if unit.lines else -1


def _handed(unit: Unit, values: set[str], returners: set[str]) -> tuple[set[str], set[str]]:
    """What ``unit`` hands on of a kernel: the names its statements bind or change from a value
    that refers to one of ``values`` or calls one of ``returners`` (functions that return such
    a value), following its local names; and its functions that return such a value."""
    tainted = set(values)
    out: set[str] = set()
    returning: set[str] = set()
    changed = True
    while changed:
        changed = False
        for refs, calls, local, exposed, returns_of in unit.flows:
            if refs & tainted or calls & returners:
                if not local <= tainted:
                    tainted |= local
                    changed = True
                out |= exposed
                if returns_of is not None:
                    returning.add(returns_of)
    return out, returning


class _Scope:
    """A function's names: its parameters and what its body binds, less what it declares
    ``global`` or ``nonlocal`` (complete once the function is read)."""

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.name = function.name
        args = function.args
        self.bound = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
                      if a is not None}
        self.declared: set[str] = set()

    def is_local(self, name: str) -> bool:
        return name in self.bound and name not in self.declared


class _Facts:
    """Reads one unit in one walk: its words, what it binds or changes, what it hands out and its
    flows. Whether a name is a function's own is known only once the function is read, so each
    statement's targets are kept as read and sorted at the end."""

    def __init__(self, unit: Unit, cut: dict) -> None:
        self.unit = unit
        self.cut = cut
        #: (refs, calls, plain names, (attributes, root) per changed target, returns, scope)
        self.pending: list[tuple[set[str], set[str], set[str], list[tuple[set[str], str | None]], bool,
                                 _Scope | None]] = []

    def read(self) -> None:
        unit = self.unit
        if all(isinstance(node, (ast.Import, ast.ImportFrom)) and all(a.name != "*" for a in node.names)
               for node, _ in unit.nodes):
            bindings: dict[str, list] = {}
            first = _first_line(unit.nodes[0][0])
            for node, _ in unit.nodes:
                for alias in node.names:
                    name = alias.asname or alias.name.split(".")[0]
                    module = node.module if isinstance(node, ast.ImportFrom) else None
                    level = node.level if isinstance(node, ast.ImportFrom) else 0
                    where = (getattr(alias, "lineno", node.lineno) - first, getattr(alias, "col_offset", 0))
                    bindings.setdefault(name, []).append((module, alias.name, alias.asname, level, where))
            unit.imports = {name: tuple(found) for name, found in bindings.items()}
        for node, where in unit.nodes:
            if where == "shell":
                assert isinstance(node, ast.ClassDef)
                unit.named.add(node.name)
                unit.binds.add(node.name)
                unit.words.add(node.name)
                self._parts([*node.bases, *node.keywords, *node.decorator_list], None, flow=False)
            else:
                self._statement(node, None, top=where)
        for refs, calls, plain, changed, returns, scope in self.pending:
            local = {n for n in plain if scope is not None and scope.is_local(n)}
            exposed = plain - local
            for attributes, root in changed:
                exposed |= attributes
                if root is not None and (scope is None or not scope.is_local(root)):
                    exposed.add(root)
            unit.binds |= exposed
            returns_of = scope.name if returns and scope is not None else None
            if local or exposed or returns_of is not None:
                unit.flows.append((frozenset(refs), frozenset(calls), frozenset(local), frozenset(exposed),
                                   returns_of))

    def _statement(self, node: ast.AST, scope: _Scope | None, top: str | None = None) -> None:
        """``scope``: the enclosing function's (None: module or class scope)."""
        unit = self.unit
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            unit.binds.add(node.name)
            unit.words.add(node.name)
            if scope is not None:
                scope.bound.add(node.name)
            if top is not None:
                unit.named.add(node.name)
                if top == "class" and unit.shell is not None:
                    unit.named.add(_class_name(unit.shell))
            if isinstance(node, ast.ClassDef):
                self._parts([*node.bases, *node.keywords, *node.decorator_list], scope, flow=False)
                for child in node.body:
                    self._statement(child, scope)
                return
            header = [*node.decorator_list, node.args, *([node.returns] if node.returns is not None else [])]
            self._parts(header, scope, flow=False)
            if id(node) in self.cut:
                return  # a kernel's body: its own
            own = _Scope(node)
            for child in node.body:
                self._statement(child, own)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if isinstance(node, ast.ImportFrom):
                unit.words.update(_WORD.findall(node.module or ""))
            for alias in node.names:
                unit.words.update(_WORD.findall(alias.name))
                name = "*" if alias.name == "*" else (alias.asname or alias.name).split(".")[0]
                unit.words.add(name)
                if scope is not None:
                    scope.bound.add(name)
                unit.binds.add(name)
            return
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            unit.words.update(node.names)
            unit.binds.update(node.names)
            if scope is not None:
                scope.declared.update(node.names)
            return
        header = _header(node)
        if header:
            self._parts(header, scope, flow=True, returns=isinstance(node, ast.Return) and node.value is not None)
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, ()) or ():
                if isinstance(child, ast.ExceptHandler):
                    self._parts([child.type] if child.type is not None else [], scope, flow=False)
                    if child.name:
                        unit.words.add(child.name)
                        self.pending.append((set(), set(), {child.name}, [], False, scope))
                        if scope is not None:
                            scope.bound.add(child.name)
                    for grandchild in child.body:
                        self._statement(grandchild, scope)
                elif isinstance(child, ast.match_case):
                    self._parts([child.pattern, *([child.guard] if child.guard is not None else [])], scope,
                                flow=True)
                    for grandchild in child.body:
                        self._statement(grandchild, scope)
                else:
                    self._statement(child, scope)

    def _parts(self, parts: list[ast.AST], scope: _Scope | None, flow: bool, returns: bool = False) -> None:
        """One walk of the expressions a statement runs: their words; the names they refer to
        and call (``f(K)`` refers to ``K`` and calls ``f``; ``T.get(k)`` refers to ``T``; the
        words of a string are references: ``getattr(m, "K")``); the names they bind; the
        containers they change (``self.t[k] = x``, ``t.append(x)``); whether they return."""
        words = self.unit.words
        refs: set[str] = set()
        calls: set[str] = set()
        plain: set[str] = set()
        changed: list[tuple[set[str], str | None]] = []
        called: set[int] = set()
        stack = list(parts)
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is ast.Name:
                words.add(node.id)
                if isinstance(node.ctx, ast.Load):
                    if id(node) not in called:
                        refs.add(node.id)
                else:
                    plain.add(node.id)
                    if scope is not None:
                        scope.bound.add(node.id)
                continue
            if kind is ast.Attribute:
                words.add(node.attr)
                if isinstance(node.ctx, ast.Load):
                    if id(node) not in called:
                        refs.add(node.attr)
                else:
                    changed.append(_chain(node))
            elif kind is ast.Subscript:
                if not isinstance(node.ctx, ast.Load):
                    changed.append(_chain(node))
            elif kind is ast.Call:
                func = node.func
                if isinstance(func, ast.Name):
                    calls.add(func.id)
                    called.add(id(func))
                elif isinstance(func, ast.Attribute):
                    calls.add(func.attr)
                    called.add(id(func))
                    if func.attr in _MUTATORS:
                        changed.append(_chain(func.value))
            elif kind is ast.Constant:
                if isinstance(node.value, str):
                    found = _WORD.findall(node.value)
                    words.update(found)
                    refs.update(found)
                continue
            elif kind is ast.arg:
                words.add(node.arg)
            elif kind is ast.keyword:
                if node.arg:
                    words.add(node.arg)
            elif kind in (ast.Yield, ast.YieldFrom):
                returns = True
            elif kind in (ast.MatchAs, ast.MatchStar):
                if node.name:
                    words.add(node.name)
                    plain.add(node.name)
            elif kind is ast.MatchMapping and node.rest:
                words.add(node.rest)
                plain.add(node.rest)
            stack.extend(ast.iter_child_nodes(node))
        if flow and (plain or changed or returns):
            self.pending.append((refs, calls, plain, changed, returns, scope))


def _header(node: ast.AST) -> list[ast.AST]:
    """The expressions a statement runs as it is reached: a compound statement's header, a
    simple statement whole."""
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [node.target, node.iter]
    if isinstance(node, (ast.While, ast.If)):
        return [node.test]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [part for item in node.items for part in (item.context_expr, item.optional_vars) if part is not None]
    if isinstance(node, ast.Match):
        return [node.subject]
    if isinstance(node, ast.Try) or (hasattr(ast, "TryStar") and isinstance(node, getattr(ast, "TryStar"))):
        return []
    return [node]


def _chain(expr: ast.AST) -> tuple[set[str], str | None]:
    """What an attribute or subscript target changes: every attribute on the way, and the root
    name (``self.a[k]`` -> ``a`` on ``self``; ``T[k]`` -> ``T``)."""
    attributes: set[str] = set()
    while True:
        if isinstance(expr, ast.Attribute):
            attributes.add(expr.attr)
            expr = expr.value
        elif isinstance(expr, (ast.Subscript, ast.Starred)):
            expr = expr.value
        elif isinstance(expr, ast.Call):
            expr = expr.func
        else:
            break
    return attributes, expr.id if isinstance(expr, ast.Name) else None


def _class_name(shell: Unit) -> str:
    return next(n.name for n, where in shell.nodes if where == "shell" and isinstance(n, ast.ClassDef))


def _first_line(node: ast.AST) -> int:
    """A statement's first line, its decorators' included."""
    decorators = getattr(node, "decorator_list", None) or []
    return min([node.lineno, *(d.lineno for d in decorators)])
