"""The job's text in black's format without running black over it.

The job templates are written black-clean. What pipec substitutes into them is laid out by the printer
(`compiler/emit/format/printer`): the chain's statements from the IR, and each template line that holds a substituted
value (jinja's `finalize` marks those values, and every marked line outside a docstring, comment or `def` is
one statement that the printer lays out again, comments and all). Black stays the formatter of record: the
printer reproduces its decisions, hands it what it cannot measure, and the tests compare with black.
"""

from __future__ import annotations

from ... import ir
from .. import render
from .black_mode import GeneratedCodeError
from .printer import lay_out, lay_out_source

MARK = "\x1e"  # never in a substituted value: each comes from py_literal (escaped) or doc_text (printable)


class Laid(str):
    """Text already laid out (the chain's statements): substituted as is, not marked."""


def mark(value: object) -> object:
    """jinja's `finalize`: mark each substituted value, so its line is laid out after rendering."""
    if isinstance(value, Laid):
        return value
    text = str(value)
    if MARK in text:
        raise GeneratedCodeError(f"a substituted value holds the layout mark: {text!r}")
    return MARK + text


def block_lines(block: ir.Block, depth: int = 1) -> list[str]:
    """A block's comment and its statements laid out at `depth`, for a template line indented to `depth` (so
    the first line carries no indentation of its own)."""
    comment, statements = render.block_statements(block)
    indent = "    " * depth
    return [Laid(comment)] + [Laid(lay_out(s, depth)[len(indent):]) for s in statements]


_KEEP = ('"""', "#", "def ", "class ")  # docstrings, comments and definition lines hold values as text


def finish(text: str) -> str:
    """The rendered job with its marked lines laid out and the marks removed."""
    if MARK not in text:
        return text
    lines = text.split("\n")
    docstring_end = text.count("\n", 0, text.index('"""', 3)) if text.startswith('"""') else -1
    for number, line in enumerate(lines):
        if MARK not in line:
            continue
        line = line.replace(MARK, "")
        if number > docstring_end and not line.lstrip().startswith(_KEEP):
            line = lay_out_source(line)
        lines[number] = line
    return "\n".join(lines)
