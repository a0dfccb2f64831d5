"""A YAML file that does not parse, said in pipec's words: where the parser stopped, the likely cause and the fix.

PyYAML's own text ("expected <block end>, but found '?'") names its tokens, not the mistake. `describe` reads
the parser's problem and the lines around where it stopped, and picks the explanation from a table: most
mistakes are indentation (a key further in or out than its neighbours), a tab, a quote left open, a `: ` inside
a plain value, or a flow collection left open.
"""

from __future__ import annotations

import yaml

from ..dataclass_lite import record


@record
class YamlProblem:
    """What to tell the user: message and hint, at a 0-based line and column."""

    message: str
    hint: str
    line: int
    col: int


def _line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index)
    return line, index - (text.rfind("\n", 0, index) + 1)


_CHARACTER_NAMES = {"\x1b": "ESC", "\x00": "NUL", "\x7f": "DEL", "\ufeff": "a byte order mark", "\x0c": "form feed"}


def _unprintable(exc: yaml.reader.ReaderError, text: str) -> YamlProblem:
    char = chr(exc.character) if isinstance(exc.character, int) else str(exc.character)
    name = _CHARACTER_NAMES.get(char, "a control character")
    line, col = _line_col(text, exc.position)
    return YamlProblem(f"the file holds {name} (U+{ord(char):04X}), which YAML does not allow in a file", 
                       "remove it; inside a double-quoted string, write it as an escape (\\x1b, \\u0000)", line, col)


def describe(exc: Exception, text: str, mark: yaml.Mark | None = None) -> YamlProblem:
    """The problem of a document that did not compose: `exc` from the pure-Python parser, `mark` where its
    reader stood (for errors that carry no mark of their own)."""
    if isinstance(exc, yaml.reader.ReaderError):
        return _unprintable(exc, text)
    if isinstance(exc, ValueError):  # a \U escape past U+10FFFF (the scanner's chr() refuses it)
        line, col = (mark.line, mark.column) if mark else (0, 0)
        escape = text[mark.index - 2:mark.index + 8] if mark else "\\U..."
        return YamlProblem(f"the escape {escape} is past the last Unicode character, U+10FFFF",
                           "write a character up to \\U0010FFFF", line, max(col - 2, 0))
    found = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc) or "invalid YAML"
    line, col = (found.line, found.column) if found else (0, 0)
    return YamlProblem(f"YAML syntax error: {problem}", "check indentation and quoting near here", line, col)
