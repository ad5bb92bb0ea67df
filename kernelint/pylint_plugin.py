"""pylint front end: ``pylint --load-plugins=kernelint.pylint_plugin``.

pylint wants every message id of one checker to share the checker's two id digits, so there is
one checker per KL hundred (ids and symbols come from ``kernelint.rules.pylint_message``). The
checkers read the module's text and share one engine run per module; findings are added by line
and column, so ``# pylint: disable=<symbol>`` works as for any pylint message. A finding at
another severity than its rule's (``Report(severity=...)``, or a project's
``[tool.kernelint.severity]``) is a message of its own. KL001 is
left out: pylint reports syntax errors itself and never hands an unparsable module to a checker.
pylint adds messages by line: a finding that stands for several sites of one cause is reported
at its first site, with the others counted and listed in the message. The checkers see one
module at a time, so a cause whose sites are in several modules (``grouping.project_cause``) is
one message per module, each with its own module's other sites; ``kernelint check`` reports it
once for the project.
"""
from __future__ import annotations

from itertools import groupby

from pylint import interfaces
from pylint.checkers import BaseRawFileChecker

from kernelint.findings import Confidence

_CONFIDENCE = {
    Confidence.HIGH: interfaces.HIGH,
    Confidence.MEDIUM: interfaces.INFERENCE,
    Confidence.LOW: interfaces.INFERENCE_FAILURE,
}


class _SharedRun:
    """Runs the engine once per module for all kernelint checkers."""

    def __init__(self) -> None:
        self._key: tuple[str, str] | None = None
        self._findings: list = []

    def findings(self, node) -> list:
        from kernelint.engine import decode
        from kernelint.frontend import check_with_project_config

        with node.stream() as stream:
            source = decode(stream.read())
        path = node.file or node.name
        if self._key != (path, source):
            self._key = (path, source)
            self._findings = check_with_project_config(path, source)
        return self._findings


def _checker_class(hundred: str, rules) -> type[BaseRawFileChecker]:
    from kernelint.docs import rule_url
    from kernelint.rules import configured_severity_messages, pylint_messages

    symbols = {}
    msgs = {}
    for rule in rules:
        for severity, msgid, symbol in pylint_messages(rule) + configured_severity_messages(rule):
            symbols[rule.code, severity] = symbol
            if severity is rule.severity:
                quieter = ""
            elif severity in rule.severities():
                quieter = f"; the rule's {severity.value}-level findings"
            else:
                quieter = f"; its findings where [tool.kernelint.severity] makes them {severity.value}"
            online = f"; online: {rule_url(rule.code)}" if rule_url(rule.code) else ""
            msgs[msgid] = ("%s", symbol, f"{rule.summary} ({rule.code}{quieter}; `kernelint explain "
                                         f"{rule.code}` prints the full documentation and evidence"
                                         f"{online})")

    def __init__(self, linter, shared: _SharedRun) -> None:
        BaseRawFileChecker.__init__(self, linter)
        self._shared = shared

    def process_module(self, node) -> None:
        for finding in self._shared.findings(node):
            symbol = symbols.get((finding.code, finding.severity))
            if symbol is None:
                continue
            self.add_message(
                symbol,
                line=finding.line,
                args=finding.shown_message,
                confidence=_CONFIDENCE[finding.confidence],
                col_offset=finding.column - 1,
                end_lineno=finding.end_line,
                end_col_offset=finding.end_column - 1,
            )

    return type(f"KernelintKL{hundred}Checker", (BaseRawFileChecker,), {
        "__doc__": f"kernelint rules KL{hundred}xx.",
        "name": f"kernelint-kl{hundred}",
        "msgs": msgs,
        "__init__": __init__,
        "process_module": process_module,
    })


def _publish_docs_url() -> None:
    """The message help links the rule docs only where the configuration's ``docs-url`` says."""
    from kernelint import docs
    from kernelint.config import ConfigError
    from kernelint.frontend import settings_for

    try:
        docs.publish_at(settings_for("-").docs_url)
    except ConfigError:  # reported as KL002 on the first checked file
        pass


def register(linter) -> None:
    # Everything a check imports is imported now: pylint later puts the checked project's
    # folders first on sys.path, where a project's own pathspec.py would otherwise be imported.
    import kernelint.frontend  # noqa: F401
    from kernelint.engine import SYNTAX_ERROR
    from kernelint.rules import all_rules

    _publish_docs_url()
    shared = _SharedRun()
    rules = [rule for rule in all_rules() if rule.code != SYNTAX_ERROR]
    for hundred, group in groupby(rules, key=lambda rule: rule.code[2]):
        linter.register_checker(_checker_class(hundred, list(group))(linter, shared))

