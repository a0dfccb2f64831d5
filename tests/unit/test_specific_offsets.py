"""`startup.specific-offsets` is checked at compile time in Flink's format (the job would fail when it starts)."""

import pytest
from pipec.connectors.kafka_rules import specific_offsets_problem

GOOD = [
    "partition:0,offset:42",
    "partition:0,offset:42;partition:1,offset:300",
    "partition:0,offset:-2;partition:1,offset:-1",
]
BAD = [  # text, offset of the mistake, words of the message
    ("partition:0,offset:42;", 22, "'' is not"),
    ("partition:0;offset:42", 0, "'partition:0' is not"),
    ("partition: 0,offset:42", 0, "is not partition:<number>,offset:<number>"),
    ("partition:0,offset:x", 0, "is not"),
    ("partition:0,offset:42;partition:0,offset:7", 22, "partition 0 is named twice"),
    ("partition:0,offset:-3", 19, "below -2"),
    ("offset:42,partition:0", 0, "is not"),
]


@pytest.mark.parametrize("text", GOOD)
def test_flinks_format_is_accepted(text):
    assert specific_offsets_problem(text) is None


@pytest.mark.parametrize("text, offset, words", BAD)
def test_a_malformed_string_is_pointed_at(text, offset, words):
    at, message = specific_offsets_problem(text)
    assert at == offset and words in message
