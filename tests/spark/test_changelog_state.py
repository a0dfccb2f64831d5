"""The upsert-kafka changelog state (templates/changelog/state.py.j2) against a reference model of Flink's
ChangelogNormalize, over random micro-batches with frequent compaction: each micro-batch's events, a
replayed micro-batch's events, the stored table, and the versions left on disk.

The model is tests/changelog_model.py.
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

import pytest

from changelog_model import normalize
from compiler.testing.runner import load_job

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
RAW_SCHEMA = (
    "key BINARY, value BINARY, topic STRING, partition INT, offset BIGINT, timestamp TIMESTAMP, "
    "timestampType INT, headers ARRAY<STRUCT<key: STRING, value: BINARY>>"
)
TS = dt.datetime(2024, 1, 1)


def random_batches(seed: int, batches: int, keys: int = 40) -> list[list[tuple]]:
    """Raw rows: each key in one of two partitions, a few values per key (so identical re-upserts happen), deletes."""
    rng = random.Random(seed)
    offsets = [0, 0]
    out = []
    for _ in range(batches):
        rows = []
        for _ in range(rng.randrange(5, 30)):
            k = rng.randrange(keys)
            partition = k % 2
            value = None if rng.random() < 0.2 else f"v{rng.randrange(3)}".encode()
            rows.append((f"k{k}".encode(), value, "t", partition, offsets[partition], TS, 0, []))
            offsets[partition] += 1
        out.append(rows)
    return out


def emitted(changes) -> list[tuple]:
    return sorted((bytes(r["key"]), r["op"], bytes(r["value"]), r["offset"]) for r in changes.collect())


@pytest.fixture(scope="module")
def job():
    return load_job(ROOT / "generated" / "customer_profiles.py")


def test_events_replays_and_compaction_match_the_model(job, spark, tmp_path):
    batches = random_batches(seed=15, batches=7)
    table: dict = {}
    expected = [sorted(normalize([(r[0], r[1], r[3], r[4]) for r in rows], table)) for rows in batches]
    state = job.ChangelogState(spark, str(tmp_path / "state"))
    state.COMPACT_AFTER = 2  # a base at least every third micro-batch (and whenever the deltas outweigh it)
    compactions = []
    for batch_id, rows in enumerate(batches):
        raw = spark.createDataFrame(rows, RAW_SCHEMA)
        assert emitted(state.apply(raw, batch_id)) == expected[batch_id], f"micro-batch {batch_id}"
        if ("base", batch_id, True) in state.versions():
            compactions.append(batch_id)
        if batch_id == 1 or batch_id in compactions[1:]:  # Spark replays a micro-batch whose commit was lost
            assert emitted(state.apply(raw, batch_id)) == expected[batch_id], f"micro-batch {batch_id} replayed"
    assert len(compactions) >= 3, compactions

    # the last micro-batch read the newest base before it and the deltas after that base (a replay of it reads
    # them again); every older version is gone
    last = len(batches) - 1
    base = max(n for n in compactions if n < last)
    own = ("base" if last in compactions else "delta", last)
    versions = [(kind, n) for kind, n, complete in state.versions() if complete]
    assert versions == [("base", base), *(("delta", n) for n in range(base + 1, last)), own]
    entries, _, _ = state.read(raw, len(batches))
    stored = state.newest(entries).where("value IS NOT NULL").collect()
    assert {bytes(r["key"]): (bytes(r["value"]), r["offset"]) for r in stored} == table
