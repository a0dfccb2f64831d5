"""A small syntax tree of the Python pipec writes (expressions and simple statements), with two renderings:
`source` (the plain one-line text, as written) and `leaves` (the tokens black lays out, with its whitespace,
normalised strings and numbers, and the optional parentheses it puts around a statement's value)."""

from __future__ import annotations

from . import literals
from .leaf import (
    COMMA, COMMENT, COMPARATOR_PRIORITY, COMPARATORS, COLON, DOT, DOUBLESTAR, EQUAL, LBRACE, LOGIC_PRIORITY,
    LPAR, LSQB, MATH_PRIORITIES, NAME, NUMBER, OPERATOR, RBRACE, RPAR, RSQB, STAR, STRING, Leaf,
)


class Node:
    __slots__ = ()


class Name(Node):
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


class Number(Node):
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


class String(Node):
    """A string or bytes literal as written (any prefix and quotes; black normalises them in `leaves`)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


class Attr(Node):
    __slots__ = ("value", "name")

    def __init__(self, value: Node, name: str):
        self.value, self.name = value, name


class Subscript(Node):
    """`value[index]`: one index, no slice."""

    __slots__ = ("value", "index")

    def __init__(self, value: Node, index: Node):
        self.value, self.index = value, index


class Call(Node):
    """`func(args)`; an argument is an expression, a Keyword, a Star or a DoubleStar."""

    __slots__ = ("func", "args", "trailing_comma")

    def __init__(self, func: Node, args: list[Node], trailing_comma: bool = False):
        self.func, self.args, self.trailing_comma = func, args, trailing_comma


class Keyword(Node):
    __slots__ = ("name", "value")

    def __init__(self, name: str, value: Node):
        self.name, self.value = name, value


class Star(Node):
    __slots__ = ("value",)

    def __init__(self, value: Node):
        self.value = value


class DoubleStar(Node):
    __slots__ = ("value",)

    def __init__(self, value: Node):
        self.value = value


class Paren(Node):
    """An expression in parentheses, as written."""

    __slots__ = ("value",)

    def __init__(self, value: Node):
        self.value = value


class List(Node):
    __slots__ = ("items", "trailing_comma")

    def __init__(self, items: list[Node], trailing_comma: bool = False):
        self.items, self.trailing_comma = items, trailing_comma


class Dict(Node):
    """`{key: value, **other}`: items are (key, value) pairs or DoubleStar."""

    __slots__ = ("items", "trailing_comma")

    def __init__(self, items: list, trailing_comma: bool = False):
        self.items, self.trailing_comma = items, trailing_comma


class BinOp(Node):
    """`left op right` for a binary, comparison or boolean operator (`not in`, `is not` included)."""

    __slots__ = ("op", "left", "right")

    def __init__(self, op: str, left: Node, right: Node):
        self.op, self.left, self.right = op, left, right


class Unary(Node):
    __slots__ = ("op", "operand")

    def __init__(self, op: str, operand: Node):
        self.op, self.operand = op, operand


class Lambda(Node):
    __slots__ = ("params", "body")

    def __init__(self, params: list[str], body: Node):
        self.params, self.body = params, body


class Statement:
    """`target = value`, `return value` or a bare expression, with an optional trailing comment."""

    __slots__ = ("keyword", "target", "value", "comment")

    def __init__(self, value: Node, target: Node | None = None, keyword: str = "", comment: str = ""):
        self.keyword, self.target, self.value, self.comment = keyword, target, value, comment


def assign(target: Node, value: Node) -> Statement:
    return Statement(value, target=target)


# ---- source: the plain text


def source(node) -> str:
    if isinstance(node, Statement):
        head = f"{source(node.target)} = " if node.target is not None else f"{node.keyword} " if node.keyword else ""
        return head + source(node.value) + (f"  {node.comment}" if node.comment else "")
    return _SOURCE[type(node)](node)


def _items(items, trailing_comma: bool) -> str:
    return ", ".join(items) + ("," if trailing_comma else "")


def _dict_item(item) -> str:
    return source(item) if isinstance(item, DoubleStar) else f"{source(item[0])}: {source(item[1])}"


_SOURCE = {
    Name: lambda n: n.text,
    Number: lambda n: n.text,
    String: lambda n: n.text,
    Attr: lambda n: f"{source(n.value)}.{n.name}",
    Subscript: lambda n: f"{source(n.value)}[{source(n.index)}]",
    Call: lambda n: f"{source(n.func)}({_items([source(a) for a in n.args], n.trailing_comma)})",
    Keyword: lambda n: f"{n.name}={source(n.value)}",
    Star: lambda n: f"*{source(n.value)}",
    DoubleStar: lambda n: f"**{source(n.value)}",
    Paren: lambda n: f"({source(n.value)})",
    List: lambda n: f"[{_items([source(i) for i in n.items], n.trailing_comma)}]",
    Dict: lambda n: "{" + _items([_dict_item(i) for i in n.items], n.trailing_comma) + "}",
    BinOp: lambda n: f"{source(n.left)} {n.op} {source(n.right)}",
    Unary: lambda n: f"{n.op} {source(n.operand)}" if n.op == "not" else f"{n.op}{source(n.operand)}",
    Lambda: lambda n: f"lambda {', '.join(n.params)}: {source(n.body)}" if n.params else f"lambda: {source(n.body)}",
}


# ---- leaves: black's tokens


def _op_priority(op: str) -> int:
    if op in COMPARATORS or op in ("in", "is"):
        return COMPARATOR_PRIORITY
    if op in ("and", "or"):
        return LOGIC_PRIORITY
    return MATH_PRIORITIES[op]


def _word(out: list[Leaf], kind: int, value: str, space: str, priority: int = 0) -> Leaf:
    leaf = Leaf(kind, value, space, priority)
    out.append(leaf)
    return leaf


def _bracket(out: list[Leaf], kind: int, value: str, space: str, atom: bool) -> Leaf:
    leaf = _word(out, kind, value, space)
    leaf.atom = atom
    return leaf


def _sequence(out: list[Leaf], items, emit_item, trailing_comma: bool, arglist: bool) -> None:
    for i, item in enumerate(items):
        if i:
            _word(out, COMMA, ",", "").arglist = arglist
        emit_item(item, out, " " if i else "")
    if trailing_comma and items:
        _word(out, COMMA, ",", "").arglist = arglist


def _emit(node: Node, out: list[Leaf], space: str) -> None:
    _EMIT[type(node)](node, out, space)


def _emit_call(n: Call, out: list[Leaf], space: str) -> None:
    _emit(n.func, out, space)
    _bracket(out, LPAR, "(", "", False)
    _sequence(out, n.args, _emit, n.trailing_comma, True)
    _bracket(out, RPAR, ")", "", False)


def _emit_subscript(n: Subscript, out: list[Leaf], space: str) -> None:
    _emit(n.value, out, space)
    _bracket(out, LSQB, "[", "", False)  # a trailer's bracket, as a call's parentheses
    _emit(n.index, out, "")
    _bracket(out, RSQB, "]", "", False)


def _emit_list(n: List, out: list[Leaf], space: str) -> None:
    _bracket(out, LSQB, "[", space, True)
    if len(n.items) == 1 and not n.trailing_comma and isinstance(n.items[0], Paren):
        start = len(out)
        _optional_parens(n.items[0], out, "")  # black hides the parentheses of a list's only item
        out[start].redundant = out[-1].redundant = True
    else:
        _sequence(out, n.items, _emit, n.trailing_comma, False)
    _bracket(out, RSQB, "]", "", True)


def _emit_dict_item(item, out: list[Leaf], space: str) -> None:
    if isinstance(item, DoubleStar):
        _emit(item, out, space)
        return
    _emit(item[0], out, space)
    _word(out, COLON, ":", "")
    _emit(item[1], out, " ")


def _emit_dict(n: Dict, out: list[Leaf], space: str) -> None:
    _bracket(out, LBRACE, "{", space, True)
    _sequence(out, n.items, _emit_dict_item, n.trailing_comma, False)
    _bracket(out, RBRACE, "}", "", True)


def _emit_binop(n: BinOp, out: list[Leaf], space: str) -> None:
    _emit(n.left, out, space)
    if n.op in ("not in", "is not"):
        first, second = n.op.split()
        _word(out, NAME, first, " ", COMPARATOR_PRIORITY)
        _word(out, NAME, second, " ")
    else:
        kind = NAME if n.op.isalpha() else OPERATOR
        _word(out, kind, n.op, " ", _op_priority(n.op))
    _emit(n.right, out, " ")


def _emit_unary(n: Unary, out: list[Leaf], space: str) -> None:
    _word(out, NAME if n.op == "not" else OPERATOR, n.op, space)
    _emit(n.operand, out, " " if n.op == "not" else "")


def _emit_lambda(n: Lambda, out: list[Leaf], space: str) -> None:
    _word(out, NAME, "lambda", space)
    for i, param in enumerate(n.params):
        if i:
            _word(out, COMMA, ",", "")
        _word(out, NAME, param, " ")
    _word(out, COLON, ":", "")
    _emit(n.body, out, " ")


def _emit_attr(n: Attr, out: list[Leaf], space: str) -> None:
    value = n.value
    if isinstance(value, Number) and not value.text.lower().startswith(("0x", "0b", "0o")) and "j" not in value.text.lower():
        value = Paren(value)  # black parenthesises a decimal number before an attribute
    _emit(value, out, space)
    _word(out, DOT, ".", "")
    _word(out, NAME, n.name, "")


def _emit_paren(n: Paren, out: list[Leaf], space: str) -> None:
    _bracket(out, LPAR, "(", space, True)
    _emit(n.value, out, "")
    _bracket(out, RPAR, ")", "", True)


_EMIT = {
    Name: lambda n, out, space: _word(out, NAME, n.text, space),
    Number: lambda n, out, space: _word(out, NUMBER, literals.number(n.text), space),
    String: lambda n, out, space: _word(out, STRING, literals.string(n.text), space),
    Attr: lambda n, out, space: _emit_attr(n, out, space),
    Subscript: _emit_subscript,
    Call: _emit_call,
    Keyword: lambda n, out, space: (_word(out, NAME, n.name, space), _word(out, EQUAL, "=", ""), _emit(n.value, out, "")),
    Star: lambda n, out, space: (_word(out, STAR, "*", space), _emit(n.value, out, "")),
    DoubleStar: lambda n, out, space: (_word(out, DOUBLESTAR, "**", space), _emit(n.value, out, "")),
    Paren: _emit_paren,
    List: _emit_list,
    Dict: _emit_dict,
    BinOp: _emit_binop,
    Unary: _emit_unary,
    Lambda: _emit_lambda,
}


def _optional_parens(value: Node, out: list[Leaf], space: str) -> None:
    """The value between invisible parentheses, black's optional parentheses (its own ones dropped)."""
    while isinstance(value, Paren):
        value = value.value
    _bracket(out, LPAR, "", space, True)
    start = len(out)
    _emit(value, out, "")
    closing = _bracket(out, RPAR, "", "", True)
    closing.wraps_one = len(out) - start == 2


def leaves(statement: Statement) -> list[Leaf]:
    """Black's tokens of `statement` (for its second pass, see `reread`)."""
    out: list[Leaf] = []
    if statement.target is not None:
        _emit(statement.target, out, "")
        _word(out, EQUAL, "=", " ")
        _optional_parens(statement.value, out, " ")
    elif statement.keyword:
        _word(out, NAME, statement.keyword, "")
        _optional_parens(statement.value, out, " ")
    elif isinstance(statement.value, BinOp) and statement.value.op in ("+", "-", "<<", ">>", "^", "&"):
        _optional_parens(statement.value, out, "")  # black's parentheses around an arithmetic statement
    else:
        _emit(statement.value, out, "")
    for index, leaf in enumerate(out):
        leaf.index = index
    if statement.comment:
        out.append(Leaf(COMMENT, statement.comment, "  "))
    return out


def reread(first: list[Leaf], values: list[str], added_commas: frozenset[int], dropped: frozenset[int]) -> list[Leaf]:
    """Black's tokens of its first pass's output, for its second pass: the statement's leaves (`first`, as
    `leaves` gave them, and laid out once since) with a comma after each position in `added_commas` (the
    trailing commas the first pass added) and without those in `dropped` (the parentheses it hid and that its
    reading does not bring back). The leaves are taken back as they were: what a layout changes (prefix,
    bracket depth and pair, attachment, and the value black gives optional parentheses to show them) is reset,
    `values` holding their values from before."""
    kept = []
    comment = None
    for leaf, value in zip(first, values):
        leaf.prefix, leaf.value, leaf.depth, leaf.opening, leaf.attached = "", value, 0, None, True
        if leaf.kind == COMMENT:
            comment = leaf
        else:
            kept.append(leaf)
    out = _second_pass_input(kept, added_commas, dropped)
    for index, leaf in enumerate(out):
        leaf.index = index
    if comment is not None:
        comment.index = -1
        out.append(comment)
    return out


def _second_pass_input(out: list[Leaf], after: frozenset[int], dropped: frozenset[int]) -> list[Leaf]:
    result = []
    for index, leaf in enumerate(out):
        if index not in dropped:
            result.append(leaf)
        if index in after:
            comma = Leaf(COMMA, ",", "")
            comma.arglist = not out[index + 1].atom  # the closing bracket that follows is a call's
            result.append(comma)
    return result
