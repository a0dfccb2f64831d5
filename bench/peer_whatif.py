"""Variants of the compiled peer job, edited by hand, that measure what would close its gap to Kafka Connect
(`scripts/bench connect-peer --what-if`). Each gives the same records out as the job (checked: count and a sum of
row hashes), and each is timed against the job in alternating rounds (CPU seconds of the Spark JVM).

  filter_first       the chain with its Filter first (it reads a header no step changes): Spark pushes it below
                     the parse
  key_as_read        the key written as the source read it (no from_json/to_json of a key no step reads or
                     changes); not Kafka's behaviour for a key JsonConverter would spell differently
  filter_first_key_as_read   the two together
(HasHeaderKey as `array_contains(headers.key, k)`, a variant of earlier runs, is what pipec now generates.)
The edits replace exact generated text: a change of the generator that moves it fails here, loudly.
"""

from __future__ import annotations

import copy
import statistics
from pathlib import Path

KEY_PARSE = """            "__key": parsed_json(F.col("key"), "STRUCT<`id`: BIGINT, `__pipec_corrupt`: STRING>"),
"""
KEY_CHECK = """            "__key": null_unless_corrupt(
                F.col("__key"),
                record_error("KEY_CONVERTER: source key: not valid json for the declared columns"),
            ),
"""
KEY_STRUCT = """        F.when(
            F.col("__key").isNotNull(), F.struct(F.col("__key").getField("id").alias("id"))
        ).alias("key"),"""
KEY_ENCODE = 'F.to_json(F.col("key"), {"ignoreNullFields": "false"}).cast("BINARY").alias("key")'


def _replace(source: str, old: str, new: str) -> str:
    if source.count(old) != 1:
        raise SystemExit(f"bench/peer_whatif.py: the generated job no longer holds exactly one {old.strip()[:60]!r}")
    return source.replace(old, new)


def _key_as_read(source: str) -> str:
    """No parse of the key and no check of it: the raw key travels to the sink."""
    source = _replace(source, KEY_PARSE, "")
    source = _replace(source, KEY_CHECK, "")
    source = _replace(source, KEY_STRUCT, '        F.col("key").alias("key"),')
    return _replace(source, KEY_ENCODE, 'F.col("key").alias("key")')


def variants(doc: dict, folder: Path) -> dict:
    """name -> the loaded job module of each variant (and `job`, the peer job itself)."""
    from pipec.testing.runner import load_job

    from .peer_side import write_pipeline
    from .plans import compile_job

    first = copy.deepcopy(doc)
    first["name"] = f"{doc['name']}_filter_first"
    first["transforms"] = [s for s in doc["transforms"] if s["type"] == "Filter"] + [
        s for s in doc["transforms"] if s["type"] != "Filter"
    ]
    jobs = {
        "job": compile_job(write_pipeline(doc, folder), folder),
        "filter_first": compile_job(write_pipeline(first, folder), folder),
    }
    job_source = (folder / f"{doc['name']}.py").read_text(encoding="utf-8")
    first_source = (folder / f"{first['name']}.py").read_text(encoding="utf-8")
    edits = {
        "key_as_read": _key_as_read(job_source),
        "filter_first_key_as_read": _key_as_read(first_source),
    }
    for name, source in edits.items():
        path = folder / f"whatif_{name}.py"
        path.write_text(source, encoding="utf-8")
        jobs[name] = load_job(path)
    return jobs


def _fingerprint(df) -> tuple:
    from pyspark.sql import functions as F

    hashed = F.xxhash64(*[F.col(c) for c in df.columns]).cast("decimal(38,0)")
    return tuple(df.agg(F.count(F.lit(1)), F.sum(hashed)).first())


def what_if(doc: dict, raw, jvm_pid: int, reps: int, folder: Path) -> dict:
    """Each variant's CPU seconds per million records and its ratio to the job's (medians of rotating rounds)."""
    from .connect_peer import spark_pass

    jobs = variants(doc, folder)
    frames = {name: job.transform(raw) for name, job in jobs.items()}
    expected = _fingerprint(frames["job"])
    for name, df in frames.items():
        if _fingerprint(df) != expected:
            raise SystemExit(f"bench/peer_whatif.py: variant {name} writes other records than the job")
        spark_pass(df, jvm_pid)  # warm-up
    records = raw.count()
    names = list(frames)
    cpu: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            cpu[name].append(spark_pass(frames[name], jvm_pid)["cpu_s"] * 1e6 / records)
    medians = {name: statistics.median(values) for name, values in cpu.items()}
    return {
        name: {"cpu_s_per_1m": medians[name], "vs_job": medians[name] / medians["job"], "runs": cpu[name]}
        for name in names
    }
