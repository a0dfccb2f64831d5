"""A YAML file that does not parse, said in pipec's words: where the parser stopped, the likely cause and the fix.

PyYAML's own text ("expected <block end>, but found '?'") names its tokens, not the mistake. `describe` reads the
parser's problem and the lines around where it stopped, and picks the explanation from a table (`_CAUSES`):
most mistakes are indentation (a key further in or out than the keys of its block, a list item out of its list),
a tab, a quote or bracket left open, a `: ` inside a plain value, or a character YAML reserves.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import yaml


@dataclass(frozen=True, slots=True)
class YamlProblem:
    """What to tell the user: message and hint, at a 0-based line and column."""

    message: str
    hint: str
    line: int
    col: int


INDENT_HINT = "YAML nests by indentation, with spaces: the keys of one block start in one column"
_CHARACTER_NAMES = {"\x1b": "ESC", "\x00": "NUL", "\x7f": "DEL", "\ufeff": "a byte order mark", "\x0c": "a form feed"}
_KEY = re.compile(r"^(\s*)(- +)?((?:[^:#\s]|:(?!\s))[^:#]*?)\s*:(\s|$)")
_ITEM = re.compile(r"^(\s*)- ")


def _line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index)
    return line, index - (text.rfind("\n", 0, index) + 1)


def _spaces(n: int) -> str:
    return f"{n} space{'s' if n != 1 else ''}"


@dataclass(frozen=True, slots=True)
class _Level:
    """A line above the error that opens or holds a block: where its key (or a list item's dash) stands, where
    a list item's content starts, its key, and the dotted path of the keys that hold it."""

    indent: int
    content: int  # a list item's content (after `- `); the indent itself for a key
    key: str | None
    item: bool
    owner: str  # "" at the top level


def _levels(lines: list[str], below: int) -> list[_Level]:
    """The lines above line `below` that hold it, innermost first: each one less indented than the last."""
    found: list[tuple[int, int, str | None, bool]] = []
    least = None
    for line in reversed(lines[:below]):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        key, item = _KEY.match(line), _ITEM.match(line)
        content = len(item.group(0)) if item else indent
        if least is None or indent < least:
            found.append((indent, content, key.group(3) if key else None, bool(item)))
            least = indent
            if indent == 0:
                break
    # a key in a list item's block is that item's level: `  - name: a` then `    type: Filter`
    found = [f for i, f in enumerate(found) if not (i + 1 < len(found) and found[i + 1][3] and found[i + 1][1] == f[0])]
    levels = []
    for i, (indent, content, key, item) in enumerate(found):
        owners = [k for _, _, k, it in found[i + 1 :] if k and not it][::-1]
        levels.append(_Level(indent, content, key, item, ".".join(owners)))
    return levels


def _block(level: _Level) -> str:
    if level.item:
        return f"the keys of an item of {level.owner or 'the list'} are at {_spaces(level.content)}"
    return f"{'the keys of ' + level.owner if level.owner else 'the top-level keys'} are at {_spaces(level.indent)}"


def _into(level: _Level) -> str:
    if level.item:
        return f"by {level.content} to put it in that item of {level.owner or 'the list'}"
    return f"by {level.indent} to put it in {level.owner}" if level.owner else "by 0 to make it a top-level key"


def _indentation(exc, text: str, lines: list[str]) -> YamlProblem:
    """A key or list item whose indentation matches no block above it."""
    mark = exc.problem_mark
    line = lines[mark.line] if mark.line < len(lines) else ""
    indent = len(line) - len(line.lstrip(" "))
    key = _KEY.match(line)
    what = f"{key.group(3)}:" if key and not key.group(2) else "this list item" if _ITEM.match(line) else "this line"
    levels = _levels(lines, mark.line)
    if what == "this list item":
        lists = [lv for lv in levels if lv.item]
        keys = [lv for lv in levels if not lv.item and lv.indent == indent]
        if keys and not lists:
            return YamlProblem(
                f"a list item among {_block(keys[0]).rsplit(' are at', 1)[0]}",
                "a list goes under its key: `key:`, then `  - item` lines indented under it",
                mark.line,
                mark.column,
            )
        where = "; ".join(f"the items of {lv.owner or 'the list'} are at {_spaces(lv.indent)}" for lv in lists[:2])
        return YamlProblem(
            f"this list item is indented {_spaces(indent)}; {where or 'no list is open above it'}",
            f"indent it as the other items of its list; {INDENT_HINT}",
            mark.line,
            mark.column,
        )
    dashes = [lv for lv in levels if lv.item and lv.indent == indent]
    if dashes:
        return YamlProblem(
            f"{what} stands among the list items of {dashes[0].owner or 'a list'}, in their column",
            f"make it an item (`- {what} ...`), or indent it by {dashes[0].content} to add it to the item above",
            mark.line,
            mark.column,
        )
    where = "; ".join(_block(lv) for lv in levels[:3])
    ways = ", or ".join(_into(lv) for lv in levels[:2])
    return YamlProblem(
        f"{what} is indented {_spaces(indent)}, which matches no block above it: {where}",
        f"indent it {ways}; {INDENT_HINT}",
        mark.line,
        mark.column,
    )


def _colon(exc, text: str, lines: list[str]) -> YamlProblem:
    """`mapping values are not allowed here`: a key indented deeper than the one above it (YAML reads it as
    more of that key's value), or `: ` inside a plain value."""
    mark = exc.problem_mark
    line = lines[mark.line]
    indent = len(line) - len(line.lstrip(" "))
    above = next(
        (lines[i] for i in range(mark.line - 1, -1, -1) if lines[i].strip() and not lines[i].lstrip().startswith("#")),
        "",
    )
    above_key = _KEY.match(above)
    above_indent = (
        len(above) - len(above.lstrip(" ")) + (len(above_key.group(2)) if above_key and above_key.group(2) else 0)
    )
    key = _KEY.match(line)
    if key and above_key and indent > above_indent and mark.column == line.index(":", key.end(3)):
        name, previous = key.group(3), above_key.group(3)
        return YamlProblem(
            f"{name}: is indented {_spaces(indent)}, deeper than {previous}: above it ({_spaces(above_indent)}), "
            f"so YAML reads it as more of {previous}'s value",
            f"indent it {_spaces(above_indent)}, as {previous}:",
            mark.line,
            indent,
        )
    owner = key.group(3) if key else "this key"
    return YamlProblem(
        f"the value of {owner} holds ': ' (a colon and a space), which YAML reads as another key",
        f'quote the value: {owner}: "{line[key.end() if key else 0 :].strip()}"',
        mark.line,
        mark.column,
    )


def _quote(exc, text: str, lines: list[str]) -> YamlProblem:
    start = exc.context_mark
    quote = lines[start.line][start.column] if start.column < len(lines[start.line]) else '"'
    escape = '\\" inside "..."' if quote == '"' else "'' inside '...'"
    return YamlProblem(
        f"the quote {quote} that opens here is never closed",
        f"close it with {quote} (write {escape})",
        start.line,
        start.column,
    )


def _flow(exc, text: str, lines: list[str]) -> YamlProblem:
    start, mark = exc.context_mark, exc.problem_mark
    bracket = lines[start.line][start.column] if start.column < len(lines[start.line]) else "["
    closing = {"[": "]", "{": "}"}.get(bracket, "]")
    return YamlProblem(
        f"the {bracket} opened at line {start.line + 1}, column {start.column + 1} is not closed before this",
        f"close it with {closing}, with a comma between items; or write it as indented lines",
        mark.line,
        mark.column,
    )


def _reserved(exc, text: str, lines: list[str]) -> YamlProblem:
    mark = exc.problem_mark
    char = lines[mark.line][mark.column] if mark.column < len(lines[mark.line]) else "?"
    if char == "\t":
        return YamlProblem(
            "a tab in the indentation: YAML indents with spaces only",
            "replace the tab with spaces",
            mark.line,
            mark.column,
        )
    return YamlProblem(
        f"a plain value cannot start with {char} (YAML reserves it)",
        f"quote the value: '{lines[mark.line][mark.column :].strip()}'",
        mark.line,
        mark.column,
    )


def _alias(exc, text: str, lines: list[str]) -> YamlProblem:
    mark = exc.problem_mark
    name = exc.problem.split("'")[1] if "'" in exc.problem else "?"
    return YamlProblem(
        f"*{name} reads as an alias, and no anchor &{name} comes before it",
        f"quote the value if *{name} is text: '*{name}'",
        mark.line,
        mark.column,
    )


def _documents(exc, text: str, lines: list[str]) -> YamlProblem:
    mark = exc.problem_mark
    return YamlProblem(
        "the file holds a second YAML document (after ---)",
        "one pipeline a file: move what follows --- to a file of its own, or remove the ---",
        mark.line,
        mark.column,
    )


def _escape(exc, text: str, lines: list[str]) -> YamlProblem:
    mark = exc.problem_mark
    return YamlProblem(
        f"{exc.problem.split(' ')[-1].strip(chr(39))!r} after a backslash is not an escape YAML knows",
        "write \\\\ for a backslash, or use single quotes, where a backslash is itself",
        mark.line,
        max(mark.column - 1, 0),
    )


def _no_colon(exc, text: str, lines: list[str]) -> YamlProblem:
    start = exc.context_mark
    word = lines[start.line].strip()
    return YamlProblem(
        f"'{word}' has no ': ' after it, so it is neither a key nor part of a value",
        f"write {word}: VALUE, or join it to the line above",
        start.line,
        start.column,
    )


def _after_quote(exc, text: str, lines: list[str]) -> YamlProblem | None:
    mark = exc.problem_mark
    before = lines[mark.line][: mark.column].rstrip()
    if not before.endswith(("'", '"')) or mark.column == len(lines[mark.line]) - len(lines[mark.line].lstrip()):
        return None
    return YamlProblem("text after a quoted value", "put the whole value inside the quotes", mark.line, mark.column)


def _anchor(exc, text: str, lines: list[str]) -> YamlProblem:
    mark = exc.problem_mark
    return YamlProblem(
        "an anchor (&name) defined a second time", "give each anchor its own name", mark.line, mark.column
    )


# (words of PyYAML's problem or context, explanation); the first that matches and gives an answer wins
_CAUSES: tuple[tuple[str, Callable], ...] = (
    ("but found '<scalar>'", _after_quote),
    ("expected <block end>", _indentation),
    ("mapping values are not allowed here", _colon),
    ("while scanning a quoted scalar", _quote),
    ("while parsing a flow", _flow),
    ("that cannot start any token", _reserved),
    ("found undefined alias", _alias),
    ("but found another document", _documents),
    ("found unknown escape character", _escape),
    ("could not find expected ':'", _no_colon),
    ("found duplicate anchor", _anchor),
)


def _unprintable(exc: yaml.reader.ReaderError, text: str) -> YamlProblem:
    char = chr(exc.character) if isinstance(exc.character, int) else str(exc.character)
    name = _CHARACTER_NAMES.get(char, "a control character")
    line, col = _line_col(text, exc.position)
    return YamlProblem(
        f"the file holds {name} (U+{ord(char):04X}), which YAML does not allow in a file",
        "remove it; inside a double-quoted string, write it as an escape (\\x1b, \\u0000)",
        line,
        col,
    )


def describe(exc: Exception, text: str, mark: yaml.Mark | None = None) -> YamlProblem:
    """The problem of a document that did not compose: `exc` from the pure-Python parser, `mark` where its
    reader stood (for errors that carry no mark of their own)."""
    if isinstance(exc, yaml.reader.ReaderError):
        return _unprintable(exc, text)
    if isinstance(exc, ValueError):  # a \U escape past U+10FFFF (the scanner's chr() refuses it)
        line, col = (mark.line, mark.column) if mark else (0, 0)
        escape = text[mark.index - 2 : mark.index + 8] if mark else "\\U..."
        return YamlProblem(
            f"the escape {escape} is past the last Unicode character, U+10FFFF",
            "write a character up to \\U0010FFFF",
            line,
            max(col - 2, 0),
        )
    said = f"{getattr(exc, 'context', '') or ''} {getattr(exc, 'problem', '') or ''}"
    lines = text.split("\n")
    if getattr(exc, "problem_mark", None) is not None:
        for words, explain in _CAUSES:
            if words in said:
                try:
                    found = explain(exc, text, lines)
                except (IndexError, AttributeError):  # a mark past the text: the plain words below
                    found = None
                if found is not None:
                    return found
    at = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line, col = (at.line, at.column) if at else (0, 0)
    problem = getattr(exc, "problem", None) or str(exc) or "invalid YAML"
    return YamlProblem(
        f"YAML cannot read this: {problem}",
        "check the indentation (spaces only; the keys of one block in one column) and the quotes near here",
        line,
        col,
    )
