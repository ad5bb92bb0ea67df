"""``kernelint server`` answers a real LSP client: the server runs as a subprocess and the test
speaks JSON-RPC over its pipes (initialize, didOpen, publishDiagnostics, codeAction, hover,
didChange, didSave, shutdown, exit). Every wait has a deadline and the process is killed at the
end whatever happened, so a broken server fails the test instead of hanging the suite."""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kernelint.lsp.documents import Document
from test_baseline import HEADER, kernel
from test_cli import write

TIMEOUT_S = 60
KERNEL = HEADER + kernel("gelu")  # KL104 (error, with a safe fix) on the erf line
ERF_LINE = KERNEL.splitlines().index(next(l for l in KERNEL.splitlines() if "erf" in l))  # 0-based


class Client:
    """A minimal LSP client over a subprocess's standard input and output."""

    def __init__(self, cwd: Path, *extra: str) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "kernelint", "server", *extra], cwd=cwd,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox: "queue.Queue" = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line == b"\r\n":
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.inbox.put(json.loads(stream.read(length)))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict | None = None) -> None:
        self.send({"method": method, "params": params or {}})

    def request(self, method: str, params: dict | None = None):
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params or {}})
        reply = self.wait(lambda m: m.get("id") == self.next_id and "method" not in m)
        assert "error" not in reply, reply
        return reply["result"]

    def wait(self, matches, deadline_s: float = TIMEOUT_S) -> dict:
        """The next message ``matches`` accepts (others are kept out of the way)."""
        deadline = time.monotonic() + deadline_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no matching message within {deadline_s} s; stderr: {self._stderr()}")
            try:
                message = self.inbox.get(timeout=left)
            except queue.Empty:
                continue
            if message is None:
                raise AssertionError(f"the server closed its output; stderr: {self._stderr()}")
            if matches(message):
                return message

    def diagnostics(self, uri: str, version=None) -> list[dict]:
        message = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == uri
                            and (version is None or m["params"].get("version") == version))
        return message["params"]["diagnostics"]

    def _stderr(self) -> str:
        if self.process.poll() is None:
            return "(still running)"
        return self.process.stderr.read().decode("utf-8", errors="replace")

    def close(self) -> int | None:
        try:
            return self.process.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return None
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                try:
                    stream.close()
                except OSError:
                    pass


@pytest.fixture
def client_in(tmp_path):
    started = []

    def start(files: dict[str, str], **kwargs) -> tuple[Client, Path]:
        write(tmp_path, files)
        client = Client(tmp_path)
        started.append(client)
        return client, tmp_path

    yield start
    for client in started:
        if client.process.poll() is None:
            client.process.kill()
        client.close()


def _initialize(client: Client, root: Path, encodings=None) -> dict:
    capabilities = {"general": {"positionEncodings": encodings}} if encodings else {}
    result = client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": capabilities})
    client.notify("initialized")
    return result


def _open(client: Client, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                            "version": version, "text": text}})
    return uri


def _line_range(line: int) -> dict:
    return {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 200}}


def _apply(text: str, edits: list[dict]) -> str:
    """Apply LSP TextEdits (UTF-16 positions) the way a client does, last first."""
    document = Document("file:///x.py", text)
    spans = sorted(((document.offset(e["range"]["start"], "utf-16"), document.offset(e["range"]["end"], "utf-16"),
                     e["newText"]) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def test_a_client_session(client_in):
    client, root = client_in({"pkg/gelu.py": KERNEL, "pkg/other.py": "x = 1\n"})
    result = _initialize(client, root)
    capabilities = result["capabilities"]
    assert capabilities["hoverProvider"] is True and capabilities["positionEncoding"] == "utf-16"
    assert "quickfix" in capabilities["codeActionProvider"]["codeActionKinds"]

    uri = _open(client, root / "pkg" / "gelu.py", KERNEL)
    diagnostics = client.diagnostics(uri)
    assert [(d["code"], d["severity"], d["range"]["start"]["line"]) for d in diagnostics] == [("KL104", 1, ERF_LINE)]
    assert diagnostics[0]["source"] == "kernelint"
    erf = KERNEL.splitlines()[ERF_LINE]
    assert diagnostics[0]["range"]["start"]["character"] == erf.index("tl.math.erf")

    # Code actions: the rule's fix and a noqa, each an edit that does what it says.
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": _line_range(ERF_LINE), "context": {"diagnostics": diagnostics}})
    titles = [a["title"] for a in actions]
    fix = next(a for a in actions if "noqa" not in a["title"] and a["kind"] == "quickfix")
    noqa = next(a for a in actions if "noqa" in a["title"])
    assert fix["isPreferred"] is True, titles
    fixed = _apply(KERNEL, fix["edit"]["changes"][uri])
    assert ".to(tl.float32)" in fixed.splitlines()[ERF_LINE] and fixed.count("\n") == KERNEL.count("\n")
    silenced = _apply(KERNEL, noqa["edit"]["changes"][uri])
    assert silenced.splitlines()[ERF_LINE] == erf + "  # noqa: KL104"

    # Hover over the finding: the rule's doc and its measured evidence; elsewhere nothing.
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": ERF_LINE, "character": erf.index("erf")}})
    text = hover["contents"]["value"]
    assert "KL104" in text and "## What it does" in text and "**Measured:** reproduced on" in text
    assert client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                 "position": {"line": 0, "character": 0}}) is None

    # The edited buffer is checked, not the file on disk: applying the fix clears the finding.
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                             "contentChanges": [{"text": fixed}]})
    assert client.diagnostics(uri, version=2) == []
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3},
                                             "contentChanges": [{"text": silenced}]})
    assert client.diagnostics(uri, version=3) == []

    # A save re-reads the configuration: a severity override made on disk applies.
    write(root, {"pyproject.toml": '[tool.kernelint.severity]\nKL104 = "warning"\n'})
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}, "text": KERNEL})
    assert [(d["code"], d["severity"]) for d in client.diagnostics(uri)] == [("KL104", 2)]

    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri) == []
    assert client.request("shutdown") is None
    client.notify("exit")
    assert client.close() == 0


def test_fix_all_and_utf8_positions(client_in):
    prefix = "# ünïcödé 🚀\n"
    text = prefix + KERNEL
    client, root = client_in({"k.py": text})
    assert _initialize(client, root, encodings=["utf-8", "utf-16"])["capabilities"]["positionEncoding"] == "utf-8"
    uri = _open(client, root / "k.py", text)
    [diagnostic] = client.diagnostics(uri)
    erf = KERNEL.splitlines()[ERF_LINE]
    assert diagnostic["range"]["start"] == {"line": ERF_LINE + 1, "character": len(erf[:erf.index("tl.math.erf")].encode())}
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": _line_range(0), "context": {"diagnostics": [], "only": ["source.fixAll"]}})
    [fix_all] = actions
    assert fix_all["kind"] == "source.fixAll.kernelint"
    [edit] = fix_all["edit"]["changes"][uri]
    assert edit["range"]["start"] == {"line": 0, "character": 0}
    assert edit["newText"].startswith(prefix) and ".to(tl.float32)" in edit["newText"]
    client.request("shutdown")
    client.notify("exit")
    assert client.close() == 0


def test_bad_messages_get_errors_not_a_crash(client_in):
    client, root = client_in({"k.py": KERNEL})
    client.next_id += 1
    client.send({"id": client.next_id, "method": "textDocument/hover", "params": {}})
    early = client.wait(lambda m: m.get("id") == client.next_id)
    assert early["error"]["code"] == -32002  # not initialized yet
    _initialize(client, root)
    client.next_id += 1
    client.send({"id": client.next_id, "method": "no/such/method", "params": {}})
    assert client.wait(lambda m: m.get("id") == client.next_id)["error"]["code"] == -32601
    client.next_id += 1
    client.send({"id": client.next_id, "method": "textDocument/hover", "params": {"textDocument": {}}})
    assert client.wait(lambda m: m.get("id") == client.next_id)["error"]["code"] == -32603
    body = b"{not json"
    client.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    client.process.stdin.flush()
    assert client.wait(lambda m: "error" in m and m.get("id") is None)["error"]["code"] == -32700
    # still serving
    uri = _open(client, root / "k.py", KERNEL)
    assert [d["code"] for d in client.diagnostics(uri)] == ["KL104"]
    client.process.stdin.close()  # the client went away without shutdown: exit status 1
    assert client.close() == 1


def test_excluded_file_gets_no_diagnostics(client_in):
    client, root = client_in({"pyproject.toml": '[tool.kernelint]\nexclude = ["gen/"]\n', "gen/k.py": KERNEL,
                              "src/k.py": KERNEL})
    _initialize(client, root)
    excluded = _open(client, root / "gen" / "k.py", KERNEL)
    assert client.diagnostics(excluded) == []
    checked = _open(client, root / "src" / "k.py", KERNEL)
    assert [d["code"] for d in client.diagnostics(checked)] == ["KL104"]
    client.request("shutdown")
    client.notify("exit")
    assert client.close() == 0


def test_related_sites_become_related_information(tmp_path):
    """A grouped finding's other sites (issue 21) are LSP relatedInformation where the client
    says it shows them, and are counted in the message where it does not."""
    import io

    from kernelint.findings import Confidence, Finding, Severity, Site
    from kernelint.lsp.server import Server

    other = tmp_path / "other.py"
    other.write_text("é = 1\nflag(a)\n")
    path = tmp_path / "k.py"
    text = "import triton\n\nflag(a)\n# ü\nflag(a)\n"
    document = Document(path.as_uri(), text)
    finding = Finding(str(path), 3, 1, 3, 8, "KL104", "erf-needs-fp32", Severity.ERROR, Confidence.HIGH,
                      "flag(a) called", related=(Site(str(path), 5, 1, 5, 8, "flag(a) called here"),
                                                 Site(str(other), 2, 1, 2, 8, "")))
    server = Server(io.BytesIO(), io.BytesIO())
    server.initialize({"capabilities": {"textDocument": {"publishDiagnostics": {"relatedInformation": True}}}})
    diagnostic = server.diagnostic(document, finding)
    assert diagnostic["message"] == "flag(a) called [erf-needs-fp32]"
    assert diagnostic["relatedInformation"] == [
        {"location": {"uri": path.as_uri(), "range": {"start": {"line": 4, "character": 0},
                                                     "end": {"line": 4, "character": 7}}},
         "message": "flag(a) called here"},
        {"location": {"uri": other.resolve().as_uri(), "range": {"start": {"line": 1, "character": 0},
                                                                "end": {"line": 1, "character": 7}}},
         "message": "flag(a) called"},
    ]
    plain = Server(io.BytesIO(), io.BytesIO())
    plain.initialize({"capabilities": {}})
    diagnostic = plain.diagnostic(document, finding)
    assert "relatedInformation" not in diagnostic
    assert diagnostic["message"] == f"{finding.shown_message} [erf-needs-fp32]"


def test_saving_another_module_rechecks_the_open_buffers(client_in):
    """Facts from other modules apply (the project index, issue 19): KL106 in a kernel module
    goes away once a module that imports it is saved with a call to triton.set_allocator."""
    project = Path(__file__).parent / "projects" / "KL106_no_allocator_anywhere"
    files = {str(p.relative_to(project)): p.read_text() for p in project.rglob("*") if p.is_file()}
    files["pyproject.toml"] = '[tool.kernelint]\nextend-select = ["KL106"]  # off by default\n'
    client, root = client_in(files)
    _initialize(client, root)
    kernel_uri = _open(client, root / "pkg" / "tma_copy.py", files["pkg/tma_copy.py"])
    assert [d["code"] for d in client.diagnostics(kernel_uri)] == ["KL106"]
    bench = root / "pkg" / "bench.py"
    bench_uri = _open(client, bench, files["pkg/bench.py"])
    client.diagnostics(bench_uri)
    saved = files["pkg/bench.py"].replace(
        "from pkg.tma_copy import tma_copy\n",
        "from pkg.tma_copy import tma_copy\n\n\ndef _alloc(size, alignment, stream):\n"
        "    return torch.empty(size, dtype=torch.int8, device=\"cuda\")\n\n\ntriton.set_allocator(_alloc)\n")
    bench.write_text(saved)
    client.notify("textDocument/didSave", {"textDocument": {"uri": bench_uri}, "text": saved})
    assert client.diagnostics(kernel_uri) == []
    client.request("shutdown")
    client.notify("exit")
    assert client.close() == 0


def test_a_broken_configuration_is_a_diagnostic_not_a_crash(client_in):
    client, root = client_in({"pyproject.toml": '[tool.kernelint]\nselect = ["KL1O4"]\n', "k.py": KERNEL})
    _initialize(client, root)
    uri = _open(client, root / "k.py", KERNEL)
    [diagnostic] = client.diagnostics(uri)
    assert diagnostic["code"] == "KL002" and "did you mean 'KL104'" in diagnostic["message"]
    assert client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": _line_range(0), "context": {"diagnostics": []}}) == []
    client.request("shutdown")
    client.notify("exit")
    assert client.close() == 0


def test_document_positions_and_incremental_changes():
    """UTF-16 (LSP's default) and UTF-8 positions against ast's UTF-8 byte columns, and a ranged
    change (a client may send one even though the server asks for whole texts)."""
    text = "a = '🚀é'; b = 1\r\nc = 2\n"
    document = Document("file:///tmp/x.py", text)
    byte_b = len("a = '🚀é'; ".encode())
    assert document.position(1, byte_b, "utf-16") == {"line": 0, "character": len("a = '") + 2 + 1 + 3}
    assert document.position(1, byte_b, "utf-8") == {"line": 0, "character": byte_b}
    assert document.ast_position({"line": 0, "character": 11}, "utf-16") == (1, byte_b)
    assert document.ast_position({"line": 0, "character": byte_b}, "utf-8") == (1, byte_b)
    document.apply_change({"range": {"start": {"line": 0, "character": 11}, "end": {"line": 0, "character": 12}},
                           "text": "bb"}, 2, "utf-16")
    assert document.text == "a = '🚀é'; bb = 1\r\nc = 2\n" and document.version == 2
    document.apply_change({"range": {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}},
                           "text": ""}, 3, "utf-16")
    assert document.text == "a = '🚀é'; bb = 1\r\n" and document.lines == ["a = '🚀é'; bb = 1"]


def test_garbage_is_collected_after_the_diagnostics_are_sent(tmp_path, monkeypatch):
    """The young collection after a check waits until the diagnostics are out and no message is
    waiting (``Server._collect_when_idle``), with the collector paused meanwhile; a long burst
    of checks collects after ``_MAX_UNCOLLECTED`` of them; a collector the host paused stays
    paused and uncollected."""
    import gc
    import io

    from kernelint.lsp import server as lsp

    events: list[str] = []
    real_collect = gc.collect
    monkeypatch.setattr(lsp.gc, "collect", lambda *a: events.append("collect") or real_collect(*a))
    out = io.BytesIO()
    server = lsp.Server(io.BytesIO(), out)
    real_send = server._out.send
    server._out.send = lambda message: events.append(message.get("method", "reply")) or real_send(message)
    path = write(tmp_path, {"pkg/gelu.py": KERNEL}) / "pkg" / "gelu.py"
    server.initialize({})
    server.did_open({"textDocument": {"uri": path.as_uri(), "text": KERNEL, "version": 1}})
    assert gc.isenabled()
    try:
        server._check(path.as_uri())
        assert events == ["textDocument/publishDiagnostics"] and not gc.isenabled()
        server._collect_when_idle()
        assert events[-1] == "collect" and gc.isenabled()

        events.clear()
        for _ in range(lsp._MAX_UNCOLLECTED + 1):
            server._check(path.as_uri())
        assert events.count("collect") == 1 and events.index("collect") == lsp._MAX_UNCOLLECTED
        server._collect_when_idle()
        assert gc.isenabled()

        events.clear()
        gc.disable()
        server._check(path.as_uri())
        server._collect_when_idle()
        assert "collect" not in events and not gc.isenabled()
    finally:
        gc.enable()


def test_serve_leaves_the_collector_running():
    """A server that ends while a check's garbage still waits for a pause (``exit`` queued
    behind the change) collects it and resumes the collector before ``serve`` returns."""
    import gc
    import io

    from kernelint.lsp import server as lsp

    body = json.dumps({"jsonrpc": "2.0", "method": "exit"}).encode()
    server = lsp.Server(io.BytesIO(b"Content-Length: %d\r\n\r\n" % len(body) + body), io.BytesIO())
    try:
        server._pause_collector()  # what ``_check`` does before the engine runs
        assert not gc.isenabled()
        server.serve()
        assert gc.isenabled() and server._uncollected == 0
    finally:
        gc.enable()
