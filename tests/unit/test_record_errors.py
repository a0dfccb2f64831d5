"""The record-error rewrite without Spark: what tolerance none and all generate (docs/errors.md)."""

from __future__ import annotations

import textwrap

from pipec import ir
from pipec.record_raises import NULL, error_of, without_raises

PIPELINE = """\
    version: 1
    name: t
    mode: batch
    source:
      connector: kafka
      topics: [orders]
      properties: {bootstrap.servers: "localhost:9092"}
      value: {format: json}
      columns:
        - {name: amount, type: STRING}
    transforms:
      - {name: amount_int, type: Cast$Value, spec: "amount:int32"}
    sink: {connector: kafka, topic: out, value: {format: json}}
"""


def job(compile_text, errors: str = "") -> str:
    """The job's own code, without its runtime section."""
    _, files = compile_text(textwrap.dedent(PIPELINE) + errors)
    return files["t.py"].split("\n# pipec runtime")[0]


def test_tolerance_none_stays_lean_and_positions_decode_errors(compile_text):
    source = job(compile_text)
    assert '"__error":' not in source and "__raw" not in source and "foreachBatch" not in source
    assert "DEAD_LETTERS" not in source and "dead_letter" not in source
    assert "FAILFAST" not in source  # a bad payload is a record error naming topic, partition and offset
    # a record error names topic, partition and offset (compiler/runtime/records.py)
    flat = "".join(source.split())  # as the formatter laid it out, without its line breaks
    assert 'record_error("VALUE_CONVERTER:sourcevalue:notvalidjsonforthedeclaredcolumns")' in flat
    assert source.count("record_error(") == 2  # the decode check and the cast


def test_tolerance_all_never_raises_and_carries_the_raw_record(compile_text):
    source = job(compile_text, "errors: {tolerance: all, deadletterqueue.path: /tmp/dlq}\n")
    assert "raise_error" not in source
    assert '"__raw": F.struct(' in source and 'counts.mark(records, "out", *dead_letter_metrics())' in source
    assert '"org.apache.kafka.connect.transforms.Cast$Value"' in source
    assert '"VALUE_CONVERTER"' in source and '.json(location("/tmp/dlq"))' in source


def test_error_of_follows_lazy_branches():
    fail = ir.Func("raise_error", (ir.Lit("bad"),))
    cond = ir.IsNull(ir.Col("x"))
    # when(cond, raise).otherwise(x): the message where cond holds, null elsewhere
    assert error_of(ir.If(cond, fail, ir.Col("x"))) == ir.If(cond, ir.Lit("bad"), ir.Null("STRING"))
    # coalesce(x, raise): the message only where x is null
    assert error_of(ir.Func("coalesce", (ir.Col("x"), fail))) == ir.If(cond, ir.Lit("bad"), ir.Null("STRING"))
    assert error_of(ir.Col("x")) is None
    assert without_raises(ir.If(cond, fail, ir.Col("x"))) == ir.If(cond, NULL, ir.Col("x"))


def test_dead_letter_topic_uses_the_source_cluster_unless_given_its_own(compile_text):
    def squeezed(errors: str) -> str:  # black may break the options dict over lines
        return "".join(job(compile_text, errors).split()).replace(",}", "}")

    source = squeezed(
        "errors: {tolerance: all, deadletterqueue.topic.name: dlq, deadletterqueue.properties: {acks: all}}\n"
    )
    assert (
        '{"kafka.bootstrap.servers":args.bootstrap_serversor"localhost:9092","kafka.acks":"all"}).option("topic","dlq")'
        in source
    )
    other = "errors: {tolerance: all, deadletterqueue.topic.name: dlq, deadletterqueue.properties: {bootstrap.servers: 'dlq:9092'}}\n"
    assert '{"kafka.bootstrap.servers":"dlq:9092"}).option("topic","dlq")' in squeezed(other)


REGISTRY_PIPELINE = """\
    version: 1
    name: t
    mode: batch
    source:
      connector: kafka
      topics: [orders]
      properties: {bootstrap.servers: "localhost:9092"}
      value: {format: avro-confluent, url: "http://registry:8081"}
      columns:
        - {name: id, type: BIGINT}
    sink: {connector: kafka, topic: out, value: {format: json}}
    errors: {tolerance: all, deadletterqueue.path: /tmp/dlq}
"""


def test_an_id_the_registry_does_not_know_is_a_dead_letter_naming_it_under_tolerance_all(compile_text):
    _, files = compile_text(textwrap.dedent(REGISTRY_PIPELINE))
    own = files["t.py"].split("\n# pipec runtime")[0]
    assert "raise_error" not in own  # the error goes into __error; the runtime's own raise stops for an unmet id only
    assert '"source value: schema id %s is not in the Schema Registry (topic %s, partition %s, offset %s)"' in own
    assert 'schema_rejected(F.col("value"), "source.value")' in own and '"mode": "PERMISSIVE"' in own
