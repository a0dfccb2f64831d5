"""bench/chain.yaml written by hand in native PySpark, as an expert would: parse once, one projection.

Same input (Spark's Kafka rows) and same output (the Kafka sink's key, value, topic, headers) as the compiled
job. On the benchmark's records the output is identical; like most hand-written jobs it skips the per-record
checks the compiled job makes to match Kafka Connect exactly (Java number syntax, UTF-8 validity, null values).
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

VALUE_SCHEMA = (
    "id BIGINT, customer STRUCT<name: STRING, email: STRING, card: STRING, address: STRUCT<city: STRING, zip: STRING>>,"
    " amount STRING, quantity INT, status STRING, ts BIGINT, internal STRING"
)
JSON = {"ignoreNullFields": "false"}


def last_header(key: str) -> F.Column:
    return F.try_element_at(F.filter("headers", lambda h: h["key"] == key), F.lit(-1))["value"]


def transform(raw: DataFrame) -> DataFrame:
    parsed, value = parsed_value(raw)
    v = F.col("v")
    topic = F.regexp_replace("topic", r"^(.*)-raw$", "$1-clean")
    order_id = F.struct(F.lit("order-id").alias("key"), v["id"].cast("string").cast("binary").alias("value"))
    return parsed.select(
        F.to_json(F.struct(F.col("k.id").alias("id")), JSON).cast("binary").alias("key"),
        F.to_json(value, JSON).cast("binary").alias("value"),
        F.concat(topic, F.lit("-"), F.date_format("timestamp", "yyyyMMdd")).alias("topic"),
        F.concat("headers", F.array(order_id)).alias("headers"),
    )


def table_rows(raw: DataFrame) -> DataFrame:
    """The chain's records as a table's rows: the value's fields (bench/tables.py's append into Delta)."""
    parsed, value = parsed_value(raw)
    return parsed.select(value.alias("v")).select("v.*")


def parsed_value(raw: DataFrame) -> tuple[DataFrame, F.Column]:
    """The records that pass the filter, parsed, and the chain's value struct over them."""
    parsed = raw.where(~F.exists("headers", lambda h: h["key"] == "test")).withColumns(
        {
            "v": F.from_json(F.col("value").cast("string"), VALUE_SCHEMA, {"mode": "FAILFAST"}),
            "k": F.from_json(F.col("key").cast("string"), "id BIGINT", {"mode": "FAILFAST"}),
        }
    )
    v, c = F.col("v"), F.col("v.customer")
    value = F.struct(
        v["id"].alias("id"),
        c["name"].alias("name"),
        c["email"].alias("email"),
        F.when(c["card"].isNotNull(), F.lit("****")).alias("customer_card"),
        c["address"]["city"].alias("customer_address_city"),
        c["address"]["zip"].alias("customer_address_zip"),
        v["amount"].cast("double").alias("amount"),
        v["quantity"].cast("bigint").alias("quantity"),
        v["status"].alias("status"),
        F.date_format(F.timestamp_millis(v["ts"]), "yyyy-MM-dd HH:mm:ss").alias("ts"),
        last_header("trace-id").cast("string").alias("trace"),
        F.col("topic").alias("kafka_topic"),
        F.col("partition").alias("kafka_partition"),
        F.col("offset").alias("kafka_offset"),
        F.col("timestamp").alias("kafka_ts"),
    )
    return parsed, value
