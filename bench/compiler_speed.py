"""Compiler speed: cold `pipec compile` and `pipec check` of many pipelines and of one, where one process's
CPU time goes, and cold `pipec validate` latency.

None starts a JVM. Times are wall clock and CPU time (the CPU figure is what the compiler costs; on a busy host
the wall clock also measures the other work).
"""

from __future__ import annotations

import os
import resource
import shutil
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


def breakdown(folder: Path, count: int = BREAKDOWN_AT_MOST) -> dict:
    """Where one process's CPU time goes over the first `count` pipelines under `folder`: validate (load, JSON
    Schema, build), then generate (lower, render, lay out)."""
    from pipec.project.driver import build_all, generate_all

    part = [str(f) for f in sorted(folder.iterdir())[:count]]
    build_all(part[:1]), generate_all(build_all(part[:1]))  # imports and templates loaded, as in a warm process
    _, c0 = _clock()
    result = build_all(part)
    _, c1 = _clock()
    jobs = generate_all(result)
    _, c2 = _clock()
    assert len(jobs) == len(part)
    return {
        "pipelines": len(part),
        "validate_cpu_ms": 1000 * (c1 - c0) / len(part),
        "generate_cpu_ms": 1000 * (c2 - c1) / len(part),
    }


def _pipec(args: list[str], cache: str) -> tuple[float, float]:
    """Wall and CPU seconds (with its worker processes) of one `pipec ARGS` in a fresh process."""
    env = {**os.environ, "PIPEC_CACHE_DIR": cache}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "pipec"), *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"bench: pipec {' '.join(args)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _runs(runs: int, args: list[str], cache: str, before=None) -> dict:
    walls, cpus = [], []
    for _ in range(runs):
        if before:
            before()
        wall, cpu = _pipec(args, cache)
        walls.append(wall)
        cpus.append(cpu)
    return {"runs": runs, "wall_s": summary(walls), "cpu_s": summary(cpus)}


def compile_speed(count: int, steps: int, runs: int) -> dict:
    """Issue 14's target 2, each in a fresh process (`runs` times): `pipec compile` of `count` different
    pipelines without a cache, `pipec check` of the same unchanged (the cache filled by one compile), and
    `pipec compile` of one pipeline without a cache."""
    with tempfile.TemporaryDirectory(prefix="pipec-bench-") as tmp:
        folder, out, cache = Path(tmp) / "pipelines", Path(tmp) / "out", str(Path(tmp) / "cache")
        write_pipelines(folder, count, steps)
        one = Path(tmp) / "one"
        one.mkdir()
        shutil.copy(folder / "p0000.yaml", one / "p0000.yaml")

        def clean() -> None:
            shutil.rmtree(out, ignore_errors=True)

        result = {
            "pipelines": count,
            "steps": steps,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load_average_start": os.getloadavg(),
        }
        result["compile"] = _runs(runs, ["compile", str(folder), "--out", str(out)], "", clean)
        _pipec(["compile", str(folder), "--out", str(out)], cache)  # fills the cache, as a CI's compile would
        result["check"] = _runs(runs, ["check", str(folder), "--out", str(out)], cache)
        result["one"] = _runs(max(runs, 3), ["compile", str(one), "--out", str(out)], "")
        result["load_average_end"] = os.getloadavg()
        result["breakdown"] = breakdown(folder)
    return result


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
