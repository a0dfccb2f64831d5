"""The upsert-kafka changelog state, two designs measured on the same data (issue 6).

native  the design jobs use: foreachBatch, each micro-batch unioned with the last image per key (parquet under the
        checkpoint, one version per batch), window functions per key (lag / last) find the previous image, explode
        emits +I / -U,+U / -D; the new images are written as the next version. Native operators only.
pandas  Spark's stateful API, `applyInPandasWithState`: per key, a Python function sorts the key's records of the
        micro-batch by offset and emits the same events against a GroupState holding the last image.

Both read the same raw Kafka-shaped rows (key, value, topic, partition, offset, timestamp, timestampType, headers)
as a stream of parquet files, one file per micro-batch, and count the events they emit (checked equal). Output: one
JSON line per design with records/s and microseconds per record (wall clock, this 2-core host, local[2]).

    .venv/bin/python -m bench.changelog_state [--keys 20000] [--batches 5] [--batch-rows 20000]

Needs pandas and pyarrow for the `pandas` design (not a pipec dependency: jobs never import them).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RAW_SCHEMA = (
    "key BINARY, value BINARY, topic STRING, partition INT, offset BIGINT, timestamp TIMESTAMP, "
    "timestampType INT, headers ARRAY<STRUCT<key: STRING, value: BINARY>>"
)


def make_batches(spark, folder: Path, keys: int, batches: int, rows: int, first: int, seed: int = 7) -> None:
    """`batches` parquet files of `rows` upserts (the first `first`) over `keys` keys: 8% deletes, 10% identical
    re-upserts."""
    import datetime as dt

    rng = random.Random(seed)
    last: dict[int, bytes | None] = {}
    offset = 0
    for b in range(batches):
        data = []
        for _ in range(first if b == 0 else rows):
            k = rng.randrange(keys)
            roll = rng.random()
            if roll < 0.08:
                value = None
            elif roll < 0.18 and last.get(k) is not None:
                value = last[k]
            else:
                value = json.dumps({"id": k, "n": rng.randrange(10**6)}).encode()
            last[k] = value
            key = json.dumps({"id": k}).encode()
            data.append((key, value, "t", 0, offset, dt.datetime(2024, 1, 1), 0, []))
            offset += 1
        spark.createDataFrame(data, RAW_SCHEMA).coalesce(1).write.mode("append").parquet(str(folder / f"b{b}"))
        for part in (folder / f"b{b}").glob("part-*.parquet"):
            part.rename(folder / f"batch-{b:04d}.parquet")
        shutil.rmtree(folder / f"b{b}")


def batch_ms(query) -> list[int]:
    """Each micro-batch's wall time, from the query's progress reports."""
    return [p.durationMs.get("triggerExecution", 0) for p in query.recentProgress if p.numInputRows]


def run_native(spark, source: Path, work: Path) -> tuple[int, list[int]]:
    """The generated job's own ChangelogState (generated/customer_profiles.py) under foreachBatch."""
    from compiler.testing.runner import load_job

    job = load_job(Path(JOB[0]))
    state = job.ChangelogState(spark, str(work / "state"))
    events = [0]

    def one(batch, batch_id):
        events[0] += state.apply(batch, batch_id).count()

    stream = spark.readStream.schema(RAW_SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(source))
    query = (stream.writeStream.foreachBatch(one).option("checkpointLocation", str(work / "ck"))
             .trigger(availableNow=True).start())
    query.awaitTermination()
    return events[0], batch_ms(query)


def changelog_in_pandas(key, pdfs, state):
    """applyInPandasWithState: one key's records of a micro-batch, in offset order, against its last image."""
    import pandas as pd

    image = state.get if state.exists else None  # (value, offset)
    out = []
    for pdf in pdfs:
        for value, offset in pdf.sort_values("offset")[["value", "offset"]].itertuples(index=False):
            value = None if value is None or (isinstance(value, float) and pd.isna(value)) else bytes(value)
            if value is None:
                if image is not None:
                    out.append(("-D", image[0], image[1]))
                    image = None
            elif image is None:
                out.append(("+I", value, offset))
                image = (value, offset)
            elif value != image[0]:
                out.append(("-U", image[0], image[1]))
                out.append(("+U", value, offset))
                image = (value, offset)
    if image is None:
        if state.exists:
            state.remove()
    else:
        state.update(image)
    if out:
        yield pd.DataFrame(
            {"key": [key[0]] * len(out), "op": [o for o, _, _ in out], "value": [v for _, v, _ in out],
             "offset": pd.array([int(x) for _, _, x in out], dtype="int64")}
        )


def run_pandas(spark, source: Path, work: Path) -> tuple[int, list[int]]:
    from pyspark.sql.streaming.state import GroupStateTimeout

    events = [0]
    stream = spark.readStream.schema(RAW_SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(source))
    changes = stream.groupBy("key").applyInPandasWithState(
        changelog_in_pandas, "key BINARY, op STRING, value BINARY, offset BIGINT", "value BINARY, offset BIGINT",
        "append", GroupStateTimeout.NoTimeout,
    )

    def one(batch, batch_id):
        events[0] += batch.count()

    query = (changes.writeStream.foreachBatch(one).option("checkpointLocation", str(work / "ck"))
             .trigger(availableNow=True).start())
    query.awaitTermination()
    return events[0], batch_ms(query)


DESIGNS = {"native": run_native, "pandas": run_pandas}
JOB = [str(ROOT / "generated" / "customer_profiles.py")]  # the job whose ChangelogState `native` runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keys", type=int, default=20000)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--batch-rows", type=int, default=20000)
    parser.add_argument("--first-rows", type=int, help="rows of the first micro-batch (default --batch-rows): a large "
                        "first batch builds a large state that later small batches run against")
    parser.add_argument("--designs", default="native,pandas")
    parser.add_argument("--job", default=JOB[0], help="generated job whose ChangelogState the native design runs")
    args = parser.parse_args(argv)
    JOB[0] = args.job

    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2").config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.ansi.enabled", "true").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    tmp = Path(tempfile.mkdtemp(prefix="pipec-bench-changelog-"))
    try:
        source = tmp / "source"
        source.mkdir()
        first = args.first_rows or args.batch_rows
        make_batches(spark, source, args.keys, args.batches, args.batch_rows, first)
        total = first + (args.batches - 1) * args.batch_rows
        later = (args.batches - 1) * args.batch_rows
        results = {}
        for name in args.designs.split(","):
            work = tmp / name
            start = time.perf_counter()
            events, durations = DESIGNS[name](spark, source, work)
            seconds = time.perf_counter() - start
            results[name] = events
            print(json.dumps({
                "design": name, "keys": args.keys, "batches": args.batches, "first_rows": first,
                "batch_rows": args.batch_rows, "records": total, "events": events, "seconds": round(seconds, 2),
                "records_per_s": round(total / seconds), "us_per_record": round(seconds / total * 1e6, 1),
                "batch_ms": durations,
                "later_batches_us_per_record": round(sum(durations[1:]) * 1e3 / later, 1) if later else None,
            }), flush=True)
        if len(set(results.values())) > 1:
            print(json.dumps({"error": "the designs disagree on the number of events", "events": results}))
            return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
