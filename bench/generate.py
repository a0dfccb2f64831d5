"""Kafka-shaped benchmark records: Spark's Kafka source schema, a nested JSON value and two or three headers.

Record i (0-based) is a pure function of i, so any prefix of a larger data set equals the smaller data set:

    key       {"id":i}
    value     {"id":i,"customer":{"name":..,"email":..,"card":..,"address":{"city":..,"zip":..}},
               "amount":"123.45","quantity":3,"status":"paid","ts":<epoch ms>,"internal":".."}
              (every 50th card is null, every 101st address is null)
    topic     orders-raw;  partition i % 8;  offset i // 8;  timestamp 2024-01-01 + i seconds
    headers   trace-id: t-<i>, src: app, and on every 100th record test: 1 (the chain drops those)

Built natively with `spark.range`, so generating 2 million records takes seconds. `python -m bench.generate
--records N --out DIR` writes them as parquet (the raw rows the benchmark times, for a look or another tool).
"""

from __future__ import annotations

import argparse

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

DEFAULT_RECORDS = 2_000_000
BASE_MILLIS = 1_704_067_200_000  # 2024-01-01T00:00:00Z
HEADERS_DDL = "ARRAY<STRUCT<key: STRING, value: BINARY>>"
CITIES = ("Lisbon", "Porto", "Oslo", "Bergen", "Lyon", "Turin", "Gdansk", "Leeds")
STATUSES = ("new", "paid", "shipped")


def _pick(options: tuple[str, ...], index) -> F.Column:
    return F.element_at(F.array(*(F.lit(o) for o in options)), (index % len(options) + 1).cast("int"))


def kafka_records(spark: SparkSession, n: int = DEFAULT_RECORDS, partitions: int = 2) -> DataFrame:
    """`n` raw Kafka rows (key, value, topic, partition, offset, timestamp, timestampType, headers)."""
    i = F.col("id")
    millis = F.lit(BASE_MILLIS) + i * 1000
    card = F.when(i % 50 == 0, F.lit(None).cast("string")).otherwise(
        F.format_string("4111-%04d-%04d-%04d", i % 10000, (i * 7) % 10000, (i * 13) % 10000)
    )
    address = F.when(i % 101 == 0, F.lit(None)).otherwise(
        F.struct(_pick(CITIES, i).alias("city"), F.format_string("%05d", (i * 37) % 100000).alias("zip"))
    )
    customer = F.struct(
        F.format_string("customer-%d", i % 10007).alias("name"),
        F.format_string("user%d@example.com", i).alias("email"),
        card.alias("card"),
        address.alias("address"),
    )
    value = F.struct(
        i.alias("id"),
        customer.alias("customer"),
        F.format_string("%d.%02d", (i * 31) % 100000, i % 100).alias("amount"),
        (i % 10 + 1).cast("int").alias("quantity"),
        _pick(STATUSES, i).alias("status"),
        millis.alias("ts"),
        F.format_string("note-%d", i % 97).alias("internal"),
    )

    def header(key: str, text: F.Column) -> F.Column:
        return F.struct(F.lit(key).alias("key"), text.cast("binary").alias("value"))

    common = [header("trace-id", F.format_string("t-%d", i)), header("src", F.lit("app"))]
    headers = F.when(i % 100 == 0, F.array(*common, header("test", F.lit("1")))).otherwise(F.array(*common))
    return spark.range(n, numPartitions=partitions).select(
        F.to_json(F.struct(i.alias("id"))).cast("binary").alias("key"),
        F.to_json(value).cast("binary").alias("value"),
        F.lit("orders-raw").alias("topic"),
        (i % 8).cast("int").alias("partition"),
        (i / 8).cast("bigint").alias("offset"),
        F.timestamp_millis(millis).alias("timestamp"),
        F.lit(0).alias("timestampType"),
        headers.cast(HEADERS_DDL).alias("headers"),
    )


def struct_records(spark: SparkSession, n: int = DEFAULT_RECORDS, partitions: int = 2) -> DataFrame:
    """`n` raw Kafka rows for bench/structs.yaml: a flat JSON value of 40 fields (one a 3-field struct), about 700
    bytes; every 50th card is null, every 97th meta is null. No headers."""
    i = F.col("id")
    strings = [F.format_string(f"s{k}-%d", i % (1000 + k)).alias(f"s{k:02d}") for k in range(1, 15)]
    numbers = [((i * k) % 1_000_003).alias(f"n{k:02d}") for k in range(1, 15)]
    amounts = [
        F.format_string("%d.%02d", (i * (31 + k)) % 100000, (i + k) % 100).alias(f"a{k:02d}") for k in range(1, 5)
    ]
    meta = F.when(i % 97 == 0, F.lit(None)).otherwise(
        F.struct(_pick(CITIES, i).alias("src"), (i % 5).alias("ver"), F.format_string("tag-%d", i % 13).alias("tag"))
    )
    value = F.struct(
        i.alias("id"),
        *strings,
        *numbers,
        *amounts,
        meta.alias("meta"),
        F.when(i % 50 == 0, F.lit(None).cast("string"))
        .otherwise(F.format_string("4111-%04d", i % 10000))
        .alias("card"),
        F.format_string("secret-%d", i % 7919).alias("secret"),
        F.format_string("note-%d", i % 97).alias("note"),
        F.format_string("internal-%d", i % 89).alias("internal"),
        _pick(STATUSES, i).alias("status"),
        _pick(CITIES, i + 3).alias("region"),
    )
    return spark.range(n, numPartitions=partitions).select(
        F.to_json(F.struct(i.alias("id"))).cast("binary").alias("key"),
        F.to_json(value).cast("binary").alias("value"),
        F.lit("accounts-raw").alias("topic"),
        (i % 8).cast("int").alias("partition"),
        (i / 8).cast("bigint").alias("offset"),
        F.timestamp_millis(F.lit(BASE_MILLIS) + i * 1000).alias("timestamp"),
        F.lit(0).alias("timestampType"),
        F.array().cast(HEADERS_DDL).alias("headers"),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.generate", description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=DEFAULT_RECORDS)
    parser.add_argument("--out", required=True, help="folder to write the records to, as parquet")
    args = parser.parse_args(argv)
    spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
    kafka_records(spark, args.records).write.mode("overwrite").parquet(args.out)
    print(f"wrote {args.records} records to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
