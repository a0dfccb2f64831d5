"""compiler/testing/compare.py: SPEC section 9's one convention for `given` and `expect`, float32 comparison, and
failure reports that show the difference (no Spark)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from pipec.testing.compare import Float32, compare, differences, matches, show, show_record

# Python's reading of float32 values a parquet or avro sink wrote (struct-unpacked float32 bit patterns).
AS_READ = {
    "3.14": 3.140000104904175,
    "8.1": 8.100000381469727,
    "0.1": 0.10000000149011612,
    "17.49": 17.489999771118164,
    "22.2": 22.200000762939453,
}


@pytest.mark.parametrize("text", AS_READ)
def test_a_float32_equals_the_number_the_sink_writes(text):
    written = Float32(AS_READ[text])
    assert repr(written) == text  # Java's Float.toString, which Spark's JSON and CSV writers print
    assert matches(float(text), written) and matches(Decimal(text), written)
    assert not matches(float(text), AS_READ[text])  # unmarked, the same value compares at double precision
    assert show({"w": written}) == f'{{"w": {text}}}'


def test_a_float32_is_not_a_neighbouring_float32_nor_text():
    assert not matches(17.5, Float32(17.49))
    assert not matches(17.490002, Float32(17.49))  # the next float32 up rounds elsewhere
    assert not matches("17.49", Float32(17.49))
    assert matches(float("inf"), Float32(1e39)) and matches(float("nan"), Float32(float("nan")))


def test_a_double_still_compares_at_double_precision():
    assert not matches(17.49, 17.489999771118164)
    assert matches(32, 32.0) and matches(Decimal("9.50"), 9.5)


@pytest.mark.parametrize(
    "expected, written, whole, ok",
    [
        ("k1", b"k1", True, True),  # a whole key: its UTF-8 text, as given
        ("azE=", b"k1", True, False),  # ... not the base64 of it
        ({"base64": "azE="}, b"k1", True, True),
        ({"base64": "/wA="}, b"\xff\x00", True, True),  # bytes that are not text
        ({"base64": "azE="}, "k1", True, True),  # a STRING key's UTF-8 bytes
        ("YWJj", b"abc", False, True),  # BYTES inside a structure: base64, as JSON writes them
        ({"base64": "YWJj"}, b"abc", False, True),
        ("abc", b"abc", False, False),
        ("ü", "ü".encode(), True, True),
    ],
)
def test_bytes_are_written_as_given(expected, written, whole, ok):
    assert matches(expected, written, whole) is ok


def test_a_record_reads_its_whole_key_and_value_as_text():
    written = {"key": b"k1", "value": {"id": 1, "data": b"abc"}, "headers": [("h", b"\xff")]}
    assert (
        compare(
            [(1, {"key": "k1", "value": {"id": 1, "data": "YWJj"}, "headers": {"h": {"base64": "/w=="}}})], [written]
        )
        is None
    )
    assert show_record(written) == (
        '{"key": "k1", "value": {"id": 1, "data": "YWJj"}, "headers": [{"key": "h", "value": {"base64": "/w=="}}]}'
    )


def test_a_failure_names_each_difference_with_both_kinds():
    written = {"key": b"k1", "value": {"id": 1, "w": Float32(3.14), "n": 5, "at": dt.date(2024, 1, 1)}}
    expected = {"key": "k2", "value": {"id": 1, "w": 3.15, "n": "5", "at": "2024-01-01"}}
    assert differences(expected["value"], written["value"], "value") == [
        "value.w: expected 3.15 (number), written 3.14 (float32)",
        'value.n: expected "5" (string), written 5 (integer)',
    ]
    lines = compare([(7, expected)], [written]).lines()
    assert lines[0].startswith("  expected (line 7), not written: ")
    assert lines[1:4] == [
        '    the closest written record differs at key: expected "k2" (string), written "k1" (bytes)',
        "    the closest written record differs at value.w: expected 3.15 (number), written 3.14 (float32)",
        '    the closest written record differs at value.n: expected "5" (string), written 5 (integer)',
    ]
    assert (
        lines[4]
        == '  written, not expected:         {"key": "k1", "value": {"id": 1, "w": 3.14, "n": 5, "at": "2024-01-01"}}'
    )
