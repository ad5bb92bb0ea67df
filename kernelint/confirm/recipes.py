"""The input recipes ``kernelint confirm`` builds, and which rule uses which.

A recipe says how to choose the sizes and dtypes of the entry's inputs so that the defect a rule
reports shows, which runs to make (the kernel as it is, a control, the fixed copy), and how to
judge them. ``DECLARED`` maps every crash and numerics rule's code to its recipe's name, or to
``NoRecipe(why)`` when no input can show the defect or no recipe is written yet
(``tests/test_confirm.py`` checks that every such rule is listed). Rules stay one file each: the
table is the rule contract's ``confirm`` entry, keyed by code.
"""
from __future__ import annotations

from dataclasses import dataclass

#: 2^31: the first element index an int32 offset cannot hold.
INT32_LIMIT = 2**31
#: The first grid size CUDA refuses on axes 1 and 2.
GRID_AXIS_LIMIT = 65536


@dataclass(frozen=True)
class Recipe:
    name: str
    #: What the recipe builds, in one line (printed in the harness's docstring).
    summary: str
    #: The runs the harness makes, each in its own process: "as-is" always; "fixed" runs a
    #: temporary copy with the flagged line fixed; "control" the kernel as it is on an input
    #: just inside the limit (or in the dtype the kernel assumes).
    runs: tuple[str, ...]
    #: Whether the inputs are large (checked against free memory before allocating).
    large: bool = False
    #: Whether the recipe needs a mechanical fix of the flagged line to judge.
    needs_fix: bool = False


@dataclass(frozen=True)
class NoRecipe:
    why: str


RECIPES: dict[str, Recipe] = {recipe.name: recipe for recipe in (
    Recipe("grid-axis-65536",
           "the flagged grid axis at 65,536 programs (CUDA's limit is 65,535 on axes 1 and 2), and a "
           "control at 65,535: confirmed when the control runs and the over-limit launch fails",
           runs=("as-is", "control")),
    Recipe("elements-past-int32",
           "the tensor the flagged product addresses grown past 2^31 elements (rows of 4,096), budget-"
           "checked against free device memory: confirmed when the run fails with an illegal address "
           "or its last rows differ from the fixed copy's (the product's operand made int64)",
           runs=("as-is", "fixed"), large=True, needs_fix=True),
    Recipe("bf16-through-fp16-pointer",
           "the same values as bfloat16 and as float16 (exact in both): confirmed when the bf16 run's "
           "outputs are far from the fp16 control's (bf16 bits read as fp16)",
           runs=("as-is", "control")),
    Recipe("length-not-multiple-of-block",
           "every size at a length that is not a multiple of a block (1,000; head sizes 96), every "
           "tensor carved from a guarded buffer whose tail is filled with NaN in one run and with zeros "
           "in the control: confirmed when the outputs differ (the kernel read past a tensor) or the "
           "guard was written (it stored past one)",
           runs=("as-is", "control")),
    Recipe("second-call-after-autotune",
           "the entry called twice in a fresh process on the same inputs: confirmed when the first "
           "(autotuning) call's outputs differ from the second's (the benchmarked configs ran on the "
           "real buffers)",
           runs=("as-is",)),
)}

_MASKS = "length-not-multiple-of-block"
_NOT_YET = "no recipe written yet"

DECLARED: dict[str, str | NoRecipe] = {
    "KL101": "bf16-through-fp16-pointer",
    "KL102": "elements-past-int32",
    "KL103": "elements-past-int32",
    "KL105": NoRecipe("the tanh form differs from erf by about 5e-4 on every input: it needs a torch "
                      "reference of the exact function, which the recipe cannot name (" + _NOT_YET + ")"),
    "KL106": NoRecipe("any call shows it (no allocator set): the input does not matter; run the entry "
                      "once"),
    "KL107": NoRecipe("any call shows it (TypeError at launch): the input does not matter; run the entry "
                      "once"),
    "KL108": NoRecipe("needs the autotuner to pick a config whose block differs from the grid's; which "
                      "config wins is the machine's choice, not the input's"),
    "KL110": _MASKS,
    "KL111": _MASKS,
    "KL115": "second-call-after-autotune",
    "KL117": NoRecipe("a tile index used as an element offset is wrong on every input past the first "
                      "tile; judging it needs a torch reference of the op (" + _NOT_YET + ")"),
    "KL119": NoRecipe("a descriptor's frozen block shape shows only under autotune configs with other "
                      "blocks; no input chooses the config"),
    "KL120": _MASKS,
    "KL121": "bf16-through-fp16-pointer",
    "KL122": NoRecipe("a hard-coded store cast is wrong for the dtypes it does not name; needs a torch "
                      "reference in the caller's dtype (" + _NOT_YET + ")"),
    "KL124": NoRecipe("a fully masked row gives NaN only for inputs whose masks the project builds "
                      "(attention masks, lengths); not derivable from sizes (" + _NOT_YET + ")"),
    "KL125": NoRecipe("needs a non-contiguous view as input (transpose, slice), which changes the "
                      "entry's own contiguity checks (" + _NOT_YET + ")"),
    "KL126": "grid-axis-65536",
    "KL127": NoRecipe("a view that reorders elements is wrong on every input; needs a torch reference "
                      "(" + _NOT_YET + ")"),
    "KL128": NoRecipe("needs a stride that is not 16-byte aligned from a slice the caller makes "
                      "(" + _NOT_YET + ")"),
    "KL129": NoRecipe("Python's and/or on tensors fails at compile time on any input: compiling shows it"),
    "KL130": NoRecipe("tl.assume false for some program is undefined behaviour with no reliable symptom"),
    "KL136": _MASKS,
    "KL137": _MASKS,
    "KL138": NoRecipe("low-precision accumulation drifts with the length; judging it needs an fp64 "
                      "reference of the op (" + _NOT_YET + ")"),
    "KL140": _MASKS,
    # a loop one block too long reads or writes past the tensor on every input: the NaN guard shows it
    "KL141": _MASKS,
    # the last program reads one entry past the table on every input: the guard after it shows it
    "KL142": _MASKS,
    # a mask longer than the tensor lets the last lanes past its end: the guard after it shows it
    "KL143": _MASKS,
    "KL144": NoRecipe("another tensor's stride addresses the wrong elements on every input whose "
                      "layouts differ; judging it needs a torch reference of the op (" + _NOT_YET + ")"),
    "KL145": NoRecipe("a store-then-load race inside one program shows intermittently, not by input"),
    "KL147": NoRecipe("a launch on another GPU's tensors needs tensors on a second GPU: the harness "
                      "runs on one device, whatever the input"),
    "KL139": NoRecipe("TF32 products drift from fp32 on every input: needs an fp64 reference of the op "
                      "(" + _NOT_YET + ")"),
    "KL301": NoRecipe("CuTe DSL kernels take layouts and tensors the host builds with cute.from_dlpack "
                      "and compile per shape; the CuTe entry is not modelled yet (" + _NOT_YET + ")"),
    "KL303": NoRecipe("a race on barrier initialisation shows intermittently, not by input"),
    "KL308": NoRecipe("a race after cp.async shows intermittently, not by input"),
    "KL312": NoRecipe("low-precision accumulation needs an fp64 reference of the op (" + _NOT_YET + ")"),
    "KL315": NoRecipe("an undrained TMA store shows at kernel exit on any input, intermittently"),
    "KL316": NoRecipe("CuTe DSL entry not modelled yet (" + _NOT_YET + ")"),
    "KL317": NoRecipe("CuTe DSL entry not modelled yet (" + _NOT_YET + ")"),
    "KL322": NoRecipe("a stage released before its wgmma group is waited for is a race that shows "
                      "intermittently, not by input"),
    "KL401": NoRecipe("cuTile entry not modelled yet; a block index used as an element index is wrong "
                      "past the first tile and needs a reference (" + _NOT_YET + ")"),
    "KL402": NoRecipe("cuTile entry not modelled yet (" + _NOT_YET + ")"),
    "KL403": NoRecipe("TF32 products drift from fp32 on every input: needs an fp64 reference of the op "
                      "(" + _NOT_YET + ")"),
    "KL404": NoRecipe("cuTile entry not modelled yet (" + _NOT_YET + ")"),
}


def recipe_for(code: str) -> Recipe | NoRecipe | None:
    """The recipe a rule declares, ``NoRecipe`` with why, or None when the rule declares nothing
    (rules outside the crash and numerics classes need not)."""
    declared = DECLARED.get(code)
    if isinstance(declared, str):
        return RECIPES[declared]
    return declared
