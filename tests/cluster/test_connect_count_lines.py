"""A job that writes through foreachBatch prints the same count lines under Spark Connect as embedded: one line per
committed micro-batch, on the client's stdout (issue 13). Spark Connect runs the micro-batch function in a Python
worker its server starts, whose output goes to the server's log; the counts have to come back to the client.

A streaming files -> files job under `errors: tolerance: all` reads its json files line by line (foreachBatch:
numbering each file's lines needs the micro-batch whole). `maxFilesPerTrigger: 1` makes one micro-batch of each
file, in the order of their modification times; each file's lines give the batch's counts: a line that is not json
is a dead letter (Kafka Connect's JsonConverter fails on it), every other line is written. The job calls nothing
newer than Spark 3.5, so it runs on every line `scripts/compat` tests (before Connect 4.1 the client says once per
micro-batch that its counts are unavailable: tests/connect_counts.py).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from connect_counts import check_count_lines, handed_views
from jobs import run
from pipec.testing.runner import compile_job

pytestmark = [pytest.mark.spark, pytest.mark.connect]

NAME = "micro_batch_counts"
YAML = f"""\
version: 1
name: {NAME}
mode: streaming
source:
  connector: files
  path: in
  format: json
  options: {{maxFilesPerTrigger: "1"}}
  columns: [{{name: id, type: STRING}}, {{name: amount, type: STRING}}]
transforms:
  - {{name: origin, type: InsertField$Value, static.field: origin, static.value: files}}
sink: {{connector: files, path: out, format: json, checkpoint: checkpoint, trigger: available-now}}
errors: {{tolerance: all, deadletterqueue.path: letters}}
"""
# one file per micro-batch, in this order: its lines, and the batch's (written, dead-lettered)
FILES = [
    ("one.json", ['{"id": "a", "amount": "5"}', '{"id": "b", "amount": ', '{"id": "c", "amount": "7"}'], (2, 1)),
    ("two.json", ["{not json", '{"id": "d", "amount": "1"}'], (1, 1)),
    ("three.json", ['{"id": "e", "amount": "2"}', '{"id": "f", "amount": "3"}', '{"id": "g", "amount": "4"}'], (3, 0)),
]
LATER = ("four.json", ["oops", '{"id": "i", "amount": "6"}'], (1, 1))


def add_files(folder: Path, files, first_mtime: int) -> None:
    for i, (name, lines, _) in enumerate(files):
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.utime(folder / name, (first_mtime + i, first_mtime + i))  # the file source takes files oldest first


def expected_lines(files, first_batch: int) -> list[str]:
    return [
        f"[{NAME}] micro-batch {first_batch + i}: in={len(lines)} written={good} filtered=0 superseded=0 "
        f"dead_lettered={dead}"
        for i, (_, lines, (good, dead)) in enumerate(files)
    ]


def commits(checkpoint: Path) -> list[int]:
    return sorted(int(p.name) for p in (checkpoint / "commits").iterdir() if p.name.isdigit())


def test_a_foreach_batch_job_prints_one_count_line_per_committed_micro_batch_through_connect(spark_connect, tmp_path):
    address, _ = spark_connect
    client = tmp_path / "client"
    (client / "in").mkdir(parents=True)
    add_files(client / "in", FILES, 1_700_000_000)
    compile_job(client, YAML)
    done = run([sys.executable, f"{NAME}.py"], cwd=client, SPARK_REMOTE=address)
    assert commits(client / "checkpoint") == [0, 1, 2], done.stdout + done.stderr
    check_count_lines(done, NAME, expected_lines(FILES, 0))
    written = [json.loads(line) for f in (client / "out").glob("part-*.json") for line in f.read_text().splitlines()]
    assert sorted(r["id"] for r in written) == ["a", "c", "d", "e", "f", "g"]

    # run again from the checkpoint with one more file: only the new micro-batch's line
    add_files(client / "in", [LATER], 1_700_000_100)
    done = run([sys.executable, f"{NAME}.py"], cwd=client, SPARK_REMOTE=address)
    assert commits(client / "checkpoint") == [0, 1, 2, 3], done.stdout + done.stderr
    check_count_lines(done, NAME, expected_lines([LATER], 3))
    assert handed_views(address) == []  # each dropped once printed
