"""The record path of every example job is native Spark: no Python UDF, pandas UDF or RDD code in the physical plan.

SPEC section 1: "Every transform lowers to native Spark Column expressions ... (checked on the physical plan in
the tests)". The plan checked is the job's own `transform` over real input: for a files source the given values
of the pipeline's first test case written as files and read by the job's `read_source`; for a Kafka source those
records as Spark Kafka rows (written to parquet first, so the test's own input adds no RDD scan to the plan).
Streaming pipelines are run as a stream (available-now, noop sink) and the last micro-batch's plan is checked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from native_plan import interpreted_expressions, python_operators_in
from pipec.project.driver import SUFFIXES, build_all, generate_all
from pipec.testing.frames import rows_frame
from pipec.testing.given_rows import batch_rows
from pipec.testing.runner import load_job, write_given_files
from pyspark.sql import functions as F

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
PIPELINES = sorted(p for p in (ROOT / "pipelines").rglob("*") if p.suffix in SUFFIXES and p.is_file())


def executed_plan(df) -> str:
    return df._jdf.queryExecution().executedPlan().toString()


def _kafka_input(spark, compiled, values_folder: Path) -> tuple[str, Path]:
    """The first test case's given records as Spark Kafka rows in a parquet folder; (schema, folder)."""
    from pipec.testing.kafka_rows import KAFKA_ROW_SCHEMA, kafka_rows

    rows = kafka_rows(compiled.pipeline.source, list(compiled.pipeline.tests[0].given))
    rows_frame(spark, [r for _, r in rows], KAFKA_ROW_SCHEMA).coalesce(1).write.parquet(str(values_folder))
    return KAFKA_ROW_SCHEMA, values_folder


def raw_input(spark, job, compiled, tmp_path: Path):
    """The job's raw source rows for the first test case (a streaming DataFrame for a streaming pipeline)."""
    source = compiled.pipeline.source
    streaming = compiled.pipeline.streaming
    given = compiled.pipeline.tests[0].given
    if source.connector == "files":
        folder = tmp_path / "source"
        folder.mkdir()
        write_given_files(spark, job, compiled, [g.fields.get("value") for g in given], folder, 0)
        return job.read_source(spark, job.parse_args(["--source-path", str(folder)]))
    if source.connector in ("kafka", "upsert-kafka"):
        schema, folder = _kafka_input(spark, compiled, tmp_path / "kafka")
        reader = spark.readStream if streaming else spark.read
        return reader.schema(schema).parquet(str(folder))
    if source.connector in ("delta", "iceberg"):  # the rows the table yields, as the record tests give them
        rows = batch_rows(spark, source, compiled.pipeline.tests[0])
        folder = tmp_path / "table_rows"
        rows.coalesce(1).write.parquet(str(folder))
        reader = spark.readStream if streaming else spark.read
        return reader.schema(rows.schema).parquet(str(folder))
    pytest.fail(f"no raw input for a {source.connector} source yet: extend raw_input() in {Path(__file__).name}")


@pytest.mark.parametrize("pipeline", PIPELINES, ids=lambda p: p.relative_to(ROOT / "pipelines").as_posix())
def test_example_plan_is_native(pipeline: Path, spark, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = build_all([str(pipeline)])
    files = generate_all(result)
    (compiled,) = result.compiled
    if not compiled.pipeline.tests:
        pytest.fail(f"{pipeline.name} has no tests: the plan check needs the first test case's records as input")
    ((name, text),) = files.items()
    (tmp_path / name).write_text(text, encoding="utf-8")
    job = load_job(tmp_path / name)
    for key, value in job.SESSION_CONF.items():
        spark.conf.set(key, value)

    if hasattr(job, "micro_batch"):  # per-key work in foreachBatch: check the plan of each micro-batch's rows
        plan = micro_batch_plan(job, raw_input(spark, job, compiled, tmp_path), tmp_path)
    else:
        plan = record_path_plan(job, compiled, raw_input(spark, job, compiled, tmp_path), tmp_path)

    assert "Scan" in plan, plan  # the plan really reads the source
    found = python_operators_in(plan)
    assert not found, f"{name}: the physical plan runs non-native code ({', '.join(found)}):\n{plan}"


def micro_batch_plan(job, raw, tmp_path: Path) -> str:
    """The executed plan of the last micro-batch's sink rows (changelog state and upsert reduction included)."""
    plans: list[str] = []

    def one(batch, batch_id: int) -> None:
        rows = job.micro_batch(batch, batch_id, str(tmp_path / "checkpoint"))
        rows.write.format("noop").mode("overwrite").save()
        plans.append(executed_plan(rows))

    query = raw.writeStream.foreachBatch(one).option("checkpointLocation", str(tmp_path / "checkpoint"))
    query = query.trigger(availableNow=True).start()
    query.awaitTermination()
    assert query.exception() is None
    assert plans, "the stream ran no micro-batch over the test records"
    return plans[-1]


def record_path_plan(job, compiled, raw, tmp_path: Path) -> str:
    """The executed plan of `transform` over the raw rows (the last micro-batch's, for a stream)."""
    rows = job.transform(raw)
    if compiled.pipeline.streaming:
        assert rows.isStreaming
        query = (
            rows.writeStream.format("noop")
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()
        assert query.exception() is None
        execution = query._jsq.streamingQuery().lastExecution()
        assert execution is not None, "the stream ran no micro-batch over the test records"
        return execution.executedPlan().toString()
    return executed_plan(rows)


def test_plan_check_sees_a_python_udf(spark):
    """Positive control: the same check flags a deliberate Python UDF, so the test above is not vacuous."""
    shout = F.udf(lambda s: None if s is None else s.upper(), "string", useArrow=False)
    df = spark.range(3).select(F.col("id").cast("string").alias("s")).select(shout("s").alias("loud"))
    plan = executed_plan(df)
    assert "BatchEvalPython" in python_operators_in(plan), plan


@pytest.mark.parametrize("name", ["payments_cleared", "clicks_traced"])
def test_idle_optimizer_rules_leave_a_kafka_jobs_plan_as_it_is(name: str, spark, tmp_path, monkeypatch):
    """`scripts/bench latency`'s `rules` lever (bench/latency_levers.py) excludes optimizer rules each micro-batch
    runs over the whole plan: it is exact only while they do nothing to the job's plan. The optimized plan of the
    sink's rows (counts and dead letters included) is the same with and without them."""
    from bench.latency_levers import LEVERS

    monkeypatch.chdir(ROOT)
    result = build_all([str(ROOT / "pipelines" / f"{name}.yaml")])
    ((file, text),) = generate_all(result).items()
    (compiled,) = result.compiled
    (tmp_path / file).write_text(text, encoding="utf-8")
    job = load_job(tmp_path / file)
    for key, value in job.SESSION_CONF.items():
        spark.conf.set(key, value)
    _, folder = _kafka_input(spark, compiled, tmp_path / "kafka")
    rows = job.transform(spark.read.parquet(str(folder)), job.Counts(True))
    if hasattr(job, "with_dead_letters"):
        rows = job.with_dead_letters(rows, "dead-letters")

    def optimized() -> str:
        return rows.select("*")._jdf.queryExecution().optimizedPlan().toString()

    (conf,) = LEVERS["rules"]["conf"].items()
    plain = optimized()
    spark.conf.set(*conf)
    try:
        assert optimized() == plain
    finally:
        spark.conf.unset(conf[0])


@pytest.mark.parametrize("name", ["payments_cleared", "clicks_traced"])
def test_header_predicates_and_header_columns_are_generated_code(name: str, spark, tmp_path, monkeypatch):
    """HasHeaderKey (`array_contains` over the header keys) and a header column (`last_header`: `array_position`
    over the reversed keys) compile into Spark's generated code: the only expressions the record path leaves to
    Spark's interpreter are the decode's `from_json` (JsonToStructs), so no lambda over the headers keeps the
    chain's projection out of whole-stage codegen."""
    monkeypatch.chdir(ROOT)
    result = build_all([str(ROOT / "pipelines" / f"{name}.yaml")])
    ((file, text),) = generate_all(result).items()
    (compiled,) = result.compiled
    assert "HasHeaderKey" in {p.kind for p in compiled.pipeline.predicates.values()}
    (tmp_path / file).write_text(text, encoding="utf-8")
    job = load_job(tmp_path / file)
    for key, value in job.SESSION_CONF.items():
        spark.conf.set(key, value)
    _, folder = _kafka_input(spark, compiled, tmp_path / "kafka")
    rows = job.transform(spark.read.parquet(str(folder)))
    rows.write.format("noop").mode("overwrite").save()  # planned and run
    interpreted = interpreted_expressions(rows)
    assert "JsonToStructs" in interpreted  # the walk reaches the decode's projection
    assert set(interpreted) == {"JsonToStructs"}, interpreted


def test_interpreted_expressions_sees_a_lambda(spark):
    """Positive control: a lambda over the headers (what HasHeaderKey was lowered to before) is found."""
    df = spark.createDataFrame([([("test", b"x")],)], "headers ARRAY<STRUCT<key: STRING, value: BINARY>>")
    df = df.select(F.exists("headers", lambda h: h.getField("key") == "test").alias("test"))
    assert "ArrayExists" in interpreted_expressions(df)
