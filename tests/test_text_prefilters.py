"""The engine's text tests before a parse: ``might_import_a_dsl`` searches only the lines the
import pattern can match, and must answer as a search of the whole text does."""
from __future__ import annotations

import random

from kernelint import engine

PIECES = [
    "import triton\n", "from triton import jit\\\n", "x = 1 \\\r\n", "try: import cutlass\n", "# triton\n",
    "from a import \\", "import os; import cuda.tile as ct\n", "y = 'triton'\n", "  from foo import bar \\\r",
    "z = 2\r\n", "cuda()\n", "\\\n", "from cutlass_x import y\n", "import tritonx\n", "    triton.cdiv(n, 4)\n",
    "if x: from triton.language import dot\n", "from mod import (\n    triton,\n)\n",
]


def _whole_text(source: str) -> bool:
    return engine.might_hold_kernels(source) and engine._DSL_IMPORT.search(source) is not None


def test_line_by_line_search_answers_as_the_whole_text_search():
    chosen = random.Random(19)
    texts = ["".join(chosen.choice(PIECES) for _ in range(chosen.randint(0, 7))) for _ in range(4000)]
    answers = [(engine.might_import_a_dsl(t), _whole_text(t)) for t in texts]
    assert all(line == whole for line, whole in answers)
    assert {True, False} <= {line for line, _ in answers}


def test_continued_import_lines_count():
    """An import continued with a backslash may name the DSL on the next line; a text that
    ends in such a line counts too."""
    assert engine.might_import_a_dsl("from pkg import \\\n    triton\n")
    assert engine.might_import_a_dsl("x = 'triton'\nfrom pkg import \\")
    assert engine.might_import_a_dsl("x = 'triton'\r\nfrom pkg import \\\r\n    y\r\n")
    assert not engine.might_import_a_dsl("x = 'triton'\ny = a \\\n    + b\n")
