"""What the compiled bench/chain.yaml pays for Kafka Connect's exactness (`scripts/bench chain-what-if`): variants
of the compiled job edited by hand, each timed against the job and the hand-written job (bench/handwritten.py) in
alternating rounds, CPU seconds of the Spark JVM. Each variant writes the same records as the job on the
benchmark's records (checked: count and a sum of row hashes), which carry none of the faults the checks catch.

  no_record_checks   every per-record failure check dropped: a step's raise_error (a null value where a struct
                     is required, a missing timestamp, a string that is no Java number, bytes that are no UTF-8)
                     and the decode's converter checks
  plain_casts        only Cast's checks dropped: amount as Spark's cast to double, trace as a plain cast to string
  no_filter_barrier  the Filter without the barrier that keeps Spark from pushing it below the steps (Spark then
                     repeats the rebuilt headers in the filter)
  key_as_read        the key written as the source read it (bench/peer_whatif.py)
  header_by_filter   the header column read as before issue 28 (and as bench/handwritten.py reads it): the last
                     element of the headers filtered by a lambda, instead of last_header's position among the keys
The edits work on the job's syntax tree (ast), so formatting changes of the generator do not break them; a
variant that finds nothing to edit fails loudly.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import statistics
import tempfile
from pathlib import Path

from .run import CHAIN, log

RAISE = "raise_error"


def _calls(node: ast.AST, name: str) -> bool:
    """Whether `node` calls F.<name> anywhere inside, or for a raise, the job's record_error or value_if_null."""
    raises = name == RAISE
    return any(
        (isinstance(n, ast.Attribute) and n.attr == name)
        or (raises and isinstance(n, ast.Name) and (n.id == "record_error" or n.id.endswith("_if_null")))
        for n in ast.walk(node)
    )


class _DropChecks(ast.NodeTransformer):
    """`F.when(c, <raises>).otherwise(x)` -> x; `F.coalesce(x, <raises>)` -> x; `F.when(c, x).otherwise(<raises>)`
    -> x. `only` limits the edit to the dict entries (field names) given."""

    def __init__(self, only: set[str] | None = None):
        self.only, self.edits = only, 0

    def visit_Dict(self, node: ast.Dict) -> ast.AST:
        if self.only is None:
            return self.generic_visit(node)
        node.values = [
            self.visit(v) if isinstance(k, ast.Constant) and k.value in self.only else v
            for k, v in zip(node.keys, node.values)
        ]
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node = self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "otherwise" and isinstance(f.value, ast.Call):
            when = f.value
            if isinstance(when.func, ast.Attribute) and when.func.attr == "when" and len(when.args) == 2:
                if _calls(when.args[1], RAISE) and not _calls(node.args[0], RAISE):
                    self.edits += 1
                    return node.args[0]
                if _calls(node.args[0], RAISE) and not _calls(when.args[1], RAISE):
                    self.edits += 1
                    return when.args[1]
        if (
            isinstance(f, ast.Attribute)
            and f.attr == "coalesce"
            and len(node.args) == 2
            and _calls(node.args[1], RAISE)
        ):
            self.edits += 1
            return node.args[0]
        return node


def _edited(source: str, transformer: ast.NodeTransformer) -> str:
    tree = transformer.visit(ast.parse(source))
    if not transformer.edits:
        raise SystemExit(f"bench/chain_whatif.py: {type(transformer).__name__} found nothing to edit in the job")
    return ast.unparse(ast.fix_missing_locations(tree))


def _plain_casts(source: str) -> str:
    """amount and trace cast plainly (Cast's own checks dropped; the null-value check of the run stays)."""
    source = _edited(source, _DropChecks({"amount", "trace"}))
    old = "value['amount'].try_cast('DOUBLE')"
    if old not in source:
        raise SystemExit("bench/chain_whatif.py: the job's amount cast is no longer a try_cast")
    return source.replace(old, "value['amount'].cast('DOUBLE')")


def _no_barrier(source: str) -> str:
    old = " & (F.spark_partition_id() >= F.lit(0))"
    if source.count(old) != 1:
        raise SystemExit("bench/chain_whatif.py: the job holds no single filter barrier")
    return source.replace(old, "")


def _header_by_filter(source: str) -> str:
    """Each last_header(headers, key) call as try_element_at(filter(headers, h -> h.key == key), -1).value."""
    calls = re.findall(r'last_header\((F\.col\("headers"\)), ("[^"]*")\)', source)
    if not calls:
        raise SystemExit("bench/chain_whatif.py: the job reads no header column with last_header")
    for headers, key in calls:
        lookup = f'F.try_element_at(F.filter({headers}, lambda h: h.getField("key") == F.lit({key})), F.lit(-1))'
        source = source.replace(f"last_header({headers}, {key})", f'{lookup}.getField("value")')
    return source


def variants(folder: Path) -> dict:
    """name -> a module with transform(raw): the job, its edited variants and the hand-written job."""
    from pipec.testing.runner import load_job

    from . import handwritten
    from .peer_whatif import _key_as_read
    from .plans import compile_job

    job = compile_job(CHAIN, folder)
    source = (folder / "bench_chain.py").read_text(encoding="utf-8")
    edits = {
        "no_record_checks": _edited(source, _DropChecks()),
        "plain_casts": _plain_casts(source),
        "no_filter_barrier": _no_barrier(source),
        "key_as_read": _key_as_read(source),
        "header_by_filter": _header_by_filter(source),
    }
    jobs = {"job": job}
    for name, text in edits.items():
        path = folder / f"chain_{name}.py"
        path.write_text(text, encoding="utf-8")
        jobs[name] = load_job(path)
    jobs["handwritten"] = handwritten
    return jobs


def what_if(records: int, reps: int) -> dict:
    from pipec.emit.job import JVM_OPTIONS

    from .connect_peer import spark_pass
    from .generate import kafka_records
    from .peer_profile import jfr_spark
    from .peer_whatif import _fingerprint
    from .run import session

    spark = session("2g", JVM_OPTIONS)
    jvm_pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="pipec-whatif-") as tmp:
        jobs = variants(Path(tmp))
        for key, value in jobs["job"].SESSION_CONF.items():
            spark.conf.set(key, value)
        raw = kafka_records(spark, records).cache()
        raw.count()
        frames = {name: job.transform(raw) for name, job in jobs.items()}
        expected = _fingerprint(frames["job"])
        for name, df in frames.items():
            if name != "handwritten" and _fingerprint(df) != expected:
                raise SystemExit(f"bench/chain_whatif.py: variant {name} writes other records than the job")
            spark_pass(df, jvm_pid)  # warm-up
        names = list(frames)
        cpu: dict[str, list[float]] = {name: [] for name in names}
        wall: dict[str, list[float]] = {name: [] for name in names}
        for rep in range(reps):
            for name in names[rep % len(names) :] + names[: rep % len(names)]:
                run = spark_pass(frames[name], jvm_pid)
                cpu[name].append(run["cpu_s"] * 1e6 / records)
                wall[name].append(run["wall_s"] * 1e6 / records)
            log(f"what-if round {rep + 1}/{reps}: " + ", ".join(f"{n} {cpu[n][-1]:.2f}" for n in names))
        profiles = {name: jfr_spark(spark, frames[name], Path(tmp)) for name in ("job", "handwritten")}
    spark.stop()
    med = {name: statistics.median(v) for name, v in cpu.items()}
    return {
        "records": records,
        "reps": reps,
        "load_average_start": load_start,
        "load_average_end": os.getloadavg(),
        "variants": {
            name: {
                "cpu_s_per_1m": med[name],
                "cpu_s_per_1m_runs": cpu[name],
                "wall_s_per_1m": statistics.median(wall[name]),
                "vs_job": med[name] / med["job"],
                "handwritten_vs_this": med["handwritten"] / med[name],
            }
            for name in names
        },
        "jfr": profiles,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench chain-what-if", description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=400_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="merge the figures into bench/results.json")
    args = parser.parse_args(argv)
    result = what_if(args.records, args.reps)
    print(
        f"== bench/chain.yaml what-if ({args.records:,} records, {args.reps} rounds, load "
        f"{result['load_average_start'][0]:.1f} -> {result['load_average_end'][0]:.1f}) =="
    )
    print(f"{'variant':>20}  CPU s/1M   ÷ job   hand-written ÷ this (by CPU)")
    for name, v in result["variants"].items():
        print(f"{name:>20}  {v['cpu_s_per_1m']:8.2f}  {v['vs_job']:6.3f}  {v['handwritten_vs_this']:6.3f}")
    print("where the CPU goes (JFR samples of one pass; CPU s per 1M records by the timed medians):")
    for name, p in result["jfr"].items():
        per = result["variants"][name]["cpu_s_per_1m"]
        print(f"  {name}: " + "; ".join(f"{label} {share * per:.2f}" for label, share in p["share"].items()))
    if args.write:
        from .results import merge

        merge("chain_what_if", result)
    else:
        Path("out").mkdir(exist_ok=True)
        Path("out/chain-what-if.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
