"""java.text.SimpleDateFormat patterns as Spark datetime patterns of the same meaning (in UTC), for
TimestampConverter (formatting and parsing) and TimestampRouter (formatting), or a PatternError saying why not."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby


class PatternError(ValueError):
    """A pattern Java rejects (`invalid`), or one Spark cannot reproduce exactly."""

    def __init__(self, message: str, hint: str | None = None, invalid: bool = False):
        super().__init__(message)
        self.message, self.hint, self.invalid = message, hint, invalid


@dataclass(frozen=True, slots=True)
class Letter:
    """How a run of one SimpleDateFormat letter translates.

    Runs up to `same` letters translate to themselves; longer runs become `above` letters (same meaning in Spark),
    or are refused with `beyond`. `only` is the single length that translates; `refuse` refuses every length;
    `no_parse` refuses the letter when parsing. `hint` says which pattern to write instead when formatting (the
    output changes, every record still formats); when parsing, a hint may only name a pattern that reads the same
    text (`parse_hint`), since any other fails on every record: without one the hint is NO_EXACT_PARSE.
    """

    same: int = 64
    above: int | None = None
    beyond: str = ""
    only: int | None = None
    refuse: str = ""
    hint: str = ""
    no_parse: str = ""
    parse_hint: str = ""


PADDED = "'{run}' pads to {n} digits, which Spark patterns cannot"
NO_EXACT_PARSE = (
    "no Spark pattern reads this text as Java does (another pattern would fail on every record): keep the "
    "field a string, or have the producer write a pattern Spark can read"
)
LETTERS: dict[str, Letter] = {
    "G": Letter(same=3, above=1),  # GGGG is "AD" in Java, "Anno Domini" in Spark
    "y": Letter(same=5, beyond="Spark formats a year of '{run}' differently", hint="use 'yyyy'"),
    "M": Letter(same=4, above=4),  # MMMMM is the full name in Java, refused by Spark
    "L": Letter(same=4, above=4),
    "d": Letter(same=2, beyond=PADDED, hint="use 'dd'"),
    "D": Letter(same=3, beyond=PADDED, hint="use 'DDD'"),
    "E": Letter(
        same=4, above=4, no_parse="Spark cannot parse day names (E)", hint="drop the day name from the pattern"
    ),
    "a": Letter(same=1, above=1),
    "H": Letter(same=2, beyond=PADDED, hint="use 'HH'"),
    "k": Letter(same=2, beyond=PADDED, hint="use 'kk'"),
    "K": Letter(same=2, beyond=PADDED, hint="use 'KK'"),
    "h": Letter(same=2, beyond=PADDED, hint="use 'hh'"),
    "m": Letter(same=2, beyond=PADDED, hint="use 'mm'"),
    "s": Letter(same=2, beyond=PADDED, hint="use 'ss'"),
    "S": Letter(
        only=3,
        beyond="'{run}' is the millisecond as a number in Java but a fraction of the second in Spark",
        hint="use 'SSS' (milliseconds, always 3 digits)",
    ),
    "z": Letter(same=4, above=4),
    "Z": Letter(same=3, above=1),  # ZZZZ is "+0000" in Java, "GMT" in Spark
    "X": Letter(same=3, beyond="invalid ISO 8601 format '{run}': Java allows X, XX or XXX"),
    "Y": Letter(
        refuse="'Y' is the week year",
        hint="use 'yyyy' (the calendar year; it differs from the week year around New Year)",
        parse_hint="use 'yyyy' (it reads the same digits as the calendar year, which differs around New Year)",
    ),
    "u": Letter(refuse="'u' (day number of the week) has no Spark equivalent", hint="use 'E' for the day name"),
    "w": Letter(refuse="'w' (week of the year) has no Spark equivalent"),
    "W": Letter(refuse="'W' (week of the month) has no Spark equivalent"),
    "F": Letter(refuse="'F' (day of the week in the month) counts differently in Spark"),
}
RESERVED = set("'[]{}#")  # literal characters Spark patterns must quote


def _letter(run: str, parsing: bool) -> str:
    """The Spark spelling of a run of one pattern letter; PatternError when there is none."""
    letter, n = run[0], len(run)
    rule = LETTERS.get(letter)
    if rule is None:
        raise PatternError(f"illegal pattern character '{letter}'", "quote literal text: 'T'", invalid=True)
    hint = (rule.parse_hint or NO_EXACT_PARSE) if parsing else (rule.hint or None)
    if rule.refuse:
        raise PatternError(rule.refuse, hint)
    if parsing and rule.no_parse:
        raise PatternError(rule.no_parse, hint)
    if parsing and letter == "y" and n == 2:
        raise PatternError("'yy' parses in a sliding century in Java but as 2000-2099 in Spark", hint)
    if rule.only is not None:
        if n == rule.only:
            return run
        raise PatternError(rule.beyond.format(run=run, n=n), hint)
    if n <= rule.same:
        return run
    if rule.above is not None:
        return letter * rule.above
    raise PatternError(rule.beyond.format(run=run, n=n), None if letter == "X" else hint, invalid=letter == "X")


def _unsafe(c: str) -> bool:
    return c in RESERVED or (c.isascii() and c.isalpha())


def _literal(text: str) -> str:
    """Literal text as Spark reads it: letters and reserved characters quoted (a quote doubled), the rest bare."""
    out = []
    for unsafe, chars in groupby(text, key=_unsafe):
        run = "".join(chars)
        if not unsafe:
            out.append(run)
        elif set(run) == {"'"}:
            out.append("''" * len(run))
        else:
            out.append("'" + run.replace("'", "''") + "'")
    return "".join(out)


def _quoted(pattern: str, start: int) -> tuple[str, int]:
    """The text of a quoted section starting at `start` (a quote), and the index after its closing quote."""
    out, j = [], start + 1
    while j < len(pattern):
        if pattern[j] == "'":
            if pattern[j + 1 : j + 2] == "'":
                out.append("'")
                j += 2
                continue
            return "".join(out), j + 1
        out.append(pattern[j])
        j += 1
    raise PatternError("unterminated quote", "close the quoted text with ', and write '' for a quote", invalid=True)


def spark_pattern(java: str, parsing: bool = False) -> str:
    """The Spark datetime pattern meaning what the SimpleDateFormat pattern `java` means (UTC), for formatting
    or, with `parsing`, for parsing; PatternError where Java rejects it or Spark cannot match it."""
    out, literal, i = [], [], 0
    while i < len(java):
        c = java[i]
        if c == "'":
            if java[i + 1 : i + 2] == "'":
                literal.append("'")
                i += 2
                continue
            text, i = _quoted(java, i)
            literal.append(text)
        elif c.isascii() and c.isalpha():
            j = i
            while j < len(java) and java[j] == c:
                j += 1
            out.append(_literal("".join(literal)))
            literal = []
            out.append(_letter(java[i:j], parsing))
            i = j
        else:
            literal.append(c)
            i += 1
    out.append(_literal("".join(literal)))
    return "".join(out)
