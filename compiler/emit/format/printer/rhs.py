"""Black's right-hand split (`linegen.right_hand_split` and what it calls): a line split at its last bracket
pair into a head, the body between the brackets and a tail, trying first to keep trailing trailers (calls,
attributes) on the last line and to leave out optional parentheses. Decision for decision black's, side
effects on leaves included."""

from __future__ import annotations

from typing import Iterator

from .leaf import (
    BRACKETS, CLOSING, COMMA, COMMA_PRIORITY, DOT_PRIORITY, EQUAL, LINE_LENGTH, LPAR, NAME, OPENING, RBRACE,
    RPAR, RSQB, STRING, Leaf,
)
from .line import Line, inside_matching_brackets, one_sequence_between


class CannotSplit(Exception):
    """This way of splitting does not apply to the line."""


def right_hand_split_with_omits(line: Line, force: bool) -> Iterator[Line]:
    """Right-hand split, first trying to keep trailing trailers (calls, attributes) on the last line."""
    prefix_lengths: dict[Leaf, int] | None = None
    first_lines = None
    for omit in _trailers_to_omit(line):
        if omit:
            target = next((leaf.opening for leaf in reversed(line.leaves) if leaf.kind in CLOSING and leaf not in omit), None)
            if target is not None and target.value:
                if prefix_lengths is None:
                    prefix_lengths = _prefix_lengths(line)
                if prefix_lengths.get(target, 0) > LINE_LENGTH:
                    continue
        lines = list(_right_hand_split(line, force, omit))
        if first_lines is None and not omit:
            first_lines = lines
        if lines[0].fits():
            yield from lines
            return
    yield from first_lines if first_lines is not None else _right_hand_split(line, force, ())


def _prefix_lengths(line: Line) -> dict[Leaf, int]:
    """Each leaf -> the length of the line before it (with the indentation)."""
    lengths: dict[Leaf, int] = {}
    length = 4 * line.depth
    for leaf in line.leaves:
        lengths[leaf] = length
        length += len(leaf.prefix) + len(leaf.value)
    return lengths


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
    """Head up to the last bracket pair not omitted, its body, and the tail from its closing bracket. A pair
    with nothing between its brackets is part of the tail, and the pair before it is taken."""
    leaves = line.leaves
    end = len(leaves)  # leaves[end:] are in the tail for sure
    while True:
        at = end - 1
        while at >= 0 and not (leaves[at].kind in CLOSING and leaves[at] not in omit):
            at -= 1
        if at < 0:
            raise CannotSplit("no brackets found")
        closing = leaves[at]
        opening = closing.opening
        try:
            start = leaves.index(opening, 0, at)  # identity: a Leaf equals only itself
        except ValueError:
            raise CannotSplit("no brackets found") from None  # the body would run to the line's start
        if start < at - 1:
            break
        end = start  # an empty pair: both brackets stay in the tail
    head, body, tail = leaves[:start + 1], leaves[start + 1:at], leaves[at:]
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
    if original.comments:
        tracked = inside_matching_brackets(leaves) if component == "head" else ()
        for leaf in leaves:
            result.append(leaf, preformatted=True, track_bracket=leaf in tracked)
            for comment in original.comments_after(leaf):
                result.append(comment, preformatted=True)
    elif component == "head":
        tracked = inside_matching_brackets(leaves)
        run: list[Leaf] = []  # tracked leaves in a row, marked together
        for leaf in leaves:
            if leaf in tracked:
                run.append(leaf)
                continue
            if run:
                result.mark(run)
                run = []
            result.leaves.append(leaf)
        if run:
            result.mark(run)
    else:
        result.extend(leaves)
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
