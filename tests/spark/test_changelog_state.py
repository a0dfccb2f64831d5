"""The upsert-kafka changelog state (templates/changelog/state.py.j2) against a reference model of Flink's
ChangelogNormalize, over random micro-batches with frequent compaction: each micro-batch's events, a
replayed micro-batch's events, the stored table, the versions left on disk, and replays after a crash at each
step of writing a slot.

The model is tests/changelog_model.py.
"""

from __future__ import annotations

import datetime as dt
import random
import shutil
from pathlib import Path

import pytest
from changelog_model import normalize
from pipec.testing.runner import load_job

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


def compacted(state, batch_id: int) -> bool:
    return any(m["kind"] == "base" and m["batch"] == batch_id for m in state.markers())


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
        if compacted(state, batch_id):
            compactions.append(batch_id)
        if batch_id == 1 or batch_id in compactions[1:]:  # Spark replays a micro-batch whose commit was lost
            assert emitted(state.apply(raw, batch_id)) == expected[batch_id], f"micro-batch {batch_id} replayed"
    assert len(compactions) >= 3, compactions

    # the next micro-batch reads the newest base and the deltas after it; the base a compaction replaced is
    # emptied by the micro-batch after it (a replay of the compacting micro-batch still reads it)
    last = len(batches) - 1
    markers = state.markers()
    base, deltas = state.live(markers, last + 1)
    assert base["batch"] == max(compactions)
    assert [d["batch"] for d in deltas] == list(range(base["batch"] + 1, last + 1))
    replaced = [m for m in markers if m["kind"] == "base" and m is not base]
    assert replaced == [] or last in compactions, markers
    assert len(markers) <= state.COMPACT_AFTER + 2  # a fixed ring of slots
    stored = state.newest(state.read(raw, markers, last + 1)).where("value IS NOT NULL").collect()
    assert {bytes(r["key"]): (bytes(r["value"]), r["offset"]) for r in stored} == table


class Crash(Exception):
    """The job dies here."""


# where a write into a slot stops: its data partly written, its data whole, its old marker deleted by the
# marker's overwrite (the new one not yet there), its new marker whole (the micro-batch is not committed)
STEPS = ("data partly written", "data written", "marker deleted", "marker written")


def crashing_state(job, plan: dict[str, list[str]]):
    """A ChangelogState whose writes of a kind (delta, base, free) crash at the steps `plan` gives that kind, one
    step a write, until none are left."""

    class CrashingState(job.ChangelogState):
        def write_slot(self, slot, frame, kind, batch_id):
            if not plan[kind]:
                return super().write_slot(slot, frame, kind, batch_id)
            step = plan[kind].pop(0)
            data, marker = Path(self.folder) / slot, Path(self.folder) / "markers" / slot
            if step == "data partly written":
                frame.limit(1).write.mode("overwrite").parquet(str(data))
            elif step == "marker deleted":
                frame.write.mode("overwrite").parquet(str(data))
                shutil.rmtree(marker, ignore_errors=True)
            elif step == "data written":
                frame.write.mode("overwrite").parquet(str(data))
            else:
                super().write_slot(slot, frame, kind, batch_id)
            raise Crash(f"{kind} {slot} of micro-batch {batch_id}: {step}")

    return CrashingState


def test_a_crash_at_any_step_of_a_write_leaves_a_state_the_replay_reads_correctly(job, spark, tmp_path):
    """Each crash kills the micro-batch; a new state object (the restarted job) replays it and must emit the model's
    events, and so must every micro-batch after it."""
    batches = random_batches(seed=13, batches=12)
    plan = {kind: list(STEPS) for kind in ("delta", "base", "free")}
    state_class = crashing_state(job, plan)
    table: dict = {}
    crashes = []
    new_state = lambda: state_class(spark, str(tmp_path / "state"))  # noqa: E731
    state = new_state()
    for batch_id, rows in enumerate(batches):
        expected = sorted(normalize([(r[0], r[1], r[3], r[4]) for r in rows], table))
        raw = spark.createDataFrame(rows, RAW_SCHEMA)
        while True:
            state.COMPACT_AFTER = 2
            try:
                assert emitted(state.apply(raw, batch_id)) == expected, f"micro-batch {batch_id} after {crashes}"
                break
            except Crash as crash:
                crashes.append(str(crash))
                state = new_state()
    assert not any(plan.values()), f"crashes not reached: {plan}; reached: {crashes}"
