"""What a record costs in avro-confluent through a Schema Registry against json, on the same data (issue 16).

Two generated jobs, compiled from the same pipeline but for the payload format: `json` (kafka source -> kafka sink,
JsonConverter-style values) and `avro-confluent` with a registry `url` on both sides (the source decodes each record
with the writer schema its id names, resolved to the declared columns; the sink registers its schema and frames
records with the id). The raw Kafka rows are built once per format from the same records and cached: json values
are to_json of the record, avro-confluent values the 5-byte header of a schema registered under the topic's subject
plus to_avro of it. Each job's `transform` runs over its rows into Spark's `noop` sink, in ONE local[2] session, the
two alternating in a rotating order over several repetitions; wall and CPU time of the JVM per repetition, and the
ratio avro-confluent ÷ json per repetition (min / median / max), with the load average. Before timing, both jobs'
outputs are decoded back and compared.

The registry (scripts/registry, Apicurio) runs for the duration: two JVMs, run under `/work/bin/jvm -2`.

    scripts/bench avro-confluent [--records 500000] [--reps 7] [--write]
        (--write merges the figures into bench/results.json as `avro_confluent` and rewrites docs/benchmarks.md)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = (
    ROOT / "out" / "avro-confluent.json"
)  # every run's figures (git ignores out/); --write merges them into bench/results.json
TOPIC = "orders"
URL_ENV = "PIPEC_BENCH_REGISTRY_URL"
FORMATS = ("json", "avro-confluent")
PIPELINE = """\
    version: 1
    name: bench_{name}
    mode: batch
    source:
      connector: kafka
      topics: [{topic}]
      properties: {{bootstrap.servers: "unused:1"}}
      value: {value}
      columns:
        - {{name: id, type: BIGINT}}
        - {{name: customer, type: "STRUCT<name STRING, email STRING, city STRING>"}}
        - {{name: amount, type: DOUBLE}}
        - {{name: quantity, type: INT}}
        - {{name: status, type: STRING}}
        - {{name: note, type: STRING}}
    transforms:
      - {{name: drop_note, type: ReplaceField$Value, exclude: [note]}}
    sink:
      connector: kafka
      topic: out_{name}
      value: {value}
"""
# The producers' schema (non-null fields, as a Java or Python producer would write them): one registered version
WRITER = {
    "type": "record",
    "name": "Order",
    "namespace": "bench",
    "fields": [
        {"name": "id", "type": "long"},
        {
            "name": "customer",
            "type": {
                "type": "record",
                "name": "Customer",
                "fields": [
                    {"name": "name", "type": "string"},
                    {"name": "email", "type": "string"},
                    {"name": "city", "type": "string"},
                ],
            },
        },
        {"name": "amount", "type": "double"},
        {"name": "quantity", "type": "int"},
        {"name": "status", "type": "string"},
        {"name": "note", "type": "string"},
    ],
}


def log(text: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {text}", flush=True)


def summary(values: list[float]) -> dict:
    return {"min": min(values), "median": statistics.median(values), "max": max(values), "values": values}


def registry(command: str, state: str) -> str:
    done = subprocess.run(
        [str(ROOT / "scripts" / "registry"), command],
        env={**os.environ, "PIPEC_REGISTRY_DIR": state},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"scripts/registry {command} failed:\n{done.stderr}")
    return done.stdout.strip()


def register(url: str, subject: str, schema: dict) -> int:
    body = json.dumps({"schema": json.dumps(schema)}).encode()
    request = urllib.request.Request(
        f"{url}/subjects/{subject}/versions",
        data=body,
        headers={"Content-Type": "application/vnd.schemaregistry.v1+json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)["id"]


def load_jobs(folder: Path) -> dict:
    from pipec.project.driver import build_all, generate_all
    from pipec.testing.runner import load_job

    jobs = {}
    for fmt in FORMATS:
        name = fmt.replace("-", "_")
        value = "{format: json}" if fmt == "json" else f'{{format: avro-confluent, url: "${{env:{URL_ENV}}}"}}'
        path = folder / f"{name}.yaml"
        path.write_text(textwrap.dedent(PIPELINE.format(name=name, topic=TOPIC, value=value)), encoding="utf-8")
        result = build_all([str(path)])
        result.diags.check()
        ((file, source),) = generate_all(result).items()
        (folder / file).write_text(source, encoding="utf-8")
        jobs[fmt] = load_job(folder / file)
    return jobs


def raw_rows(spark, n: int, schema_id: int) -> dict:
    """The same `n` records as raw Kafka rows, per format (cached)."""
    from pyspark.sql import functions as F
    from pyspark.sql.avro.functions import to_avro

    i = F.col("id")
    record = F.struct(
        i.alias("id"),
        F.struct(
            F.format_string("customer-%d", i % 10007).alias("name"),
            F.format_string("user%d@example.com", i).alias("email"),
            F.element_at(F.array(*map(F.lit, ("Lisbon", "Oslo", "Lyon", "Leeds"))), (i % 4 + 1).cast("int")).alias(
                "city"
            ),
        ).alias("customer"),
        ((i * 31) % 100000 / 100).cast("double").alias("amount"),
        (i % 10 + 1).cast("int").alias("quantity"),
        F.element_at(F.array(*map(F.lit, ("new", "paid", "shipped"))), (i % 3 + 1).cast("int")).alias("status"),
        F.format_string("note-%d", i % 97).alias("note"),
    )
    values = {
        "json": F.to_json(record).cast("binary"),
        "avro-confluent": F.concat(F.unhex(F.lit(f"00{schema_id:08X}")), to_avro(record, json.dumps(WRITER))),
    }
    frames = {}
    for fmt, value in values.items():
        rows = (
            spark.range(n, numPartitions=2)
            .select(
                F.lit(None).cast("binary").alias("key"),
                value.alias("value"),
                F.lit(TOPIC).alias("topic"),
                (i % 2).cast("int").alias("partition"),
                (i / 2).cast("bigint").alias("offset"),
                F.timestamp_millis(F.lit(1_704_067_200_000) + i).alias("timestamp"),
                F.lit(0).alias("timestampType"),
                F.array().cast("ARRAY<STRUCT<key: STRING, value: BINARY>>").alias("headers"),
            )
            .cache()
        )
        rows.count()
        frames[fmt] = rows
    return frames


def same_output(jobs: dict, frames: dict, sample: int) -> bool:
    """Both jobs' written values, decoded back, agree on the first `sample` records."""
    from pyspark.sql import functions as F
    from pyspark.sql.avro.functions import from_avro

    written = {fmt: jobs[fmt].transform(frames[fmt].limit(sample)) for fmt in FORMATS}
    json_rows = written["json"].select(
        F.from_json(
            F.col("value").cast("string"),
            "id BIGINT, customer STRUCT<name STRING, email STRING, city STRING>, amount DOUBLE, quantity INT, status STRING",
        ).alias("r")
    )
    sink_schema = next(iter(_sink_schemas(jobs["avro-confluent"])))
    avro_rows = written["avro-confluent"].select(
        from_avro(F.substring(F.col("value"), 6, 2147483647), sink_schema).alias("r")
    )
    left = sorted(tuple(r.r) for r in json_rows.collect())
    right = sorted(tuple(r.r) for r in avro_rows.collect())
    return len(left) == sample and left == right


def _sink_schemas(job) -> list[str]:
    """The schema the avro-confluent job registered for its sink (from the registry, by the id it wrote)."""
    name = "sink.value"
    schema_id = job.WRITTEN_IDS[name]
    answer = job.registry_call(name, f"/schemas/ids/{schema_id}")
    return [answer["schema"]]


def timed(jvm_pid: int, jobs: dict, frames: dict, n: int, reps: int, warmups: int) -> dict:
    from .run import noop, tree_cpu_seconds

    outputs = {fmt: jobs[fmt].transform(frames[fmt]) for fmt in FORMATS}
    for _ in range(warmups):
        for fmt in FORMATS:
            noop(outputs[fmt])
    runs: dict = {fmt: [] for fmt in FORMATS}
    for rep in range(reps):
        order = FORMATS[rep % 2 :] + FORMATS[: rep % 2]
        for fmt in order:
            load = os.getloadavg()[0]
            cpu0, t0 = tree_cpu_seconds(jvm_pid, False), time.perf_counter()
            noop(outputs[fmt])
            wall, cpu = time.perf_counter() - t0, tree_cpu_seconds(jvm_pid, False) - cpu0
            runs[fmt].append({"wall_s": wall, "cpu_s": cpu, "load_1min": load})
            log(f"rep {rep + 1}/{reps} {fmt}: {wall:.3f} s wall, {cpu:.2f} CPU s, {wall / n * 1e6:.2f} us/record")
    return runs


def figures(runs: dict, n: int) -> dict:
    avro, plain = runs["avro-confluent"], runs["json"]
    return {
        "us_per_record": {fmt: summary([r["wall_s"] / n * 1e6 for r in rs]) for fmt, rs in runs.items()},
        "cpu_us_per_record": {fmt: summary([r["cpu_s"] / n * 1e6 for r in rs]) for fmt, rs in runs.items()},
        "avro_vs_json": {
            "wall": summary([a["wall_s"] / j["wall_s"] for a, j in zip(avro, plain)]),
            "cpu": summary([a["cpu_s"] / j["cpu_s"] for a, j in zip(avro, plain) if j["cpu_s"]]),
        },
    }


def measure(args) -> dict:
    from pipec.spark_versions import AVRO

    from .run import machine, session, use_connectors

    started = time.perf_counter()
    use_connectors(AVRO)
    result: dict = {
        "machine": machine(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "settings": {k: getattr(args, k) for k in ("records", "reps", "warmups")},
        "load_average_start": list(os.getloadavg()),
    }
    with tempfile.TemporaryDirectory(prefix="pipec-bench-avro-") as work:
        t0 = time.perf_counter()
        url = registry("start", f"{work}/registry")
        result["registry_start_s"] = time.perf_counter() - t0
        log(f"registry at {url} after {result['registry_start_s']:.1f} s")
        try:
            os.environ[URL_ENV] = url
            schema_id = register(url, f"{TOPIC}-value", WRITER)
            jobs = load_jobs(Path(work))
            from pipec.emit.job import JVM_OPTIONS

            spark = session("2g", JVM_OPTIONS)
            for key, value in jobs["json"].SESSION_CONF.items():
                spark.conf.set(key, value)
            jvm_pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
            log(f"building {args.records:,} records per format")
            frames = raw_rows(spark, args.records, schema_id)
            result["outputs_equal"] = same_output(jobs, frames, 2000)
            log(f"outputs equal: {result['outputs_equal']}")
            runs = timed(jvm_pid, jobs, frames, args.records, args.reps, args.warmups)
            spark.stop()
        finally:
            registry("stop", f"{work}/registry")
    result["runs"] = runs
    result.update(figures(runs, args.records))
    result["load_average_end"] = list(os.getloadavg())
    result["wall_s"] = time.perf_counter() - started
    return result


def write_results(result: dict) -> None:
    """Merges the figures into bench/results.json as `avro_confluent` and rewrites docs/benchmarks.md."""
    from .results import merge

    merge("avro_confluent", result)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench avro-confluent", description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=500_000)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--warmups", type=int, default=1)
    parser.add_argument(
        "--write", action="store_true", help="merge into bench/results.json; rewrite docs/benchmarks.md"
    )
    args = parser.parse_args(argv)
    result = measure(args)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for fmt in FORMATS:
        us, cpu = result["us_per_record"][fmt], result["cpu_us_per_record"][fmt]
        print(
            f"{fmt:15s} {us['median']:6.2f} us/record wall ({us['min']:.2f}-{us['max']:.2f}), {cpu['median']:.2f} CPU us/record"
        )
    q = result["avro_vs_json"]
    print(
        f"avro-confluent / json: wall x{q['wall']['median']:.2f} ({q['wall']['min']:.2f}-{q['wall']['max']:.2f}), "
        f"cpu x{q['cpu']['median']:.2f} ({q['cpu']['min']:.2f}-{q['cpu']['max']:.2f}); outputs equal: {result['outputs_equal']}"
    )
    if not result["outputs_equal"]:
        return 1
    if args.write:
        write_results(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
