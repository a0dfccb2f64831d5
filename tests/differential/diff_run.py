"""Both sides of a differential case: Kafka's results (from SmtHarness) and pipec's (its generated job's
`transform` on a local Spark), as per-record outcomes, and their comparison."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diff_connect import (
    UTC,
    from_envelope,
    from_spark,
    header_text,
    show,
    skeleton_of_schema,
    skeleton_of_type,
)
from diff_records import Case, given_fields, pipeline_yaml
from pipec.diagnostics import Location
from pipec.model import TestRecord
from pipec.project.driver import build_all, generate_all
from pipec.resolve.builder import Compiled
from pipec.testing.frames import rows_frame
from pipec.testing.kafka_rows import KAFKA_ROW_SCHEMA, kafka_rows
from pipec.testing.runner import load_job, sink_records
from pipec.types.sql import StructType

HERE = Path(__file__).resolve().parent
HARNESS = HERE / "SmtHarness.java"
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
STATS: dict = {
    "cases": 0,
    "records": 0,
    "compared": 0,
    "documented": {},
    "mismatches": 0,
    "spark_jobs": 0,
    "timings": {},
}


_LOCK = threading.Lock()


def _timed(name: str, started: float) -> None:
    with _LOCK:
        STATS["timings"][name] = STATS["timings"].get(name, 0.0) + time.monotonic() - started


@dataclass(frozen=True)
class Outcome:
    """What happened to one record: `out` (with the record's fields), `dropped`, or `error` (with a message)."""

    kind: str
    record: dict = field(default_factory=dict)
    message: str = ""
    schemas: dict = field(default_factory=dict)  # Kafka side: "key"/"value" -> schema skeleton of a non-null one

    def describe(self) -> str:
        if self.kind == "out":
            return show(self.record)
        return self.kind + (f" ({self.message})" if self.message else "")


# ------------------------------------------------------------------ Kafka side


def run_harness(classpath: str, documents: list[dict]) -> dict[str, dict]:
    """Every document through one JVM; id -> the harness's answer."""
    stdin = "\n".join(json.dumps(d, ensure_ascii=False) for d in documents)
    proc = subprocess.run(
        ["java", "-Duser.timezone=UTC", "-cp", classpath, str(HARNESS)],
        input=stdin.encode("utf-8"),
        capture_output=True,
        timeout=600,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"SmtHarness failed ({proc.returncode}):\n{proc.stderr.decode(errors='replace')}")
    answers = [json.loads(line) for line in proc.stdout.decode("utf-8").split("\n") if line.strip()]
    return {a["id"]: a for a in answers}


def kafka_outcomes(answer: dict, records: list[dict]) -> dict[int, Outcome]:
    """offset -> Kafka's outcome."""
    out = {}
    for rec, res in zip(records, answer["results"], strict=True):
        if res.get("dropped"):
            out[rec["offset"]] = Outcome("dropped")
        elif "input_error" in res:  # the harness could not build the record: a bug of these tests
            raise AssertionError(f"SmtHarness could not read record {rec['offset']}: {res['input_error']}")
        elif "error" in res:
            out[rec["offset"]] = Outcome("error", message=res["error"])
        else:
            schemas = {
                side: skeleton_of_schema(env["schema"])
                for side in ("key", "value")
                if (env := res[side]) is not None and env.get("payload") is not None
            }
            out[rec["offset"]] = Outcome(
                "out",
                {
                    "topic": res["topic"],
                    "partition": res["partition"],
                    "timestamp": res["timestamp"],
                    "key": from_envelope(res["key"]),
                    "value": from_envelope(res["value"]),
                    "headers": [tuple(h) for h in res["headers"]],
                },
                schemas=schemas,
            )
    return out


# ------------------------------------------------------------------ pipec side


class CompileFailed(Exception):
    """pipec refused the case's pipeline; the message holds its diagnostics."""


@dataclass
class PipecJob:
    case: Case
    compiled: Compiled
    job: Any
    runs: int = 0  # Spark jobs run for this case

    @classmethod
    def compile(cls, case: Case, folder: Path) -> PipecJob:
        started = time.monotonic()
        try:
            return cls._compile(case, folder)
        finally:
            _timed("compile", started)

    @classmethod
    def _compile(cls, case: Case, folder: Path) -> PipecJob:
        path = folder / f"{case.id}.yaml"
        path.write_text(pipeline_yaml(case), encoding="utf-8")
        result = build_all([str(path)])
        if result.diags.errors:
            raise CompileFailed("\n".join(d.render() for d in result.diags.errors))
        files = generate_all(result)
        (compiled,) = result.compiled
        job_file = folder / f"{compiled.pipeline.name}.py"
        job_file.write_text(files[job_file.name], encoding="utf-8")
        return cls(case, compiled, load_job(job_file))

    def frame(self, spark, records: list[dict]):
        given = [TestRecord(given_fields(self.case, r), Location("<differential>", 0, 0), {}) for r in records]
        rows = kafka_rows(self.compiled.pipeline.source, given)
        return self.job.transform(rows_frame(spark, [r for _, r in rows], KAFKA_ROW_SCHEMA))

    def run(self, spark, records: list[dict]) -> dict[int, Outcome] | Exception:
        """offset -> outcome for records that all go through, or the exception of the failed job."""
        started = time.monotonic()
        with _LOCK:
            STATS["spark_jobs"] += 1
        self.runs += 1
        df = self.frame(spark, records)  # planning errors are not record errors: they propagate
        try:
            rows = df.collect()
        except Exception as exc:  # a record error fails the Spark job
            return exc
        finally:
            _timed("spark", started)
        decoded, _ = sink_records(self.compiled, rows)
        final = self.compiled.final
        out: dict[int, Outcome] = {r["offset"]: Outcome("dropped") for r in records}
        for rec in decoded:
            ts = rec["timestamp"]
            out[rec["offset"]] = Outcome(
                "out",
                {
                    "topic": rec["topic"],
                    "partition": rec["partition"],
                    "timestamp": None if ts is None else _millis(ts),
                    "key": from_spark(final.key, rec["key"]),
                    "value": from_spark(final.value, rec["value"]),
                    "headers": [(k, header_text(v)) for k, v in rec["headers"]],
                },
            )
        return out

    def value_is_null(self, spark, records: list[dict]) -> dict[int, bool]:
        """Whether each record's value is null after the chain (a files sink writes a null value and a struct
        of nulls alike: this asks the job's own `chain` to tell them apart)."""
        given = [TestRecord(given_fields(self.case, r), Location("<differential>", 0, 0), {}) for r in records]
        rows = kafka_rows(self.compiled.pipeline.source, given)
        model = self.job.chain(self.job.decode(rows_frame(spark, [r for _, r in rows], KAFKA_ROW_SCHEMA)))
        return {row["offset"]: row["null"] for row in model.selectExpr("offset", "value IS NULL AS null").collect()}


def _millis(ts: dt.datetime) -> int:
    ts = ts if ts.tzinfo else ts.replace(tzinfo=UTC)
    delta = ts - EPOCH
    return delta.days * 86_400_000 + delta.seconds * 1000 + delta.microseconds // 1000


def pipec_outcomes(spark, job: PipecJob, records: list[dict], kafka: dict[int, Outcome]) -> dict[int, Outcome]:
    """offset -> pipec's outcome. A record error fails the whole Spark job, so the records Kafka writes or drops
    run together, split in halves while a run fails, down to the failing records; the records Kafka fails run as
    one group, which must fail (then each counts as failed: proving it per record would take a Spark job per
    record) or shows what pipec wrote for each."""
    out: dict[int, Outcome] = {}

    def run(batch: list[dict]) -> None:
        if not batch:
            return
        result = job.run(spark, batch)
        if not isinstance(result, Exception):
            out.update(result)
        elif len(batch) == 1:
            out[batch[0]["offset"]] = Outcome("error", message=_first_line(result))
        elif (failed := _failed_offset(result, batch)) is not None:  # pipec's record errors name the record
            out[failed] = Outcome("error", message=_first_line(result))
            run([r for r in batch if r["offset"] != failed])
        else:
            half = len(batch) // 2
            run(batch[:half])
            run(batch[half:])

    run([r for r in records if kafka[r["offset"]].kind != "error"])
    group = [r for r in records if kafka[r["offset"]].kind == "error"]
    if group:
        result = job.run(spark, group)
        if isinstance(result, Exception):
            message = ("" if len(group) == 1 else "(in a group) ") + _first_line(result)
            out.update({r["offset"]: Outcome("error", message=message) for r in group})
        else:
            out.update(result)
    _settle_null_values(spark, job, records, kafka, out)
    return out


def _settle_null_values(spark, job: PipecJob, records: list[dict], kafka: dict, out: dict) -> None:
    """Where Kafka wrote a struct of nulls and the sink rows read as a null value, ask the chain which it was."""
    unsure = [
        r
        for r in records
        if out[r["offset"]].kind == "out"
        and out[r["offset"]].record["value"] is None
        and kafka[r["offset"]].kind == "out"
        and _all_null_struct(kafka[r["offset"]].record["value"])
    ]
    if not unsure:
        return
    final = job.compiled.final.value
    if not isinstance(final, StructType):
        return
    nulls = job.value_is_null(spark, unsure)
    for r in unsure:
        if not nulls[r["offset"]]:
            o = out[r["offset"]]
            value = from_spark(final, {f.name: None for f in final.fields})
            out[r["offset"]] = Outcome("out", {**o.record, "value": value})


RECORD_ERROR = re.compile(r"\(topic .*?, partition -?\d+, offset (-?\d+)\)")


def _failed_offset(exc: Exception, batch: list[dict]) -> int | None:
    """The offset a pipec record error names (Lowering.record_error), if it is one of the batch's."""
    offsets = {r["offset"] for r in batch}
    found = [int(m.group(1)) for m in RECORD_ERROR.finditer(str(exc))]
    return next((o for o in found if o in offsets), None)


def _all_null_struct(value: Any) -> bool:
    return isinstance(value, dict) and all(v is None for v in value.values())


def _first_line(exc: Exception) -> str:
    """The line of a failed job's message that says why: pipec's record error, else Spark's error class."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    for test in (lambda line: RECORD_ERROR.search(line), lambda line: line.startswith("[")):
        hit = next((line for line in lines if test(line)), None)
        if hit:
            return hit[:300]
    return (lines or [type(exc).__name__])[0][:300]


# ------------------------------------------------------------------ comparison


RECORD_FIELDS = ("topic", "partition", "timestamp", "key", "value", "headers")


def differs(kafka: Outcome, pipec: Outcome, pipec_schemas: dict) -> str | None:
    """Why two outcomes of one record differ, or None when they agree (schemas are compared where Kafka wrote a
    non-null key or value)."""
    if kafka.kind != pipec.kind:
        return f"Kafka: {kafka.describe()}\n      pipec: {pipec.describe()}"
    if kafka.kind != "out":
        return None
    diffs = [
        f"{name}: Kafka {show(kafka.record[name])} != pipec {show(pipec.record[name])}"
        for name in RECORD_FIELDS
        if kafka.record[name] != pipec.record[name]
    ]
    diffs += [
        f"{side} schema: Kafka {schema} != pipec {pipec_schemas[side]}"
        for side, schema in kafka.schemas.items()
        if schema != pipec_schemas[side]
    ]
    return "; ".join(diffs) or None


def pipec_schemas(job: PipecJob) -> dict:
    """The key and value schema skeletons pipec's compiled shape ends with."""
    final = job.compiled.final
    return {"key": skeleton_of_type(final.key), "value": skeleton_of_type(final.value)}


# ------------------------------------------------------------------ all cases


@dataclass
class PipecResult:
    """pipec's side of one case: its job and per-record outcomes, or why there are none."""

    job: PipecJob | None = None
    outcomes: dict[int, Outcome] | None = None
    compile_error: CompileFailed | None = None
    failure: BaseException | None = None  # the job could not run at all (e.g. Spark refused its plan)


def run_pipec(
    spark,
    cases: list[Case],
    records: dict[str, list[dict]],
    kafka: dict[str, dict[int, Outcome]],
    folder: Path,
    workers: int,
) -> dict[str, PipecResult]:
    """Compile every case (one after another: compiling is quick) and run their jobs from `workers` threads
    (Spark runs jobs of several threads at once, which overlaps each job's planning and scheduling)."""
    results: dict[str, PipecResult] = {}
    for case in cases:
        (folder / case.id).mkdir()
        try:
            results[case.id] = PipecResult(job=PipecJob.compile(case, folder / case.id))
        except CompileFailed as exc:
            results[case.id] = PipecResult(compile_error=exc)

    def run(case: Case) -> None:
        result = results[case.id]
        try:
            result.outcomes = pipec_outcomes(spark, result.job, records[case.id], kafka[case.id])
        except BaseException as exc:  # reported by the case's test
            result.failure = exc

    runnable = [c for c in cases if results[c.id].job is not None and c.id in kafka]
    confs = {tuple(sorted(results[c.id].job.job.SESSION_CONF.items())) for c in runnable}
    assert len(confs) <= 1, f"the jobs want different session settings: {confs}"
    for key, value in confs.pop() if confs else ():  # what pipec.testing.runner sets before each job
        spark.conf.set(key, value)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        list(pool.map(run, runnable))
    return results
