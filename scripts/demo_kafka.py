"""The demo's Kafka round trip: produce sample payments, run generated/payments_cleared.py, show what it wrote.

Run by scripts/demo with the embedded broker's bootstrap servers as the only argument.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

ROOT = Path(__file__).resolve().parent.parent
PAYMENTS = [
    ("p1", {"payment_id": "p1", "account": "acc-7", "amount": 12.5, "card": "4111111111111111"}, [("source", b"web")]),
    (
        "p2",
        {"payment_id": "p2", "account": "acc-8", "amount": 99.99, "card": "5500000000000004"},
        [("source", b"app"), ("test", b"yes")],
    ),
    (
        "p3",
        {"payment_id": "p3", "account": "acc-7", "amount": 3.2, "card": "4000056655665556"},
        [("source", b"pos"), ("source", b"pos-2")],
    ),
    (
        "p4",
        {"payment_id": "p4", "account": "acc-9", "amount": "lots", "card": "4000"},
        [("source", b"pos")],
    ),  # a dead letter
]


def main(bootstrap: str) -> int:
    run = uuid.uuid4().hex[:6]
    source, target, dead = f"payments-{run}", f"payments-cleared-{run}", f"payments-dlq-{run}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(t, 2, 1) for t in (source, target, dead)]).values():
        f.result(30)
    producer = Producer({"bootstrap.servers": bootstrap})
    for key, value, headers in PAYMENTS:
        producer.produce(source, key=key, value=json.dumps(value), headers=headers)
    producer.flush(30)
    print(f"== produced {len(PAYMENTS)} payments to {source}")
    for key, value, headers in PAYMENTS:
        print(f"   key={key} headers={headers} value={json.dumps(value)}")

    with tempfile.TemporaryDirectory(prefix="pipec-demo-") as checkpoint:
        env = {**os.environ, "PAYMENTS_TOPIC": source, "PAYMENTS_OUT_TOPIC": target, "PAYMENTS_DLQ_TOPIC": dead}
        job = [
            sys.executable,
            "generated/payments_cleared.py",
            "--bootstrap-servers",
            bootstrap,
            "--checkpoint",
            checkpoint,
        ]
        print(f"== running generated/payments_cleared.py (streaming, available-now) from {source} to {target}")
        code = subprocess.call(job, env=env, cwd=ROOT)
        if code != 0:
            return code

    out = read(bootstrap, target, 2, run)
    print(f"== {len(out)} records in {target} (the test payment was filtered, cards removed):")
    for msg in out:
        print(
            f"   partition={msg.partition()} key={msg.key().decode()} headers={msg.headers()} value={msg.value().decode()}"
        )
    letters = read(bootstrap, dead, 1, run)
    print(f"== {len(letters)} dead letter in {dead} (its amount is not a number), untouched, with context headers:")
    for msg in letters:
        print(f"   key={msg.key().decode()} value={msg.value().decode()} headers={msg.headers()}")
    return 0 if len(out) == 2 and len(letters) == 1 else 1


def read(bootstrap: str, topic: str, count: int, run: str) -> list:
    """Up to `count` records of a two-partition topic (30 s at most), by partition and offset."""
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"demo-{run}-{topic}", "enable.auto.commit": False}
    )
    consumer.assign([TopicPartition(topic, p, 0) for p in range(2)])
    out, deadline = [], time.monotonic() + 30
    while len(out) < count and time.monotonic() < deadline:
        msg = consumer.poll(0.5)
        if msg is not None and not msg.error():
            out.append(msg)
    consumer.close()
    return sorted(out, key=lambda m: (m.partition(), m.offset()))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
