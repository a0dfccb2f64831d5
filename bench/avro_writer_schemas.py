"""Decoding Confluent-framed Avro whose records carry different schema ids: the cost of the design in
docs/design/avro-registry.md against one from_avro, and against from_json on the same records.

All variants run in ONE local[2] SparkSession over cached in-memory values and write to Spark's `noop` sink; they
alternate, in a rotating order, over several repetitions; ratios are per repetition against `avro_one`.

json             from_json over the records as JSON text (the `json` format's decoder)
avro_one         from_avro(body, writer schema), FAILFAST: one schema, no resolution (today's avro-confluent)
avro_resolved    from_avro(body, writer, {avroSchema: reader}), PERMISSIVE, the reader schema derived from the
                 declared columns (nullable fields) plus a defaulted sentinel field that tells a failed decode
case_N           CASE on the 5-byte header over N writer schemas, one from_avro (as avro_resolved) per branch, with
                 the record-error flag; the records' ids spread evenly over the N schemas
case_32_last     the same CASE over 32 schemas, every record matching the last branch (the longest dispatch)
header_scan      the distinct headers of the records (what a batch job would pre-scan to learn the ids it meets)

The N writer schemas have the same fields (they differ in their `doc`, so their texts and decoders differ), so the
variants differ only in dispatch, not in the bytes decoded. Outputs are compared before anything is timed.

    .venv/bin/python -m bench.avro_writer_schemas [--records 200000] [--reps 5]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from .compiler_speed import summary
from .run import fingerprint, log, machine, noop, session, tree_cpu_seconds, use_connectors

ROOT = Path(__file__).resolve().parent.parent
BODY = "substring(value, 6)"
HEADER = "substring(value, 1, 5)"
SENTINEL = "__pipec_decoded"
FIELDS = [  # name, writer type (what a producer registers), Spark DDL of the declared column
    ("id", "long", "BIGINT"),
    ("customer", "string", "STRING"),
    ("amount", "double", "DOUBLE"),
    ("quantity", "int", "INT"),
    ("created_ms", "long", "BIGINT"),
    ("status", "string", "STRING"),
    ("tags", {"type": "array", "items": "string"}, "ARRAY<STRING>"),
    (
        "address",
        {
            "type": "record",
            "name": "Address",
            "fields": [{"name": "city", "type": "string"}, {"name": "zip", "type": "string"}],
        },
        "STRUCT<city: STRING, zip: STRING>",
    ),
]
COLUMNS = [name for name, _, _ in FIELDS]
SCHEMA_COUNTS = (1, 2, 8, 32)


def writer_schema(version: int) -> str:
    fields = [{"name": name, "type": avro} for name, avro, _ in FIELDS]
    return json.dumps(
        {"type": "record", "name": "Order", "namespace": "bench", "doc": f"version {version}", "fields": fields}
    )


def reader_schema() -> str:
    """The declared columns as pipec derives them (every field a nullable union, default null) and the sentinel."""

    def nullable(avro) -> object:
        if isinstance(avro, dict) and avro.get("type") == "record":
            avro = {
                **avro,
                "fields": [{"name": f["name"], "type": nullable(f["type"]), "default": None} for f in avro["fields"]],
            }
        elif isinstance(avro, dict) and avro.get("type") == "array":
            avro = {**avro, "items": nullable(avro["items"])}
        return ["null", avro]

    fields = [{"name": name, "type": nullable(avro), "default": None} for name, avro, _ in FIELDS]
    fields.append({"name": SENTINEL, "type": "boolean", "default": True})
    return json.dumps({"type": "record", "name": "Order", "namespace": "bench", "fields": fields})


def records(spark, n: int):
    """n orders as a non-null struct column `r` (deterministic)."""
    from pyspark.sql import functions as F

    i = F.col("id")
    status = F.when(i % 3 == 0, "NEW").when(i % 3 == 1, "PAID").otherwise("SHIPPED")
    order = F.struct(
        i.alias("id"),
        F.concat(F.lit("customer-"), (i % 1000).cast("string")).alias("customer"),
        ((i % 10000) / 100).alias("amount"),
        (i % 7).cast("int").alias("quantity"),
        (F.lit(1_700_000_000_000) + i).alias("created_ms"),
        status.alias("status"),
        F.array(F.concat(F.lit("tag-"), (i % 5).cast("string")), F.concat(F.lit("tag-"), (i % 3).cast("string"))).alias(
            "tags"
        ),
        F.struct(
            F.concat(F.lit("city-"), (i % 50).cast("string")).alias("city"),
            F.lpad((i % 99999).cast("string"), 5, "0").alias("zip"),
        ).alias("address"),
    )
    return spark.range(n).select(order.alias("r"))


def framed(spark, n: int, schema_id):
    """Confluent-framed Avro values: magic 0, the id given by the Column `schema_id`, the body (cached)."""
    from pyspark.sql import functions as F
    from pyspark.sql.avro.functions import to_avro

    header = F.concat(F.unhex(F.lit("00")), F.unhex(F.lpad(F.hex(schema_id), 8, "0")))
    rows = records(spark, n).select("r", F.col("r.id").alias("id"))
    return rows.select(F.concat(header, to_avro(F.col("r"), writer_schema(1))).alias("value")).cache()


def decode_case(count: int):
    """The design's decoder: a CASE over `count` writer schemas (ids 1..count), and the record-error flag."""
    from pyspark.sql import functions as F
    from pyspark.sql.avro.functions import from_avro

    options = {"mode": "PERMISSIVE", "avroSchema": reader_schema()}
    decoded = None
    for schema_id in range(1, count + 1):
        when = F.expr(HEADER) == F.unhex(F.lit(f"00{schema_id:08X}"))
        branch = from_avro(F.expr(BODY), writer_schema(schema_id), options)
        decoded = F.when(when, branch) if decoded is None else decoded.when(when, branch)
    failed = F.col("value").isNotNull() & (F.col("d").isNull() | F.col(f"d.{SENTINEL}").isNull())
    return lambda df: df.select(decoded.alias("d"), "value").select(
        *[F.col(f"d.{c}") for c in COLUMNS], failed.alias("failed")
    )


def variants(spark, n: int) -> tuple[dict, dict]:
    """{name: DataFrame to write}, {name: DataFrame of the decoded columns, for the equality check}."""
    from pyspark.sql import functions as F
    from pyspark.sql.avro.functions import from_avro, to_avro  # noqa: F401

    ddl = "STRUCT<" + ", ".join(f"{name}: {t}" for name, _, t in FIELDS) + ">"
    as_json = records(spark, n).select(F.to_json("r").cast("binary").alias("value")).cache()
    one = framed(spark, n, F.lit(1))
    spread = {count: one if count == 1 else framed(spark, n, F.col("id") % count + 1) for count in SCHEMA_COUNTS}
    last = framed(spark, n, F.lit(32))
    for df in [as_json, last, *spread.values()]:
        df.count()
    out = {
        "json": as_json.select(F.from_json(F.col("value").cast("string"), ddl, {"mode": "FAILFAST"}).alias("d")).select(
            "d.*"
        ),
        "avro_one": one.select(from_avro(F.expr(BODY), writer_schema(1), {"mode": "FAILFAST"}).alias("d")).select(
            "d.*"
        ),
        "avro_resolved": one.select(
            from_avro(F.expr(BODY), writer_schema(1), {"mode": "PERMISSIVE", "avroSchema": reader_schema()}).alias("d"),
            "value",
        ).select(*[F.col(f"d.{c}") for c in COLUMNS], F.col(f"d.{SENTINEL}").isNull().alias("failed")),
    }
    for count in SCHEMA_COUNTS:
        out[f"case_{count}"] = decode_case(count)(spread[count])
    out["case_32_last"] = decode_case(32)(last)
    decoded = {name: df.select(*COLUMNS) for name, df in out.items()}
    out["header_scan"] = spread[32].select(F.expr(HEADER).alias("header")).distinct()
    return out, decoded


def check(decoded: dict, out: dict) -> dict:
    """Every decoder yields the same rows (a multiset fingerprint), no record is flagged, the scan finds 32 ids."""
    fps = {name: fingerprint(df) for name, df in decoded.items()}
    if len(set(fps.values())) != 1:
        raise SystemExit(f"bench: decoded outputs differ: {fps}")
    for name, df in out.items():
        if "failed" in df.columns and df.filter("failed").count():
            raise SystemExit(f"bench: {name} flagged records as undecodable")
    headers = out["header_scan"].count()
    if headers != 32:
        raise SystemExit(f"bench: the header scan found {headers} ids, not 32")
    return {"rows": int(next(iter(fps.values()))[0]), "fingerprint": [str(v) for v in next(iter(fps.values()))]}


def timed(jvm_pid: int, frames: dict, n: int, reps: int, warmups: int) -> dict:
    names = list(frames)
    for _ in range(warmups):
        for name in names:
            noop(frames[name])
    runs: dict = {name: [] for name in names}
    for rep in range(reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            cpu0, t0 = tree_cpu_seconds(jvm_pid, False), time.perf_counter()
            noop(frames[name])
            wall, cpu = time.perf_counter() - t0, tree_cpu_seconds(jvm_pid, False) - cpu0
            runs[name].append({"wall_s": wall, "cpu_s": cpu})
            log(f"rep {rep + 1}/{reps} {name}: {wall:.3f} s wall, {cpu:.2f} CPU s, {wall / n * 1e6:.2f} us/record")
    return runs


def ratios(runs: dict, base: str) -> dict:
    """Per variant: wall and CPU time ÷ the base's, per repetition (min/median/max)."""
    out = {}
    for name, rs in runs.items():
        wall = [x["wall_s"] / y["wall_s"] for x, y in zip(rs, runs[base])]
        cpu = [x["cpu_s"] / y["cpu_s"] for x, y in zip(rs, runs[base]) if y["cpu_s"]]
        out[name] = {"wall": summary(wall), "cpu": summary(cpu) if cpu else None}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.avro_writer_schemas", description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--warmups", type=int, default=1)
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "avro_writer_schemas.json")
    args = parser.parse_args(argv)
    from pipec.emit.job import JVM_OPTIONS
    from pipec.spark_versions import AVRO

    use_connectors(AVRO)
    result: dict = {
        "machine": machine(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "settings": {k: getattr(args, k) for k in ("records", "reps", "warmups")},
    }
    spark = session("2g", JVM_OPTIONS)
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    jvm_pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    log(f"building {args.records:,} records per data set")
    frames, decoded = variants(spark, args.records)
    result["equality"] = check(decoded, frames)
    log(f"outputs equal: {result['equality']}")
    runs = timed(jvm_pid, frames, args.records, args.reps, args.warmups)
    result["runs"] = runs
    result["us_per_record"] = {
        name: summary([r["wall_s"] / args.records * 1e6 for r in rs]) for name, rs in runs.items()
    }
    result["vs_avro_one"] = ratios(runs, "avro_one")
    result["machine"]["load_average_end"] = os.getloadavg()
    spark.stop()
    args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for name, r in result["vs_avro_one"].items():
        us = result["us_per_record"][name]["median"]
        print(
            f"{name:14s} {us:6.2f} us/record  wall x{r['wall']['median']:.2f} ({r['wall']['min']:.2f}-{r['wall']['max']:.2f})"
            f"  cpu x{r['cpu']['median']:.2f} ({r['cpu']['min']:.2f}-{r['cpu']['max']:.2f})"
        )
    print(f"load average start {result['machine']['load_average_start']}, end {result['machine']['load_average_end']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
