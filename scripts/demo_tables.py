"""The demo's table pipeline: Debezium change events -> generated/customers_silver.py -> a Delta table (SCD type 1
through MERGE), run twice from one checkpoint; then the table's rows and its history (each Delta version with its
operation and operation metrics), read by delta-rs, an independent reader.

Run by scripts/demo with the embedded broker's bootstrap servers as the only argument.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from deltalake import DeltaTable

ROOT = Path(__file__).resolve().parent.parent
SALLY = {"id": 1001, "first_name": "Sally", "last_name": "Thomas", "email": "sally.thomas@acme.com"}
GEORGE = {"id": 1002, "first_name": "George", "last_name": "Bailey", "email": "gbailey@foobar.com"}
KIM = {**SALLY, "last_name": "Kim", "email": "sally.kim@acme.com"}
RUNS = [  # (what the run shows, the change events it reads: Debezium's op, before, after, and the source's time)
    ("two customers created", [("c", None, SALLY, 1700000000000), ("c", None, GEORGE, 1700000000000)]),
    (
        "Sally renamed, George deleted, then a late change of Sally (older than her row: it changes nothing)",
        [
            ("u", SALLY, KIM, 1700000060000),
            ("d", GEORGE, None, 1700000060000),
            ("u", SALLY, {**SALLY, "first_name": "Sal"}, 1700000030000),
        ],
    ),
]
METRICS = ("numSourceRows", "numTargetRowsInserted", "numTargetRowsUpdated", "numTargetRowsDeleted")


def main(bootstrap: str) -> int:
    topic = f"customers-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept until the topic exists
    for f in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        f.result(30)
    producer = Producer({"bootstrap.servers": bootstrap})
    with tempfile.TemporaryDirectory(prefix="pipec-demo-lake-") as lake:
        env = {**os.environ, "CUSTOMERS_TOPIC": topic, "LAKE": lake}
        checkpoint = os.path.join(lake, "checkpoint")
        for i, (what, events) in enumerate(RUNS, 1):
            for op, before, after, at in events:
                key = (after or before)["id"]
                change = {"op": op, "before": before, "after": after, "source": {"table": "customers", "ts_ms": at}}
                producer.produce(topic, key=json.dumps({"id": key}), value=json.dumps(change))
            producer.flush(30)
            print(f"== run {i} of generated/customers_silver.py (available-now) over {len(events)} changes: {what}")
            job = [sys.executable, "generated/customers_silver.py", "--bootstrap-servers", bootstrap]
            code = subprocess.call([*job, "--checkpoint", checkpoint], env=env, cwd=ROOT)
            if code != 0:
                return code
        table = DeltaTable(os.path.join(lake, "customers"))
        rows = sorted(table.to_pyarrow_table().to_pylist(), key=lambda r: r["id"])
        print(f"== the table {lake}/customers (read by delta-rs): {len(rows)} row(s), emails masked")
        for row in rows:
            print("   " + ", ".join(f"{k}={v}" for k, v in row.items() if k != "__SEQUENCE"))
        print("== its history: each Delta version, its operation and what it did")
        for commit in sorted(table.history(), key=lambda c: c["version"]):
            metrics = commit.get("operationMetrics") or {}
            shown = ", ".join(f"{m}={metrics[m]}" for m in METRICS if m in metrics)
            print(f"   version {commit['version']}: {commit['operation']}" + (f" ({shown})" if shown else ""))
    return 0 if [r["last_name"] for r in rows] == ["Kim"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
