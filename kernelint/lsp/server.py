"""The language server: diagnostics, code actions and hover for kernelint's findings.

Every buffer is checked by ``frontend.check_with_project_config``, what the flake8 and pylint
plugins run: the nearest configuration of the buffer's path decides the rules, its per-file
ignores and severity overrides apply, an excluded file gets nothing, and the rest of the
project is read from disk under that path, so facts from other modules apply. The server is one
long-lived process, so what the engine caches (settings, parsed configuration, the project
index and its modules) stays warm between keystrokes. A save drops the cached settings and has
the project index look at the files again, so an edited ``pyproject.toml`` takes effect, and it
checks every open buffer again, since the saved module may be a fact for another (an import,
an allocator, a launch). Other modules are read from disk: an unsaved edit in one buffer is not
a fact for another until it is saved.

Messages are read on a thread into a queue; the main thread answers them in order and checks a
changed buffer only when no later message is waiting, so a burst of keystrokes costs one check.
Requests about a buffer (code actions, hover) check it first if it changed. The garbage a check
leaves (its tree and file model, cycles the collector must trace) is collected after the
diagnostics are sent, while no message waits, not before: on mamba's ``ssd_chunk_scan.py`` that
collection is about a tenth of a check. While it serves, the engine keeps the per-kernel rules'
findings (``kernelint/reuse.py``): a keystroke in one kernel runs them on that kernel and the
kernels it calls or is called by, not on the file's other kernels; a save drops them.
"""
from __future__ import annotations

import gc
import os
import queue
import sys
import threading
import traceback
from typing import BinaryIO

import kernelint
from kernelint.findings import Finding, Severity
from kernelint.lsp import jsonrpc
from kernelint.lsp.documents import UTF8, UTF16, Document

_SEVERITY = {Severity.ERROR: 1, Severity.WARNING: 2, Severity.INFO: 3}
#: textDocumentSync kind: the client sends the whole text on each change.
_FULL_SYNC = 1
FIX_ALL_KIND = "source.fixAll.kernelint"
_END = object()
#: Checks whose garbage may wait for a pause in the messages (a long burst of requests).
_MAX_UNCOLLECTED = 4


class Server:
    def __init__(self, reader: BinaryIO, writer: BinaryIO) -> None:
        self._reader = reader
        self._out = jsonrpc.Writer(writer)
        self._inbox: "queue.Queue" = queue.Queue()
        self.documents: dict[str, Document] = {}
        self.findings: dict[str, list[Finding]] = {}
        self._dirty: set[str] = set()
        self.encoding = UTF16
        self.related_information = False
        self.initialized = False
        self.shutting_down = False
        #: Checks whose garbage waits for ``_collect_when_idle`` (the collector is paused meanwhile).
        self._uncollected = 0

    # --- the loop ------------------------------------------------------------------------------

    def _read_loop(self) -> None:
        try:
            while True:
                message = jsonrpc.read_message(self._reader)
                if message is None:
                    break
                self._inbox.put(message)
        except (jsonrpc.ProtocolError, OSError, ValueError) as error:
            self._log(f"kernelint server: stopped reading: {error}")
        finally:
            self._inbox.put(_END)

    def serve(self) -> int:
        """Answer messages until ``exit`` (0 after ``shutdown``, else 1) or the end of input; the
        collector is running again when it returns."""
        from kernelint import engine

        threading.Thread(target=self._read_loop, name="kernelint-lsp-reader", daemon=True).start()
        engine.keep_kernel_findings(True)
        engine.split_kernel_work(True)
        try:
            while True:
                message = self._inbox.get()
                if message is _END:
                    return 0 if self.shutting_down else 1
                status = self._dispatch(message)
                if status is not None:
                    return status
                if self._inbox.empty():
                    self._check_dirty()
                if self._inbox.empty():
                    self._settle()
                if self._inbox.empty():
                    self._collect_when_idle()
        finally:
            engine.keep_kernel_findings(False)
            engine.split_kernel_work(False)
            self._collect_when_idle()

    def _dispatch(self, message) -> int | None:
        if not isinstance(message, dict) or "__invalid__" in message:
            reason = message.get("__invalid__") if isinstance(message, dict) else "not a JSON object"
            self._out.error(None, jsonrpc.PARSE_ERROR if isinstance(message, dict) else jsonrpc.INVALID_REQUEST,
                            f"cannot read the message: {reason}")
            return None
        method, request_id, params = message.get("method"), message.get("id"), message.get("params") or {}
        is_request = "id" in message
        if method is None:
            return None  # a response to something we never ask
        if method == "exit":
            return 0 if self.shutting_down else 1
        if is_request and not self.initialized and method != "initialize":
            self._out.error(request_id, jsonrpc.SERVER_NOT_INITIALIZED, "initialize first")
            return None
        if is_request and self.shutting_down:
            self._out.error(request_id, jsonrpc.INVALID_REQUEST, "the server is shutting down")
            return None
        handler = _REQUESTS.get(method) if is_request else _NOTIFICATIONS.get(method)
        if handler is None:
            if is_request:
                self._out.error(request_id, jsonrpc.METHOD_NOT_FOUND, f"method not supported: {method}")
            return None
        try:
            result = handler(self, params)
        except Exception as error:  # a failed request must not take the server down
            detail = f"{type(error).__name__}: {error}"
            self._log(f"kernelint server: {method} failed: {detail}\n{traceback.format_exc()}")
            if is_request:
                self._out.error(request_id, jsonrpc.INTERNAL_ERROR, f"kernelint failed: {detail}")
            return None
        if is_request:
            self._out.respond(request_id, result)
        return None

    def _log(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    # --- checking -----------------------------------------------------------------------------

    def _check_dirty(self) -> None:
        for uri in sorted(self._dirty):
            self._check(uri)

    def _check(self, uri: str) -> None:
        from kernelint.frontend import check_with_project_config

        self._dirty.discard(uri)
        document = self.documents.get(uri)
        if document is None:
            return
        self._pause_collector()
        try:
            findings = check_with_project_config(document.path, document.text)
        except Exception as error:  # the engine reports its own failures; this is a last guard
            self._log(f"kernelint server: checking {uri} failed: {type(error).__name__}: {error}")
            findings = []
        self.findings[uri] = findings
        self._out.notify("textDocument/publishDiagnostics", {
            "uri": uri, "version": document.version,
            "diagnostics": [self.diagnostic(document, f) for f in findings],
        })

    def _settle(self) -> None:
        """Key the last checks' per-kernel answers while nothing waits (``reuse``); a failure
        drops what was kept, and the next checks run every kernel."""
        from kernelint import engine

        try:
            engine.settle_kept_findings()
        except Exception as error:  # a last guard: the server goes on without what was kept
            self._log(f"kernelint server: keeping findings failed: {type(error).__name__}: {error}")
            engine.keep_kernel_findings(True)

    def _pause_collector(self) -> None:
        """Keep the collector paused through the check and the reply (the engine then leaves the
        collection to its caller); after a few checks without a pause, collect now."""
        if self._uncollected >= _MAX_UNCOLLECTED:
            self._collect_when_idle()
        if self._uncollected == 0:
            if not gc.isenabled():
                return  # paused by whoever runs the server: theirs to collect
            gc.disable()
        self._uncollected += 1

    def _collect_when_idle(self) -> None:
        if self._uncollected:
            self._uncollected = 0
            gc.collect(0)
            gc.enable()

    def _current(self, uri: str) -> tuple[Document | None, list[Finding]]:
        if uri in self._dirty:
            self._check(uri)
        return self.documents.get(uri), self.findings.get(uri, [])

    def diagnostic(self, document: Document, f: Finding) -> dict:
        """The finding as an LSP diagnostic; the other sites of its cause (``Finding.related``)
        as ``relatedInformation`` where the client shows it, else counted in the message."""
        diagnostic = {
            "range": self._finding_range(document, f),
            "severity": _SEVERITY[f.severity],
            "code": f.code,
            "source": "kernelint",
            "message": f"{f.message if self.related_information else f.shown_message} [{f.name}]",
        }
        if self.related_information and f.related:
            diagnostic["relatedInformation"] = [
                {"location": self._location(document, site), "message": site.message or f.message}
                for site in f.related]
        return diagnostic

    def _location(self, document: Document, site) -> dict:
        """An LSP location of a Site, in this buffer or in another file (read from disk)."""
        if site.path == document.path:
            holder = document
        else:
            from pathlib import Path

            try:
                text = Path(site.path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            holder = Document(Path(site.path).resolve().as_uri(), text)
        return {"uri": holder.uri, "range": holder.range(site.line, site.column - 1, site.end_line,
                                                         site.end_column - 1, self.encoding)}

    def _finding_range(self, document: Document, f: Finding) -> dict:
        return document.range(f.line, f.column - 1, f.end_line, f.end_column - 1, self.encoding)

    # --- lifecycle ----------------------------------------------------------------------------

    def initialize(self, params: dict) -> dict:
        offered = ((params.get("capabilities") or {}).get("general") or {}).get("positionEncodings") or []
        self.encoding = UTF8 if UTF8 in offered else UTF16
        publishing = ((params.get("capabilities") or {}).get("textDocument") or {}).get("publishDiagnostics") or {}
        self.related_information = bool(publishing.get("relatedInformation"))
        self.initialized = True
        return {
            "capabilities": {
                "positionEncoding": self.encoding,
                "textDocumentSync": {"openClose": True, "change": _FULL_SYNC, "save": {"includeText": True}},
                "codeActionProvider": {"codeActionKinds": ["quickfix", FIX_ALL_KIND]},
                "hoverProvider": True,
            },
            "serverInfo": {"name": "kernelint", "version": kernelint.__version__},
        }

    def shutdown(self, params) -> None:
        self.shutting_down = True
        return None

    # --- documents ----------------------------------------------------------------------------

    def did_open(self, params: dict) -> None:
        item = params["textDocument"]
        self.documents[item["uri"]] = Document(item["uri"], item.get("text", ""), item.get("version"))
        self._forget_settings()
        self._dirty.add(item["uri"])

    def did_change(self, params: dict) -> None:
        identifier = params["textDocument"]
        document = self.documents.get(identifier["uri"])
        if document is None:
            return
        for change in params.get("contentChanges") or []:
            document.apply_change(change, identifier.get("version"), self.encoding)
        self._dirty.add(document.uri)

    def did_save(self, params: dict) -> None:
        uri = params["textDocument"]["uri"]
        document = self.documents.get(uri)
        if document is None:
            return
        if params.get("text") is not None:
            document.update(params["text"], document.version)
        self._forget_settings()
        # The saved file may be a fact for the other open buffers (an import, an allocator, a
        # launch), so they are checked again too.
        self._dirty.update(self.documents)

    def did_close(self, params: dict) -> None:
        uri = params["textDocument"]["uri"]
        self.documents.pop(uri, None)
        self.findings.pop(uri, None)
        self._dirty.discard(uri)
        self._out.notify("textDocument/publishDiagnostics", {"uri": uri, "diagnostics": []})

    def watched_files_changed(self, params) -> None:
        self._forget_settings()
        self._dirty.update(self.documents)

    @staticmethod
    def _forget_settings() -> None:
        """A configuration or another module may have changed on disk: read the settings again
        at the next check, and have the project index look at the files again."""
        from kernelint import engine
        from kernelint.frontend import _settings_near
        from kernelint.model.project import index as project_index

        _settings_near.cache_clear()
        project_index.look_again()
        engine.other_files_may_have_changed()

    # --- code actions -------------------------------------------------------------------------

    def code_action(self, params: dict) -> list[dict]:
        uri = params["textDocument"]["uri"]
        document, findings = self._current(uri)
        if document is None:
            return []
        only = (params.get("context") or {}).get("only")
        wanted = lambda kind: only is None or any(kind == k or kind.startswith(k + ".") for k in only)  # noqa: E731
        start = document.ast_position(params["range"]["start"], self.encoding)
        end = document.ast_position(params["range"]["end"], self.encoding)
        touching = [f for f in findings if _overlaps(f, start, end)]
        actions = []
        if wanted("quickfix"):
            actions.extend(self._fix_actions(document, touching))
            actions.extend(self._noqa_actions(document, touching))
        if wanted(FIX_ALL_KIND):
            fix_all = self._fix_all_action(document, findings)
            if fix_all is not None:
                actions.append(fix_all)
        return actions

    def _edit(self, document: Document, edits) -> dict:
        return {"changes": {document.uri: [
            {"range": document.range(e.line, e.col, e.end_line, e.end_col, self.encoding), "newText": e.replacement}
            for e in edits]}}

    def _fix_actions(self, document: Document, findings: list[Finding]) -> list[dict]:
        actions = []
        for f in findings:
            if f.fix is None or not f.fix.edits:
                continue
            title = f"{f.code}: {f.fix.title}" + ("" if f.fix.safe else " (unsafe: may change behaviour)")
            actions.append({"title": title, "kind": "quickfix", "diagnostics": [self.diagnostic(document, f)],
                            "isPreferred": f.fix.safe, "edit": self._edit(document, f.fix.edits)})
        return actions

    def _noqa_actions(self, document: Document, findings: list[Finding]) -> list[dict]:
        from kernelint.noqa import TOOL_CODES, CannotAnnotate, noqa_edit

        actions, seen = [], set()
        for f in findings:
            if f.code in TOOL_CODES or (f.line, f.code) in seen:
                continue
            seen.add((f.line, f.code))
            try:
                edit = noqa_edit(document.text, f.line, [f.code])
            except CannotAnnotate:
                continue
            if edit is None:
                continue
            actions.append({"title": f"{f.code}: add `# noqa: {f.code}` to this line", "kind": "quickfix",
                            "diagnostics": [self.diagnostic(document, f)], "edit": self._edit(document, [edit])})
        return actions

    def _fix_all_action(self, document: Document, findings: list[Finding]) -> dict | None:
        """Every safe fix at once, as ``kernelint check --fix`` applies them (rounds, re-checks)."""
        if not any(f.fix is not None and f.fix.safe for f in findings):
            return None
        from kernelint.findings import Edit
        from kernelint.fixes import fix_source
        from kernelint.frontend import options_for

        from kernelint.config import ConfigError

        try:
            options = options_for(document.path)
        except ConfigError:  # the diagnostics already say what is wrong with the configuration
            return None
        result = fix_source(document.path, document.text, options, unsafe=False)
        if result.fixed == document.text:
            return None
        last = max(len(document.lines), 1)
        whole = Edit(1, 0, last, len(document.line(last).encode("utf-8")), "")
        if document.text.endswith(("\n", "\r")):
            whole = Edit(1, 0, last + 1, 0, "")
        edit = Edit(whole.line, whole.col, whole.end_line, whole.end_col, result.fixed)
        return {"title": "kernelint: apply every safe fix", "kind": FIX_ALL_KIND, "edit": self._edit(document, [edit])}

    # --- hover --------------------------------------------------------------------------------

    def hover(self, params: dict) -> dict | None:
        document, findings = self._current(params["textDocument"]["uri"])
        if document is None:
            return None
        at = document.ast_position(params["position"], self.encoding)
        under = [f for f in findings if _overlaps(f, at, at)]
        if not under:
            return None
        return {"contents": {"kind": "markdown", "value": "\n\n---\n\n".join(_hover_text(f) for f in under)},
                "range": self._finding_range(document, under[0])}


def _overlaps(f: Finding, start: tuple[int, int], end: tuple[int, int]) -> bool:
    """Whether the finding's span (inclusive of its ends, so an empty span can be hit) meets the
    range from ``start`` to ``end`` ((line, byte column) pairs)."""
    first, last = (f.line, f.column - 1), (f.end_line, max(f.end_column - 1, f.column - 1))
    return first <= end and start <= last


def _hover_text(f: Finding) -> str:
    from kernelint import docs
    from kernelint.evidence import one_line
    from kernelint.rules import find_rule

    rule = find_rule(f.code)
    parts = [f"**{f.code}** `{f.name}` ({f.severity.value}): {f.message}"]
    if rule is not None:
        evidence = one_line(rule)
        if evidence:
            parts.append(f"**Measured:** {evidence}")
    if f.facts:
        parts.append("**Why:** " + "; ".join(fact.text for fact in f.facts))
    if f.fix is not None:
        parts.append(f"**Fix:** {f.fix.title}" + ("" if f.fix.safe else " (unsafe: may change behaviour)"))
    if rule is not None:
        parts.append(docs.body(rule))
    return "\n\n".join(parts)


_REQUESTS = {
    "initialize": Server.initialize,
    "shutdown": Server.shutdown,
    "textDocument/codeAction": Server.code_action,
    "textDocument/hover": Server.hover,
}
_NOTIFICATIONS = {
    "textDocument/didOpen": Server.did_open,
    "textDocument/didChange": Server.did_change,
    "textDocument/didSave": Server.did_save,
    "textDocument/didClose": Server.did_close,
    "workspace/didChangeWatchedFiles": Server.watched_files_changed,
}


def main() -> int:
    """Serve on this process's standard input and output, then end the process. Anything else
    that writes to ``sys.stdout`` would corrupt the protocol, so it is pointed at standard error."""
    reader, writer = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    status = Server(reader, writer).serve()
    # The reader thread may still be blocked reading standard input; a normal interpreter exit
    # would then abort while finalizing that stream, so leave at once, output flushed.
    writer.flush()
    sys.stderr.flush()
    os._exit(status)
