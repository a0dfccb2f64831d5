"""InsertHeader's literal: Kafka's Values.parseString typing, written back as SimpleHeaderConverter writes it.

Every expected value below was produced by Kafka's own Values class (connect-api, trunk 2024-10) on Java 17, TZ=UTC.
"""

from __future__ import annotations

import pytest
from pipec.transforms.connect_values import Unsupported, big_decimal_text, java_float_text, literal_header_bytes

KAFKA = [
    ("1", "1"),
    ("300", "300"),
    ("70000", "70000"),
    ("3000000000", "3000000000"),
    ("12345678901234567890", "12345678901234567890"),
    ("1.5", "1.5"),
    (" 1.50 ", "1.5"),
    ("true", "true"),
    ("false", "false"),
    ("hello world", "hello world"),
    ("", ""),
    ("null", None),
    ('"quoted"', '"quoted"'),
    ("[1,2]", "[1,2]"),
    ("[1, 2.5, 3]", "[1.0,2.5,3.0]"),
    ('{"a":1}', '{"a":1}'),
    ('{"a": 1, "b": "x\\"y"}', '{"a":1,"b":"x\\\\\\"y"}'),
    ("2024-01-02", "2024-01-02"),
    ("10:15:30.000Z", "10:15:30.000Z"),
    ("2024-01-02T10:15:30.000Z", "2024-01-02T10:15:30.000Z"),
    ("2024-01-02T00:00:00.000Z", "2024-01-02"),
    ("1970-01-01", "00:00:00.000Z"),
    ("2024-13-45", "2025-02-14"),
    ("2024-01-02T10\\:15\\:30.000Z", "2024-01-02T10:15:30.000Z"),
    ("1.0", "1"),
    ("0.1", "0.1"),
    ("1e3", "1000"),
    ("+5", "5"),
    ("007", "7"),
    ("-0", "0"),
    ("3.141592653589793", "3.1415927"),
    ("1E400", "1E+400"),
    ("1e-50", "0.0"),
    ("12:30", "12"),
    ("1,2", "1"),
    ("[1,2] extra", "[1,2]"),
    ("true}", "true}"),
    ("[1,null]", "[1,null]"),
    ("[null]", "[null]"),
    ('{"a":[1,2],"b":null}', '{"a":[1,2],"b":null}'),
    ("[1,1.5]", "[1.0,1.5]"),
    ("[70000,2024-01-02]", "[2161-08-27,2024-01-02]"),
    ('[1,"a"]', '[1,"a"]'),
    ("[1,]", "[1]"),
    ('[" "]', '[""]'),
    ('{1:"a",1.0:"b"}', '{1:"b"}'),
    ('{"a":1,"a":2}', '{"a":2}'),
    ("NaN", "NaN"),
    ("0x10", "0x10"),
    ("١٢", "12"),
]


@pytest.mark.parametrize("literal,written", KAFKA)
def test_literal_is_written_as_kafka_writes_it(literal, written):
    assert literal_header_bytes(literal) == (None if written is None else written.encode("utf-8"))


@pytest.mark.parametrize("literal", ["12345678.9", "[3000000000, 1.5]", "1500-01-01", "2024-1E2-1"])
def test_literals_kafka_reads_version_dependently_are_refused(literal):
    with pytest.raises(Unsupported):
        literal_header_bytes(literal)


@pytest.mark.parametrize(
    "value,single,text",
    [
        (1e10, False, "1.0E10"),
        (0.001, False, "0.001"),
        (1e-4, False, "1.0E-4"),
        (100.0, False, "100.0"),
        (-0.0, False, "-0.0"),
        (float("nan"), False, "NaN"),
        (float("-inf"), True, "-Infinity"),
        (1.401298464324817e-45, True, "1.4E-45"),
        (0.10000000149011612, True, "0.1"),
        (3.4028234663852886e38, True, "3.4028235E38"),
        (1234567.0, True, "1234567.0"),
        (4.9e-324, False, "4.9E-324"),
    ],
)
def test_java_float_text(value, single, text):
    assert java_float_text(value, single) == text


@pytest.mark.parametrize(
    "unscaled,scale,text",
    [
        (1250, 2, "12.50"),
        (100, 9, "1.00E-7"),
        (0, 9, "0E-9"),
        (-120, 9, "-1.20E-7"),
        (1, -400, "1E+400"),
        (15, -399, "1.5E+400"),
        (5, 3, "0.005"),
    ],
)
def test_big_decimal_text(unscaled, scale, text):
    assert big_decimal_text(unscaled, scale) == text
