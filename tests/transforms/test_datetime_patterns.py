"""SimpleDateFormat -> Spark datetime pattern translation (compiler/transforms/javadates.py).

Expected translations were checked against java.text.SimpleDateFormat (UTC) and Spark 4.3's date_format /
to_timestamp on thousands of instants between 1900 and 2100.
"""

from __future__ import annotations

import pytest
from pipec.transforms.javadates import LETTERS, NO_EXACT_PARSE, PatternError, spark_pattern

SAME = [
    "yyyyMMdd",
    "yyyy-MM-dd'T'HH:mm:ss.SSSZ",
    "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
    "yyyy MM dd HH mm ss SSS z",
    "d MMM yyyy HH:mm:ss zzzz",
    "y yyy yyyyy",
    "K:mm a",
    "hh kk",
    "D DD DDD",
    "LLL LLLL",
    "X XX XXX",
    "",
    "yyyy.MM.dd G 'at' HH:mm:ss z",
    "'o''clock'",
]

CHANGED = [
    ("GGGG yyyy", "G yyyy"),  # Java's era text is always short
    ("MMMMM", "MMMM"),  # full month name in Java, refused by Spark
    ("EEEEE", "EEEE"),
    ("aa", "a"),
    ("ZZZZ", "Z"),  # "+0000" in Java, "GMT" in Spark
    ("zzzzz", "zzzz"),
    ("yyyy#MM", "yyyy'#'MM"),  # '#', '[', ']', '{', '}' are reserved in Spark
    ("yyyy[MM]", "yyyy'['MM']'"),
    ("''", "''"),  # a lone quote
    ("'at' h", "'at' h"),
    ("yyyy'T'HH", "yyyy'T'HH"),
    ("'a''b'", "'a''b'"),
    ("'-'yyyy", "-yyyy"),  # quoted text that needs no quotes
]

REFUSED = [  # (pattern, parsing, part of the message)
    ("YYYY", False, "week year"),
    ("u", False, "day number"),
    ("w", False, "week of the year"),
    ("W", False, "week of the month"),
    ("F", False, "day of the week in the month"),
    ("S", False, "millisecond as a number"),
    ("SS", False, "millisecond as a number"),
    ("SSSS", False, "millisecond as a number"),
    ("ddd", False, "pads to 3 digits"),
    ("HHH", False, "pads to 3 digits"),
    ("DDDD", False, "pads to 4 digits"),
    ("yy-MM-dd", True, "sliding century"),
    ("EEE, d MMM yyyy", True, "day names"),
]

INVALID = [  # rejected by SimpleDateFormat itself
    ("yyyy-MM-dd x", "illegal pattern character 'x'"),
    ("T", "illegal pattern character 'T'"),
    ("'unterminated", "unterminated quote"),
    ("XXXX", "invalid ISO 8601"),
]


@pytest.mark.parametrize("pattern", SAME)
def test_same_meaning_passes_through(pattern: str):
    assert spark_pattern(pattern) == pattern


@pytest.mark.parametrize("pattern, spark", CHANGED)
def test_translated(pattern: str, spark: str):
    assert spark_pattern(pattern) == spark


@pytest.mark.parametrize("pattern, parsing, words", REFUSED)
def test_refused_with_reason_and_suggestion(pattern: str, parsing: bool, words: str):
    with pytest.raises(PatternError) as caught:
        spark_pattern(pattern, parsing=parsing)
    assert words in caught.value.message
    assert not caught.value.invalid
    if pattern[0] in "YSdHDy":
        assert caught.value.hint


@pytest.mark.parametrize("pattern, words", INVALID)
def test_invalid_java_patterns(pattern: str, words: str):
    with pytest.raises(PatternError) as caught:
        spark_pattern(pattern, parsing=True)
    assert words in caught.value.message
    assert caught.value.invalid


@pytest.mark.parametrize("letter", sorted(LETTERS))
def test_a_parsing_hint_never_names_a_pattern_that_reads_other_text(letter: str):
    """Records are written in the pattern's text: a shorter or other run (`dd` for `ddd`, `yyyy` for `yy`, no day
    name for `EEE`) validates and then fails to parse every record, so parsing hints name none (E724)."""
    for n in range(1, 7):
        try:
            spark_pattern(letter * n, parsing=True)
        except PatternError as exc:
            if not exc.invalid:
                assert exc.hint in (NO_EXACT_PARSE, LETTERS[letter].parse_hint), (letter * n, exc.hint)


def test_formatting_only_letters_are_fine_for_output():
    assert spark_pattern("yy-MM-dd EEE") == "yy-MM-dd EEE"
