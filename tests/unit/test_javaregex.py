"""Java regexes are checked with Python's `re` for structure only, and quietly: Java's own set syntax is no
Python warning on the user's terminal."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pipec.transforms.javaregex import check_java_regex

JAVA_SETS = ["[a-z&&[^aeiou]]+", "[[a-c][x-z]]", "[a||b]", "[a~~b]"]


@pytest.mark.parametrize("pattern", JAVA_SETS)
def test_java_set_syntax_is_accepted_without_a_warning(pattern):
    code = (
        f"import warnings; warnings.simplefilter('error'); from pipec.transforms.javaregex import check_java_regex; "
        f"print(check_java_regex({pattern!r}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "None", "")


@pytest.mark.parametrize(
    "pattern, words", [("(a", "missing )"), ("a**", "multiple repeat"), ("[b-a]", "bad character range")]
)
def test_structural_mistakes_are_reported(pattern, words):
    assert words in check_java_regex(pattern)
