"""A logical line being laid out: its leaves, trailing comments, and the bracket bookkeeping black keeps
while it appends leaves (depth, matching brackets, delimiters at depth 0, invisible parentheses, lambdas)."""

from __future__ import annotations

from .leaf import (
    CLOSING, COLON, COMMA, COMMA_PRIORITY, COMMENT, DOT, EQUAL, LBRACE, LINE_LENGTH, LPAR, MATCHING, NAME,
    OPENING, RBRACE, RPAR, Leaf, split_before_priority,
)


class Line:
    __slots__ = (
        "depth", "leaves", "comments", "inside_brackets", "should_split_rhs", "magic_trailing_comma",
        "bracket_depth", "open_brackets", "delimiters", "previous", "lambda_depths", "invisible", "pending",
        "laid",
    )

    def __init__(self, depth: int = 0, inside_brackets: bool = False):
        self.depth = depth
        self.leaves: list[Leaf] = []
        self.comments: dict[Leaf, list[Leaf]] = {}
        self.inside_brackets = inside_brackets
        self.should_split_rhs = False
        self.magic_trailing_comma: Leaf | None = None
        self.bracket_depth = 0
        self.open_brackets: list[Leaf] = []  # black keys them by depth and kind; in valid code a stack is the same
        self.delimiters: dict[Leaf, int] = {}
        self.previous: Leaf | None = None
        self.lambda_depths: list[int] = []
        self.invisible: list[Leaf] = []
        self.pending = False  # leaves held but not marked yet (see `defer`)
        self.laid = ""  # the text, once the line is laid out as it is (nothing changes its leaves after that)

    def defer(self, leaves: list[Leaf]) -> None:
        """Hold `leaves` (none a comment) as `mark` would append them, marking them only when `settle` is
        called: a line that is laid out as it is (it fits and has no magic trailing comma) never needs its
        marks, and nothing reads a leaf's marks before its line is laid out (split.transform_line)."""
        self.leaves = leaves
        self.pending = True

    def settle(self) -> None:
        """Mark the leaves `defer` held, as if they had been appended then."""
        if self.pending:
            self.pending = False
            leaves, self.leaves = self.leaves, []
            self.mark(leaves)

    def may_have_magic_comma(self) -> bool:
        """Whether a closing bracket follows a comma (else marking can find no magic trailing comma)."""
        after_comma = False
        for leaf in self.leaves:
            if after_comma and leaf.kind in CLOSING:
                return True
            after_comma = leaf.kind == COMMA
        return False

    def append(self, leaf: Leaf, preformatted: bool = False, track_bracket: bool = False) -> None:
        """Black's Line.append (a pipec leaf is never blank, so none is skipped)."""
        if self.leaves and not preformatted:
            leaf.prefix += leaf.space
        if leaf.kind == COMMENT:
            self._append_comment(leaf)  # black's bracket tracker skips comments
        elif self.inside_brackets or not preformatted or track_bracket:
            self.mark((leaf,))
        else:
            self.leaves.append(leaf)

    def extend(self, leaves: list[Leaf]) -> None:
        """`append(leaf, preformatted=True)` for each leaf, none a comment."""
        if self.inside_brackets:
            self.mark(leaves)
        else:
            self.leaves.extend(leaves)

    def mark(self, leaves) -> None:
        """Append `leaves` (none a comment), each marked as black's BracketTracker.mark does (depth, bracket
        pairs, the delimiters at depth 0) and a closing bracket after a comma noted as Line.append does (a
        magic trailing comma). One loop over local state: it runs for every leaf of every line a split builds."""
        depth = self.bracket_depth
        open_brackets = self.open_brackets
        delimiters = self.delimiters
        previous = self.previous
        lambda_depths = self.lambda_depths
        line = self.leaves
        before = line[-1] if line else None  # the leaf before the one being marked
        line.extend(leaves)  # the magic comma test below reads the line only up to the closing bracket
        for leaf in leaves:
            if leaf.plain:
                leaf.depth = depth
                previous = before = leaf
                continue
            kind = leaf.kind
            if kind in CLOSING:
                if open_brackets:  # else the closing bracket of a pair opened on an earlier line
                    depth -= 1
                    leaf.opening = open_brackets.pop()
                    if not leaf.value:
                        self.invisible.append(leaf)
                    leaf.depth = depth
                    previous = leaf
                if before is not None and before.kind == COMMA and self._magic_comma(leaf):
                    self.magic_trailing_comma = leaf
                before = leaf
                continue
            if kind == COLON and lambda_depths and lambda_depths[-1] == depth:
                depth -= 1
                lambda_depths.pop()
            leaf.depth = depth
            if depth == 0:
                priority = split_before_priority(leaf, previous) if (kind == DOT or leaf.priority) else 0
                if priority and previous is not None:
                    delimiters[previous] = priority
                elif kind == COMMA:
                    delimiters[leaf] = COMMA_PRIORITY
            if kind in OPENING:
                open_brackets.append(leaf)
                depth += 1
                if not leaf.value:
                    self.invisible.append(leaf)
            elif kind == NAME and leaf.value == "lambda":
                depth += 1
                lambda_depths.append(depth)
            previous = before = leaf
        self.previous = previous
        self.bracket_depth = depth

    def _magic_comma(self, closing: Leaf) -> bool:
        """Whether the comma before `closing` is a magic trailing comma (not a one-tuple's)."""
        if closing.kind != RPAR:
            return True
        return closing.opening is not None and not one_sequence_between(closing.opening, closing, self.leaves)

    def _append_comment(self, comment: Leaf) -> None:
        if not self.leaves:
            raise ValueError("a comment on a line of its own inside a statement")
        last = self.leaves[-1]
        if last.kind == RPAR and not last.value and last.attached and last.wraps_one and len(self.leaves) >= 2:
            last = self.leaves[-2]  # a comment after optional parentheses around one leaf belongs to that leaf
        self.comments.setdefault(last, []).append(comment)

    def comments_after(self, leaf: Leaf) -> list[Leaf]:
        return self.comments.get(leaf, [])

    def max_priority(self, exclude: Leaf | None = None) -> int:
        """The highest delimiter priority (ValueError when there is none)."""
        return max(v for k, v in self.delimiters.items() if k is not exclude)

    def count_priority(self, priority: int) -> int:
        return sum(1 for v in self.delimiters.values() if v == priority)

    @property
    def is_chained_assignment(self) -> bool:
        """Black's test, which also counts keyword arguments' `=`."""
        return sum(1 for leaf in self.leaves if leaf.kind == EQUAL) > 1

    def clone(self) -> Line:
        line = Line(self.depth, self.inside_brackets)
        line.should_split_rhs = self.should_split_rhs
        line.magic_trailing_comma = self.magic_trailing_comma
        return line

    def lengths(self, reverse: bool = False):
        """(index, leaf, printed length with its trailing comments)."""
        order = range(len(self.leaves) - 1, -1, -1) if reverse else range(len(self.leaves))
        comments = self.comments
        for index in order:
            leaf = self.leaves[index]
            length = len(leaf.prefix) + len(leaf.value)
            if comments and leaf in comments:
                length += sum(len(c.value) for c in comments[leaf])
            yield index, leaf, length

    def text(self) -> str:
        """The line as printed, without its newline."""
        if not self.leaves:
            return "".join(c.prefix + c.value for cs in self.comments.values() for c in cs)
        first = self.leaves[0]
        parts = [first.prefix, "    " * self.depth, first.value]
        parts += [leaf.prefix + leaf.value for leaf in self.leaves[1:]]
        if self.comments:
            parts += [c.prefix + c.value for cs in self.comments.values() for c in cs]
        return "".join(parts)

    def fits(self, line_length: int = LINE_LENGTH, text: str = "") -> bool:
        """Black's is_line_short_enough for lines without multiline strings or standalone comments."""
        return len(text or self.laid or self.text()) <= line_length

    def __bool__(self) -> bool:
        return bool(self.leaves or self.comments)


def one_sequence_between(opening: Leaf, closing: Leaf, leaves: list[Leaf]) -> bool:
    """True when the parentheses hold at most one item followed by a comma (a one-tuple), as black tells a
    required comma from a magic one."""
    if (opening.kind, closing.kind) != (LPAR, RPAR):
        return False
    depth = closing.depth + 1
    try:
        start = leaves.index(opening)  # identity: a Leaf equals only itself
    except ValueError:
        return False
    commas = 0
    for leaf in leaves[start + 1:]:
        if leaf is closing:
            break
        if leaf.depth == depth and leaf.kind == COMMA:
            commas += 1
            if leaf.attached and leaf.arglist:
                commas += 1
                break
    return commas < 2


def inside_matching_brackets(leaves: list[Leaf]) -> set[Leaf]:
    """Leaves within complete bracket pairs (pairs included), from the first opening bracket on; a closing
    bracket that matches nothing open ends the scan (black's get_leaves_inside_matching_brackets)."""
    found: set[Leaf] = set()
    stack: list[tuple[int, list[Leaf]]] = []
    started = False
    for leaf in leaves:
        if leaf.kind in OPENING:
            started = True
            stack.append((MATCHING[leaf.kind], [leaf]))
        elif not started:
            continue
        elif leaf.kind in CLOSING:
            if stack and leaf.kind == stack[-1][0]:
                _, level = stack.pop()
                level.append(leaf)
                found.update(level)
            else:
                break
        elif stack:
            stack[-1][1].append(leaf)
    return found


__all__ = ["Line", "inside_matching_brackets", "one_sequence_between", "LBRACE", "RBRACE"]
