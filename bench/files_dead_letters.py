"""A files source under errors.tolerance: all against the same job under tolerance: none (issue 15, item 4).

Under `tolerance: all` the job reads json lines as text, numbers each line in its file (a window per file) and
parses it with `from_json`; under `none` Spark's json reader parses the files. Both jobs read one big json-lines
file (default 1,000,000 lines, ~1 per 1,000 malformed) in batch mode and write json files; they take turns, after a
warm-up of each, in one SparkSession (local[2]). Per run: wall and CPU (the JVM's, from /proc, plus the driver's),
the load average, and what the stages read (input records and bytes, from Spark's status REST API): a second pass
over the file would read twice its lines.

    scripts/bench files-dead-letters [--lines 1000000] [--reps 5] [--write]
        (--write merges the figures into bench/results.json as `files_dead_letters`, rewrites docs/benchmarks.md)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import textwrap
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "out" / "files-dead-letters.json"
PIPELINE = """\
    version: 1
    name: files_{tolerance}
    mode: batch
    source:
      connector: files
      path: unused
      format: json
      columns:
        - {{name: id, type: BIGINT}}
        - {{name: sensor, type: STRING}}
        - {{name: celsius, type: "DECIMAL(5, 2)"}}
        - {{name: note, type: STRING}}
    transforms:
      - {{name: tag, type: InsertField$Value, static.field: unit, static.value: celsius}}
    sink:
      connector: files
      path: unused
      format: json
    {errors}
"""


def log(text: str) -> None:
    print(f"[files-dead-letters {time.strftime('%H:%M:%S')}] {text}", flush=True)


def write_input(path: Path, lines: int) -> int:
    """A json-lines file; every 1,000th line is malformed. Returns the malformed lines."""
    bad = 0
    with path.open("w", encoding="utf-8") as out:
        for i in range(lines):
            if i % 1000 == 999:
                out.write('{"id": %d, "sensor": "s", "celsius": "warm"\n' % i)
                bad += 1
            else:
                out.write(
                    '{"id": %d, "sensor": "s-%d", "celsius": %d.25, "note": "a reading of the sensor"}\n'
                    % (i, i % 97, i % 80)
                )
    return bad


def compile_jobs(folder: Path, dead: Path) -> dict:
    from pipec.testing.runner import compile_job

    jobs = {}
    for tolerance, errors in (("none", ""), ("all", f"errors: {{tolerance: all, deadletterqueue.path: {dead}}}")):
        (folder / tolerance).mkdir()
        jobs[tolerance] = compile_job(
            folder / tolerance, textwrap.dedent(PIPELINE.format(tolerance=tolerance, errors=errors))
        )
    return jobs


def jvm_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stage_input(spark) -> tuple[int, int]:
    """(input records, input bytes) summed over the application's completed stages."""
    url = f"{spark.sparkContext.uiWebUrl}/api/v1/applications/{spark.sparkContext.applicationId}/stages?status=complete"
    with urllib.request.urlopen(url) as response:
        stages = json.load(response)
    return sum(s["inputRecords"] for s in stages), sum(s["inputBytes"] for s in stages)


def run_once(spark, job, src: Path, out: Path, pid: int) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    records_before, bytes_before = stage_input(spark)
    load = os.getloadavg()[0]
    cpu0, driver0, wall0 = jvm_cpu_s(pid), time.process_time(), time.perf_counter()
    assert job.main(["--source-path", str(src), "--sink-path", str(out)]) == 0
    wall = time.perf_counter() - wall0
    cpu = jvm_cpu_s(pid) - cpu0 + time.process_time() - driver0
    time.sleep(1)  # the status API lists a stage once its listener event arrived
    records_after, bytes_after = stage_input(spark)
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "load_1min": load,
        "input_records": records_after - records_before,
        "input_bytes": bytes_after - bytes_before,
    }


def mmm(values: list[float]) -> dict:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench files-dead-letters")
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)

    from pyspark.sql import SparkSession

    started = time.perf_counter()
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="pipec-bench-files-") as tmp:
        folder = Path(tmp)
        src = folder / "in"
        src.mkdir()
        bad = write_input(src / "readings.json", args.lines)
        size = (src / "readings.json").stat().st_size
        log(f"{args.lines:,} lines ({size / 1e6:.0f} MB), {bad:,} malformed")
        jobs = compile_jobs(folder, folder / "dead")
        # the jobs' own settings (as `python job.py` starts its JVM), with the UI whose status API counts the reads
        spark = (
            SparkSession.builder.master("local[2]")
            .appName("pipec-bench-files")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.extraJavaOptions", jobs["all"].JVM_OPTIONS)
            .getOrCreate()
        )
        try:
            pid = spark.sparkContext._jvm.ProcessHandle.current().pid()
            for name, job in jobs.items():  # warm-up
                run_once(spark, job, src, folder / f"out-{name}", pid)
            runs: dict[str, list[dict]] = {name: [] for name in jobs}
            for rep in range(args.reps):
                for name in ("none", "all") if rep % 2 == 0 else ("all", "none"):
                    shutil.rmtree(folder / "dead", ignore_errors=True)
                    runs[name].append(run_once(spark, jobs[name], src, folder / f"out-{name}", pid))
                    r = runs[name][-1]
                    log(
                        f"tolerance {name}: {r['wall_s']:.2f} s wall, {r['cpu_s']:.2f} s CPU, "
                        f"read {r['input_records']:,} records, {r['input_bytes'] / 1e6:.0f} MB"
                    )
            dead = sum(1 for f in (folder / "dead").glob("part-*.json") for _ in f.open())
        finally:
            spark.stop()
    figures = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "settings": {
            "lines": args.lines,
            "malformed": bad,
            "file_bytes": size,
            "reps": args.reps,
            "master": "local[2]",
        },
        "load_average_start": load_start,
        "load_average_end": os.getloadavg(),
        "dead_letters_last_run": dead,
        "runs": {
            name: {
                "wall_s": mmm([r["wall_s"] for r in rs]),
                "cpu_s": mmm([r["cpu_s"] for r in rs]),
                "load_1min": mmm([r["load_1min"] for r in rs]),
                "input_records": mmm([r["input_records"] for r in rs]),
                "input_bytes": mmm([r["input_bytes"] for r in rs]),
            }
            for name, rs in runs.items()
        },
        "wall_s": time.perf_counter() - started,
    }
    none, all_ = figures["runs"]["none"], figures["runs"]["all"]
    figures["ratio"] = {
        "wall_s_median": all_["wall_s"]["median"] / none["wall_s"]["median"],
        "cpu_s_median": all_["cpu_s"]["median"] / none["cpu_s"]["median"],
        "input_records_per_line": all_["input_records"]["median"] / args.lines,
    }
    log(
        f"tolerance all ÷ none: wall {figures['ratio']['wall_s_median']:.2f}, CPU {figures['ratio']['cpu_s_median']:.2f}; "
        f"records read per line {figures['ratio']['input_records_per_line']:.2f}; dead letters {dead:,} of {bad:,}"
    )
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    if dead != bad:
        log("the dead letters are not the malformed lines")
        return 1
    if args.write:
        from .results import merge

        merge("files_dead_letters", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
