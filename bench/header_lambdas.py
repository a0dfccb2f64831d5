"""Header lambdas against lambda-free forms, one step alone over cached rows (issue 28; not part of `scripts/bench`):
DropHeaders as lowered (a `filter` lambda) against a sort-based exact form with no lambda and a fast path (the
lambda only where a listed key is present); HeaderFrom's text of a numeric array by a `transform` lambda against
one array cast (as lowered now). Outputs checked equal first; local[1], CPU seconds of the Spark JVM per 1M records,
rotating rounds. `python -m bench.header_lambdas [records] [rounds] [arrays]` (a third argument: the arrays only).
"""

import os
import random
import sys
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

N = int(sys.argv[1]) if len(sys.argv) > 1 else 300_000
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
KEYS = ["trace-id"]
HT = "ARRAY<STRUCT<key: STRING, value: BINARY>>"


def jvm_cpu(pid):
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())

    names = ["source", "trace-id", "Trace-Id", "span", "tenant"]
    rng = random.Random(7)
    rows = []
    for i in range(2000):
        hs = [
            (
                rng.choice(names),
                None if rng.random() < 0.1 else "".join(rng.choice("abcdef") for _ in range(6)).encode(),
            )
            for _ in range(rng.choice([0, 1, 2, 3, 3, 4, 5]))
        ]
        rows.append((i, hs or None))
    base = spark.createDataFrame(rows, f"i BIGINT, headers {HT}")
    raw = (
        spark.range(N // 2000)
        .crossJoin(base)
        .select(
            (F.col("id") * 2000 + F.col("i")).alias("id"), F.coalesce("headers", F.array().cast(HT)).alias("headers")
        )
        .repartition(1)
        .cache()
    )
    raw.count()

    def lam(h):
        return F.filter(h, lambda e: ~e.getField("key").isin(*KEYS))

    def sorted_drop(h):
        n = F.size(h)
        zipped = F.arrays_zip(h.getField("key"), F.sequence(F.lit(1), n), h).cast(
            "ARRAY<STRUCT<k: STRING, i: INT, h: STRUCT<key: STRING, value: BINARY>>>"
        )
        s = F.sort_array(zipped)
        blocks = []
        for k in KEYS:
            p = F.array_position(s.getField("k"), F.lit(k)).cast("INT")
            last = n + 1 - F.array_position(F.reverse(s.getField("k")), F.lit(k)).cast("INT")
            blocks.append(F.slice(s, F.greatest(p, F.lit(1)), F.when(p > 0, last - p + 1).otherwise(0)))
        removed = blocks[0] if len(blocks) == 1 else F.concat(*blocks)
        return F.when(n > 0, F.array_except(zipped, removed).getField("h")).otherwise(h)

    def fast(h):
        return F.when(F.arrays_overlap(h.getField("key"), F.array(*map(F.lit, KEYS))), lam(h)).otherwise(h)

    variants = {"lambda": lam, "sorted": sorted_drop, "fast_path": fast}
    frames = {n: raw.select("id", f(F.col("headers")).alias("headers")) for n, f in variants.items()}
    # exact: same headers, order included, per record
    ref = frames["lambda"]
    for n, df in ({} if len(sys.argv) > 3 else frames).items():
        d = ref.alias("a").join(df.alias("b"), "id").where(~F.col("a.headers").eqNullSafe(F.col("b.headers"))).count()
        print(n, "differs on", d, "records", flush=True)
        assert d == 0
        print(
            n,
            "plan:",
            df._jdf.queryExecution().executedPlan().toString().count("WholeStageCodegen"),
            "stage marks",
            flush=True,
        )

    def noop(df):
        df.write.format("noop").mode("overwrite").save()

    ARRAYS_ONLY = len(sys.argv) > 3
    for df in [] if ARRAYS_ONLY else frames.values():
        noop(df)
    cpu = {n: [] for n in variants}
    order = list(variants)
    for r in range(0 if ARRAYS_ONLY else REPS):
        for n in order[r % 3 :] + order[: r % 3]:
            c0 = jvm_cpu(pid)
            noop(frames[n])
            cpu[n].append((jvm_cpu(pid) - c0) * 1e6 / N)
        print("round", r + 1, {n: round(v[-1], 2) for n, v in cpu.items()}, "load", os.getloadavg()[0], flush=True)
    for n, v in [] if ARRAYS_ONLY else cpu.items():
        v = sorted(v)
        print(f"{n}: CPU s per 1M min/median/max {v[0]:.2f} / {v[len(v) // 2]:.2f} / {v[-1]:.2f}")

    # HeaderFrom of a numeric array: Connect's text by a lambda per element (as lowered) or by casting the array
    vals = [None, 0.0, -0.0, 1.5, -2.25, 1e7, 1.0e-5, float("nan"), float("inf"), 123456789.125, 3.0]
    arr_rows = []
    for i in range(2000):
        k = rng.choice([0, 1, 2, 3, 4])
        arr_rows.append(
            (
                i,
                None if rng.random() < 0.05 else [rng.choice(vals) for _ in range(k)],
                None
                if rng.random() < 0.05
                else [None if rng.random() < 0.1 else rng.randint(-(10**12), 10**12) for _ in range(k)],
            )
        )
    abase = spark.createDataFrame(arr_rows, "i BIGINT, d ARRAY<DOUBLE>, n ARRAY<BIGINT>")
    araw = spark.range(N // 2000).crossJoin(abase).repartition(1).cache()
    araw.count()

    def text_lambda(c):
        items = F.transform(c, lambda e: F.coalesce(e.cast("STRING"), F.lit("null")))
        return F.concat(F.lit("["), F.array_join(items, ","), F.lit("]")).cast("BINARY")

    def text_cast(c):
        return F.concat(F.lit("["), F.array_join(c.cast("ARRAY<STRING>"), ",", "null"), F.lit("]")).cast("BINARY")

    afr = {
        "array_lambda": araw.select("id", "i", text_lambda(F.col("d")).alias("d"), text_lambda(F.col("n")).alias("n")),
        "array_cast": araw.select("id", "i", text_cast(F.col("d")).alias("d"), text_cast(F.col("n")).alias("n")),
    }
    diff = (
        afr["array_lambda"].exceptAll(afr["array_cast"]).count()
        + afr["array_cast"].exceptAll(afr["array_lambda"]).count()
    )
    print("array variants differ on", diff, "rows", flush=True)
    assert diff == 0
    for df in afr.values():
        noop(df)
    acpu = {n: [] for n in afr}
    for r in range(REPS):
        for n in list(afr) if r % 2 == 0 else list(afr)[::-1]:
            c0 = jvm_cpu(pid)
            noop(afr[n])
            acpu[n].append((jvm_cpu(pid) - c0) * 1e6 / N)
    for n, v in acpu.items():
        v = sorted(v)
        print(f"{n}: CPU s per 1M min/median/max {v[0]:.2f} / {v[len(v) // 2]:.2f} / {v[-1]:.2f}")
    spark.stop()


if __name__ == "__main__":
    main()
