"""The latency benchmark's own Kafka clients and progress listener (bench/latency.py): a producer paced against the
clock, a consumer that notes when each record's output is first seen, and each micro-batch's progress."""

from __future__ import annotations

import datetime
import json
import threading
import time
import uuid


class Progress:
    """A StreamingQueryListener's record of each micro-batch's progress: (when the batch ended, batch, rows,
    durationMs, the query run's id). The end is the progress's own start time plus its triggerExecution, not
    when the event arrives: a loaded listener bus delivers events late, into the next mode's window."""

    def __init__(self):
        from pyspark.sql.streaming import StreamingQueryListener

        events = self.events = []

        class Listener(StreamingQueryListener):
            def onQueryStarted(self, event):
                pass

            def onQueryProgress(self, event):
                p = event.progress
                durations = dict(p.durationMs)
                started = datetime.datetime.fromisoformat(p.timestamp.replace("Z", "+00:00")).timestamp()
                ended = started + durations.get("triggerExecution", 0) / 1000
                events.append((ended, p.batchId, p.numInputRows, durations, str(p.runId)))

            def onQueryIdle(self, event):
                pass

            def onQueryTerminated(self, event):
                pass

        self.listener = Listener()

    def settle(self, run: str, quiet_s: float = 2.0, most_s: float = 30.0) -> None:
        """Wait until the run's events stop arriving (a loaded listener bus is behind)."""
        deadline, count, since = time.time() + most_s, -1, time.time()
        while time.time() < deadline:
            now = sum(1 for e in self.events if e[4] == run)
            if now != count:
                count, since = now, time.time()
            elif time.time() - since >= quiet_s:
                return
            time.sleep(0.2)

    def between(self, start: float, end: float, run: str) -> list[tuple]:
        """The batches of query run `run` that ended between two times."""
        return [e for e in self.events if start <= e[0] <= end and e[4] == run]


class Consumer(threading.Thread):
    """Reads a topic from the start; payment_id -> when its output was first seen, and the output's append time."""

    def __init__(self, bootstrap: str, topic: str):
        super().__init__(daemon=True)
        from confluent_kafka import OFFSET_BEGINNING, TopicPartition
        from confluent_kafka import Consumer as KafkaConsumer

        self.consumer = KafkaConsumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"latency-{uuid.uuid4().hex}",
                "enable.auto.commit": False,
                "fetch.wait.max.ms": 5,
            }
        )
        self.consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in (0, 1)])
        self.seen: dict[str, float] = {}
        self.appended: dict[str, float] = {}
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            for message in self.consumer.consume(num_messages=1000, timeout=0.05):
                if message.error() is None:
                    at = time.time()
                    payment = json.loads(message.value())["payment_id"]
                    if payment not in self.seen:
                        self.seen[payment] = at
                        self.appended[payment] = message.timestamp()[1] / 1000
        self.consumer.close()


def produce(producer, topic: str, prefix: str, rate: int, seconds: float, sent: dict[str, float]) -> None:
    """Send rate records/s for `seconds`, paced against the clock; each one's send time goes into `sent`."""
    start, count = time.time(), 0
    while (now := time.time()) < start + seconds:
        due = int((now - start) * rate) - count
        for _ in range(due):
            payment = f"{prefix}{count}"
            value = {"payment_id": payment, "account": f"acc-{count % 100}", "amount": 12.5, "card": "4111"}
            sent[payment] = time.time()
            producer.produce(
                topic, key=payment.encode(), value=json.dumps(value).encode(), headers=[("source", b"bench")]
            )
            count += 1
        producer.poll(0)
        time.sleep(0.001)
    producer.flush(10)
