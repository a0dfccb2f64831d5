"""Compiler speed: validate and compile many pipelines in one process, and cold `pipec validate` latency.

Neither starts a JVM. Times are wall clock and this process's CPU time (the CPU figure is what the compiler
costs; on a busy host the wall clock also measures the other work).
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from .synthetic import write_pipelines

ROOT = Path(__file__).resolve().parent.parent


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


BREAKDOWN_AT_MOST = 100  # pipelines compiled in this process for the per-stage CPU breakdown


def compile_rate(count: int, steps: int) -> dict:
    """Validate (load, schema, build) and compile (lower, render, black) `count` pipelines of `steps` steps as
    `pipec compile` runs them, and up to BREAKDOWN_AT_MOST of them in this process for where
    the CPU time goes."""
    import black  # noqa: F401  (imported before timing, as `pipec compile` has it loaded when it formats)

    from compiler import format as fmt
    from compiler.project import build_all, generate_all

    black_time = [0.0, 0.0]
    original = fmt.format_python

    def timed_format(text: str, filename: str) -> str:
        w, c = _clock()
        try:
            return original(text, filename)
        finally:
            black_time[0] += time.perf_counter() - w
            black_time[1] += time.process_time() - c

    with tempfile.TemporaryDirectory(prefix="pipec-bench-") as tmp:
        write_pipelines(Path(tmp), count, steps)
        part = [str(f) for f in sorted(Path(tmp).iterdir())[:BREAKDOWN_AT_MOST]]
        breakdown = len(part)
        w0, c0 = _clock()
        result = build_all(part)
        w1, c1 = _clock()
        if result.diags.errors:
            raise SystemExit(f"bench: synthetic pipelines are invalid: {result.diags.errors[:3]}")
        fmt.format_python = timed_format
        try:
            jobs = generate_all(result)
        finally:
            fmt.format_python = original
        w2, c2 = _clock()
        assert len(jobs) == breakdown
        w3, _ = _clock()
        as_run = generate_all(build_all([tmp]))  # all of them, as `pipec compile` runs them
        w4, _ = _clock()
    assert len(as_run) == count and all(as_run[name] == source for name, source in jobs.items())
    total_wall, total_cpu = w2 - w0, c2 - c0
    count = breakdown
    return {
        "pipelines": count,
        "as_run_pipelines": len(as_run),
        "steps": steps,
        "wall_s": total_wall,
        "cpu_s": total_cpu,
        "pipelines_per_s": count / total_wall,
        "pipelines_per_cpu_s": count / total_cpu,
        "validate_wall_s": w1 - w0,
        "validate_pipelines_per_s": count / (w1 - w0),
        "validate_pipelines_per_cpu_s": count / (c1 - c0),
        "generate_wall_s": w2 - w1,
        "black_wall_s": black_time[0],
        "black_cpu_s": black_time[1],
        "black_share": black_time[1] / total_cpu,
        "without_black_pipelines_per_cpu_s": count / max(total_cpu - black_time[1], 1e-9),
        "as_run_wall_s": w4 - w3,
        "as_run_pipelines_per_s": count / (w4 - w3),
    }


def cold_validate(runs: int, path: Path) -> dict:
    """`pipec validate FILE` in a fresh process, `runs` times: wall and CPU seconds of each run."""
    pipec = ROOT / ".venv" / "bin" / "pipec"
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([str(pipec), "validate", str(path)], cwd=ROOT, capture_output=True, text=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            raise SystemExit(f"bench: pipec validate failed:\n{done.stdout}{done.stderr}")
    return {"runs": runs, "wall_s": summary(walls), "cpu_s": summary(cpus)}


def summary(values: list[float]) -> dict:
    return {"min": min(values), "median": statistics.median(values), "max": max(values), "values": values}
