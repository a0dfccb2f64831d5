"""Black's normalisation of string and number literals: lower-case prefixes (no `u`), double quotes unless
they need more backslashes than the quotes written, lower-case hex in `\\x`/`\\u`/`\\U` escapes, `\\N{}`
names upper-case; numbers lower-case but for hex digits, with a zero before or after a lone dot."""

from __future__ import annotations

import re
from functools import lru_cache

_PREFIX = re.compile(r"^([a-zA-Z]*)(.*)$", re.S)
_ESCAPE = re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[a-zA-Z0-9 \-]{2,}\}|.)", re.S)


@lru_cache(maxsize=8192)
def string(text: str) -> str:
    """`text`, a one-line string literal (no f-string, not triple-quoted), as black writes it."""
    if text[0] in "'\"" and "\\" not in text and '"' not in text[1:-1] and "'" not in text[1:-1]:
        return '"' + text[1:-1] + '"'  # the usual case: nothing to escape either way
    prefix, quoted = _PREFIX.match(text).groups()
    prefix = prefix.replace("F", "f").replace("B", "b").replace("U", "").replace("u", "")
    if len(prefix) == 2 and prefix[0].lower() != "r":
        prefix = prefix[::-1]
    raw = "r" in prefix.lower()
    if not raw:
        quoted = _ESCAPE.sub(_case_escape, quoted)
    return prefix + _prefer_double_quotes(quoted, raw)


def _case_escape(match: re.Match) -> str:
    escape = match.group(0)
    if escape[1] in "xuU":
        return escape[:2] + escape[2:].lower()
    if escape[1] == "N":
        return escape[:2] + escape[2:].upper()
    return escape


def _tokens(body: str) -> list[str]:
    """The body as escapes (a backslash and the character it escapes) and single characters."""
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            out.append(body[i : i + 2])
            i += 2
        else:
            out.append(body[i])
            i += 1
    return out


def _prefer_double_quotes(quoted: str, raw: bool) -> str:
    quote = quoted[0]
    other = "'" if quote == '"' else '"'
    body = quoted[1:-1]
    if raw:
        if any(t == other for t in _tokens(body)):
            return quoted  # an unescaped other quote: a raw string cannot change quotes
        new_body = body
    else:
        # An escaped other quote needs no backslash in the quotes written; drop it, whatever happens next.
        body = "".join(other if t == "\\" + other else t for t in _tokens(body))
        new_body = "".join(quote if t == "\\" + quote else "\\" + other if t == other else t for t in _tokens(body))
    if new_body.count("\\") > body.count("\\"):
        return quote + body + quote
    if new_body.count("\\") == body.count("\\") and quote == '"':
        return quote + body + quote
    return other + new_body + other


def number(text: str) -> str:
    text = text.lower()
    if text.startswith(("0o", "0b")):
        return text
    if text.startswith("0x"):
        return text[:2] + text[2:].upper()
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = ""
        if exponent[:1] in "+-":
            sign = "-" if exponent[0] == "-" else ""
            exponent = exponent[1:]
        return f"{_decimal(mantissa)}e{sign}{exponent}"
    if text.endswith("j"):
        return _decimal(text[:-1]) + "j"
    return _decimal(text)


def _decimal(text: str) -> str:
    if "." not in text:
        return text
    before, after = text.split(".")
    return f"{before or 0}.{after or 0}"
