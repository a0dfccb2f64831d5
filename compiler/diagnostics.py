"""Diagnostics: every user-facing error carries file, line, column, a stable code and a hint."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

WORD_AT_MOST = 200  # characters of one word (a run without spaces) of a message: a longer value is cut
TEXT_AT_MOST = 1000  # characters of a whole message or hint

_LONG_WORD = re.compile(r"\S{%d,}" % (WORD_AT_MOST + 1))
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(c: str) -> str:
    if c.isprintable() or c == " ":
        return c
    if c in _ESCAPES:
        return _ESCAPES[c]
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte of a file name (surrogateescape): the byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _cut(text: str, at_most: int) -> str:
    if len(text) <= at_most:
        return text
    tail = at_most // 4
    return f"{text[: at_most - tail]}…[{len(text) - at_most:,} characters cut]…{text[-tail:]}"


def escaped(text: str) -> str:
    """`text` as one safe line for a terminal: every character Python does not call printable escaped, so none
    is acted on or hidden: control characters (ESC, CR, a newline that would forge a second diagnostic), line
    separators, bidirectional overrides, zero-width and other invisible characters (a byte order mark in a
    key), lone surrogates (a file name's undecodable byte shows as `\\xff`). The one escaping function for
    everything pipec shows of its input: messages, file names, `explain`."""
    return text if text.isprintable() else "".join(map(_escape, text))


def printable(text: str, at_most: int = TEXT_AT_MOST) -> str:
    """`escaped(text)`, with each word over WORD_AT_MOST characters and the whole over `at_most` cut in the
    middle: what a diagnostic's message and hint show."""
    text = escaped(text)
    if len(text) > WORD_AT_MOST:
        text = _LONG_WORD.sub(lambda m: _cut(m.group(), WORD_AT_MOST), text)
    return _cut(text, at_most)


def _short_repr():
    import reprlib  # only for an error message

    short = reprlib.Repr()
    short.maxstring = short.maxother = short.maxlong = WORD_AT_MOST
    short.maxlist = short.maxdict = short.maxtuple = short.maxset = 8
    short.maxlevel = 3
    return short


_SHORT: list = []


def shown(value: Any) -> str:
    """A user's value as a message quotes it: its repr, cut (never building the whole repr of a large value)."""
    if not _SHORT:
        _SHORT.append(_short_repr())
    return _SHORT[0].repr(value)


@dataclass(frozen=True, slots=True, order=True)
class Location:
    """A position in a YAML file, 1-based."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{escaped(self.file)}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding about a pipeline file."""

    code: str
    message: str
    loc: Location | None
    hint: str | None = None
    severity: str = "error"

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", printable(self.message))
        if self.hint is not None:
            object.__setattr__(self, "hint", printable(self.hint))

    def render(self) -> str:
        where = f"{self.loc}: " if self.loc else ""
        text = f"{where}{self.severity}[{self.code}]: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def to_json(self) -> dict:
        loc = self.loc
        return {
            "code": self.code,
            "message": self.message,
            "loc": {"file": loc.file, "line": loc.line, "col": loc.col} if loc else None,
            "hint": self.hint,
            "severity": self.severity,
        }


class CompileError(Exception):
    """Raised with every error found, never with one at a time."""

    def __init__(self, diagnostics: Sequence[Diagnostic]):
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(d.render() for d in self.diagnostics))


@dataclass(slots=True)
class Collector:
    """Collects diagnostics of one compilation; `check()` raises when any error was seen."""

    items: list[Diagnostic] = field(default_factory=list)

    def error(self, code: str, message: str, loc: Location | None, hint: str | None = None) -> None:
        self.items.append(Diagnostic(code, message, loc, hint))

    def warn(self, code: str, message: str, loc: Location | None, hint: str | None = None) -> None:
        self.items.append(Diagnostic(code, message, loc, hint, "warning"))

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.items.extend(diagnostics)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "warning"]

    def check(self) -> None:
        if self.errors:
            raise CompileError(sorted(self.errors, key=_sort_key))


def _sort_key(d: Diagnostic) -> tuple:
    return (d.loc or Location("", 0, 0), d.code, d.message)


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """A 'did you mean' hint for a misspelt name, or None."""
    import difflib  # only for an error: its import costs every cold start

    close = difflib.get_close_matches(word, sorted(set(choices)), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


def one_of(choices: Iterable[str]) -> str:
    """'a, b or c' for messages."""
    items = [str(c) for c in choices]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]


def render_all(diagnostics: Sequence[Diagnostic], fmt: str = "text") -> str:
    """All diagnostics as text lines or as one JSON document."""
    if fmt == "json":
        return json.dumps([d.to_json() for d in diagnostics], indent=2)
    return "\n".join(d.render() for d in diagnostics)
