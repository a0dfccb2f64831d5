"""Black's line splitting, for the statements pipec writes: a line that does not fit (or holds a magic trailing
comma) is split at its last bracket pair (right-hand split, `rhs.py`), and a bracket's contents at its
delimiters of highest priority (one item per line, with a trailing comma added). This follows black's
`linegen.transform_line` decision for decision, including its side effects on leaves, which its later
decisions read; every branch here has a twin there."""

from __future__ import annotations

from typing import Callable, Iterator

from .leaf import COMMA, COMMA_PRIORITY, DOT_PRIORITY, STRING_PRIORITY, Leaf, added_comma
from .line import Line
from .rhs import CannotSplit, right_hand_split_with_omits

MIGRATE_COMMENT_DELIMITERS = (STRING_PRIORITY, COMMA_PRIORITY)


def transform_line(line: Line, force: bool = False, text: str | None = None) -> list[Line]:
    """The line, or the lines it splits into, each laid out in turn. `force` is black's
    FORCE_OPTIONAL_PARENTHESES feature (its "second opinion"); `text` is the line's, when the caller has it."""
    if text is None:
        text = line.text()
    if line.pending:  # held unmarked: its marks are needed only if it is split, or to find a magic comma
        if not line.should_split_rhs and line.fits(text=text) and not line.may_have_magic_comma():
            line.laid = text
            return [line]
        line.settle()
    if not line.should_split_rhs and not line.magic_trailing_comma and line.fits(text=text):
        line.laid = text
        return [line]
    transforms = (delimiter_split, right_hand_split_with_omits) if line.inside_brackets else (right_hand_split_with_omits,)
    for transform in transforms:
        try:
            return _run(line, transform, force, text)
        except CannotSplit:
            continue
    return [line]


def _run(line: Line, transform: Callable, force: bool, text: str) -> list[Line]:
    optional_parens = [b for b in line.invisible if b.depth == 0]
    result: list[Line] = []
    for split_line in transform(line, force):
        split_text = split_line.text()
        if split_text == text:
            raise CannotSplit("the split returned the line unchanged")
        result.extend(transform_line(split_line, force, split_text))
    if (
        force
        or transform is not right_hand_split_with_omits
        or not line.invisible
        or any(b.value for b in optional_parens)
        or result[0].fits()
        or any(not leaf.attached for leaf in line.leaves)
    ):
        return result
    # Black's second opinion: the same split with optional parentheses kept, taken when every line fits.
    copy = line.clone()
    for leaf in line.leaves:
        twin = leaf.copy()
        leaf.attached = False  # the copy takes its place in black's tree
        copy.append(twin)
        for comment in line.comments_after(leaf):
            copy.append(comment, preformatted=True)
    second = _run(copy, transform, True, text)
    return second if all(part.fits() for part in second) else result


def delimiter_split(line: Line, force: bool) -> Iterator[Line]:
    """Split at every delimiter of the highest priority; a comma split gets a trailing comma."""
    if not line.leaves:
        raise CannotSplit("empty line")
    last = line.leaves[-1]
    try:
        priority = line.max_priority(exclude=last)
    except ValueError:
        raise CannotSplit("no delimiters") from None
    if priority == DOT_PRIORITY and line.count_priority(DOT_PRIORITY) == 1:
        raise CannotSplit("splitting a single attribute from its owner looks wrong")
    if line.comments:
        yield from _delimiter_split_with_comments(line, priority, last)
        return
    leaves = line.leaves
    start = 0
    for index in _delimiter_indexes(line, priority):
        current = Line(line.depth, line.inside_brackets)
        current.defer(leaves[start:index + 1])  # marked if transform_line splits it
        current.leaves[0].prefix = ""
        start = index + 1
        yield current
    if start < len(leaves):
        current = Line(line.depth, line.inside_brackets)
        piece = leaves[start:]
        if priority == COMMA_PRIORITY and piece[-1].kind != COMMA:
            comma = added_comma()
            comma.index = last.index  # it follows the last leaf: black's second pass reads it there
            piece.append(comma)  # as `append` would: its space is empty, so is its prefix
        current.defer(piece)
        current.leaves[0].prefix = ""
        yield current


def _delimiter_indexes(line: Line, priority: int) -> list[int]:
    """Positions of the leaves after which `line` splits at `priority`. The delimiters were noted in the
    line's order (each leaf once, when it or the leaf after it was marked), so each is found after the last."""
    leaves = line.leaves
    found: list[int] = []
    at = 0
    try:
        for leaf, noted in line.delimiters.items():
            if noted == priority:
                at = leaves.index(leaf, at)  # identity: a Leaf equals only itself
                found.append(at)
    except ValueError:  # not in the line's order after all: look at every leaf
        delimiters = line.delimiters
        return [index for index, leaf in enumerate(leaves) if delimiters.get(leaf) == priority]
    return found


def _delimiter_split_with_comments(line: Line, priority: int, last: Leaf) -> Iterator[Line]:
    """delimiter_split of a line with trailing comments: each goes with its leaf, or migrates past a delimiter."""
    current = Line(line.depth, line.inside_brackets)
    delimiters = line.delimiters
    for index, leaf in enumerate(line.leaves):
        current.append(leaf, preformatted=True)
        if index == 0 or delimiters.get(line.leaves[index - 1]) != priority or priority in MIGRATE_COMMENT_DELIMITERS:
            for comment in line.comments_after(leaf):
                current.append(comment, preformatted=True)
        if delimiters.get(leaf) == priority:
            if index + 1 < len(line.leaves) and priority not in MIGRATE_COMMENT_DELIMITERS:
                for comment in line.comments_after(line.leaves[index + 1]):
                    current.append(comment, preformatted=True)
            current.leaves[0].prefix = ""
            yield current
            current = Line(line.depth, line.inside_brackets)
    if current:
        if priority == COMMA_PRIORITY and current.leaves[-1].kind != COMMA:
            comma = added_comma()
            comma.index = last.index  # it follows the last leaf: black's second pass reads it there
            current.append(comma)
        current.leaves[0].prefix = ""
        yield current
