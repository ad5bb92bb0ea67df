"""JSON-RPC 2.0 messages framed as the Language Server Protocol frames them: a
``Content-Length`` header, a blank line, then that many bytes of UTF-8 JSON."""
from __future__ import annotations

import json
import threading
from typing import BinaryIO

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
#: LSP: a request arrived before ``initialize``.
SERVER_NOT_INITIALIZED = -32002

#: The largest message accepted (a 10 MiB source file escaped as JSON fits).
MAX_CONTENT_LENGTH = 64 * 1024 * 1024


class ProtocolError(Exception):
    """The stream broke the framing; the connection cannot continue."""


def read_message(stream: BinaryIO) -> dict | list | None:
    """The next message, or None at the end of the stream. A body that is not JSON comes back
    as ``{"__invalid__": reason}`` so the caller can answer with a parse error and go on."""
    length = None
    while True:
        line = stream.readline(65537)
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            if length is None:
                continue  # a stray blank line between messages
            break
        name, _, value = line.decode("ascii", errors="replace").partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise ProtocolError(f"bad Content-Length header: {value.strip()!r}") from None
            if not 0 <= length <= MAX_CONTENT_LENGTH:
                raise ProtocolError(f"Content-Length {length} is out of range")
    body = stream.read(length)
    if len(body) < length:
        return None
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return {"__invalid__": str(error)}


class Writer:
    """Writes framed messages; safe to share between threads."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def send(self, message: dict) -> None:
        body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        with self._lock:
            self._stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self._stream.flush()

    def respond(self, request_id, result) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def error(self, request_id, code: int, message: str) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})

    def notify(self, method: str, params) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})
