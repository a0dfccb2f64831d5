"""Record tests compare what each sink writes by SPEC section 9's one convention (compiler/testing/compare.py):

- a FLOAT compares at float32 precision, as the sink writes it: Debezium's tutorial table `inventory.products`
  declares `weight FLOAT` (3.14, 8.1, 0.875, ...), and every sink and format must match those weights as written in
  YAML (Spark's JSON and CSV writers print a FloatType with Java's Float.toString, `3.14`; parquet and avro hold the
  float32 itself, which Python reads as 3.140000104904175);
- a raw key is expected as it is given: its UTF-8 text, or `{base64: ...}` for bytes that are not text;
- a failing case says where the closest written record differs, with both kinds.
"""

from __future__ import annotations

import io

import pytest

pytestmark = pytest.mark.spark

PIPELINE = """\
version: 1
name: {name}
mode: batch
source:
  connector: kafka
  topics: [inventory.products]
  properties: {{bootstrap.servers: "localhost:9092"}}
  key: {{format: raw}}
  value: {{format: json}}
  columns:
    - {{name: id, type: BIGINT}}
    - {{name: name, type: STRING}}
    - {{name: weight, type: FLOAT}}
    - {{name: price, type: STRING}}
transforms:
  - {{name: price_float, type: Cast$Value, spec: "price:float32"}}
sink:
{sink}
tests:
  - name: Debezium's products keep their FLOAT weights and raw keys
    given:
{given}
    expect:
{expect}
"""
# Debezium's tutorial (debezium-examples, tutorial/mysql inventory.products): id, name, weight FLOAT
PRODUCTS = [
    (101, "scooter", "3.14"),
    (102, "car battery", "8.1"),
    (103, "12-pack drill bits", "0.8"),
    (104, "hammer", "0.75"),
    (105, "hammer", "0.875"),
    (106, "hammer", "1.0"),
    (107, "rocks", "5.3"),
    (108, "jacket", "0.1"),
    (109, "spare tire", "22.2"),
]
KAFKA = "  connector: kafka\n  topic: products\n  key: {{format: raw}}\n  value: {{format: {fmt}}}"
FILES = "  connector: files\n  path: out\n  format: {fmt}\n  envelope: true"  # csv: no nested envelope columns
SINKS = {
    "kafka-json": KAFKA.format(fmt="json"),
    "kafka-csv": KAFKA.format(fmt="csv"),
    "kafka-avro": KAFKA.format(fmt="avro"),
    "files-json": FILES.format(fmt="json"),
    "files-parquet": FILES.format(fmt="parquet"),
    "files-avro": FILES.format(fmt="avro"),
}


def pipeline(name: str, sink: str, expect_weight=lambda w: w, key_of=lambda i: f"p{i}") -> str:
    given = "\n".join(
        f'      - {{key: "p{i}", value: {{id: {i}, name: "{n}", weight: {w}, price: "{w}"}}}}' for i, n, w in PRODUCTS
    )
    given += '\n      - {key: {base64: "/wA="}, value: {id: 110, name: bytes, weight: 1.5, price: "2.5"}}'
    expect = "\n".join(
        f'      - {{key: {key_of(i)}, value: {{id: {i}, name: "{n}", weight: {expect_weight(w)}, price: {w}}}}}'
        for i, n, w in PRODUCTS
    )
    expect += '\n      - {key: {base64: "/wA="}, value: {id: 110, name: bytes, weight: 1.5, price: 2.5}}'
    return PIPELINE.format(name=name, sink=SINKS[sink], given=given, expect=expect)


def run(compile_text, spark, text: str, name: str) -> tuple[bool, str]:
    from pipec.testing.runner import run_tests

    result, files = compile_text(text, f"{name}.yaml")
    out = io.StringIO()
    return run_tests(result.compiled, files, spark=spark, out=out), out.getvalue()


@pytest.mark.parametrize("sink", SINKS)
def test_float_weights_and_raw_keys_match_as_given(compile_text, spark, sink):
    name = f"products_{sink.replace('-', '_')}"
    passed, report = run(compile_text, spark, pipeline(name, sink), name)
    assert passed, report


def test_a_wrong_weight_fails_and_the_report_says_where_and_how(compile_text, spark):
    text = pipeline("products_wrong", "files-parquet", expect_weight=lambda w: "3.15" if w == "3.14" else w)
    passed, report = run(compile_text, spark, text, "products_wrong")
    assert not passed
    lines = report.splitlines()
    assert (
        "    the closest written record differs at value.weight: expected 3.15 (number), written 3.14 (float32)"
        in lines
    ), report
    assert sum("the closest written record differs" in line for line in lines) == 1, report


def test_a_key_expected_as_base64_text_is_not_the_text_given(compile_text, spark):
    """One convention: the base64 of a text key describes other bytes than the key ("cDEwMQ==" is the text itself)."""
    text = pipeline("products_b64_key", "kafka-json", key_of=lambda i: "cDEwMQ==" if i == 101 else f"p{i}")
    passed, report = run(compile_text, spark, text, "products_b64_key")
    assert not passed
    assert (
        '    the closest written record differs at key: expected "cDEwMQ==" (string), written "p101" (bytes)'
        in report.splitlines()
    ), report
