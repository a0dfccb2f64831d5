"""bench/chain.yaml as one per-record Python UDF (the way many jobs are first written): the whole chain in
Python over each raw Kafka row, JSON in and out with the standard library.

Same input and output as the compiled job; a filtered record comes back as null and is dropped. Needs the
Python workers' local time zone to be UTC (the runner sets TZ=UTC before Spark starts), as PySpark hands
timestamps to UDFs as naive local datetimes.
"""

from __future__ import annotations

import datetime as dt
import json
import re

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

HEADER = T.StructType([T.StructField("key", T.StringType()), T.StructField("value", T.BinaryType())])
OUT = T.StructType(
    [
        T.StructField("key", T.BinaryType()),
        T.StructField("value", T.BinaryType()),
        T.StructField("topic", T.StringType()),
        T.StructField("headers", T.ArrayType(HEADER)),
    ]
)
ROUTE = re.compile(r"(.*)-raw")
MASK = "****"
EPOCH = dt.datetime(1970, 1, 1)


def _iso(ts: dt.datetime) -> str:
    """A timestamp as Spark's JSON writer formats it in UTC."""
    return ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z"


def _dumps(obj: dict) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def chain(key, value, topic, partition, offset, timestamp, headers):
    """One raw Kafka row -> (key, value, topic, headers) as the sink writes them, or None when filtered."""
    headers = list(headers or [])
    if any(h["key"] == "test" for h in headers):  # drop_tests
        return None
    k = json.loads(key)
    v = json.loads(value)
    trace = None
    for h in headers:  # the header column: last value wins
        if h["key"] == "trace-id":
            trace = h["value"]
    customer = v.get("customer")
    if customer is not None and customer.get("card") is not None:  # mask_card
        customer["card"] = MASK
    amount = v.get("amount")  # typed
    quantity = v.get("quantity")
    out_trace = bytes(trace).decode("utf-8") if trace is not None else None
    address = (customer or {}).get("address") or {}
    ts = v.get("ts")
    ts_text = (EPOCH + dt.timedelta(milliseconds=ts)).strftime("%Y-%m-%d %H:%M:%S") if ts is not None else None
    record = {  # add_meta, flat, tidy, ts_text
        "id": v.get("id"),
        "name": (customer or {}).get("name"),
        "email": (customer or {}).get("email"),
        "customer_card": (customer or {}).get("card"),
        "customer_address_city": address.get("city"),
        "customer_address_zip": address.get("zip"),
        "amount": float(amount) if amount is not None else None,
        "quantity": int(quantity) if quantity is not None else None,
        "status": v.get("status"),
        "ts": ts_text,
        "trace": out_trace,
        "kafka_topic": topic,
        "kafka_partition": partition,
        "kafka_offset": offset,
        "kafka_ts": _iso(timestamp),
    }
    routed = ROUTE.fullmatch(topic)  # clean_topic, day_topic
    new_topic = ROUTE.sub(r"\1-clean", topic, count=1) if routed else topic
    new_topic = f"{new_topic}-{timestamp.strftime('%Y%m%d')}"
    out_headers = [(h["key"], h["value"]) for h in headers]
    if record["id"] is not None:  # id_header (SimpleHeaderConverter: an int as its decimal text)
        out_headers.append(("order-id", str(record["id"]).encode("utf-8")))
    else:
        out_headers.append(("order-id", None))
    return (_dumps({"id": k.get("id")}), _dumps(record), new_topic, out_headers)


# nondeterministic: keeps the optimizer from copying the call into the filter (which would run it twice)
CHAIN_UDF = F.udf(chain, OUT).asNondeterministic()


def transform(raw: DataFrame) -> DataFrame:
    cols = [F.col(c) for c in ("key", "value", "topic", "partition", "offset", "timestamp", "headers")]
    return raw.select(CHAIN_UDF(*cols).alias("r")).where(F.col("r").isNotNull()).select("r.*")
