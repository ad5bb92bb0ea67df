"""Latency per save in an editor, on a generated 3,000-line Triton file (docs/editors.md).

Times the commands the editor integrations run on each save, with the buffer on standard input
as they pass it: the VS Code flake8 extension and python-lsp-server (``flake8 -
--stdin-display-name PATH``), the VS Code pylint extension (``pylint --from-stdin PATH``), and
``kernelint check - --stdin-filename PATH``; then python-lsp-server itself, from ``didSave``
to ``publishDiagnostics``, and kernelint's own server (``kernelint server``), from ``didSave``
and from ``didChange`` (a keystroke) to ``publishDiagnostics``. Prints a markdown table
(median and max of the runs).

    python benchmarks/editor_latency.py [--runs 7] [--lines 3000] [--servers-only]
    python benchmarks/editor_latency.py --files FILE... [--pause 0.3]

``--files`` times only ``kernelint server``, from ``didChange`` to ``publishDiagnostics``, on real
files where they lie (the rest of their project is read from disk), after ``--pause`` seconds
without a message, as between bursts of typing: the server collects a check's garbage in such
pauses, after the diagnostics are out (``kernelint/lsp/server.py``). ``--edit open`` times
``didOpen`` of the same text under another name instead (a first, whole check), and ``--edit
save`` a ``didSave`` of the unchanged buffer.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

KERNEL = '''

@triton.autotune(configs=[triton.Config({{"BLOCK": 64}}), triton.Config({{"BLOCK": 128}})], key=["n"])
@triton.jit
def gelu_{i}(x_ptr, y_ptr, w_ptr, n, stride_x, BLOCK: tl.constexpr):
    """GELU then a scaled add, block {i}."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * stride_x, mask=mask, other=0.0)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(0, 4):
        acc += w * k
    cdf = 0.5 * (1.0 + tl.math.erf(x * 0.7071067811865476))
    y = x * cdf + acc
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def launch_{i}(x, w):
    y = torch.empty_like(x)
    n = x.numel()
    grid = lambda META: (triton.cdiv(n, META["BLOCK"]),)
    gelu_{i}[grid](x, y, w, n, x.stride(0))
    return y
'''


def generate(lines: int) -> str:
    text = '"""Generated kernels for the editor latency benchmark."""\nimport torch\nimport triton\nimport triton.language as tl\n'
    i = 0
    while text.count("\n") < lines:
        text += KERNEL.format(i=i)
        i += 1
    return text


def edit(source: str, run: int, where: str) -> str:
    """``source`` after the ``run``-th edit: a comment line appended (``end``), a comment at the
    end of the last one-line statement of the middle ``@jit`` function (``kernel``) or of the
    host function that launches it (``host``), or, every other run, a comment line of its own
    in that kernel (``line``: each edit adds or removes a line); ``every``: ``tl`` imported
    again after the imports in every other run and the line taken away in the next: the binding
    every kernel reads changes, so each edit is a whole re-check (the analysis is the same as on
    the file as it is)."""
    if where == "end":
        return source + f"\n# edit {run}\n"
    import ast

    if where == "every":  # a line every kernel reads: ``tl`` imported again, then not
        if run % 2:
            return source
        tree = ast.parse(source)
        last = max((n.end_lineno for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))), default=0)
        lines = source.split("\n")
        lines.insert(last, "import triton.language as tl")
        return "\n".join(lines)

    tree = ast.parse(source)
    jitted = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
              and any("jit" in ast.unparse(d) for d in node.decorator_list)]
    if not jitted:
        return source + f"\n# edit {run}\n"  # no kernel to type in: the host code is edited
    kernel = sorted(jitted, key=lambda node: node.lineno)[len(jitted) // 2]
    if where == "host":
        launchers = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and node not in jitted and any(isinstance(n, ast.Name) and n.id == kernel.name
                                                    for n in ast.walk(node))]
        if not launchers:
            return source + f"\n# edit {run}\n"
        kernel = launchers[0]
    line = max(n.lineno for n in ast.walk(kernel) if isinstance(n, ast.stmt) and n is not kernel
               and n.lineno == n.end_lineno and not isinstance(n, (ast.If, ast.For, ast.While, ast.With)))
    lines = source.split("\n")
    if where == "line" and run % 2 == 0:  # a line added, then taken away again by the next edit
        indent = lines[line - 1][:len(lines[line - 1]) - len(lines[line - 1].lstrip())]
        lines.insert(line - 1, f"{indent}# edit {run}")
    else:
        lines[line - 1] += f"  # edit {run}"
    return "\n".join(lines)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], source: str, cwd: Path) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system) and stdout of one run."""
    cpu = _children_cpu()
    start = time.perf_counter()
    result = subprocess.run(command, input=source, capture_output=True, text=True, cwd=cwd)
    elapsed = time.perf_counter() - start
    if "Traceback" in result.stderr:
        raise RuntimeError(result.stderr)
    return elapsed, _children_cpu() - cpu, result.stdout


def engine_seconds(path: Path, runs: int) -> float:
    """CPU seconds of kernelint's engine alone on the file, in this process (no interpreter
    start, no import)."""
    from kernelint.engine import check_source
    from kernelint.frontend import options_for

    options = options_for(str(path))
    source = path.read_text()
    times = []
    for _ in range(runs):
        start = time.process_time()
        check_source(str(path), source, options)
        times.append(time.process_time() - start)
    return statistics.median(times)


class LanguageServer:
    """A python-lsp-server over stdio, with only its flake8 plugin on (kernelint's rules)."""

    command = [sys.executable, "-m", "pylsp"]

    def __init__(self, root: Path) -> None:
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=root)
        self.root = root
        self.next_id = 0
        self.diagnostics: list = []
        self.arrived = threading.Event()
        self.responses: dict[int, dict] = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        ident = self.next_id
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while ident not in self.responses:
            time.sleep(0.01)
        return self.responses.pop(ident)

    def notify(self, method: str, params: dict) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                byte = stream.read(1)
                if not byte:
                    return
                header += byte
            length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
            message = json.loads(stream.read(length))
            if "id" in message and "method" not in message:
                self.responses[message["id"]] = message
            elif message.get("method") == "textDocument/publishDiagnostics":
                self.diagnostics = message["params"]["diagnostics"]
                self.arrived.set()

    def start(self) -> None:
        plugins = {name: {"enabled": False} for name in (
            "pycodestyle", "pyflakes", "mccabe", "pylint", "autopep8", "yapf", "jedi_completion",
            "jedi_hover", "jedi_references", "jedi_signature_help", "jedi_symbols", "rope_autoimport",
            "preload", "pydocstyle")}
        plugins["flake8"] = {"enabled": True, "select": ["KL"]}
        self.request("initialize", {"processId": os.getpid(), "rootUri": self.root.as_uri(), "capabilities": {},
                                    "initializationOptions": {}})
        self.notify("initialized", {})
        self.notify("workspace/didChangeConfiguration",
                    {"settings": {"pylsp": {"configurationSources": ["flake8"], "plugins": plugins}}})

    def save_latency(self, uri: str, text: str, version: int) -> float:
        """Seconds from didSave to the diagnostics that follow it."""
        self.arrived.clear()
        start = time.perf_counter()
        self.notify("textDocument/didSave", {"textDocument": {"uri": uri}, "text": text})
        if not self.arrived.wait(60):
            raise RuntimeError("no diagnostics from pylsp")
        return time.perf_counter() - start

    def change_latency(self, uri: str, text: str, version: int, pause: float = 0.0) -> float:
        """Seconds from a didChange (the whole new ``text``) to the diagnostics, sent after
        ``pause`` seconds of quiet."""
        time.sleep(pause)
        self.arrived.clear()
        start = time.perf_counter()
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [{"text": text}]})
        if not self.arrived.wait(60):
            raise RuntimeError("no diagnostics after didChange")
        return time.perf_counter() - start

    def stop(self) -> None:
        self.request("shutdown", {})
        self.notify("exit", {})
        self.process.wait(10)


class KernelintServer(LanguageServer):
    """``kernelint server`` over stdio: nothing to configure, it lints on change and save."""

    command = [sys.executable, "-m", "kernelint", "server"]

    def start(self) -> None:
        self.request("initialize", {"processId": os.getpid(), "rootUri": self.root.as_uri(), "capabilities": {}})
        self.notify("initialized", {})


def _open(server: LanguageServer, uri: str, source: str) -> float:
    server.arrived.clear()
    start = time.perf_counter()
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                             "text": source}})
    server.arrived.wait(60)
    return time.perf_counter() - start


def files_latency(files: list[str], runs: int, pause: float, where: str) -> None:
    print("| file | lines | didChange -> diagnostics, median | max | diagnostics |\n|---|---|---|---|---|")
    for name in files:
        path = Path(name).resolve()
        source = path.read_text(encoding="utf-8")
        server = KernelintServer(path.parent)
        server.start()
        _open(server, path.as_uri(), source)
        if where == "open":  # the same text opened under other names beside it (never written)
            times = []
            for version in range(2, runs + 2):
                time.sleep(pause)
                times.append(_open(server, path.with_name(f"opened_{version}_{path.name}").as_uri(), source) * 1000)
        elif where == "save":  # the buffer saved as it is: other modules may have changed on disk
            times = []
            for version in range(2, runs + 2):
                time.sleep(pause)
                times.append(server.save_latency(path.as_uri(), source, version) * 1000)
        else:
            times = [server.change_latency(path.as_uri(), edit(source, version, where), version, pause) * 1000
                     for version in range(2, runs + 2)]
        server.stop()
        print(f"| {name} | {source.count(chr(10)):,} | {statistics.median(times):.0f} ms | {max(times):.0f} ms "
              f"| {len(server.diagnostics)} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--lines", type=int, default=3000)
    parser.add_argument("--servers-only", action="store_true", help="time only the two language servers")
    parser.add_argument("--files", nargs="+", help="time kernelint's server on these files instead")
    parser.add_argument("--pause", type=float, default=0.3, help="seconds of quiet before each change (--files)")
    parser.add_argument("--edit", choices=("end", "kernel", "line", "host", "every", "open", "save"), default="end",
                        help="(--files) append a comment line, edit one kernel's body or its launcher's, "
                             "add and remove a line in the kernel, import tl again (every kernel reads it), "
                             "open the text under another name, or save it (editor_recheck.py)")
    args = parser.parse_args()
    if args.files:
        files_latency(args.files, args.runs, args.pause, args.edit)
        return
    from kernelint.rules import all_rules, pylint_message

    symbols = ",".join(pylint_message(r)[1] for r in all_rules() if r.code != "KL001")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "pyproject.toml").write_text("[tool.kernelint]\n")
        path = root / "kernels" / "big.py"
        path.parent.mkdir()
        source = generate(args.lines)
        path.write_text(source)
        name = "kernels/big.py"
        commands = {
            "flake8 (VS Code flake8 extension, pylsp)":
                [sys.executable, "-m", "flake8", "--select", "KL", "--stdin-display-name", name, "-"],
            "pylint, kernelint checkers only (VS Code pylint extension)":
                [sys.executable, "-m", "pylint", "--load-plugins=kernelint.pylint_plugin", "--disable=all",
                 f"--enable={symbols}", "--persistent=n", "--from-stdin", name],
            "pylint, default checkers + kernelint (VS Code pylint extension)":
                [sys.executable, "-m", "pylint", "--load-plugins=kernelint.pylint_plugin", "--persistent=n",
                 "--from-stdin", name],
            "kernelint check - --stdin-filename":
                [sys.executable, "-m", "kernelint", "check", "-", "--stdin-filename", name],
        }
        rows = []
        for label, command in ({} if args.servers_only else commands).items():
            times, cpus, out = [], [], ""
            for _ in range(args.runs):
                elapsed, cpu, out = timed(command, source, root)
                times.append(elapsed)
                cpus.append(cpu)
            count = sum(1 for line in out.splitlines() if "KL104" in line or "erf-needs-fp32" in line)
            rows.append((label, statistics.median(times), max(times), f"{statistics.median(cpus):.2f}", count))
        engine = engine_seconds(path, args.runs)

        uri = path.as_uri()
        ours = KernelintServer(root)
        ours.start()
        opened = _open(ours, uri, source)
        saves = [ours.save_latency(uri, source, version) for version in range(2, args.runs + 2)]
        count = sum(1 for d in ours.diagnostics if str(d.get("code")) == "KL104")
        changes = [ours.change_latency(uri, edit(source, version, "end"), version) for version in range(args.runs + 2, 2 * args.runs + 2)]
        ours.stop()
        rows.append(("kernelint server, didOpen -> diagnostics (first check, cold)", opened, opened, "-", count))
        rows.append(("kernelint server, didSave -> diagnostics", statistics.median(saves), max(saves), "-", count))
        rows.append(("kernelint server, didChange -> diagnostics", statistics.median(changes), max(changes), "-",
                     sum(1 for d in ours.diagnostics if str(d.get("code")) == "KL104")))

        server = LanguageServer(root)
        server.start()
        _open(server, uri, source)
        times = [server.save_latency(uri, source, version) for version in range(2, args.runs + 2)]
        count = sum(1 for d in server.diagnostics if str(d.get("code")) == "KL104")
        server.stop()
        rows.append(("python-lsp-server, didSave -> diagnostics (flake8 plugin)", statistics.median(times),
                     max(times), "-", count))

    print(f"{source.count(chr(10))} lines, {args.runs} runs each, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}\n")
    print("| front end | median wall (s) | max wall (s) | median CPU (s) | KL104 findings |")
    print("| --- | --- | --- | --- | --- |")
    for label, median, worst, cpu, count in rows:
        print(f"| {label} | {median:.2f} | {worst:.2f} | {cpu} | {count} |")
    print(f"\nkernelint's engine alone, in process: {engine:.2f} s CPU (median)")


if __name__ == "__main__":
    main()
