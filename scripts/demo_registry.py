"""The demo's Avro round trip through a Schema Registry: orders written by confluent-kafka's AvroSerializer with two
schema versions, `pipec validate --registry` on scripts/demo_orders_avro.yaml, its job run, and what it wrote read
back by AvroDeserializer.

Run by scripts/demo with the embedded broker's bootstrap servers and the registry's URL as arguments.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

ROOT = Path(__file__).resolve().parent.parent
PIPELINE = ROOT / "scripts" / "demo_orders_avro.yaml"


def order(*fields: dict) -> str:
    return json.dumps({"type": "record", "name": "Order", "namespace": "demo", "fields": list(fields)})


V1 = order({"name": "id", "type": "long"}, {"name": "amount", "type": "int"}, {"name": "note", "type": "string"})
V2 = order(
    {"name": "id", "type": "long"},
    {"name": "amount", "type": "double"},
    {"name": "currency", "type": "string", "default": "EUR"},
)  # note removed, currency added, amount widened
ORDERS = [
    (V1, {"id": 1, "amount": 12, "note": "first"}),
    (V1, {"id": 2, "amount": 7, "note": "gift"}),
    (V2, {"id": 3, "amount": 99.5, "currency": "USD"}),
]


def main(bootstrap: str, url: str) -> int:
    run = uuid.uuid4().hex[:6]
    source, target = f"orders-{run}", f"orders-clean-{run}"
    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept: the futures need its handle alive
    for f in admin.create_topics([NewTopic(t, 1, 1) for t in (source, target)]).values():
        f.result(30)
    client = SchemaRegistryClient({"url": url})
    producer = Producer({"bootstrap.servers": bootstrap})
    print(f"== produced {len(ORDERS)} orders to {source} with AvroSerializer (two versions of {source}-value)")
    for schema, datum in ORDERS:
        value = AvroSerializer(client, schema)(datum, SerializationContext(source, MessageField.VALUE))
        producer.produce(source, value=value)
        print(f"   schema id {int.from_bytes(value[1:5], 'big')}: {json.dumps(datum)}")
    producer.flush(30)

    env = {**os.environ, "ORDERS_TOPIC": source, "ORDERS_OUT_TOPIC": target, "SCHEMA_REGISTRY_URL": url}
    pipec = [sys.executable, "-m", "pipec"]
    print(f"== pipec validate --registry {PIPELINE.relative_to(ROOT)} (the columns against {source}-value's latest)")
    if subprocess.call([*pipec, "validate", str(PIPELINE), "--registry"], env=env, cwd=ROOT) != 0:
        return 1
    with tempfile.TemporaryDirectory(prefix="pipec-demo-avro-") as out:
        if (
            subprocess.call(
                [*pipec, "compile", "--out", out, str(PIPELINE)], env=env, cwd=ROOT, stdout=subprocess.DEVNULL
            )
            != 0
        ):
            return 1
        print(f"== running the compiled orders_avro job (batch) from {source} to {target}")
        if (
            subprocess.call(
                [sys.executable, f"{out}/orders_avro.py", "--bootstrap-servers", bootstrap], env=env, cwd=out
            )
            != 0
        ):
            return 1

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"demo-{run}", "enable.auto.commit": False})
    consumer.assign([TopicPartition(target, 0, 0)])
    records = [m for m in (consumer.poll(10) for _ in range(len(ORDERS))) if m is not None and not m.error()]
    consumer.close()
    latest = client.get_latest_version(f"{target}-value")
    print(
        f"== {len(records)} records in {target}, read back by AvroDeserializer (the job registered "
        f"{target}-value version {latest.version}, id {latest.schema_id}):"
    )
    deserializer = AvroDeserializer(client)
    for msg in records:
        print(
            f"   schema id {int.from_bytes(msg.value()[1:5], 'big')}: "
            f"{json.dumps(deserializer(msg.value(), SerializationContext(target, MessageField.VALUE)))}"
        )
    return 0 if len(records) == len(ORDERS) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
