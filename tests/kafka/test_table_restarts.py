"""Table sinks survive SIGKILL (issue 26, reliability): 100,000 records over 5,000 keys (20,000 over 1,000 unless
PIPEC_LONG_TESTS=1), about one in ten a
tombstone (a delete), in two partitions, read by three generated jobs run as `python job.py` (one at a time: the
broker's JVM and the job's are the machine's two): a Delta append (Kafka source, with the envelope), a Delta upsert
(SCD type 1) from an upsert-kafka source (its per-key state under the checkpoint), and a Delta history (SCD type 2)
from the same changes as Debezium messages in a second topic (a changelog-format source; tests/tables has the
history of an upsert-kafka source). Each job is SIGKILLed (driver and JVM at once) while a micro-batch it planned is in flight, then run
to the end from its checkpoint with `--trigger available-now`. The table, read by delta-rs (no JVM), must equal the
reference state computed here: nothing lost, nothing duplicated.

LONG: several minutes (three jobs, each started twice; with PIPEC_LONG_TESTS=1, 100,000 records through MERGE, about
17 minutes here). Run with -s for the figures.
"""

from __future__ import annotations

import json
import os
import random
import textwrap
import uuid
from pathlib import Path

import pytest
from killable_job import Checkpoint, JobProcess, job_env
from pipec.project.driver import build_all, generate_all

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

# the 100,000 records with PIPEC_LONG_TESTS=1 (about 17 minutes on a loaded 2-core machine); by default
# 20,000 over 1,000 keys, so the suite keeps its time budget; five micro-batches either way
LONG = os.environ.get("PIPEC_LONG_TESTS") == "1"
RECORDS, KEYS, DELETES = (100_000, 5_000, 0.1) if LONG else (20_000, 1_000, 0.1)
SPARK_ARGS = [
    "--master",
    "local[2]",
    "--conf",
    "spark.sql.shuffle.partitions=2",
    "--conf",
    "spark.ui.enabled=false",
    "--conf",
    "spark.databricks.delta.snapshotPartitions=2",
]
RUN_TIMEOUT_S = 900
SOURCES = {
    "kafka": """\
      connector: kafka
      value: {format: json}""",
    "upsert-kafka": """\
      connector: upsert-kafka
      primary-key: [id]
      key: {format: json}
      value: {format: json}""",
    "debezium": """\
      connector: kafka
      key: {format: json, fields: [id]}
      value: {format: debezium-json}""",
}
PIPELINE = """\
    version: 1
    name: {name}
    mode: streaming
    source:
{source}
      topics: ["${{env:{topic}}}"]
      properties: {{bootstrap.servers: "${{env:KAFKA_BOOTSTRAP_SERVERS}}"}}
      options: {{maxOffsetsPerTrigger: {per_batch}}}
      columns:
        - {{name: id, type: BIGINT}}
        - {{name: name, type: STRING}}
        - {{name: v, type: BIGINT}}
    sink:
      connector: delta
      path: ${{env:LAKE}}/{name}
{sink}
      checkpoint: ${{env:CHECKPOINT_DIR}}/{name}
"""
JOBS = {  # name -> (source, its topic's variable, sink settings)
    "t_append": ("kafka", "TABLE_TOPIC", "      apply: append\n      envelope: true"),
    "t_upsert": ("upsert-kafka", "TABLE_TOPIC", "      apply: upsert\n      primary-key: [id]"),
    "t_history": ("debezium", "CDC_TOPIC", "      apply: history\n      primary-key: [id]"),
}


def produce(kafka_client, topic: str) -> list:
    """The records, as the broker stored them (partition, offset, timestamp)."""
    rng = random.Random(26)
    records = []
    for i in range(RECORDS):
        key = rng.randrange(KEYS)
        value = None if rng.random() < DELETES else json.dumps({"id": key, "name": f"n{i}", "v": i})
        records.append({"key": json.dumps({"id": key}), "value": value})
    return kafka_client.produce(topic, records)


def produce_debezium(kafka_client, topic: str, consumed) -> list:
    """The same changes as Debezium messages, in the same order: a create, an update (with its before image) or a
    delete (its before image; none for a key with no row, as Debezium never sends one)."""
    rows: dict[int, dict] = {}
    messages = []
    for r in sorted(consumed, key=lambda r: (r.timestamp, r.partition, r.offset)):
        key = json.loads(r.key)["id"]
        before = rows.get(key)
        if r.value is None:
            if before is None:
                continue
            message = {"op": "d", "before": before}
            del rows[key]
        else:
            rows[key] = json.loads(r.value)
            message = {"op": "u" if before else "c", "before": before, "after": rows[key]}
        messages.append({"key": r.key, "value": json.dumps(message)})
    return kafka_client.produce(topic, messages)


def cdc_reference(consumed) -> set:
    """The history table's versions the Debezium messages make: (id, name, v, start ms, end ms), each key's
    messages in offset order; a version ends at the next change or delete of its key."""
    by_key: dict[int, list] = {}
    for r in sorted(consumed, key=lambda r: (r.partition, r.offset)):
        by_key.setdefault(json.loads(r.key)["id"], []).append(r)
    versions = set()
    for key, records in by_key.items():
        current = None
        for r in records:
            message = json.loads(r.value)
            if current is not None:
                versions.add((key, current[0], current[1], current[2], r.timestamp))
            after = message.get("after")
            current = (after["name"], after["v"], r.timestamp) if message["op"] != "d" else None
        if current is not None:
            versions.add((key, current[0], current[1], current[2], None))
    return versions


def reference(consumed) -> tuple[set, set]:
    """The upsert table's rows (id, name, v), and the versions (id, name, v, start ms, end ms) the records would
    make, each key's records in offset order (a key stays in its partition); a delete of a key with no row emits
    nothing (upsert-kafka's changelog)."""
    by_key: dict[int, list] = {}
    for r in sorted(consumed, key=lambda r: (r.partition, r.offset)):
        by_key.setdefault(json.loads(r.key)["id"], []).append(r)
    rows, versions = set(), set()
    for key, records in by_key.items():
        current = None  # (name, v, start)
        for r in records:
            if r.value is None:
                if current is not None:
                    versions.add((key, current[0], current[1], current[2], r.timestamp))
                current = None
                continue
            value = json.loads(r.value)
            if current is not None:
                versions.add((key, current[0], current[1], current[2], r.timestamp))
            current = (value["name"], value["v"], r.timestamp)
        if current is not None:
            versions.add((key, current[0], current[1], current[2], None))
            rows.add((key, current[0], current[1]))
    return rows, versions


def millis(value) -> int | None:
    return None if value is None else int(value.timestamp() * 1000)


def run_job(tmp_path: Path, name: str, env: dict) -> dict:
    source, topic, sink = JOBS[name]
    path = tmp_path / f"{name}.yaml"
    text = PIPELINE.format(name=name, source=SOURCES[source], sink=sink, topic=topic, per_batch=RECORDS // 5)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    ((filename, text),) = generate_all(result).items()
    (tmp_path / filename).write_text(text, encoding="utf-8")
    checkpoint = Checkpoint(tmp_path / "ck" / name)
    first = JobProcess(tmp_path / filename, SPARK_ARGS, env, tmp_path / f"{name}-1.log")
    try:
        checkpoint.wait_until(
            lambda: checkpoint.latest("commits") >= 0 and checkpoint.in_flight(),
            first,
            timeout=RUN_TIMEOUT_S,
            what="a planned micro-batch after a committed one",
        )
        kill = first.kill("group", checkpoint)
    finally:
        first.ensure_dead()
    final = JobProcess(
        tmp_path / filename, [*SPARK_ARGS, "--trigger", "available-now"], env, tmp_path / f"{name}-2.log"
    )
    try:
        code = final.wait(RUN_TIMEOUT_S)
    finally:
        final.ensure_dead()
    assert code == 0, f"{name}: the run after the kill failed (exit {code}):\n{final.output()[-4000:]}"
    assert not kill.orphans, kill
    return {"kill": kill, "output": first.output() + final.output()}


@pytest.fixture(scope="module")
def tables(kafka_bootstrap, kafka_client, tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("table_restarts")
    topic = kafka_client.create_topic(f"tables-{uuid.uuid4().hex[:8]}", partitions=2)
    cdc_topic = kafka_client.create_topic(f"tables-cdc-{uuid.uuid4().hex[:8]}", partitions=2)
    consumed = produce(kafka_client, topic)
    cdc = produce_debezium(kafka_client, cdc_topic, consumed)
    env = job_env(
        {
            "TABLE_TOPIC": topic,
            "CDC_TOPIC": cdc_topic,
            "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
            "LAKE": str(tmp / "lake"),
            "CHECKPOINT_DIR": str(tmp / "ck"),
        }
    )
    return {"consumed": consumed, "cdc": cdc, "runs": {}, "lake": tmp / "lake", "tmp": tmp, "env": env}


def ran(tables: dict, name: str) -> dict:
    """The job's kill-and-restart run (each test runs its own job: -k picks one)."""
    if name not in tables["runs"]:
        tables["runs"][name] = run_job(tables["tmp"], name, tables["env"])
    return tables["runs"][name]


def read(lake: Path, name: str) -> list[dict]:
    import deltalake

    return deltalake.DeltaTable(str(lake / name)).to_pyarrow_table().to_pylist()


def landed(run: dict) -> str:
    k = run["kill"]
    return f"killed at batch {k.planned} ({'in flight' if k.planned > k.committed else 'between batches'}), gone in {k.exit_s} s"


def test_append_is_exactly_once(tables):
    run = ran(tables, "t_append")
    rows = read(tables["lake"], "t_append")
    positions = [(r["partition"], r["offset"]) for r in rows]
    print(f"\nappend: {len(rows)} rows of {len(tables['consumed'])} records; {landed(run)}")
    assert len(positions) == len(set(positions)) == len(tables["consumed"])  # nothing lost, nothing duplicated
    assert set(positions) == {(r.partition, r.offset) for r in tables["consumed"]}


def test_upsert_equals_the_reference_state(tables):
    expected, _ = reference(tables["consumed"])
    run = ran(tables, "t_upsert")
    rows = read(tables["lake"], "t_upsert")
    got = [(r["id"], r["name"], r["v"]) for r in rows]
    print(f"\nupsert: {len(got)} rows, {len(expected)} expected; {landed(run)}")
    assert len(got) == len(set(got))
    assert set(got) == expected


def test_history_equals_the_reference_versions(tables):
    expected = cdc_reference(tables["cdc"])
    run = ran(tables, "t_history")
    rows = read(tables["lake"], "t_history")
    got = [(r["id"], r["name"], r["v"], millis(r["__START_AT"]), millis(r["__END_AT"])) for r in rows]
    print(f"\nhistory: {len(got)} versions, {len(expected)} expected; {landed(run)}")
    assert len(got) == len(set(got))
    assert set(got) == expected
