"""A Delta history's counts (apply: history): the `-U` images it skips are counted as its one pass over the
micro-batch reads it (no count job of their own), and inserted, updated, deleted and superseded follow the versions it
keeps. Micro-batches into a real Delta table, each step's counts and the table's versions pinned: versions of a key
within a batch, a delete, a change equal to a stored version, a change identical to the version before it, a replayed
micro-batch (no MERGE: the table is unchanged) and a late change that becomes a key's earliest version."""

from __future__ import annotations

import pytest
from pipec.testing.runner import load_job

HISTORY = """\
version: 1
name: ledger_history
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
  path: lake/ledger_history
  apply: history
  primary-key: [id]
  sequence-by: version
"""

SECOND = [
    (1, "a2", 2, "-U"),  # filtered
    (1, "a3", 3, "+U"),  # updated: a new version of key 1
    (2, None, 2, "-D"),  # deleted: closes b's version at 2
    (1, "a2", 2, "+U"),  # the version stored at 2: superseded
    (3, "c", 1, "+I"),  # inserted
    (1, "a3", 4, "+U"),  # identical to the version before it: superseded
]
# (micro-batch of (id, owner, version, op) in arrival order, its counts: inserted, updated, deleted, superseded,
# filtered)
STEPS = [
    ([(1, "a", 1, "+I"), (2, "b", 1, "+I"), (1, "a", 1, "-U"), (1, "a2", 2, "+U")], (2, 1, 0, 0, 1)),
    (SECOND, (1, 1, 1, 2, 1)),
    (SECOND, (0, 0, 0, 5, 1)),  # replayed: every change is stored or identical
    ([(3, "c0", 0, "+I"), (3, "c", 1, "-U")], (1, 0, 0, 0, 1)),  # late: c0 becomes key 3's earliest version
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


@pytest.mark.spark
def test_delta_history_counts_and_versions(spark, tmp_path, compile_text):
    _, files = compile_text(HISTORY)
    (tmp_path / "ledger_history.py").write_text(files["ledger_history.py"], encoding="utf-8")
    job = load_job(tmp_path / "ledger_history.py")
    job._PREPARED.clear()
    table = job.sink_table(job.parse_args(["--sink-path", str(tmp_path / "history")]))
    versions = []
    for step, (batch, figures) in enumerate(STEPS):
        job.SINK_COUNTS.clear()
        table.write(_rows(spark, batch), None)
        inserted, updated, deleted, superseded, filtered = figures
        assert dict(job.SINK_COUNTS) == {
            "fates": {"superseded": superseded, "filtered": filtered},
            "table": {"inserted": inserted, "updated": updated, "deleted": deleted},
        }, step
        versions.append(spark.sql(f"DESCRIBE HISTORY {table.ref}").count())
    assert versions[2] == versions[1]  # the replay wrote nothing
    rows = sorted(tuple(r) for r in spark.read.table(table.ref).drop("__SEQUENCE").collect())
    assert rows == [
        (1, "a", 1, 1, 2),
        (1, "a2", 2, 2, 3),
        (1, "a3", 3, 3, None),
        (2, "b", 1, 1, 2),
        (3, "c", 1, 1, None),
        (3, "c0", 0, 0, 1),
    ]
    assert [tuple(r) for r in spark.read.table(table.tombstones).collect()] == [(2, (2,))]
