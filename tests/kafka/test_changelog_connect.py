"""The generated streaming upsert-kafka job runs through Spark Connect (SPARK_REMOTE): its changelog state keeps
its bookkeeping in DataFrame reads and writes, so the same file runs with no JVM in the client (issue 13).

A topic gets inserts, then three rounds of changes (updates, identical re-upserts, deletes, new keys); after each,
the job runs once more (`--trigger available-now`) from the same checkpoint, from a client folder with relative
paths. The test's copy of the job says COMPACT_AFTER = 1, so the four micro-batches write a base, a delta, a base
(a compaction) and a delta that empties the replaced base. The events written are exactly the reference model's
(tests/changelog_model.py), and the state's markers on disk say so.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from changelog_model import normalize
from upsert_jobs import compile_job, markers

pytestmark = [pytest.mark.kafka, pytest.mark.spark, pytest.mark.connect]

NAME = "changelog_connect"
SINK = {"path": "out", "checkpoint": "checkpoint", "trigger": "available-now"}  # relative: the client's folder
RUN_TIMEOUT_S = 300


def record(key: int, name: str | None) -> dict:
    value = None if name is None else json.dumps({"id": key, "name": name})
    return {"key": json.dumps({"id": key}), "value": value}


def changes(rng: random.Random, live: dict[int, str], round_: int) -> list[dict]:
    """Updates, identical re-upserts, deletes (of live and unseen keys) and new keys."""
    out = []
    for key in rng.sample(range(60), 25):
        roll = rng.random()
        if roll < 0.25:
            live.pop(key, None)
            out.append(record(key, None))
        elif roll < 0.4 and key in live:
            out.append(record(key, live[key]))
        else:
            live[key] = f"n{key}-{round_}"
            out.append(record(key, live[key]))
    return out


def written(out: Path) -> list[tuple]:
    """(key, op, value, offset) of each event the files sink wrote, as the model gives them."""
    rows = [json.loads(line) for part in out.glob("part-*.json") for line in part.read_text("utf-8").splitlines()]
    return [
        (
            json.dumps({"id": r["id"]}).encode(),
            r["op"],
            json.dumps({"id": r["id"], "name": r["name"]}).encode(),
            r["offset"],
        )
        for r in rows
    ]


def test_the_upsert_streaming_job_runs_through_spark_connect(spark_connect, kafka_bootstrap, kafka_client, tmp_path):
    address, _ = spark_connect
    topic = kafka_client.create_topic(partitions=2)
    job = compile_job(tmp_path, NAME, SINK, compact_after=1)
    client = tmp_path / "client"
    client.mkdir()
    env = {**os.environ, "SPARK_REMOTE": address, "UPSERT_IN_TOPIC": topic, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap}
    rng, live = random.Random(13), {k: f"n{k}-0" for k in range(40)}
    produced = []
    for round_ in range(4):
        batch = [record(k, name) for k, name in live.items()] if round_ == 0 else changes(rng, live, round_)
        produced += kafka_client.produce(topic, batch)
        # --sink-path: a path the client resolves (the YAML's is resolved inside foreachBatch, on the server)
        done = subprocess.run(
            [sys.executable, str(job), "--sink-path", "out"],
            cwd=client,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
        )
        assert done.returncode == 0, (
            f"round {round_}: exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        )

    expected = normalize([(r.key, r.value, r.partition, r.offset) for r in produced], {})
    assert sorted(written(client / "out")) == sorted(expected)  # each micro-batch ran once: no replay duplicates
    # where the client meant (relative paths), and the versions the four micro-batches wrote
    state = sorted((m["slot"], m["kind"], m["batch"]) for m in markers(client / "checkpoint"))
    assert state == [("base-0", "free", 3), ("base-1", "base", 2), ("delta-0", "delta", 3)], state
