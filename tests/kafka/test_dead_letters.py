"""errors.tolerance against the real broker (SPEC section 8).

Poison records (bad JSON, a failing cast, a tombstone MaskField rejects) are mixed with good and filtered ones;
with `tolerance: all` the job writes the good ones to the sink and each bad one, untouched, to the dead-letter
topic (or files) with Kafka Connect's context headers, and its counts add up; with `tolerance: none` it fails
with one line naming step, reason, topic, partition and offset.
"""

from __future__ import annotations

import base64
import json
import re
import sys
import textwrap
import uuid
from collections import Counter

import pytest
from native_plan import python_operators
from pipec.project.driver import build_all, generate_all
from pipec.testing.runner import load_job

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

PIPELINE = """\
    version: 1
    name: {name}
    mode: {mode}
    source:
      connector: kafka
      topics: [{src}]
      properties: {{bootstrap.servers: "unused:1"}}
      options: {{maxOffsetsPerTrigger: "150"}}
      key: {{format: raw}}
      value: {{format: json}}
      columns:
        - {{name: id, type: STRING}}
        - {{name: amount, type: STRING}}
        - {{name: card, type: STRING}}
    predicates:
      is_test: {{type: HasHeaderKey, name: test}}
    transforms:
      - {{name: drop_test, type: Filter, predicate: is_test}}
      - {{name: amount_int, type: Cast$Value, spec: "amount:int32"}}
      - {{name: mask_card, type: MaskField$Value, fields: [card]}}
    sink:
      connector: kafka
      topic: {dst}
      value: {{format: json}}
      {checkpoint}
    {errors}
"""

GOOD = {"key": "k0", "value": json.dumps({"id": "a", "amount": "5", "card": "4111"}), "headers": [("trace", "t0")]}
BAD_JSON = {"key": "k1", "value": b"{not json", "headers": [("trace", "t1"), ("trace", None)]}
BAD_CAST = {"key": "k2", "value": json.dumps({"id": "c" * 80, "amount": "x"})}  # base64 longer than 76 characters
TOMBSTONE = {"key": "k3", "value": None, "headers": [("h", b"\x00\xff")]}
FILTERED = {"key": "k4", "value": json.dumps({"id": "e", "amount": "x"}), "headers": [("test", "1")]}
GOOD_2 = {"key": None, "value": json.dumps({"id": "f", "amount": "-7"})}
RECORDS = [GOOD, BAD_JSON, BAD_CAST, TOMBSTONE, FILTERED, GOOD_2]
CLASSES = "org.apache.kafka.connect.transforms."


def compile_job(tmp_path, **fields):
    path = tmp_path / "pipeline.yaml"
    path.write_text(textwrap.dedent(PIPELINE.format(**fields)), encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    ((name, source),) = generate_all(result).items()
    (tmp_path / name).write_text(source, encoding="utf-8")
    return load_job(tmp_path / name), source


def topics(kafka_client, *names: str) -> list[str]:
    tag = uuid.uuid4().hex[:8]
    out = [f"{n}-{tag}" for n in names]
    for name in out:
        kafka_client.create_topic(name)
    return out


def _bytes(value):
    return value.encode() if isinstance(value, str) else value


def context(src: str, offset: int, stage: str, class_name: str, message: str, pipeline: str) -> list[tuple[str, bytes]]:
    return [
        ("__connect.errors.topic", src.encode()),
        ("__connect.errors.partition", b"0"),
        ("__connect.errors.offset", str(offset).encode()),
        ("__connect.errors.stage", stage.encode()),
        ("__connect.errors.class.name", class_name.encode()),
        ("__connect.errors.exception.message", message.encode()),
        ("__connect.errors.connector.name", pipeline.encode()),
    ]


def expected_errors(src: str) -> dict[int, tuple[str, str, str]]:
    at = lambda o: f"(topic {src}, partition 0, offset {o})"  # noqa: E731
    return {
        1: (
            "VALUE_CONVERTER",
            "org.apache.kafka.connect.json.JsonConverter",
            f"source value: not valid json for the declared columns {at(1)}",
        ),
        2: (
            "TRANSFORMATION",
            CLASSES + "Cast$Value",
            f"Cast$Value 'amount_int': field 'amount': cannot cast the string to int32 (not a decimal integer in range) {at(2)}",
        ),
        3: (
            "TRANSFORMATION",
            CLASSES + "MaskField$Value",
            f"MaskField$Value 'mask_card': Only Struct objects supported for [mask fields], found: null {at(3)}",
        ),
    }


def check_sink(kafka_client, dst: str) -> None:
    written = kafka_client.consume(dst)
    assert [(r.key, json.loads(r.value), r.headers) for r in written] == [
        (b"k0", {"id": "a", "amount": 5, "card": ""}, [("trace", b"t0")]),
        (None, {"id": "f", "amount": -7, "card": None}, []),
    ]


def test_streaming_dead_letters_go_to_a_topic_untouched_with_context_headers(
    kafka_bootstrap, kafka_client, spark, tmp_path, capsys
):
    src, dst, dlq = topics(kafka_client, "in", "out", "dlq")
    kafka_client.produce(src, RECORDS)
    produced = kafka_client.consume(src)  # as the broker stores them
    errors = f"errors: {{tolerance: all, deadletterqueue.topic.name: {dlq}, deadletterqueue.context.headers.enable: true, log.enable: true}}"
    job, source = compile_job(
        tmp_path,
        name="dlq_stream",
        mode="streaming",
        src=src,
        dst=dst,
        errors=errors,
        checkpoint=f"checkpoint: {tmp_path / 'ck'}\n      trigger: available-now",
    )
    # one write of Spark's Kafka sink for both topics: no foreachBatch, no persisted batch, no second pass
    assert "foreachBatch" not in source and "persist" not in source
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 0
    check_sink(kafka_client, dst)

    letters = kafka_client.consume(dlq)
    want = expected_errors(src)
    assert len(letters) == len(want)
    for letter, offset in zip(letters, sorted(want)):
        original = produced[offset]
        assert (letter.key, letter.value) == (original.key, original.value)  # untouched bytes, tombstone included
        assert letter.headers == original.headers + context(src, offset, *want[offset], "dlq_stream")

    out = capsys.readouterr()
    # in = written + filtered + superseded + dead_lettered, on the one micro-batch
    assert "[dlq_stream] micro-batch 0: in=6 written=2 filtered=1 superseded=0 dead_lettered=3" in out.out
    # log.enable: the micro-batch's first dead letter, with pipec's message, and how many more
    logged = [line for line in out.err.splitlines() if line.startswith("[dlq_stream] dead letter: ")]
    assert logged == [f"[dlq_stream] dead letter: {want[1][2]} (and 2 more in this batch)"]


def test_batch_dead_letters_go_to_files_as_json_lines(kafka_bootstrap, kafka_client, spark, tmp_path, capsys):
    src, dst = topics(kafka_client, "in", "out")
    kafka_client.produce(src, RECORDS)
    produced = kafka_client.consume(src)
    folder = tmp_path / "dead"
    errors = f"errors: {{tolerance: all, deadletterqueue.path: {folder}, log.enable: true, log.include.messages: true}}"
    job, _ = compile_job(tmp_path, name="dlq_files", mode="batch", src=src, dst=dst, errors=errors, checkpoint="")
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 0
    check_sink(kafka_client, dst)
    out = capsys.readouterr()
    assert "[dlq_files] batch: in=6 written=2 filtered=1 superseded=0 dead_lettered=3" in out.out
    # log.include.messages: the first dead letter's message, then its key and value as read, base64
    logged = [line for line in out.err.splitlines() if line.startswith("[dlq_files] dead letter: ")]
    first = produced[1]
    assert logged == [
        f"[dlq_files] dead letter: {expected_errors(src)[1][2]} key(base64)={base64.b64encode(first.key).decode()} "
        f"value(base64)={base64.b64encode(first.value).decode()} (and 2 more in this batch)"
    ]

    lines = [json.loads(line) for f in sorted(folder.glob("part-*.json")) for line in f.read_text().splitlines()]
    want = expected_errors(src)
    assert sorted(d["offset"] for d in lines) == sorted(want)
    b64 = lambda b: None if b is None else base64.b64encode(b).decode()  # noqa: E731
    for d in lines:
        original = produced[d["offset"]]
        stage, class_name, message = want[d["offset"]]
        assert d == {
            "key": b64(original.key),
            "value": b64(original.value),
            "topic": src,
            "partition": 0,
            "offset": d["offset"],
            "timestamp": d["timestamp"],
            "headers": [{"key": k, "value": b64(v)} for k, v in original.headers],
            "error": {"stage": stage, "class": class_name, "message": message},
        }


def test_dead_letter_plan_is_native(kafka_bootstrap, kafka_client, spark, tmp_path):
    src, dst, dlq = topics(kafka_client, "in", "out", "dlq")
    kafka_client.produce(src, RECORDS)
    errors = f"errors: {{tolerance: all, deadletterqueue.topic.name: {dlq}}}"
    job, _ = compile_job(tmp_path, name="dlq_plan", mode="batch", src=src, dst=dst, errors=errors, checkpoint="")
    args = job.parse_args(["--bootstrap-servers", kafka_bootstrap])
    rows = job.with_dead_letters(job.transform(job.read_source(spark, args)), dlq)  # the runtime part takes the topic
    assert python_operators(rows) == []
    plan = rows._jdf.queryExecution().executedPlan().toString()
    assert plan.count("KafkaRelation") + plan.count("KafkaScan") == 1, plan  # one read of the topic
    assert rows.columns == ["key", "value", "topic", "headers"]
    assert sorted(r.topic for r in rows.collect()) == sorted([dst] * 2 + [dlq] * 3)


def test_tolerance_none_fails_with_one_line_naming_step_reason_and_position(
    kafka_bootstrap, kafka_client, spark, tmp_path, capsys
):
    src, dst = topics(kafka_client, "in", "out")
    kafka_client.produce(src, [GOOD, BAD_CAST])
    job, _ = compile_job(
        tmp_path,
        name="none_fails",
        mode="streaming",
        src=src,
        dst=dst,
        errors="",
        checkpoint=f"checkpoint: {tmp_path / 'ck'}\n      trigger: available-now",
    )
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"none_fails: failed: record error: Cast$Value 'amount_int': field 'amount': cannot cast the string to int32 "
        f"(not a decimal integer in range) (topic {src}, partition 0, offset 1)"
    ]


def test_tolerance_none_names_the_position_of_an_undecodable_value(
    kafka_bootstrap, kafka_client, spark, tmp_path, capsys
):
    src, dst = topics(kafka_client, "in", "out")
    kafka_client.produce(src, [GOOD, GOOD, BAD_JSON])
    job, _ = compile_job(tmp_path, name="none_decode", mode="batch", src=src, dst=dst, errors="", checkpoint="")
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert re.fullmatch(
        rf"none_decode: failed: record error: VALUE_CONVERTER: source value: not valid json for the declared columns "
        rf"\(topic {src}, partition 0, offset 2\)",
        line,
    ), line


def test_counts_add_up_per_micro_batch_on_a_stream_with_poison_records(
    kafka_bootstrap, kafka_client, spark, tmp_path, capsys
):
    """600 records over 2 partitions, read 150 per micro-batch: every 10th is not JSON, every 7th (not 10th) has
    an amount that is no int32, every 5th (neither) is a test payment; each micro-batch's line adds up, and
    log.enable logs each micro-batch's first dead letter (its lowest offset) and how many more."""
    tag = uuid.uuid4().hex[:8]
    src, dst, dlq = f"in-{tag}", f"out-{tag}", f"dlq-{tag}"
    kafka_client.create_topic(src, partitions=2)
    kafka_client.create_topic(dst)
    kafka_client.create_topic(dlq)
    records, want = [], Counter()
    for i in range(600):
        if i % 10 == 0:
            records.append({"key": f"k{i}", "value": b"{oops", "partition": i % 2})
            want["dead_lettered"] += 1
        elif i % 7 == 0:
            records.append(
                {"key": f"k{i}", "value": json.dumps({"id": str(i), "amount": "9" * 12}), "partition": i % 2}
            )
            want["dead_lettered"] += 1
        elif i % 5 == 0:
            records.append(
                {
                    "key": f"k{i}",
                    "value": json.dumps({"id": str(i), "amount": "1"}),
                    "headers": [("test", "1")],
                    "partition": i % 2,
                }
            )
            want["filtered"] += 1
        else:
            records.append(
                {
                    "key": f"k{i}",
                    "value": json.dumps({"id": str(i), "amount": str(i), "card": "4111"}),
                    "partition": i % 2,
                }
            )
            want["written"] += 1
    kafka_client.produce(src, records)
    errors = f"errors: {{tolerance: all, deadletterqueue.topic.name: {dlq}, log.enable: true}}"
    job, _ = compile_job(
        tmp_path,
        name="dlq_counts",
        mode="streaming",
        src=src,
        dst=dst,
        errors=errors,
        checkpoint=f"checkpoint: {tmp_path / 'ck'}\n      trigger: available-now",
    )
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 0

    out = capsys.readouterr()
    lines = re.findall(
        r"^\[dlq_counts\] micro-batch (\d+): in=(\d+) written=(\d+) filtered=(\d+) superseded=(\d+) dead_lettered=(\d+)$",
        out.out,
        re.MULTILINE,
    )
    assert len(lines) == 4  # maxOffsetsPerTrigger 150: four micro-batches
    totals = Counter()
    for _, rows_in, written, filtered, superseded, dead in lines:
        rows_in, written, filtered, superseded, dead = map(int, (rows_in, written, filtered, superseded, dead))
        assert rows_in == written + filtered + superseded + dead
        totals.update({"in": rows_in, "written": written, "filtered": filtered, "dead_lettered": dead})
    assert totals == Counter({"in": 600, **want})
    assert len(kafka_client.consume(dst)) == want["written"]
    letters = kafka_client.consume(dlq)
    assert len(letters) == want["dead_lettered"]
    logged = [
        line.removeprefix("[dlq_counts] dead letter: ")
        for line in out.err.splitlines()
        if line.startswith("[dlq_counts] dead letter: ")
    ]
    more = sorted(int(dead) - 1 for *_, dead in lines if int(dead) > 0)
    assert sorted(int(re.search(r" \(and (\d+) more in this batch\)$", m)[1]) for m in logged) == more, logged
    offsets = {(i % 2, i // 2) for i in range(600) if i % 10 == 0 or i % 7 == 0}  # (partition, offset) of each one
    for message in logged:
        where = re.search(rf"\(topic {src}, partition (\d), offset (\d+)\) \(and \d+ more in this batch\)$", message)
        assert where and (int(where[1]), int(where[2])) in offsets, message
    print(f"figures: {len(lines)} micro-batches {lines}, totals {dict(totals)}", file=sys.stderr)
