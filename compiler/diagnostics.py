"""Diagnostics: every user-facing error carries file, line, column, a stable code and a hint."""

from __future__ import annotations

import json
from typing import Iterable, Sequence

from .dataclass_lite import field, record


@record(order=True)
class Location:
    """A position in a YAML file, 1-based."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@record
class Diagnostic:
    """One finding about a pipeline file."""

    code: str
    message: str
    loc: Location | None
    hint: str | None = None
    severity: str = "error"

    def render(self) -> str:
        where = f"{self.loc}: " if self.loc else ""
        text = f"{where}{self.severity}[{self.code}]: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def to_json(self) -> dict:
        loc = self.loc
        return {"code": self.code, "message": self.message,
                "loc": {"file": loc.file, "line": loc.line, "col": loc.col} if loc else None,
                "hint": self.hint, "severity": self.severity}


class CompileError(Exception):
    """Raised with every error found, never with one at a time."""

    def __init__(self, diagnostics: Sequence[Diagnostic]):
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(d.render() for d in self.diagnostics))


@record(frozen=False)
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
