"""The upsert-kafka changelog state (templates/changelog/state.py.j2) against a reference model of Flink's
ChangelogNormalize, over random micro-batches with compaction every two deltas: each micro-batch's events, a
replayed micro-batch's events, the stored table, and the versions left on disk.

The model follows docs/changelogs.md (Flink's semantics): per key in offset order, a new key gives +I, a changed
value -U (the stored image) then +U, a delete -D with the stored image; a delete of an absent key and an identical
re-upsert give nothing (and keep the stored image, with its offset).
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

import pytest

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


def model(batches: list[list[tuple]]) -> tuple[list[list[tuple]], dict]:
    """Each batch's events as (key, op, value, offset), and the table after the last batch: key -> (value, offset)."""
    table: dict[bytes, tuple[bytes, int]] = {}
    events = []
    for rows in batches:
        out = []
        for key, value, _, _, offset, *_ in sorted(rows, key=lambda r: (r[3], r[4])):
            stored = table.get(key)
            if value is None:
                if stored:
                    out.append((key, "-D", *stored))
                    del table[key]
            elif stored is None:
                out.append((key, "+I", value, offset))
                table[key] = (value, offset)
            elif value != stored[0]:
                out += [(key, "-U", *stored), (key, "+U", value, offset)]
                table[key] = (value, offset)
        events.append(sorted(out))
    return events, table


def emitted(changes) -> list[tuple]:
    return sorted((bytes(r["key"]), r["op"], bytes(r["value"]), r["offset"]) for r in changes.collect())


@pytest.fixture(scope="module")
def job():
    return load_job(ROOT / "generated" / "customer_profiles.py")


def test_events_replays_and_compaction_match_the_model(job, spark, tmp_path):
    batches = random_batches(seed=15, batches=7)
    expected, table = model(batches)
    state = job.ChangelogState(spark, str(tmp_path / "state"))
    state.COMPACT_AFTER = 2  # micro-batches 2 and 5 write a base
    for batch_id, rows in enumerate(batches):
        raw = spark.createDataFrame(rows, RAW_SCHEMA)
        assert emitted(state.apply(raw, batch_id)) == expected[batch_id], f"micro-batch {batch_id}"
        if batch_id in (1, 2, 5):  # Spark replays a micro-batch whose commit was lost: the same events again
            assert emitted(state.apply(raw, batch_id)) == expected[batch_id], f"micro-batch {batch_id} replayed"

    versions = [(kind, n) for kind, n, complete in state.versions() if complete]
    # micro-batch 6 read base 5 and wrote delta 6; base 2 and deltas 3 and 4 (read by micro-batch 5, which a
    # replay would read again) are gone
    assert versions == [("base", 5), ("delta", 6)]
    entries, _, _ = state.read(raw, len(batches))
    stored = state.newest(entries).where("value IS NOT NULL").collect()
    assert {bytes(r["key"]): (bytes(r["value"]), r["offset"]) for r in stored} == table
