"""``ctx.project``: what a rule may ask about the program around the file it checks.

Every question goes through a ``ProjectView``, and every fact it reads from outside the file is
recorded with a hash of what it was computed from (``reads``). The cache keeps that read set with
the file's findings and serves them only while each recorded fact still hashes the same, so a
finding that depends on another module is recomputed exactly when that module changes (mypy's
fine-grained dependencies, at the granularity of facts). Rules never list dependencies by hand.

Fact keys:

- ``file:<path>``: the bytes of another module this file's answer read;
- ``importers:<root>|<module>``: which modules import ``module`` (a new importer can launch the
  kernel, so the list itself is a dependency, missing entries included);
- ``allocator:<path>``: whether some module that runs with the file calls ``set_allocator``;
- ``scope:<path>``: which modules run with the file (a hash of their names).

Unknown stays unknown: when the file belongs to no project, or a module cannot be read, the
answers are only what the file itself shows.
"""
from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from kernelint.model.core.calls import signature_argument
from kernelint.model.core.names import attribute_chain
from kernelint.model.core.memo import kept_on
from kernelint.model.core.walk import ancestors
from kernelint.model.dsl import cutile
from kernelint.model.kernels import Kernel
from kernelint.model.launch import Launch, launched_kernel_expr
from kernelint.model.project import modules as _modules
from kernelint.model.project.index import index_of, project_root, runs_with_allocator, scope_names

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

#: Modules searched for the launches or callers of one definition.
_MAX_CANDIDATES = 48
_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)


def _digest(names: list[str]) -> str:
    return hashlib.blake2b("\n".join(names).encode(), digest_size=16).hexdigest()


@dataclass(frozen=True)
class Site:
    """A launch or call found somewhere in the project, with the file model it lives in."""

    node: ast.Call
    ctx: "FileContext"
    #: For a call: how many leading parameters the call does not pass (1 for ``Fn.apply``,
    #: whose ``forward`` takes ``ctx`` first); for a launch, the ``Launch``.
    shift: int = 0
    launch: "Launch | None" = None

    @property
    def where(self) -> str:
        return f"{self.ctx.path}:{self.node.lineno}"


class ProjectView:
    """The recording view of the project around one checked file."""

    def __init__(self, ctx: "FileContext"):
        self.ctx = ctx
        self.reads: dict[str, str] = {}
        self._path = _modules.resolved(ctx.path)
        self.root = project_root(self._path) if self._path is not None else None
        self._index = index_of(self.root) if self.root is not None else None
        own = self._index.by_path.get(self._path) if self._index is not None else None
        self.module_name = own.name if own is not None else None
        self._own_aliases: dict[str, str] | None = None
        self._contexts: dict[str, "FileContext"] = {}
        self._names_of_contexts: dict[int, str] = {}
        self._loaded: dict[str, _modules.Module | None] = {}
        self._absolute: dict[tuple[int, int], str | None] = {}
        self._callees: dict[int, dict[str, list[tuple[int, ast.Call]]]] = {}

    def display_path(self, path: str) -> str:
        """``path`` as messages show it: relative to the project root when inside it, so a
        message reads the same wherever kernelint runs."""
        if self.root is None:
            return path
        try:
            return Path(path).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return path

    # --- recorded facts ----------------------------------------------------------------------

    def _record(self, key: str, value: str) -> None:
        self.reads[key] = value

    def runs_with_allocator(self) -> bool:
        """Some module that runs whenever this file does calls ``triton.set_allocator``."""
        if self._path is None:
            return False
        answer = runs_with_allocator(self._path)
        self._record(f"allocator:{self._path}", "1" if answer else "0")
        return answer

    def allocator_scope(self) -> list[str]:
        """The modules ``runs_with_allocator`` searched, for a finding to name (recorded: a module
        joining or leaving the scope changes the finding's text)."""
        if self._path is None:
            return []
        names = scope_names(self._path)
        self._record(f"scope:{self._path}", _digest(names))
        return names

    def _importers(self, module: str) -> list[str]:
        if self._index is None:
            return []
        found = sorted(self._index.importers.get(module, ()))
        self._record(f"importers:{self.root}|{module}", ",".join(found))
        return found

    def module(self, name: str) -> _modules.Module | None:
        """Another module of the project, parsed (its bytes recorded as read); read once per
        view, however many questions reach it."""
        if self._index is None or name == self.module_name:
            return None
        if name in self._loaded:
            return self._loaded[name]
        entry = self._index.by_name.get(name)
        module = _modules.load(entry.path, name) if entry is not None else None
        if entry is not None:
            self._record(f"file:{entry.path}", module.digest if module is not None else "-")
        self._loaded[name] = module
        return module

    # --- names -------------------------------------------------------------------------------

    def absolute(self, ctx: "FileContext", expr: ast.AST) -> str | None:
        """The absolute dotted name ``expr`` denotes in the file of ``ctx``, re-exports followed
        to the module that defines it."""
        key = (id(ctx), id(expr))
        if key not in self._absolute:
            if ctx is self.ctx:
                dotted = self._own_absolute(expr)
            else:
                module = self._module_of_ctx(ctx)
                dotted = module.absolute(expr) if module is not None else None
            self._absolute[key] = self._defined_at(dotted) if dotted is not None else None
        return self._absolute[key]

    def _own_absolute(self, expr: ast.AST) -> str | None:
        if self.module_name is None:
            return None
        aliases = self._aliases_of(self.ctx)
        chain = attribute_chain(expr)
        if chain is None:
            return None
        root, parts = chain
        base = aliases.get(root)
        if base is None:
            if not any(d.node in self.ctx.tree.body for d in self.ctx.definitions(root, self.ctx.tree)):
                return None
            base = f"{self.module_name}.{root}"
        return ".".join([base, *parts])

    def _defined_at(self, dotted: str) -> str:
        """Follow ``pkg.name`` through a package that re-exports it (``from .k import name``)."""
        if self._index is None:
            return dotted
        for _ in range(_modules.hops()):
            split = _modules.split_module(dotted, self._index.by_name)
            if split is None or not split[1] or "." in split[1]:
                return dotted
            module_name, attr = split
            if module_name == self.module_name or self._imports_never_bind(module_name, attr):
                return dotted
            module = self.module(module_name)
            if module is None or attr not in module.aliases:
                return dotted
            dotted = module.aliases[attr]
        return dotted

    def _imports_never_bind(self, module_name: str, attr: str) -> bool:
        """The index's line scan shows that no import of ``module_name`` binds ``attr``, so the
        module does not re-export it: said without parsing the module (most names a caller
        imports are defined where it imports them from; 258 modules of the corpus were parsed
        only to learn that). The module's text is recorded as read, as a parse records it."""
        entry = self._index.by_name.get(module_name)
        if entry is None or entry.import_words is None or attr in entry.import_words:
            return False
        self._text_of(module_name)
        return True

    def _module_of_ctx(self, ctx: "FileContext") -> _modules.Module | None:
        name = self._module_name_of(ctx)
        return self.module(name) if name is not None else None

    def where(self, node: ast.AST) -> str:
        """``line N`` for a node of the checked file, ``path:N`` for one of another module the
        view has parsed (so a message can point at a fact in another file)."""
        root = node
        for root in ancestors(node):
            pass
        line = getattr(node, "lineno", 1)
        if root is self.ctx.tree or node is self.ctx.tree:
            return f"line {line}"
        for known in self._contexts.values():
            if known.tree is root:
                return f"{self.display_path(known.path)}:{line}"
        return f"line {line}"

    def context_of(self, module_name: str) -> "FileContext | None":
        """The file model of a module of the project (this file's own for its own name)."""
        if module_name == self.module_name:
            return self.ctx
        module = self.module(module_name)
        if module is None:
            return None
        ctx = module.context(type(self.ctx))
        # Questions asked through another module's model while this file is checked are this
        # view's: what they read is recorded here, for this file's cache entry.
        ctx.__dict__["project"] = self
        self._contexts[module_name] = ctx
        self._names_of_contexts[id(ctx)] = module_name
        return ctx

    def release(self) -> None:
        """Hand the other modules' models back once this file is checked (they outlive it in the
        parsed-module cache; the next view to reach one takes it)."""
        for ctx in self._contexts.values():
            if ctx.__dict__.get("project") is self:
                del ctx.__dict__["project"]

    def _module_name_of(self, ctx: "FileContext") -> str | None:
        if ctx is self.ctx:
            return self.module_name
        return self._names_of_contexts.get(id(ctx))

    def _candidates(self, module_name: str, word: str | None = None, called: str | None = None) -> list[str]:
        """The module itself, its importers, and the importers of packages that re-export it.
        With ``word`` (the name a question looks for), a direct importer whose text never spells
        it is left out unparsed: it can name a definition of the module only by spelling it (in
        its import or as an attribute); a package's importer may use a re-exported alias, so it
        stays. With ``called`` as well (a question about calls of ``word``, or of ``called``
        on it), an importer is left out when its text neither calls nor renames ``called`` nor,
        for a package's importer, a name the package binds to ``word``. The text read is
        recorded like a parsed module's."""
        direct = [name for name in self._importers(module_name)
                  if word is None or (self._spells(name, word) and (called is None or self._may_call(name, {called})))]
        names = [module_name, *direct]
        package = module_name.rsplit(".", 1)[0] if "." in module_name else None
        while package is not None and len(names) < _MAX_CANDIDATES:
            if package in self._index.by_name and module_name in self._index.by_name[package].imports | {
                    i.rsplit(".", 1)[0] for i in self._index.by_name[package].imports}:
                spellings = self._spellings_through(package, f"{module_name}.{word}", called) \
                    if word is not None and called is not None else None
                names.extend(name for name in self._importers(package)
                             if spellings is None or self._may_call(name, spellings))
            package = package.rsplit(".", 1)[0] if "." in package else None
        seen: list[str] = []
        for name in names:
            if name not in seen:
                seen.append(name)
        return seen[:_MAX_CANDIDATES]

    def _may_call(self, module_name: str, words: set[str]) -> bool:
        """The text of a module of the project may call something last named one of ``words``
        (``word(``, ``x.word (``, a line break or comment between) or import it under another
        name (``word as``). Said from the text, recorded as read."""
        facts = self._text_of(module_name)
        return facts is None or any(facts.calls_or_renames(word) for word in words)

    def _spellings_through(self, package: str, dotted: str, called: str) -> set[str] | None:
        """The names an importer of ``package`` calls ``called`` by when it calls the definition
        ``dotted`` through the package: ``called`` itself, and for a call of the definition
        (``called`` is its own name) every name the package binds to it (``from .m import f as
        g``). None when the package cannot be read."""
        if called != dotted.rsplit(".", 1)[-1]:
            return {called}
        exported = self.module(package)
        if exported is None:
            return None
        return {called, *(alias for alias, target in exported.aliases.items() if target == dotted)}

    def _spells(self, module_name: str, word: str) -> bool:
        """The text of a module of the project contains ``word`` as a whole word."""
        facts = self._text_of(module_name)
        return facts is not None and word in facts.words

    def _text_of(self, module_name: str) -> _modules.TextFacts | None:
        """What the text of a module of the project shows without a parse (None: no such
        module), recorded as read: an answer that relied on it is refreshed when it changes."""
        entry = self._index.by_name.get(module_name) if self._index is not None else None
        if entry is None:
            return None
        facts = _modules.text_facts(entry.path)
        self._record(f"file:{entry.path}", facts.digest)
        return facts

    # --- kernels and launches ----------------------------------------------------------------

    def _top_level(self, dotted: str) -> tuple["FileContext", str] | None:
        """``pkg.mod.name`` -> (the model of ``pkg.mod``, ``"name"``) for a name defined at the
        top of a module of the project."""
        if self._index is None:
            return None
        split = _modules.split_module(dotted, self._index.by_name)
        if split is None or not split[1] or "." in split[1]:
            return None
        ctx = self.context_of(split[0])
        return (ctx, split[1]) if ctx is not None else None

    def kernel_named(self, dotted: str) -> tuple[Kernel, "FileContext"] | None:
        """The kernel an absolute name denotes, with the model of the file that defines it."""
        found = self._top_level(dotted)
        kernel = found[0].kernel_named(found[1]) if found is not None else None
        return (kernel, found[0]) if kernel is not None else None

    def function_named(self, dotted: str) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, "FileContext"] | None:
        """The top-level function an absolute name denotes, with the model of its file."""
        found = self._top_level(dotted)
        if found is None:
            return None
        ctx, name = found
        functions = [s for s in ctx.tree.body if isinstance(s, _FUNCTION_NODES) and s.name == name]
        return (functions[0], ctx) if len(functions) == 1 else None

    def kernel_for(self, expr: ast.AST, ctx: "FileContext | None" = None) -> tuple[Kernel, "FileContext"] | None:
        """The kernel ``expr`` (in the file of ``ctx``, by default the checked one) names,
        wherever it is defined."""
        ctx = ctx or self.ctx
        dotted = self.absolute(ctx, expr)
        return self.kernel_named(dotted) if dotted is not None else None

    def launches_of(self, kernel: Kernel, kernel_ctx: "FileContext | None" = None) -> list[Site]:
        """Every launch of ``kernel`` in the project: in its own file and in the modules that
        import it (directly or through a package that re-exports it)."""
        kernel_ctx = kernel_ctx or self.ctx
        own_module = self._module_name_of(kernel_ctx)
        if own_module is None:  # no project: this file's own launches only
            return [Site(l.node, kernel_ctx, launch=l) for l in kernel_ctx.launches if l.kernel is kernel]
        target = f"{own_module}.{kernel.name}"
        found: list[Site] = []
        for name in self._candidates(own_module, kernel.name):
            ctx = self.context_of(name) if self._may_launch(name, kernel.dsl) else None
            if ctx is None:
                continue
            for template in launch_forms(ctx, kernel.dsl):
                if self.absolute(ctx, template.kernel_expr) == target:
                    launch = replace(template)
                    launch.kernel = kernel
                    launch.kernel_ctx = None if ctx is kernel_ctx else kernel_ctx
                    found.append(Site(launch.node, ctx, launch=launch))
        return found

    def _may_launch(self, module_name: str, dsl: str) -> bool:
        """The text of a module can hold a launch in ``dsl``'s form (``launch_forms``): a call
        of a subscript for Triton, a call of something named ``launch`` for cuTile and CuTe DSL.
        Said from the text alone, so a module without one is not parsed to learn it (most
        importers of a kernel's module call the wrapper, not the kernel); the text is recorded
        as read."""
        facts = self._text_of(module_name) if module_name != self.module_name else None
        if facts is None:
            return True
        return facts.calls_a_subscript if dsl == "triton" else "launch" in facts.words

    def references_to(self, name: str, ctx: "FileContext | None" = None) -> list[tuple[ast.expr, "FileContext"]]:
        """The names and attributes in the modules that import the file of ``ctx`` that denote
        its top-level ``name`` (``from m import T; T[d]``, ``m.T``), with their file models."""
        ctx = ctx or self.ctx
        module_name = self._module_name_of(ctx)
        if module_name is None:
            return []
        target, found = f"{module_name}.{name}", []
        for other_name in self._candidates(module_name, name):
            other = self.context_of(other_name)
            if other is None or other is ctx:
                continue
            for node in [*other.nodes(ast.Name), *other.nodes(ast.Attribute)]:
                if (node.id if isinstance(node, ast.Name) else node.attr) == name \
                        and isinstance(node.ctx, ast.Load) and self.absolute(other, node) == target:
                    found.append((node, other))
        return found

    def callers_of(self, function: ast.FunctionDef | ast.AsyncFunctionDef,
                   ctx: "FileContext | None" = None) -> list[Site]:
        """The calls in the project that may call ``function`` (of the file of ``ctx``): by
        name where it is imported, ``self.f``/``cls.f`` in its own file, and ``Fn.apply(...)``
        for the ``forward`` of a ``torch.autograd.Function``."""
        ctx = ctx or self.ctx
        module_name = self._module_name_of(ctx)
        owner = ctx.parent(function)
        found: list[Site] = []
        if isinstance(owner, ast.ClassDef):
            found.extend(Site(call, ctx) for call in self._calls_spelling(ctx, function.name)
                         if isinstance(call.func, ast.Attribute) and function in ctx.local_functions_called(call))
            if function.name != "forward" or module_name is None:
                return found
            target, attribute, shift, word = f"{module_name}.{owner.name}", "apply", 1, owner.name
        elif owner is ctx.tree and module_name is not None:
            target, attribute, shift, word = f"{module_name}.{function.name}", None, 0, function.name
        else:
            return [Site(call, ctx) for call in self._calls_spelling(ctx, function.name)
                    if function in ctx.local_functions_called(call)]
        for name in self._candidates(module_name, word, called=attribute or word):
            other = self.context_of(name)
            if other is None:
                continue
            for call in self._calls_spelling(other, attribute or word):
                func = call.func
                if attribute is not None:
                    if not isinstance(func, ast.Attribute):
                        continue  # a call of an imported name, spelled without `.apply`
                    func = func.value
                if isinstance(func, (ast.Name, ast.Attribute)) and self.absolute(other, func) == target:
                    found.append(Site(call, other, shift=shift))
        return found

    def _calls_spelling(self, ctx: "FileContext", word: str) -> list[ast.Call]:
        """The calls of a module that may call something named ``word``: ``word(...)``,
        ``x.word(...)``, and any call of a name an import binds (``from .m import f as g``),
        in source order. Grouped once per module, so a question about callers resolves the
        names of a few calls, not of every call."""
        groups = self._callees.get(id(ctx))
        if groups is None:
            groups = self._callees[id(ctx)] = {}
            imported = self._aliases_of(ctx)
            for position, call in enumerate(ctx.nodes(ast.Call)):
                func = call.func
                if isinstance(func, ast.Attribute):
                    groups.setdefault(func.attr, []).append((position, call))
                elif isinstance(func, ast.Name):
                    groups.setdefault(func.id, []).append((position, call))
                    if func.id in imported:
                        groups.setdefault("", []).append((position, call))
        spelled, renamed = groups.get(word, []), groups.get("", [])
        merged = dict(spelled)
        merged.update(renamed)
        return [call for _, call in sorted(merged.items(), key=lambda item: item[0])]

    def _aliases_of(self, ctx: "FileContext") -> dict[str, str]:
        """Local name -> absolute dotted name for the imports of the file of ``ctx``."""
        if ctx is self.ctx:
            if self._own_aliases is None and self.module_name is not None:
                is_package = self._path is not None and self._path.name == "__init__.py"
                self._own_aliases = _modules.absolute_aliases(self.ctx.tree, self.module_name, is_package)
            return self._own_aliases or {}
        module = self._module_of_ctx(ctx)
        return module.aliases if module is not None else {}


def launch_forms(ctx: "FileContext", dsl: str) -> list["Launch"]:
    """Calls in ``ctx`` that launch something in a form ``dsl`` uses, the kernel not yet known
    (``Launch.kernel`` is None: the caller resolves ``kernel_expr`` in a copy). Kept on the file
    model: every checked file's view asks about the same modules that import a kernel."""
    kept = kept_on(ctx, "launch_forms")
    found = kept.get(dsl)
    if found is None:
        found = kept[dsl] = list(_launch_forms(ctx, dsl))
    return found


def _launch_forms(ctx: "FileContext", dsl: str) -> Iterator["Launch"]:
    for call in ctx.nodes(ast.Call):
        func = call.func
        if dsl == "triton" and isinstance(func, ast.Subscript):
            yield Launch(call, "subscript", launched_kernel_expr(ctx, func.value), None, func.slice, list(call.args),
                         {k.arg: k.value for k in call.keywords if k.arg})
        elif dsl == "cutile" and ctx.qualname(func) == cutile.LAUNCH:
            signature = cutile.SIGNATURES[cutile.LAUNCH]
            kernel_expr = signature_argument(call, signature, "kernel")
            args = signature_argument(call, signature, "kernel_args")
            if kernel_expr is None:
                continue
            arg_list = list(args.elts) if isinstance(args, (ast.Tuple, ast.List)) else ([] if args is None else [args])
            yield Launch(call, "cutile", kernel_expr, None, signature_argument(call, signature, "grid"), arg_list, {})
        elif dsl == "cute" and isinstance(func, ast.Attribute) and func.attr == "launch" \
                and isinstance(func.value, ast.Call):
            inner = func.value
            grid = next((k.value for k in call.keywords if k.arg == "grid"), None)
            yield Launch(call, "cute", inner.func, None, grid, list(inner.args),
                         {k.arg: k.value for k in inner.keywords if k.arg})
