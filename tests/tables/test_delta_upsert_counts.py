"""A Delta upsert takes its counts from its MERGE's own operation metrics and probes only the tombstones (and, for a
micro-batch that deletes, the deleted keys' rows), where Iceberg's upsert classifies every change against the table
first. The same micro-batches through both, into two real Delta tables, must leave the same rows and tombstones and
report the same counts: updates, changes superseded within the batch and by the table, -U images, deletes of a
present, an absent and a newer key, a delete older than the key's tombstone, a revival, ties, and a replayed
micro-batch (Delta skips it: no new table version)."""

from __future__ import annotations

import pytest
from pipec.testing.runner import load_job

UPSERT = """\
version: 1
name: ledger
mode: batch
source:
  connector: files
  path: in
  format: json
  columns:
    - {name: id, type: BIGINT}
    - {name: owner, type: STRING}
    - {name: version, type: INT}
sink:
  connector: delta
  path: lake/ledger
  apply: upsert
  primary-key: [id]
  sequence-by: version
"""

# micro-batches of (id, owner, version, op), in arrival order
BATCHES = [
    [
        (1, "a", 1, "+I"),
        (2, "b", 1, "+I"),
        (3, "c", 1, "+I"),
        (1, "a2", 2, "+I"),  # newer within the batch: (1, a, 1) is superseded
        (4, None, 1, "-D"),  # a key the table never had: deleted, remembered
    ],
    [
        (1, "a2", 2, "-U"),  # filtered
        (1, "a3", 3, "+U"),  # updated
        (2, None, 2, "-D"),  # deletes a row
        (3, None, 0, "-D"),  # older than the row: superseded
        (4, "d", 0, "+I"),  # older than the tombstone: superseded
        (5, "e", 1, "+I"),  # inserted
    ],
    [
        (2, "b3", 3, "+I"),  # revives a deleted key: inserted, its tombstone dropped
        (4, None, 1, "-D"),  # ties the tombstone: superseded
        (5, None, 1, "-D"),  # ties the row: a delete wins a tie
        (6, "f", 1, "+I"),
        (6, None, 1, "-D"),  # a tie within the batch: the delete wins, over no row
        (3, "c", 1, "+U"),  # the row's own version again: superseded
    ],
]


def _rows(spark, batch: list[tuple]):
    return spark.createDataFrame(
        [(*change, n) for n, change in enumerate(batch)],
        "id BIGINT, owner STRING, version INT, __op STRING, n BIGINT",
    ).selectExpr(
        "id",
        "owner",
        "version",
        "__op",
        "named_struct('version', version) AS __SEQUENCE",
        "named_struct('partition', 0, 'offset', n, 'read', n) AS __ORDER",
    )


def _state(spark, ref: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.read.table(ref).collect())


@pytest.mark.spark
def test_delta_counts_from_merge_metrics_equal_the_classified_counts(spark, tmp_path, compile_text):
    _, files = compile_text(UPSERT)
    (tmp_path / "ledger.py").write_text(files["ledger.py"], encoding="utf-8")
    job = load_job(tmp_path / "ledger.py")
    job._PREPARED.clear()

    def table(name: str):
        args = job.parse_args(["--sink-path", str(tmp_path / name), "--checkpoint", str(tmp_path / f"ck-{name}")])
        return job.sink_table(args)

    counted, classified = table("counted"), table("classified")
    counted.prepare(spark)
    classified.prepare(spark)
    # (batch, micro-batch id, its counts): batch 1 replayed; batch 2 as a batch run (no id)
    steps = [
        (0, 0, (3, 0, 1, 1, 0)),
        (1, 1, (1, 1, 1, 2, 1)),
        (1, 1, (0, 0, 0, 5, 1)),
        (2, None, (1, 0, 2, 3, 0)),
    ]
    for step, (index, batch_id, figures) in enumerate(steps):
        rows = _rows(spark, BATCHES[index])
        job.SINK_COUNTS.clear()
        versions = spark.sql(f"DESCRIBE HISTORY {counted.ref}").count()
        counted.write(rows, batch_id)
        expected = classified.upsert_classified(rows)
        inserted, updated, deleted, superseded, filtered = figures
        assert expected == {
            "fates": {"superseded": superseded, "filtered": filtered},
            "table": {"inserted": inserted, "updated": updated, "deleted": deleted},
        }, step
        assert dict(job.SINK_COUNTS) == expected, step
        assert _state(spark, counted.ref) == _state(spark, classified.ref), step
        assert _state(spark, counted.tombstones) == _state(spark, classified.tombstones), step
        if step == 2:  # the replay: Delta skipped the MERGE (txnAppId/txnVersion), no new table version
            assert spark.sql(f"DESCRIBE HISTORY {counted.ref}").count() == versions
    assert _state(spark, counted.tombstones) == [(4, (1,)), (5, (1,)), (6, (1,))]
    assert [r[:3] for r in _state(spark, counted.ref)] == [(1, "a3", 3), (2, "b3", 3), (3, "c", 1)]
