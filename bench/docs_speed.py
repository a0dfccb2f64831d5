"""`pipec docs` build time (issue 29's target: under a second of CPU per 100 pipelines), beside `pipec validate` of
the same pipelines (every check of the compiler: load, validate, resolve, lower). No JVM.

Synthetic pipelines (`bench/synthetic.py`) of a few chain lengths; their jobs compiled first into a folder and the
job cache (as a repository's CI does before publishing its site), so docs reads each job from disk. Each command in
a fresh process, CPU seconds from its rusage; min / median / max over the runs, and the load average around them.

    .venv/bin/python -m bench.docs_speed [--pipelines 100] [--steps 4,20] [--runs 5]   (or scripts/bench docs-site)
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from .compiler_speed import _pipec, summary
from .synthetic import write_pipelines


def measure(count: int, steps: int, runs: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="pipec-docs-bench-") as tmp:
        folder, jobs, site, cache = (
            Path(tmp) / "pipelines",
            Path(tmp) / "generated",
            Path(tmp) / "site",
            str(Path(tmp) / "cache"),
        )
        write_pipelines(folder, count, steps)
        _pipec(["compile", str(folder), "--out", str(jobs)], cache)
        figures = {"pipelines": count, "steps": steps, "load_start": os.getloadavg()[0]}
        for name, args in (
            ("validate", ["validate", str(folder)]),
            ("docs", ["docs", str(folder), "--out", str(site), "--jobs", str(jobs)]),
        ):
            cpu, wall = [], []
            for _ in range(runs):
                shutil.rmtree(site, ignore_errors=True)
                w, c = _pipec(args, cache)
                wall.append(w)
                cpu.append(c)
            figures[name] = {"cpu_s": summary(cpu), "wall_s": summary(wall)}
        figures["site_mb"] = sum(f.stat().st_size for f in site.rglob("*") if f.is_file()) / 1e6
        figures["load_end"] = os.getloadavg()[0]
    return figures


def report(f: dict) -> str:
    def mmm(s: dict) -> str:
        return f"{s['min']:.2f} / {s['median']:.2f} / {s['max']:.2f}"

    docs, validate = f["docs"]["cpu_s"], f["validate"]["cpu_s"]
    per100 = docs["median"] * 100 / f["pipelines"]
    return (
        f"{f['pipelines']} pipelines of {f['steps']} steps (load {f['load_start']:.2f} -> {f['load_end']:.2f}): "
        f"pipec docs CPU s {mmm(docs)} (wall {mmm(f['docs']['wall_s'])}), {per100:.2f} s per 100 pipelines; "
        f"pipec validate CPU s {mmm(validate)}; docs / validate {docs['median'] / validate['median']:.2f}; "
        f"site {f['site_mb']:.1f} MB"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pipelines", type=int, default=100)
    parser.add_argument("--steps", default="4,20", help="chain lengths, comma-separated")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    for steps in (int(s) for s in args.steps.split(",")):
        print(report(measure(args.pipelines, steps, args.runs)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
