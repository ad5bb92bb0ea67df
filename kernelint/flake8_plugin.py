"""flake8 front end: ``flake8 --select KL`` reports what ``kernelint check`` reports.

It runs kernelint's engine on the text and tree flake8 already read (no second parse), with the
rules the nearest configuration selects for the file, so both front ends agree. ``# noqa`` is
left to flake8, which honours ``--disable-noqa``; ``# kernelint: disable=`` directives are
kernelint's own and always apply. Standard input (``flake8 -``) is checked under the name
``--stdin-display-name`` gives, so that name's configuration and per-file ignores apply.
flake8 reports one line per finding and has no related locations: a finding that stands for
several sites of one cause (``Finding.related``) is reported at its first site only, with the
others counted and listed in the message (``(and 2 more: lines 40, 52)``); a ``# noqa`` there
silences the whole cause, as a baseline entry does. flake8 hands over one file at a time, so a
cause whose sites are in several files (``grouping.project_cause``: KL126's sizes read in one
wrapper module and put on axis 1 by launchers in two others) is one finding per file here,
each with its own file's other sites; ``kernelint check`` reports it once for the project.
flake8 imports every plugin at start-up, so the engine is imported only when a file is checked.
"""
from __future__ import annotations

import kernelint


class KernelintFlake8:
    name = "kernelint"
    version = kernelint.__version__

    def __init__(self, tree, lines: list[str], filename: str) -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    def run(self):
        from kernelint.frontend import check_with_project_config

        source = "".join(self.lines)
        findings = check_with_project_config(self.filename, source, self.tree, noqa_by_caller=True)
        for finding in findings:
            yield finding.line, finding.column - 1, f"{finding.code} {finding.shown_message}", type(self)
