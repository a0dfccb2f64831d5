"""Lay out Python statements exactly as black (pinned mode: -l 100 -t py310) would, without running black.

pipec's jobs are black-formatted. Black's cost is parsing and re-splitting a whole file twice; the printer
instead lays out each statement pipec generates from its syntax tree, reproducing black's decisions
(`split.py`), and the job templates are written black-clean. A statement holding text the printer does not
measure like black (non-ASCII characters, whose display width black takes from its own table) or a shape
it does not know is handed to black itself, so the result is black's either way. The tests hold the printer
to black over every job they build, `generated/` and a synthetic corpus of every transform family
(tests/cli/test_cli_black_layout.py, tests/cli/test_cli_generated_jobs.py).
"""

from __future__ import annotations

from functools import lru_cache

from . import parse, syntax
from .leaf import COMMENT, NAME, STRING
from .line import Line
from .split import transform_line

Unsupported = parse.Unsupported


def _pass(leaves: list, depth: int) -> list[Line]:
    """One run of black's linegen over the statement: its line built (`Line.append` of each leaf; the marking
    is deferred until the line is split), then split."""
    line = Line(depth)
    for leaf in leaves[1:]:
        leaf.prefix += leaf.space
    if leaves and leaves[-1].kind == COMMENT:  # the statement's comment: the only one, and last
        line.defer(leaves[:-1])
        line.settle()
        line.append(leaves[-1], preformatted=True)
    else:
        line.defer(list(leaves))  # marked if it is split: most statements fit on their line
    return transform_line(line)


_LAID: dict[tuple[str, int], str] = {}
LAID_AT_MOST = 4096  # statements remembered: jobs of one source or sink repeat their decoding and encoding


def lay_out(statement: syntax.Statement, depth: int = 0) -> str:
    """The statement at indentation `depth`, as black writes it: lines joined by newlines, indented, with no
    final newline. Remembered by the statement's source text, which determines its tree."""
    source = syntax.source(statement)
    key = (source, depth)
    laid = _LAID.get(key)
    if laid is None:
        if len(_LAID) >= LAID_AT_MOST:
            _LAID.clear()
        laid = _LAID[key] = _lay_out(statement, depth, source)
    return laid


def _lay_out(statement: syntax.Statement, depth: int, source: str) -> str:
    leaves = syntax.leaves(statement)
    if not _measurable(leaves, source):
        return black_statement(source, depth)
    values = [leaf.value for leaf in leaves]
    lines = _pass(leaves, depth)
    # Black formats a changed file a second time: the commas it added are magic trailing commas then, and
    # the optional parentheses it hid around a list's only item are gone.
    printed = [leaf for line in lines for leaf in line.leaves]
    added = frozenset(leaf.index for leaf in printed if leaf.added)
    dropped = frozenset(leaf.index for leaf in printed if leaf.redundant and not leaf.value)
    if added or dropped:
        lines = _pass(syntax.reread(leaves, values, added, dropped), depth)
    return "\n".join(line.laid or line.text() for line in lines)


def _measurable(leaves: list, source: str) -> bool:
    """Only ASCII text (black measures other characters by their display width, from its own table), and
    no type comment (black keeps those where they are). `source` is the statement's text, whose leaves hold
    its characters (black changes only quotes and prefixes): all ASCII there, only comments need a look."""
    if source.isascii():
        return not any(leaf.kind == COMMENT and leaf.value[1:].strip().startswith("type:") for leaf in leaves)
    for leaf in leaves:
        if leaf.kind in (STRING, NAME, COMMENT) and not leaf.value.isascii():
            return False
        if leaf.kind == COMMENT and leaf.value[1:].strip().startswith("type:"):
            return False
    return True


@lru_cache(maxsize=1024)
def lay_out_source(text: str) -> str:
    """`text`, simple statements at one indentation (a multiple of four spaces), laid out as black would:
    the job templates' statements that hold substituted values."""
    lines = text.split("\n")
    first = next((line for line in lines if line.strip()), "")
    indent = len(first) - len(first.lstrip(" "))
    if indent % 4:
        raise ValueError(f"indentation of {indent} spaces: {first!r}")
    dedented = "\n".join(line[indent:] if line.startswith(" " * indent) else line for line in lines)
    try:
        statements = parse.statements(dedented)
    except Unsupported:
        return black_statement(dedented.strip("\n"), indent // 4) + ("\n" if text.endswith("\n") else "")
    out = "\n".join(lay_out(statement, indent // 4) for statement in statements)
    return out + ("\n" if text.endswith("\n") else "")


@lru_cache(maxsize=256)
def black_statement(source: str, depth: int) -> str:
    """Black's layout of `source` (simple statements) at indentation `depth`: formatted inside `depth` nested
    blocks, which is where black's line length counts from."""
    import black

    from ..black_mode import GeneratedCodeError, black_mode

    wrapper = "".join("    " * level + "if _:\n" for level in range(depth))
    body = "".join("    " * depth + line + "\n" for line in source.split("\n"))
    try:
        formatted = black.format_str(wrapper + body, mode=black_mode())
    except black.InvalidInput as exc:
        raise GeneratedCodeError(f"not a complete statement: {source!r} ({exc})") from exc
    return formatted.split("\n", depth)[depth].rstrip("\n")


__all__ = ["Unsupported", "black_statement", "lay_out", "lay_out_source", "parse", "syntax"]
