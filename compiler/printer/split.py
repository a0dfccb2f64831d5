"""Black's line splitting, for the statements pipec writes: a line that does not fit (or holds a magic trailing
comma) is split at its last bracket pair (right-hand split, trying to keep trailers together and to leave out
optional parentheses), and a bracket's contents at its delimiters of highest priority (one item per line,
with a trailing comma added). This follows black's `linegen.transform_line` decision for decision, including
its side effects on leaves, which its later decisions read; every branch here has a twin there."""

from __future__ import annotations

from typing import Callable, Iterator

from .leaf import (
    BRACKETS, CLOSING, COMMA, COMMA_PRIORITY, DOT, DOT_PRIORITY, EQUAL, LINE_LENGTH, LPAR, NAME, OPENING,
    RBRACE, RPAR, RSQB, STRING, STRING_PRIORITY, Leaf, added_comma,
)
from .line import Line, inside_matching_brackets, one_sequence_between

MIGRATE_COMMENT_DELIMITERS = (STRING_PRIORITY, COMMA_PRIORITY)


class CannotSplit(Exception):
    """This way of splitting does not apply to the line."""


def transform_line(line: Line, force: bool = False) -> list[Line]:
    """The line, or the lines it splits into, each laid out in turn. `force` is black's
    FORCE_OPTIONAL_PARENTHESES feature (its "second opinion")."""
    text = line.text()
    if not line.should_split_rhs and not line.magic_trailing_comma and line.fits(text=text):
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
        if split_line.text() == text:
            raise CannotSplit("the split returned the line unchanged")
        result.extend(transform_line(split_line, force))
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
    current = Line(line.depth, line.inside_brackets)
    delimiters = line.delimiters
    comments = line.comments
    for index, leaf in enumerate(line.leaves):
        current.append(leaf, preformatted=True)
        if comments and (index == 0 or delimiters.get(line.leaves[index - 1]) != priority or priority in MIGRATE_COMMENT_DELIMITERS):
            for comment in line.comments_after(leaf):
                current.append(comment, preformatted=True)
        if delimiters.get(leaf) == priority:
            if comments and index + 1 < len(line.leaves) and priority not in MIGRATE_COMMENT_DELIMITERS:
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


def right_hand_split_with_omits(line: Line, force: bool) -> Iterator[Line]:
    """Right-hand split, first trying to keep trailing trailers (calls, attributes) on the last line."""
    prefix_lengths: dict[Leaf, int] = {}
    length = 4 * line.depth
    for leaf in line.leaves:
        prefix_lengths[leaf] = length
        length += len(leaf.prefix) + len(leaf.value)
    first_lines = None
    for omit in _trailers_to_omit(line):
        if omit:
            target = next((leaf.opening for leaf in reversed(line.leaves) if leaf.kind in CLOSING and leaf not in omit), None)
            if target is not None and target.value and prefix_lengths.get(target, 0) > LINE_LENGTH:
                continue
        lines = list(_right_hand_split(line, force, omit))
        if first_lines is None and not omit:
            first_lines = lines
        if lines[0].fits():
            yield from lines
            return
    yield from first_lines if first_lines is not None else _right_hand_split(line, force, ())


def _trailers_to_omit(line: Line) -> Iterator[set[Leaf]]:
    """Growing sets of closing brackets to leave out of the split, from the right (black's
    generate_trailers_to_omit); a magic trailing comma skips the empty set."""
    omit: set[Leaf] = set()
    if not line.magic_trailing_comma:
        yield omit
    length = 4 * line.depth
    opening = closing = None
    inner: set[Leaf] = set()
    for index, leaf, leaf_length in line.lengths(reverse=True):
        length += leaf_length
        if length > LINE_LENGTH:
            break
        if leaf_length > len(leaf.value) + len(leaf.prefix):
            break  # a trailing comment
        previous = line.leaves[index - 1] if index > 0 else None
        if opening:
            if leaf is opening:
                opening = None
            elif leaf.kind in CLOSING:
                if previous and _magic_comma_before(previous, leaf, line):
                    break
                inner.add(leaf)
        elif leaf.kind in CLOSING:
            if previous and previous.kind in OPENING:
                inner.add(leaf)
                continue
            if closing:
                omit.add(closing)
                omit.update(inner)
                inner.clear()
                yield omit
            if previous and _magic_comma_before(previous, leaf, line):
                break
            if leaf.value:
                opening, closing = leaf.opening, leaf


def _magic_comma_before(previous: Leaf, closing: Leaf, line: Line) -> bool:
    return (
        previous.kind == COMMA
        and closing.opening is not None
        and not one_sequence_between(closing.opening, closing, line.leaves)
    )


class _Split:
    __slots__ = ("head", "body", "tail", "opening", "closing")

    def __init__(self, head: Line, body: Line, tail: Line, opening: Leaf, closing: Leaf):
        self.head, self.body, self.tail, self.opening, self.closing = head, body, tail, opening, closing


def _right_hand_split(line: Line, force: bool, omit) -> Iterator[Line]:
    yield from _maybe_omit_optional_parens(_first_right_hand_split(line, omit), line, force, omit)


def _first_right_hand_split(line: Line, omit) -> _Split:
    """Head up to the last bracket pair not omitted, its body, and the tail from its closing bracket."""
    tail: list[Leaf] = []
    body: list[Leaf] = []
    head: list[Leaf] = []
    current = tail
    opening = closing = None
    for leaf in reversed(line.leaves):
        if current is body and leaf is opening:
            current = head if body else tail
        current.append(leaf)
        if current is tail and leaf.kind in CLOSING and leaf not in omit:
            opening, closing = leaf.opening, leaf
            current = body
    if not (opening and closing and head):
        raise CannotSplit("no brackets found")
    tail.reverse()
    body.reverse()
    head.reverse()
    head_line = _build(head, line, opening, "head")
    body_line = _build(body, line, opening, "body")
    tail_line = _build(tail, line, opening, "tail")
    if not body_line:
        tail_length = len(tail_line.text().strip()) if tail_line else 0
        if tail_length < 3:
            raise CannotSplit("splitting brackets on an empty body is not worth it")
    return _Split(head_line, body_line, tail_line, opening, closing)


def _build(leaves: list[Leaf], original: Line, opening: Leaf, component: str) -> Line:
    """Black's bracket_split_build_line: the body is indented and inside brackets; the head tracks only its
    complete bracket pairs (so a magic trailing comma there counts)."""
    result = Line(original.depth)
    if component == "body":
        result.inside_brackets = True
        result.depth += 1
    if component == "head":
        tracked = inside_matching_brackets(leaves)
        for leaf in leaves:
            result.append(leaf, preformatted=True, track_bracket=leaf in tracked)
            for comment in original.comments_after(leaf):
                result.append(comment, preformatted=True)
    elif not original.comments:
        result.extend(leaves)
    else:
        for leaf in leaves:
            result.append(leaf, preformatted=True)
            for comment in original.comments_after(leaf):
                result.append(comment, preformatted=True)
    if component == "body" and _should_split(result, opening):
        result.should_split_rhs = True
    return result


def _should_split(line: Line, opening: Leaf) -> bool:
    """A collection (or a call with a magic trailing comma) split by its brackets explodes one item per line."""
    if not (opening.attached and opening.value in "[{("):
        return False
    trailing_comma = False
    exclude = None
    if line.leaves and line.leaves[-1].kind == COMMA:
        trailing_comma = True
        exclude = line.leaves[-1]
    try:
        priority = line.max_priority(exclude=exclude)
    except ValueError:
        return False
    return priority == COMMA_PRIORITY and (trailing_comma or opening.atom)


def _maybe_omit_optional_parens(split: _Split, line: Line, force: bool, omit) -> Iterator[Line]:
    if (
        not force
        and split.opening.kind == LPAR
        and not split.opening.value
        and split.closing.kind == RPAR
        and not split.closing.value
        and _can_omit_invisible_parens(split)
    ):
        omit = {split.closing, *omit}
        try:
            without = _first_right_hand_split(line, omit)
            if _prefer_split_without_parens(without, split):
                yield from _maybe_omit_optional_parens(without, line, force, omit)
                return
        except CannotSplit as error:
            if line.is_chained_assignment:
                pass
            elif not _can_be_split(split.body) and not split.body.fits():
                raise CannotSplit("the body is still too long and cannot be split") from error
    for bracket in (split.opening, split.closing):
        if bracket.kind == LPAR:
            bracket.value = "("
        elif bracket.kind == RPAR:
            bracket.value = ")"
    for part in (split.head, split.body, split.tail):
        if part:
            yield part


def _prefer_split_without_parens(without: _Split, split: _Split) -> bool:
    head = split.head.leaves
    if not (len(head) >= 2 and head[-2].kind == EQUAL):
        return True
    if not any(leaf.kind in BRACKETS for leaf in head[:-1]):
        return True
    if not split.head.fits(LINE_LENGTH - 1):
        return True
    if split.head.magic_trailing_comma is not None:
        return True
    equals = sum(1 for leaf in head if leaf.kind == EQUAL)
    if equals > 1 and equals > sum(1 for leaf in without.head.leaves if leaf.kind == EQUAL):
        return False
    closing_after_equal = False
    for leaf in reversed(without.head.leaves):
        if leaf.kind == EQUAL:
            break
        if leaf.kind in CLOSING:
            closing_after_equal = True
            break
    return closing_after_equal or (
        any(leaf.kind == EQUAL for leaf in without.head.leaves) and without.head.fits()
    )


def _can_omit_invisible_parens(split: _Split) -> bool:
    line = split.body
    if split.head.comments.get(split.opening):
        return False
    if not line.delimiters:
        return True
    priority = line.max_priority()
    if line.count_priority(priority) > 1:
        return False
    if priority == DOT_PRIORITY:
        return True
    first, second = line.leaves[0], line.leaves[1]
    if first.kind in OPENING and second.kind not in CLOSING and _can_omit_opening_paren(line, first):
        return True
    penultimate, last = line.leaves[-2], line.leaves[-1]
    if last.kind in (RPAR, RBRACE) or (last.kind == RSQB and last.attached and last.atom):
        if penultimate.kind in OPENING:
            return False
        if _can_omit_closing_paren(line, last):
            return True
    return False


def _can_omit_opening_paren(line: Line, first: Leaf) -> bool:
    remainder = False
    length = 4 * line.depth
    index = -1
    for index, leaf, leaf_length in line.lengths():
        if leaf.kind in CLOSING and leaf.opening is first:
            remainder = True
        if remainder:
            length += leaf_length
            if length > LINE_LENGTH:
                return False
            if leaf.kind in OPENING:
                remainder = False
    return len(line.leaves) == index + 1


def _can_omit_closing_paren(line: Line, last: Leaf) -> bool:
    length = 4 * line.depth
    seen_other_brackets = False
    for _, leaf, leaf_length in line.lengths():
        length += leaf_length
        if leaf is last.opening:
            if seen_other_brackets or length <= LINE_LENGTH:
                return True
        elif leaf.kind in OPENING:
            seen_other_brackets = True
    return False


def _can_be_split(line: Line) -> bool:
    """False when the line certainly cannot be split (black's can_be_split, a cheap heuristic)."""
    leaves = line.leaves
    if len(leaves) < 2:
        return False
    if leaves[0].kind == STRING and leaves[1].kind == DOT:
        calls = dots = 0
        after = leaves[-1]  # black compares every leaf with the last one, not its neighbour
        for leaf in leaves[-2::-1]:
            if leaf.kind in OPENING:
                if after.kind not in CLOSING:
                    return False
                calls += 1
            elif leaf.kind == DOT:
                dots += 1
            elif leaf.kind == NAME:
                if not (after.kind == DOT or after.kind in OPENING):
                    return False
            elif leaf.kind not in CLOSING:
                return False
            if dots > 1 and calls > 1:
                return False
    return True
