"""Run the example jobs of generated/ as users do (spark-submit, or python with SPARK_REMOTE), and read what they
wrote; the reference is the same job's record path run in-process on the tests' own local session."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from pipec.testing.runner import load_job

ROOT = Path(__file__).resolve().parents[2]
BATCH = ROOT / "generated" / "orders_enriched.py"  # files (json) -> files (json), batch
STREAMING = ROOT / "generated" / "sensor_readings.py"  # files (csv) -> files (json), streaming, available-now
INPUT = {BATCH: ROOT / "pipelines" / "data" / "orders", STREAMING: ROOT / "pipelines" / "data" / "readings"}
RUN_TIMEOUT_S = 300


def run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, (
        f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    )
    return done


def spark_submit() -> str:
    import pyspark

    return str(Path(pyspark.__file__).parent / "bin" / "spark-submit")


def job_args(job: Path, out: Path | str, checkpoint: Path | str) -> list[str]:
    """The job's paths (a batch job has no --checkpoint: it starts no stream)."""
    paths = ["--source-path", str(INPUT[job]), "--sink-path", str(out)]
    return paths + (["--checkpoint", str(checkpoint)] if job == STREAMING else [])


def written(spark, folder: Path) -> list[str]:
    """What a files sink wrote, as Spark reads the folder (a streaming sink's through its _spark_metadata log),
    one JSON text per row, sorted."""
    rows = spark.read.json(str(folder)).toJSON().collect()
    return sorted(json.dumps(json.loads(r), sort_keys=True) for r in rows)


def reference(spark, job: Path, tmp: Path) -> list[str]:
    """The job's own read_source -> transform -> write_sink on the tests' session (no counts)."""
    module = load_job(job)
    args = module.parse_args(job_args(job, tmp / "reference", tmp / "reference-checkpoint"))
    query = module.write_sink(module.transform(module.read_source(spark, args)), args)
    if query is not None:
        query.awaitTermination()
    return written(spark, tmp / "reference")


def count_lines(text: str, job: Path) -> list[str]:
    """The job's count lines ([NAME] batch: in=... / [NAME] micro-batch N: in=...)."""
    return [line for line in text.splitlines() if line.startswith(f"[{job.stem}] ") and " in=" in line]


def rows_written(lines: list[str]) -> int:
    return sum(int(line.split(" written=")[1].split()[0]) for line in lines)
