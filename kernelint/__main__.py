"""``python -m kernelint``.

Under ``-m`` Python puts the working directory first on ``sys.path``, so a checked project's
own ``argparse.py`` or ``json.py`` would be imported, and run, in place of the standard
library's. It is taken off before anything else is imported (unless kernelint itself is being
run from a source checkout there).
"""
import os
import sys

if sys.path and os.path.abspath(sys.path[0] or ".") == os.getcwd() and not os.path.isfile(
        os.path.join(os.getcwd(), "kernelint", "__main__.py")):
    del sys.path[0]

from kernelint.cli import run  # noqa: E402 - after the path is made safe

run()
