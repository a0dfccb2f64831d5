"""The latency benchmark's baseline (bench/latency.py): a Kafka-to-Kafka job written by hand, with no chain.

It reads what the payments job reads (Spark's Kafka source: the topic in PAYMENTS_TOPIC from the earliest offset,
headers included) and writes each record's key, value and headers as read to PAYMENTS_OUT_TOPIC through Spark's
Kafka sink with its default producer (at least once, as the payments job), under the same trigger, in the same
session. What a Spark job pays to move records from Kafka to Kafka at all; the payments job's latency over this
one's, in the same run, is what its decode, chain, encode and dead letters add.

    main(["--bootstrap-servers", HOST_PORT, "--checkpoint", FOLDER, "--trigger", "real-time: 5 seconds"])
    (--master and --conf are accepted and ignored: the session is the one already running)
"""

from __future__ import annotations

import argparse
import os

from pyspark.sql import SparkSession


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="pass_through")
    parser.add_argument("--bootstrap-servers", required=True)
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--trigger", help="real-time: <interval> | processing-time: <interval>; none: back to back")
    parser.add_argument("--master")
    parser.add_argument("--conf", action="append")
    return parser.parse_args(argv)


def start(spark: SparkSession, args: argparse.Namespace):
    raw = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", args.bootstrap_servers)
        .option("subscribe", os.environ["PAYMENTS_TOPIC"])
        .option("startingOffsets", "earliest")
        .option("includeHeaders", "true")
        .load()
    )
    writer = (
        raw.select("key", "value", "headers")
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", args.bootstrap_servers)
        .option("topic", os.environ["PAYMENTS_OUT_TOPIC"])
        .option("checkpointLocation", args.checkpoint)
    )
    kind, _, interval = (part.strip() for part in (args.trigger or "").partition(":"))
    if kind == "real-time":  # Spark 4.1+, in update mode (stateless: the same rows as append)
        writer = writer.outputMode("update").trigger(realTime=interval or "5 minutes")
    elif kind == "processing-time":
        writer = writer.trigger(processingTime=interval)
    elif kind:
        raise SystemExit(f"pass_through: unsupported trigger {args.trigger!r}")
    return writer.start()


def main(argv: list[str]) -> int:
    """Runs until the query is stopped."""
    args = parse_args(argv)
    start(SparkSession.builder.getOrCreate(), args).awaitTermination()
    return 0
