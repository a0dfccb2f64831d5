"""The tokenizer of type strings (``type_parser``): words, numbers, quoted names, strings and punctuation."""

from __future__ import annotations

import re
from typing import NamedTuple

from .sql import _backtick


class _Tok(NamedTuple):
    kind: str  # word number quoted string punct end error
    value: str  # text (words as written, quoted/string unescaped) or the error message
    offset: int


_PUNCT = "<>(),:"
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"[0-9]+")
_QUOTES = {"`": "quoted", '"': "quoted", "'": "string"}


def _tokenize(text: str) -> list[_Tok]:
    """Split ``text`` into tokens; a bad character or open quote ends in an error."""
    toks: list[_Tok] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in _PUNCT:
            toks.append(_Tok("punct", ch, i))
            i += 1
        elif m := _WORD.match(text, i):
            toks.append(_Tok("word", m.group(), i))
            i = m.end()
        elif m := _NUMBER.match(text, i):
            toks.append(_Tok("number", m.group(), i))
            i = m.end()
        elif ch in _QUOTES:
            j, parts = i + 1, []
            while True:
                k = text.find(ch, j)
                if k < 0:
                    what = "string" if ch == "'" else "quoted name"
                    toks.append(_Tok("error", f"unterminated {what}: missing closing {ch}", i))
                    return toks
                parts.append(text[j:k])
                if text.startswith(ch * 2, k):
                    parts.append(ch)
                    j = k + 2
                else:
                    break
            toks.append(_Tok(_QUOTES[ch], "".join(parts), i))
            i = k + 1
        else:
            hint = " (quote names that are not plain identifiers with backticks)"
            message = f"unexpected character {ch!r}" + (hint if ch.isalnum() else "")
            toks.append(_Tok("error", message, i))
            return toks
    toks.append(_Tok("end", "", n))
    return toks


def _describe(tok: _Tok) -> str:
    """How a token is named in 'found ...' messages."""
    if tok.kind == "end":
        return "end of input"
    if tok.kind == "quoted":
        return f"quoted name {_backtick(tok.value)}"
    if tok.kind == "string":
        return "string '" + tok.value.replace("'", "''") + "'"
    return f"'{tok.value}'"
