"""A table source survives SIGKILL: a generated job reading a real Delta table's change data feed (streaming, two
files a micro-batch) into a Delta upsert table is SIGKILLed (driver and JVM at once) while a micro-batch it planned
is in flight, then run to the end from its checkpoint with `--trigger available-now`. The target, read by delta-rs
(no JVM), must equal the source table's rows: every change applied once, in commit order, nothing lost.

The source table is built by the suite's Spark session (inserts, an update, a delete and re-inserts over five
commits, 400 keys); the job is the second JVM, started twice. On the loaded 2-core machine (load ~6): 281 s, most
of it two job starts with their Ivy resolution and one micro-batch per commit (13 commits took 354 s, hence five).
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from pipec.project.driver import build_all, generate_all

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kafka"))
from killable_job import Checkpoint, JobProcess, job_env

pytestmark = pytest.mark.spark

KEYS = 400
PIPELINE = """\
    version: 1
    name: t_feed
    mode: streaming
    source:
      connector: delta
      path: ${env:SOURCE_TABLE}
      read-change-feed: true
      options: {startingVersion: 0, maxFilesPerTrigger: 2}
      columns:
        - {name: id, type: BIGINT}
        - {name: name, type: STRING}
        - {name: v, type: BIGINT}
    sink:
      connector: delta
      path: ${env:LAKE}/t_feed
      apply: upsert
      primary-key: [id]
      checkpoint: ${env:CHECKPOINT_DIR}/t_feed
"""
SPARK_ARGS = ["--master", "local[2]", "--conf", "spark.sql.shuffle.partitions=2", "--conf", "spark.ui.enabled=false"]
RUN_TIMEOUT_S = 300


def source_table(spark, path: Path) -> None:
    """Five commits, one micro-batch each: 400 keys inserted over two, then an update, a delete, and an insert of
    keys the delete removed."""
    table = f"delta.`{path}`"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, name STRING, v BIGINT) USING delta "
        "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')"
    )
    for part in range(2):
        rows = spark.range(part * KEYS // 2, (part + 1) * KEYS // 2)
        rows.selectExpr("id", "concat('n', id) AS name", "0L AS v").write.format("delta").mode("append").save(str(path))
    spark.sql(f"UPDATE {table} SET name = concat('u-', id), v = 1 WHERE id % 3 = 1")
    spark.sql(f"DELETE FROM {table} WHERE id % 7 = 1")
    spark.sql(f"INSERT INTO {table} SELECT id, 'back', 2 FROM range(0, {KEYS}) WHERE id % 14 = 1")


def test_a_change_feed_job_killed_mid_batch_restarts_to_the_source_tables_rows(spark, tmp_path):
    import deltalake

    source = tmp_path / "source"
    source_table(spark, source)
    pipeline = tmp_path / "t_feed.yaml"
    pipeline.write_text(textwrap.dedent(PIPELINE), encoding="utf-8")
    result = build_all([str(pipeline)])
    result.diags.check()
    ((filename, text),) = generate_all(result).items()
    (tmp_path / filename).write_text(text, encoding="utf-8")
    env = job_env({"SOURCE_TABLE": str(source), "LAKE": str(tmp_path / "lake"), "CHECKPOINT_DIR": str(tmp_path)})

    checkpoint = Checkpoint(tmp_path / "t_feed")
    first = JobProcess(tmp_path / filename, SPARK_ARGS, env, tmp_path / "t_feed-1.log")
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
    final = JobProcess(tmp_path / filename, [*SPARK_ARGS, "--trigger", "available-now"], env, tmp_path / "t_feed-2.log")
    try:
        code = final.wait(RUN_TIMEOUT_S)
    finally:
        final.ensure_dead()
    assert code == 0, f"the run after the kill failed (exit {code}):\n{final.output()[-4000:]}"
    assert not kill.orphans, kill

    def rows(path: Path) -> list[tuple]:
        return sorted(
            (r["id"], r["name"], r["v"]) for r in deltalake.DeltaTable(str(path)).to_pyarrow_table().to_pylist()
        )

    expected, got = rows(source), rows(tmp_path / "lake" / "t_feed")
    print(
        f"\nchange feed -> upsert: {len(got)} rows, {len(expected)} expected; killed at batch {kill.planned} "
        f"(committed {kill.committed}), gone in {kill.exit_s} s; {checkpoint.latest('commits') + 1} micro-batches"
    )
    assert kill.planned > kill.committed  # the kill landed mid-batch
    assert checkpoint.latest("commits") >= 3  # the feed came in several micro-batches
    assert got == expected
