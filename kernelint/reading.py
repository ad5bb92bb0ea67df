"""Reading and parsing one checked file safely: whatever sits at the path (a FIFO, a device, a
huge file) and whatever it holds (NUL bytes, syntax of a newer Python, nesting the parser cannot
take), the result is bytes, a tree, or one clear reason why not. Never an exception, never a
hang, never gigabytes of memory.
"""
from __future__ import annotations

import ast
import io
import os
import re
import stat
import sys
import tokenize
import warnings
from contextlib import contextmanager

from kernelint import fstrings

#: Files larger than this are not checked. The biggest ``.py`` file of CPython's standard
#: library and of a torch + triton + cutlass environment is under 2 MB; parsing costs about
#: 250 times a file's size in memory (a 50 MB file took 12 GB), so the bound keeps one file
#: under about 3 GB whatever is handed to kernelint.
MAX_FILE_BYTES = 10 * 1024 * 1024

class Unreadable(Exception):
    """A file that cannot be checked; ``str()`` says why, in a few words."""


def read_bytes(path: str) -> bytes:
    """The bytes of the regular file at ``path``. Opening does not block (a FIFO named ``x.py``
    has no writer), and anything but a regular file of at most MAX_FILE_BYTES is refused."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as error:
        raise Unreadable(f"cannot read file: {error.strerror or error}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable("cannot read file: not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise Unreadable(_too_large(info.st_size))
        chunks = []
        size = 0
        while True:  # read to the end, not to st_size: the file may be growing
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                raise Unreadable(_too_large(size))
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as error:
        raise Unreadable(f"cannot read file: {error.strerror or error}") from None
    finally:
        os.close(fd)


def read_stream(stream) -> bytes:
    """At most MAX_FILE_BYTES of a binary stream (standard input). Reading stops one byte past the
    bound: ``< /dev/zero`` is refused at once instead of filling memory first."""
    chunks = []
    size = 0
    while size <= MAX_FILE_BYTES:
        chunk = stream.read(min(1 << 20, MAX_FILE_BYTES + 1 - size))
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        chunks.append(chunk)
    raise Unreadable(_too_large(size))


def _too_large(size: int) -> str:
    return (f"file not checked: larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB "
            f"({size:,} bytes or more)")


def too_large_text(source: str) -> str | None:
    """The reason a text handed over by a front end (flake8, pylint) is not checked, or None."""
    if len(source) > MAX_FILE_BYTES:
        return _too_large(len(source.encode("utf-8", errors="replace")))
    return None


class ParseFailure(Exception):
    """``ast.parse`` failed. ``syntax`` says whether CPython's parser rejects the text (KL001)
    rather than kernelint giving up for lack of memory (KL002); ``line`` and ``column`` are
    1-based."""

    def __init__(self, message: str, line: int = 1, column: int = 1, syntax: bool = True, newer: bool = False):
        super().__init__(message)
        self.message, self.line, self.column, self.syntax = message, line, column, syntax
        #: The text uses syntax of a newer Python than the running one: the file is not
        #: analysed, which is reported at info, never as an error in the user's code.
        self.newer = newer


def parse(source: str, path: str) -> ast.Module:
    """The tree of ``source``, or ParseFailure with a message a user can act on."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source, filename=path)
    except SyntaxError as error:
        newer = _newer_syntax(error)
        if newer is not None and newer[1] == 701:
            tree = _parse_with_fstrings_blanked(source, path)
            if tree is not None:
                return tree
        line = error.lineno or 1
        column = max(error.offset or 1, 1)
        raise ParseFailure(syntax_message(error), line, column, newer=newer is not None) from None
    except ValueError as error:  # e.g. NUL bytes on some Python versions
        raise ParseFailure(f"file does not parse: {error}") from None
    except RecursionError:
        raise ParseFailure("file does not parse: nested too deeply for Python's parser") from None
    except MemoryError as error:
        if str(error):  # a real allocation failure names nothing; the parser's own says why
            raise ParseFailure(f"file does not parse: {error}") from None
        if len(source) < 1024 * 1024:  # CPython raises a bare MemoryError when its stack overflows
            raise ParseFailure("file does not parse: nested too deeply for Python's parser") from None
        raise ParseFailure("file not checked: out of memory while parsing", syntax=False) from None


def _parse_with_fstrings_blanked(source: str, path: str) -> ast.Module | None:
    """The tree of ``source`` with its PEP 701 f-strings read as plain strings of the same shape
    (``kernelint.fstrings.blanked``): the file is analysed, all but what the f-strings hold.
    None when that does not parse either for newer syntax; ParseFailure when what is left has a
    syntax error of its own (an error in every Python, at its own line)."""
    text = fstrings.blanked(source)
    if text is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text, filename=path)
    except SyntaxError as error:
        if _newer_syntax(error) is not None:
            return None
        raise ParseFailure(syntax_message(error), error.lineno or 1, max(error.offset or 1, 1)) from None
    except (ValueError, RecursionError, MemoryError):
        return None


#: Syntax a newer Python accepts that the running one rejects: (version needed, PEP, what,
#: pattern on the line the error is reported at, pattern on the error message).
_NEWER_SYNTAX = (
    ((3, 11), 654, "`except*`", re.compile(r"^\s*except\s*\*"), None),
    ((3, 12), 695, "type parameters", re.compile(r"^\s*(async\s+)?(def|class)\s+\w+\s*\["), None),
    ((3, 12), 695, "`type` aliases", re.compile(r"^\s*type\s+\w+\s*(\[|=)"), None),
    ((3, 12), 701, "f-strings that reuse their quote or hold backslashes or comments in braces",
     re.compile(r"(?i)(^|[^\w])(rf|fr|f)('|\")"),
     re.compile(r"^(f-string|unterminated string literal|unexpected character after line continuation)")),
    ((3, 14), 758, "`except A, B:` without parentheses", None,
     re.compile(r"multiple exception types must be parenthesized")),
)


def _newer_syntax(error: SyntaxError, running: tuple[int, int] = sys.version_info[:2]):
    """(version needed, PEP, what) when the failing line uses syntax a newer Python accepts."""
    text = error.text or ""
    for needed, pep, what, on_line, on_message in _NEWER_SYNTAX:
        if running >= needed:
            continue
        if (on_line is None or on_line.search(text)) and (on_message is None or on_message.search(error.msg or "")):
            if pep == 701 and fstrings.malformed(text.rstrip("\n")):
                continue  # broken under 3.12's grammar too: a plain syntax error
            return needed, pep, what
    return None


def syntax_message(error: SyntaxError, running: tuple[int, int] = sys.version_info[:2]) -> str:
    """``file does not parse: MSG``; for syntax that a newer Python accepts (PEP 695 type
    parameters, PEP 701 f-strings ...), that the file is not analysed and which Python it needs."""
    newer = _newer_syntax(error, running)
    if newer is None:
        return f"file does not parse: {error.msg}"
    (major, minor), pep, what = newer
    return (f"file not analysed: {what} need Python {major}.{minor} or newer (PEP {pep}) and kernelint "
            f"runs on Python {running[0]}.{running[1]} ({error.msg}); run kernelint with Python "
            f"{major}.{minor}+ to check this file")


#: Recursion room while the model and the rules walk a tree. ``ast.parse`` builds trees about
#: as deep as the current limit allows (1,000 by default) and the recursive walks take a few
#: frames per level: 900 nested unary operators in one statement made rules fail with
#: RecursionError on six reference kernels and fixtures at the default limit, on none at this.
WALK_RECURSION_LIMIT = 10_000


@contextmanager
def room_to_recurse():
    """Raise the recursion limit to WALK_RECURSION_LIMIT for the duration, never lower it."""
    previous = sys.getrecursionlimit()
    if previous < WALK_RECURSION_LIMIT:
        sys.setrecursionlimit(WALK_RECURSION_LIMIT)
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def decode(data: bytes) -> str:
    """A source file's text: the encoding its coding cookie or BOM names (PEP 263), else UTF-8,
    undecodable bytes replaced rather than refused."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return data.decode("utf-8", errors="replace")
