"""Compile-time checks of Java regular expressions (Spark runs them with java.util.regex, unchanged)."""

from __future__ import annotations

import re
import warnings

# Python's `re` errors that Java's Pattern raises too; other differences (\p{..}, possessive
# quantifiers, embedded flags) are Java features that Python lacks, so they are not reported.
_STRUCTURAL = (
    "missing ), unterminated subpattern",
    "unbalanced parenthesis",
    "nothing to repeat",
    "multiple repeat",
    "unterminated character set",
    "bad escape (end of pattern)",
    "bad character range",
)


def check_java_regex(pattern: str) -> str | None:
    """None when `pattern` is plausibly a valid Java regex, else the reason it is not."""
    try:
        with warnings.catch_warnings():  # Java's set syntax ([a-z&&[^b]], [[:x:]]) makes Python warn of its future
            warnings.simplefilter("ignore", FutureWarning)
            re.compile(pattern)
    except re.error as exc:
        message = str(exc.msg)
        if any(message.startswith(s) for s in _STRUCTURAL):
            return f"{message} at position {exc.pos}"
    except (OverflowError, RecursionError):
        return "pattern too complex"
    return None
