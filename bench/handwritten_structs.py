"""bench/structs.yaml written by hand in native PySpark, as an expert would: parse once, build the value once.

Same input (Spark's Kafka rows) and same output (the Kafka sink's key, value, topic, headers) as the compiled
job; like most hand-written jobs it skips the per-record checks the compiled job makes to match Kafka Connect
exactly (Java number syntax, null values).
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

VALUE_SCHEMA = ", ".join(
    ["id BIGINT"]
    + [f"s{k:02d} STRING" for k in range(1, 15)]
    + [f"n{k:02d} BIGINT" for k in range(1, 15)]
    + [f"a{k:02d} STRING" for k in range(1, 5)]
    + ["meta STRUCT<src: STRING, ver: BIGINT, tag: STRING>"]
    + [f"{name} STRING" for name in ("card", "secret", "note", "internal", "status", "region")]
)
JSON = {"ignoreNullFields": "false"}


def transform(raw: DataFrame) -> DataFrame:
    parsed = raw.withColumns(
        {
            "v": F.from_json(F.col("value").cast("string"), VALUE_SCHEMA, {"mode": "FAILFAST"}),
            "k": F.from_json(F.col("key").cast("string"), "id BIGINT", {"mode": "FAILFAST"}),
        }
    )
    v = F.col("v")

    def masked(name: str) -> F.Column:
        return F.when(v[name].isNotNull(), F.lit("****")).alias(name)

    value = F.struct(
        v["id"].alias("id"),
        v["s01"].alias("name"),
        *(v[f"s{k:02d}"].alias(f"s{k:02d}") for k in range(2, 15)),
        v["n01"].cast("int").alias("n01"),
        v["n02"].cast("string").alias("n02"),
        *(v[f"n{k:02d}"].alias(f"n{k:02d}") for k in range(3, 15)),
        v["a01"].cast("double").alias("a01"),
        v["a02"].cast("double").alias("a02"),
        v["a03"].alias("a03"),
        v["a04"].alias("a04"),
        v["meta"]["src"].alias("source"),
        v["meta"]["ver"].alias("meta_ver"),
        v["meta"]["tag"].alias("meta_tag"),
        masked("card"),
        masked("secret"),
        v["status"].alias("status"),
        v["region"].alias("region"),
        F.col("topic").alias("kafka_topic"),
        F.col("offset").alias("kafka_offset"),
        F.lit("bench").alias("origin"),
    )
    return parsed.select(
        F.to_json(F.struct(F.col("k.id").alias("id")), JSON).cast("binary").alias("key"),
        F.to_json(value, JSON).cast("binary").alias("value"),
        F.col("topic").alias("topic"),
        F.col("headers").alias("headers"),
    )
