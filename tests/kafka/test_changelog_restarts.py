"""The upsert-kafka changelog state is exactly-once across SIGKILLs with 100k keys in it (issue 15).

A generated job (upsert-kafka source -> files sink with the op) first reads 100,000 inserts, then changes arrive
(updates, identical re-upserts, deletes, new keys) while the job is SIGKILLed three times and restarted from its
checkpoint: just after a micro-batch wrote a new base (a compaction) but before Spark committed it, just after one
wrote a delta, and as one is planned. Each replay must start from the state before its micro-batch. The job's
COMPACT_AFTER is set to 2 in the test's copy, so compactions come every few micro-batches. A final run with
`--trigger available-now` reads to the end.

The files sink behind foreachBatch is at-least-once, so a replayed micro-batch may write its events twice; the
state is exactly-once when the distinct events written are exactly the reference model's (tests/changelog_model.py)
over everything produced: a replay that started from the wrong state would lose or invent events. Run with -s to
see the figures.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter

import pytest
from changelog_model import normalize
from killable_job import Checkpoint, JobProcess, job_env
from upsert_jobs import compile_job, markers

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

KEYS = 100_000
NAME = "changelog_restarts"
SINK = {
    "path": "${env:OUT_DIR}/out",
    "checkpoint": f"${{env:CHECKPOINT_DIR}}/{NAME}",
    "trigger": '"processing-time: 1 second"',
}
SPARK_ARGS = ["--master", "local[2]", "--conf", "spark.sql.shuffle.partitions=2", "--conf", "spark.ui.enabled=false"]
# (how, where): after this run's first commit, kill the driver or the whole group when a micro-batch in flight has
# written a base or a delta, or as soon as one is planned
KILLS = [("driver", "base"), ("group", "delta"), ("driver", "planned")]


def record(key: int, value: bytes | None) -> dict:
    return {"key": json.dumps({"id": key}), "value": value}


def value(key: int, version: int) -> bytes:
    return json.dumps({"id": key, "name": f"n{key}-{version}"}).encode()


class Changes(threading.Thread):
    """Produces changes in chunks until stopped: updates, identical re-upserts, deletes and new keys."""

    def __init__(self, kafka_client, topic: str, produced: list):
        super().__init__(daemon=True)
        self.kafka_client, self.topic, self.produced = kafka_client, topic, produced
        self.rng, self.versions, self.next_key = random.Random(15), {k: 0 for k in range(KEYS)}, KEYS
        self.error: BaseException | None = None
        self.stopping = threading.Event()

    def chunk(self, size: int = 200) -> list[dict]:
        out = []
        for _ in range(size):
            roll, key = self.rng.random(), self.rng.randrange(self.next_key)
            if roll < 0.1:
                key, self.next_key = self.next_key, self.next_key + 1
                self.versions[key] = 0
            elif roll < 0.2:
                self.versions.pop(key, None)
                out.append(record(key, None))
                continue
            elif roll < 0.7 or key not in self.versions:  # otherwise an identical re-upsert
                self.versions[key] = self.versions.get(key, 0) + 1
            out.append(record(key, value(key, self.versions[key])))
        return out

    def run(self) -> None:
        try:
            while not self.stopping.is_set():
                self.produced += self.kafka_client.produce(self.topic, self.chunk())
                time.sleep(0.2)
        except BaseException as exc:  # reported by stop()
            self.error = exc

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=60)
        assert self.error is None, f"producing failed: {self.error!r}"


def written(checkpoint: Checkpoint, kind: str) -> bool:
    """A micro-batch in flight has written its state version of this kind (base or delta): the slot's marker."""
    batch = checkpoint.latest("offsets")
    return checkpoint.in_flight() and any(m["kind"] == kind and m["batch"] == batch for m in markers(checkpoint.path))


def kill_at(job: JobProcess, checkpoint: Checkpoint, how: str, where: str):
    """After a commit of this run: when a micro-batch in flight has written a `base` or a `delta`, or is `planned`."""
    committed = checkpoint.latest("commits")
    checkpoint.wait_until(
        lambda: checkpoint.latest("commits") > committed, job, timeout=180, what="a commit of this run"
    )
    condition = checkpoint.in_flight if where == "planned" else lambda: written(checkpoint, where)
    checkpoint.wait_until(condition, job, timeout=120, what=f"a micro-batch in flight at: {where}")
    return job.kill(how, checkpoint)


def test_changelog_state_is_exactly_once_across_sigkills_with_100k_keys(kafka_bootstrap, kafka_client, spark, tmp_path):
    started = time.monotonic()
    topic = kafka_client.create_topic(partitions=2)
    produced = kafka_client.produce(topic, [record(k, value(k, 0)) for k in range(KEYS)])
    job_file = compile_job(tmp_path, NAME, SINK, compact_after=2)
    env = job_env(
        {
            "UPSERT_IN_TOPIC": topic,
            "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
            "CHECKPOINT_DIR": str(tmp_path / "ck"),
            "OUT_DIR": str(tmp_path),
        }
    )
    checkpoint = Checkpoint(tmp_path / "ck" / NAME)
    changes = Changes(kafka_client, topic, produced)
    kills, runs = [], []
    try:
        for number, (how, where) in enumerate(KILLS):
            runs.append(JobProcess(job_file, SPARK_ARGS, env, tmp_path / f"run{number}.log"))
            if number == 0:  # the first micro-batch holds the 100k inserts; changes start once it has committed
                checkpoint.wait_until(lambda: checkpoint.latest("commits") >= 0, runs[-1], timeout=180, what="batch 0")
                changes.start()
            kills.append(kill_at(runs[-1], checkpoint, how, where))
        changes.stop()
        final = JobProcess(job_file, [*SPARK_ARGS, "--trigger", "available-now"], env, tmp_path / "final.log")
        runs.append(final)
        assert final.wait(180) == 0, f"the final run failed:\n{final.output()[-4000:]}"
    finally:
        if changes.is_alive():
            changes.stop()
        for job in runs:
            job.ensure_dead()

    expected = Counter(normalize([(r.key, r.value, r.partition, r.offset) for r in produced], {}))
    rows = spark.read.json(str(tmp_path / "out")).collect()
    written = Counter((json.dumps({"id": r["id"]}).encode(), r["op"], value_of(r), r["offset"]) for r in rows)
    assert max(expected.values()) == 1  # every event of the model is distinct (offsets), so duplicates are replays
    missing, invented = set(expected) - set(written), set(written) - set(expected)
    assert not missing and not invented, (
        f"{len(missing)} events missing, {len(invented)} invented: {sorted(missing)[:5]} {sorted(invented)[:5]}"
    )
    slots = markers(checkpoint.path)
    versions = sorted(f"{m['slot']}:{m['kind']}@{m['batch']}" for m in slots)
    landed = ", ".join(f"{k.how}@batch{k.planned}{' in flight' if k.planned > k.committed else ''}" for k in kills)
    print(
        f"\nchangelog state, {KEYS:,} keys: kills [{landed}]; {len(produced):,} records in, "
        f"{len(expected):,} events, {sum(written.values()) - len(written):,} written twice by replays; "
        f"{checkpoint.latest('commits') + 1} micro-batches; state slots at the end {versions}; "
        f"{time.monotonic() - started:.0f} s"
    )
    assert sum(k.planned > k.committed for k in kills) >= 2, f"too few kills landed mid-batch: {kills}"
    # old versions are cleaned up: the base a compaction replaced is emptied by the next micro-batch
    last = checkpoint.latest("commits")
    bases = sorted((m for m in slots if m["kind"] == "base"), key=lambda m: m["batch"])
    assert len(bases) == 1 or (len(bases) == 2 and bases[-1]["batch"] == last), versions


def value_of(row) -> bytes:
    return json.dumps({"id": row["id"], "name": row["name"]}).encode()
