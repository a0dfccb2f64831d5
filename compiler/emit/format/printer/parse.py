"""Text -> syntax tree, for the statements the job templates hold (a value pipec substitutes inside a call, a
dict display, an `or`): the expression shapes of `syntax.py` on one or more lines, one statement per line at
the outer level, each with an optional trailing comment. Anything else raises Unsupported (the caller then
has black lay the text out)."""

from __future__ import annotations

import re

from .syntax import (
    Attr, BinOp, Call, Dict, DoubleStar, Keyword, Lambda, List, Name, Node, Number, Paren, Star, Statement,
    String, Unary,
)


class Unsupported(Exception):
    """The text holds a construct the printer does not lay out."""


_TOKEN = re.compile(
    r"""
    (?P<space>[ \t]+|\\\n)
    |(?P<comment>\#[^\n]*)
    |(?P<string>(?:[rR][bB]?|[bB][rR]?|[uU])?(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"))
    |(?P<number>0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)
    |(?P<name>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<op>\*\*|//|<<|>>|<=|>=|==|!=|[-+*/%@&|^~<>()\[\]{}.,:=])
    |(?P<newline>\n)
    """,
    re.X,
)
KEYWORDS = frozenset({"and", "or", "not", "in", "is", "lambda", "if", "else", "for", "return", "yield", "await", "del"})
LEVELS = (("|",), ("^",), ("&",), ("<<", ">>"), ("+", "-"), ("*", "/", "//", "%", "@"))
COMPARISONS = frozenset({"==", "!=", "<", ">", "<=", ">=", "in", "is", "not"})


def statements(text: str) -> list[Statement]:
    """The statements of `text` (already dedented)."""
    if '"""' in text or "'''" in text:
        raise Unsupported("triple-quoted string")
    return _Parser(_tokenize(text)).statements()


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens, pos, depth = [], 0, 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise Unsupported(f"unexpected text {text[pos:pos + 10]!r}")
        kind, value = match.lastgroup, match.group()
        pos = match.end()
        if kind == "space":
            if value.startswith("\\"):
                raise Unsupported("backslash continuation")
            continue
        if kind == "op" and value in "([{":
            depth += 1
        elif kind == "op" and value in ")]}":
            depth -= 1
        if kind == "newline":
            if depth or not tokens or tokens[-1][0] == "newline":
                continue
        elif kind == "comment" and depth:
            raise Unsupported("a comment inside brackets")
        tokens.append((kind, value))
    tokens.append(("newline", ""))
    return tokens


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]):
        self.tokens, self.pos = tokens, 0

    def peek(self, offset: int = 0) -> tuple[str, str]:
        return self.tokens[min(self.pos + offset, len(self.tokens) - 1)]

    def at(self, value: str) -> bool:
        kind, text = self.peek()
        return text == value and kind in ("op", "name")

    def take(self, value: str | None = None) -> str:
        kind, text = self.peek()
        if value is not None and text != value:
            raise Unsupported(f"expected {value!r}, found {text!r}")
        self.pos += 1
        return text

    def statements(self) -> list[Statement]:
        found = []
        while self.pos < len(self.tokens) - 1:
            found.append(self.statement())
        return found

    def statement(self) -> Statement:
        if self.at("return"):
            self.take()
            result = Statement(self.expression(), keyword="return")
        else:
            value = self.expression()
            if self.at("="):
                self.take()
                if not isinstance(value, (Name, Attr)):
                    raise Unsupported("assignment to a complex target")
                result = Statement(self.expression(), target=value)
            else:
                result = Statement(value)
        if self.peek()[0] == "comment":
            result.comment = self.take()
        if self.peek()[0] != "newline":
            raise Unsupported(f"unexpected {self.peek()[1]!r} after a statement")
        self.take()
        return result

    def expression(self) -> Node:
        if self.at("lambda"):
            self.take()
            params = []
            while not self.at(":"):
                kind, name = self.peek()
                if kind != "name" or name in KEYWORDS:
                    raise Unsupported("lambda parameters other than names")
                params.append(self.take())
                if self.at(","):
                    self.take()
            self.take(":")
            return Lambda(params, self.expression())
        return self.boolean("or")

    def boolean(self, op: str) -> Node:
        left = self.boolean("and") if op == "or" else self.negation()
        while self.at(op):
            self.take()
            left = BinOp(op, left, self.boolean("and") if op == "or" else self.negation())
        if self.at("if"):
            raise Unsupported("conditional expression")
        return left

    def negation(self) -> Node:
        if self.at("not"):
            self.take()
            return Unary("not", self.negation())
        return self.comparison()

    def comparison(self) -> Node:
        left = self.binary(0)
        while self.peek()[1] in COMPARISONS and self.peek()[0] in ("op", "name"):
            op = self.take()
            if op == "not":
                op = "not " + self.take("in")
            elif op == "is" and self.at("not"):
                op = "is " + self.take()
            left = BinOp(op, left, self.binary(0))
        return left

    def binary(self, level: int) -> Node:
        if level == len(LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek()[0] == "op" and self.peek()[1] in LEVELS[level]:
            op = self.take()
            left = BinOp(op, left, self.binary(level + 1))
        return left

    def unary(self) -> Node:
        if self.peek()[0] == "op" and self.peek()[1] in ("-", "+", "~"):
            return Unary(self.take(), self.unary())
        return self.trailers(self.atom())

    def trailers(self, node: Node) -> Node:
        while True:
            if self.at("."):
                self.take()
                kind, name = self.peek()
                if kind != "name":
                    raise Unsupported("attribute name expected")
                node = Attr(node, self.take())
            elif self.at("("):
                self.take()
                args, trailing = self.items(")", self.argument)
                node = Call(node, args, trailing)
            elif self.at("[") or self.at("**"):
                raise Unsupported("subscript or power")
            else:
                return node

    def argument(self) -> Node:
        if self.at("*") or self.at("**"):
            star = self.take()
            return (Star if star == "*" else DoubleStar)(self.expression())
        kind, name = self.peek()
        if kind == "name" and self.peek(1)[1] == "=" and name not in KEYWORDS:
            self.take()
            self.take("=")
            return Keyword(name, self.expression())
        return self.expression()

    def items(self, closing: str, item) -> tuple[list, bool]:
        found, trailing = [], False
        while not self.at(closing):
            found.append(item())
            trailing = False
            if self.at(","):
                self.take()
                trailing = True
            elif not self.at(closing):
                raise Unsupported(f"expected ',' or {closing!r}")
        self.take(closing)
        return found, trailing

    def dict_item(self):
        if self.at("**"):
            self.take()
            return DoubleStar(self.expression())
        key = self.expression()
        if not self.at(":"):
            raise Unsupported("set display")
        self.take()
        return (key, self.expression())

    def atom(self) -> Node:
        kind, text = self.peek()
        if kind == "name" and text not in KEYWORDS:
            self.take()
            return Name(text)
        if kind == "number":
            self.take()
            return Number(text)
        if kind == "string":
            self.take()
            if self.peek()[0] == "string":
                raise Unsupported("implicit string concatenation")
            return String(text)
        if text == "(" and kind == "op":
            self.take()
            value = self.expression()
            if not self.at(")"):
                raise Unsupported("tuple or generator")
            self.take()
            return Paren(value)
        if text == "[" and kind == "op":
            self.take()
            return List(*self.items("]", self.expression))
        if text == "{" and kind == "op":
            self.take()
            return Dict(*self.items("}", self.dict_item))
        raise Unsupported(f"unexpected {text!r}")
