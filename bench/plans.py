"""Compiled jobs in-process, their plans' sizes, and Spark's analysis and optimisation time for long chains."""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path
from types import ModuleType

from pipec.project.driver import build_all, generate_all
from pipec.testing.runner import load_job

from .compiler_speed import summary
from .synthetic import pipeline_yaml

_COUNTED = {
    "from_json": "from_json(",
    "to_json": "StructsToJsonEvaluator",
    "regex": "RLIKE(",
    "raise_error": "raise_error(",
}


def compile_job(yaml_path: Path, out: Path) -> ModuleType:
    """Compile one pipeline into `out` and import the generated job exactly as written."""
    result = build_all([str(yaml_path)])
    jobs = generate_all(result)
    (name,) = jobs
    (out / name).write_text(jobs[name], encoding="utf-8")
    return load_job(out / name)


def plan_stats(df) -> dict:
    """Size of a DataFrame's optimized plan and how often costly expressions occur in it."""
    text = df._jdf.queryExecution().optimizedPlan().toString()
    above_cache = text.split("InMemoryRelation")[0]  # the benchmark's own input generation is not the job's
    stats = {name: above_cache.count(token) for name, token in _COUNTED.items()}
    stats["projects"] = len(re.findall(r"\bProject \[", above_cache))
    stats["filters"] = len(re.findall(r"\bFilter ", above_cache))
    stats["chars"] = len(above_cache)
    return stats


def codegen_stats(spark, df) -> list[dict]:
    """Per whole-stage-codegen stage: its largest generated method in bytecode bytes. HotSpot does not JIT-compile
    a method over 8,000 bytes (-XX:-DontCompileHugeMethods), so a stage over that runs interpreted."""
    plan = df._jdf.queryExecution().executedPlan()
    stages = spark._jvm.org.apache.spark.sql.execution.debug.package.codegenStringSeq(plan)
    out, it = [], stages.iterator()
    while it.hasNext():
        stage = it.next()
        out.append({"stage": stage._1().split("\n")[0][:60], "max_method_bytes": stage._3().maxMethodCodeSize()})
    return out


def analysis_times(spark, raw, steps: int, reps: int, folder: Path) -> dict:
    """Build the job's DataFrame over `raw` (PySpark analyses each operation as it is added), then optimise and
    plan it physically; `reps` times, each from scratch."""
    path = folder / f"chain{steps}.yaml"
    path.write_text(pipeline_yaml(f"chain{steps}", steps, steps), encoding="utf-8")
    job = compile_job(path, folder)
    for key, value in job.SESSION_CONF.items():
        spark.conf.set(key, value)
    build, optimise, physical, stats = [], [], [], {}
    for _ in range(reps):
        t0 = time.perf_counter()
        df = job.transform(raw)
        t1 = time.perf_counter()
        qe = df._jdf.queryExecution()
        qe.optimizedPlan()
        t2 = time.perf_counter()
        qe.executedPlan()
        t3 = time.perf_counter()
        build.append(t1 - t0)
        optimise.append(t2 - t1)
        physical.append(t3 - t2)
        stats = plan_stats(df)
    total = [b + o for b, o in zip(build, optimise)]
    return {
        "steps": steps,
        "reps": reps,
        "analyse_s": summary(build),
        "optimise_s": summary(optimise),
        "physical_s": summary(physical),
        "analyse_optimise_s": summary(total),
        "plan": stats,
    }


def growth(spark, raw, lengths: list[int]) -> list[dict]:
    """Analysis time and optimized plan size against chain length (one run each, after a warm-up)."""
    with tempfile.TemporaryDirectory(prefix="pipec-bench-") as tmp:
        analysis_times(spark, raw, lengths[0], 1, Path(tmp))
        rows = []
        for n in lengths:
            r = analysis_times(spark, raw, n, 1, Path(tmp))
            rows.append({"steps": n, "analyse_optimise_s": r["analyse_optimise_s"]["median"], **r["plan"]})
        return rows
