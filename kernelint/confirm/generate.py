"""Write the harness for one located finding: a readable Python script that imports the user's
module, builds the recipe's inputs and calls the entry (``kernelint.confirm.runtime`` runs it)."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from kernelint.confirm.entry import Param, Target
from kernelint.confirm.fixes import fix_edits
from kernelint.confirm.recipes import NoRecipe, Recipe, recipe_for
from kernelint.confirm.sizes import ASSUMED_INT, recipe_sizes

_ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int32": 4, "int64": 8, "int8": 1,
             "uint8": 1, "bool": 1}
#: Elements of a list of tensors the entry takes (tritonbench's grouped GEMM: 4 groups).
LIST_LENGTH = 4
_SET = re.compile(r"^(?P<name>\w+)=(?P<value>.+)$")


@dataclass
class Harness:
    source: str
    recipe: str | None
    #: Why the input cannot be built (the harness still says what it could read).
    problems: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    estimated_bytes: int = 0


def apply_settings(target: Target, settings: list[str]) -> None:
    """``--set NAME=VALUE``: a parameter's value (a Python literal, e.g. ``eps=1e-6``, ``h0=None``) or a
    tensor's shape in the entry's size names (``A_log=shape:(H,)``, ``v=shape:(B,T,H,V):float32``)."""
    for setting in settings:
        match = _SET.match(setting.strip())
        if match is None:
            raise ValueError(f"--set {setting!r}: expected NAME=VALUE")
        name, value = match.group("name"), match.group("value").strip()
        param = next((p for p in target.params if p.name == name), None)
        if param is None:
            raise ValueError(f"--set {name}: the entry `{target.entry}` has no parameter `{name}`")
        if value.startswith("shape:"):
            shape, _, dtype = value[len("shape:"):].partition("):")
            dims = ast.literal_eval(repr(tuple(d.strip() for d in shape.strip("() ").split(",") if d.strip())))
            param.kind, param.dims, param.assumed = "tensor", tuple(dims), None
            param.dtypes = (dtype.strip(),) if dtype else param.dtypes
        else:
            ast.literal_eval(value)  # must be a literal
            param.kind, param.dims, param.value, param.source = "literal", None, value, None
        target.problems = [p for p in target.problems if f"`{name}`" not in p]


def _dtype(param: Param, recipe: str) -> str:
    if recipe == "bf16-through-fp16-pointer":
        return "bfloat16"
    known = [d for d in param.dtypes if d in _ITEMSIZE]
    if len(known) == 1:
        return known[0]
    preferred = "bfloat16" if recipe == "elements-past-int32" else "float32"
    if known and preferred not in known:
        return known[0]  # the entry accepts only these (assert x.dtype in [...])
    return preferred


def _dim_text(dim: str) -> str:
    return f"sizes[{dim!r}]"


def generate(target: Target, max_configs: int | None = None) -> Harness:
    declared = recipe_for(target.code)
    header = [f"kernelint confirm: {target.code} at {target.path}:{target.line}", "", target.message, ""]
    if not isinstance(declared, Recipe):
        why = declared.why if isinstance(declared, NoRecipe) else f"{target.code} declares no recipe"
        return Harness(_render_empty(header, why), None, [why])
    recipe = declared
    sizes, control, problems = recipe_sizes(recipe.name, target)
    problems = list(target.problems) + problems
    assumptions: list[str] = []
    edits, fix_problem = fix_edits(target) if recipe.needs_fix or target.finding_fix else ([], None)
    if recipe.needs_fix and not edits:
        problems.append(f"no mechanical fix of the flagged line: {fix_problem}")
    lines_inputs, estimated = [], 0
    trailing_defaults = 0
    for param in reversed(target.params):
        if param.kind != "default":
            break
        trailing_defaults += 1
    # One element is enough to pass 2^31 (and four of them would not fit); the other recipes want several.
    list_length = 1 if recipe.name == "elements-past-int32" else LIST_LENGTH
    for index, param in enumerate(target.params):
        if param.kind == "default":
            if target.positional and index < len(target.params) - trailing_defaults:
                problems.append(f"`{target.entry}` takes arguments by position and `{param.name}` has a default "
                                "before a required parameter: --set it")
            elif not target.positional and _is_literal(param.value):
                # Passed by name with the default's own value: the same call for a Python function, and
                # the only one for a torch.library op, whose schema may carry no defaults
                # (flash-attention's layer_norm_fwd_impl: "missing value for argument 'residual'").
                lines_inputs.append(f"        {param.name!r}: {param.value},  # the entry's default")
            continue
        if param.kind in ("tensor", "tensor-list") and param.dims is not None:
            dtype = _dtype(param, recipe.name)
            shape = "(" + "".join(_dim_text(d) + ", " for d in param.dims) + ")"
            if param.kind == "tensor-list":
                lines_inputs.append(f"        {param.name!r}: [make({shape}, {dtype!r}) for _ in range({list_length})],"
                                    "  # a list: the entry reads its elements by index")
                assumptions.append(f"`{param.name}` is a list of {list_length} tensor(s)")
            else:
                note = (f"  # shape as the call at {param.source} passes it" if param.source else
                        "  # assumed shape (see the docstring)" if param.assumed else "")
                lines_inputs.append(f"        {param.name!r}: make({shape}, {dtype!r}),{note}")
                if param.assumed:
                    assumptions.append(param.assumed)
            numel = 1
            for dim in param.dims:
                numel *= sizes.get(dim, 1)
            estimated += numel * _ITEMSIZE.get(dtype, 4) * (list_length if param.kind == "tensor-list" else 1)
        elif param.kind == "tensor":
            why = f"the rank of `{param.name}` is not read from the source; --set {param.name}=shape:(...)"
            lines_inputs.append(f"        {param.name!r}: cannot_build({why!r}),")
        elif param.kind == "none":
            because = param.source or f"the entry tests `{param.name} is None`"
            lines_inputs.append(f"        {param.name!r}: None,  # accepted: {because}")
        elif param.kind == "literal":
            lines_inputs.append(f"        {param.name!r}: {param.value},  # {param.source or '--set'}")
        elif param.kind == "int":
            lines_inputs.append(f"        {param.name!r}: {ASSUMED_INT},  # assumed: an int the source leaves "
                                "to the caller")
            assumptions.append(f"`{param.name}` = {ASSUMED_INT} (an int the source leaves to the caller)")
        elif param.kind == "bool":
            lines_inputs.append(f"        {param.name!r}: False,  # assumed")
            assumptions.append(f"`{param.name}` = False")
        elif param.kind == "float":
            lines_inputs.append(f"        {param.name!r}: 1e-5,  # assumed")
            assumptions.append(f"`{param.name}` = 1e-5")
        else:
            why = f"the type of `{param.name}` is not read from the source; --set {param.name}=VALUE"
            if not any(f"`{param.name}`" in p for p in problems):
                problems.append(f"parameter `{param.name}` of `{target.entry}`: {why}")
            lines_inputs.append(f"        {param.name!r}: cannot_build({why!r}),")
    # Outputs and temporaries: room for the inputs three times over.
    estimated *= 3
    entry_module = target.module_name(target.entry_path)
    spec = {
        "finding": {"code": target.code, "path": str(target.path), "line": target.line, "message": target.message},
        "recipe": recipe.name,
        "project_root": str(target.root) if target.root else None,
        "entry": {"path": str(target.entry_path) if target.entry_path else None, "module": entry_module,
                  "function": target.entry},
        "kernel": {"name": target.kernel, "path": str(target.kernel_path),
                   "module": target.module_name(target.kernel_path), "max_configs": max_configs},
        "fix": edits,
        "sizes": sizes,
        "control_sizes": control,
        "estimated_bytes": estimated,
        "problems": problems,
        "assumptions": assumptions,
    }
    header += [f"Recipe `{recipe.name}`: {recipe.summary}.", "",
               f"Entry: `{target.entry}` ({target.entry_path}:{target.entry_line}), which launches `{target.kernel}`."]
    if edits:
        header += ["", "The fixed run applies, in a temporary copy of the project:"]
        header += [f"  {Path(e['path']).name}:{e['line']}: {e['old']!r} -> {e['new']!r}" for e in edits]
    if assumptions:
        header += ["", "Assumed: " + "; ".join(assumptions) + "."]
    if problems:
        header += ["", "Cannot build the input yet:"] + [f"  - {p}" for p in problems]
    header += ["", "Run: kernelint confirm ... (or: python THIS.py run --variant as-is --out DIR, then",
               "     python THIS.py judge --out DIR). This imports and runs the project's code."]
    body = "\n".join([
        '"""' + "\n".join(header).replace('"""', "'''").replace("\\", "\\\\") + '\n"""',
        "import sys",
        "",
        "from kernelint.confirm.runtime import cannot_build, main",
        "",
        f"SPEC = {_literal(spec)}",
        "",
        "",
        "def inputs(sizes, make):",
        '    """The entry\'s arguments; ``make(shape, dtype)`` allocates one tensor the recipe\'s way."""',
        "    return {",
        *lines_inputs,
        "    }",
        "",
        "",
        "def call(module, args):",
        (f"    return module.{target.entry}(*args.values())" if target.positional else
         f"    return module.{target.entry}(**args)"),
        "",
        "",
        'if __name__ == "__main__":',
        "    sys.exit(main(SPEC, inputs, call))",
        "",
    ])
    return Harness(body, recipe.name, problems, assumptions, estimated)


def _is_literal(text: str | None) -> bool:
    try:
        ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return text is not None


def _literal(value) -> str:
    import pprint

    return pprint.pformat(value, width=100, sort_dicts=False)


def _render_empty(header: list[str], why: str) -> str:
    text = "\n".join(header + ["No harness: " + why]).replace('"""', "'''").replace("\\", "\\\\")
    return f'"""{text}\n"""\nimport sys\n\nprint({why!r})\nsys.exit(2)\n'
