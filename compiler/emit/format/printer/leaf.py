"""Tokens of one statement as black's line splitter sees them: kinds, delimiter priorities, and the Leaf.

A Leaf carries what black reads from its syntax tree while splitting (whether a bracket belongs to an atom
or a trailer, whether an operator is binary, whether a comma separates call arguments) as plain fields, so
the splitter needs no tree. Leaves are mutable, as black's are: splitting sets their bracket depth, clears
the first prefix of a split-off line and makes optional parentheses visible, and later decisions read that.
"""

from __future__ import annotations

# Token kinds.
NAME, NUMBER, STRING, COMMENT = 1, 2, 3, 4
LPAR, RPAR, LSQB, RSQB, LBRACE, RBRACE = 10, 11, 12, 13, 14, 15
COMMA, DOT, EQUAL, COLON, STAR, DOUBLESTAR, OPERATOR = 20, 21, 22, 23, 24, 25, 26

OPENING = frozenset({LPAR, LSQB, LBRACE})
CLOSING = frozenset({RPAR, RSQB, RBRACE})
BRACKETS = OPENING | CLOSING
MATCHING = {LPAR: RPAR, LSQB: RSQB, LBRACE: RBRACE}

# Delimiter priorities (higher splits first), as black ranks them.
COMMA_PRIORITY = 18
TERNARY_PRIORITY = 16
LOGIC_PRIORITY = 14
STRING_PRIORITY = 12
COMPARATOR_PRIORITY = 10
DOT_PRIORITY = 1
MATH_PRIORITIES = {
    "|": 9, "^": 8, "&": 7, "<<": 6, ">>": 6, "+": 5, "-": 5, "*": 4, "/": 4, "//": 4, "%": 4, "@": 4,
}
COMPARATORS = frozenset({"<", ">", "==", "!=", "<=", ">="})

LINE_LENGTH = 100
_MARKED_KINDS = BRACKETS | {COMMA, DOT, COLON, COMMENT}  # kinds Line.mark does more for than note the depth


class Leaf:
    """One token. `space` is the whitespace black puts before it on a joined line; `prefix` is what is printed
    (black empties it on the first leaf of a split-off line). `priority` is its split-before priority when its
    syntax fixes one (operators); a dot's depends on the leaf before it and is decided when the line is built.
    `attached` is False for a leaf black would hold outside its syntax tree (a comma it added, or a leaf
    replaced by a copy), which changes some of its decisions."""

    __slots__ = (
        "kind", "value", "prefix", "space", "depth", "opening", "priority", "atom", "arglist",
        "wraps_one", "attached", "added", "redundant", "index", "plain",
    )

    def __init__(self, kind: int, value: str, space: str = "", priority: int = 0):
        self.kind = kind
        self.value = value
        self.space = space
        self.prefix = ""
        self.depth = 0
        self.opening: Leaf | None = None
        self.priority = priority
        # nothing for a line's bracket bookkeeping but its depth: no bracket, delimiter, colon or lambda
        self.plain = kind not in _MARKED_KINDS and not priority and value != "lambda"
        self.atom = False  # a bracket of an atom (a display, parentheses), not of a call
        self.arglist = False  # a comma between call arguments
        self.wraps_one = False  # an invisible closing parenthesis around a single leaf
        self.attached = True
        self.added = False  # a trailing comma black added
        self.redundant = False  # parentheses black made invisible and drops when it reads its own output
        self.index = -1  # position in the statement, for the added trailing commas of black's second pass

    def copy(self) -> Leaf:
        """A fresh leaf in this one's place (black's `append_leaves` copy), with no prefix yet."""
        leaf = Leaf(self.kind, self.value, self.space, self.priority)
        leaf.atom, leaf.arglist, leaf.wraps_one, leaf.index = self.atom, self.arglist, self.wraps_one, self.index
        leaf.redundant = self.redundant
        return leaf

    def __repr__(self) -> str:
        return f"Leaf({self.kind}, {self.value!r})"


def added_comma() -> Leaf:
    """A trailing comma black adds when it splits a collection one item per line (it has no place in the tree)."""
    leaf = Leaf(COMMA, ",")
    leaf.attached = False
    leaf.added = True
    return leaf


def split_before_priority(leaf: Leaf, previous: Leaf | None) -> int:
    """Priority of a split between `previous` and `leaf` (black's `is_split_before_delimiter`)."""
    if leaf.kind == DOT:
        if leaf.attached and (previous is None or previous.kind in CLOSING):
            return DOT_PRIORITY
        return 0
    if not leaf.attached:  # black reads the parent of most operators to rank them; a detached leaf has none
        return COMPARATOR_PRIORITY if leaf.value in COMPARATORS or leaf.value == "is" else 0
    return leaf.priority
