"""The Kafka Connect side of `scripts/bench connect-peer`: bench/chain.yaml as Kafka Connect's own classes can run it,
the records handed to it, and bench/ConnectPeer.java compiled and driven (one JVM, one thread doing the work).

The peer runs what a Connect worker runs per record (JsonConverter without schemas in and out, SimpleHeaderConverter,
the chain of Kafka's transform and predicate classes) and nothing of the worker around it (consumer, producer,
retry and error reporting, metrics): the least Kafka Connect can spend on these records.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CHAIN = ROOT / "bench" / "chain.yaml"
PEER_SOURCE = ROOT / "bench" / "ConnectPeer.java"
DIFFERENTIAL = ROOT / "tests" / "differential"  # SmtHarness.java builds the chain; kafka_chain.py configures it
FETCH_JARS = ROOT / "scripts" / "fetch-kafka-jars"
# the JVM `connect-distributed.sh` starts: kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS, and a heap large
# enough to hold the benchmark's records (connect-distributed.sh's default is -Xmx2G)
PEER_JVM = [
    "-server",
    "-XX:+UseG1GC",
    "-XX:MaxGCPauseMillis=20",
    "-XX:InitiatingHeapOccupancyPercent=35",
    "-XX:+ExplicitGCInvokesConcurrent",
    "-XX:MaxInlineLevel=15",
    "-Djava.awt.headless=true",
    "-Xms2g",
    "-Xmx4g",
    "-Duser.timezone=UTC",
]


def peer_chain(doc: dict) -> dict:
    """bench/chain.yaml (as loaded) rewritten so that Kafka Connect 4.x's classes run the same chain, for BOTH
    sides of the comparison:
    - Flatten first and MaskField on `customer_card` (V1): Kafka's MaskField ignores V2's nested `customer.card`
      (the known difference `kip821-v2-paths`); masking after flattening masks the same field;
    - no header column: pipec reads the header `trace-id` into the value (`header: trace-id`), which no Apache
      Kafka transform does, so the `trace` field and its Cast entry go (the header itself still travels).
    The records out are the same as the chain's but for `trace` and the order of the value's fields."""
    doc = copy.deepcopy(doc)
    doc["name"] = f"{doc['name']}_peer"
    source = doc["source"]
    header_columns = {c["name"] for c in source["columns"] if "header" in c or "headers" in c}
    source["columns"] = [c for c in source["columns"] if c["name"] not in header_columns]
    (flatten,) = [s for s in doc["transforms"] if s["type"] == "Flatten$Value"]
    delimiter = flatten.get("delimiter", ".")
    steps = [flatten]
    for step in doc["transforms"]:
        if step is flatten:
            continue
        if step["type"] == "MaskField$Value":
            assert step.pop("field.syntax.version", "V1") == "V2", step
            step["fields"] = [f.replace(".", delimiter) for f in step["fields"]]
        if step["type"] == "Cast$Value":
            step["spec"] = [s for s in step["spec"] if s.split(":")[0] not in header_columns]
            step.pop("bytes.string.encoding", None)  # only the header column was BYTES
        steps.append(step)
    doc["transforms"] = steps
    return doc


def write_pipeline(doc: dict, folder: Path) -> Path:
    path = folder / f"{doc['name']}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def kafka_chain_document(doc: dict) -> dict:
    """The pipeline's steps and predicates as SmtHarness.stages reads them (tests/differential/kafka_chain.py)."""
    if str(DIFFERENTIAL) not in sys.path:
        sys.path.insert(0, str(DIFFERENTIAL))
    from kafka_chain import harness_chain

    return harness_chain(doc.get("transforms") or [], doc.get("predicates") or {})


def kafka_classpath() -> str:
    """The Kafka jars' classpath (scripts/fetch-kafka-jars: downloaded and checksummed on first use)."""
    done = subprocess.run([str(FETCH_JARS)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"scripts/fetch-kafka-jars failed:\n{done.stderr}")
    return done.stdout.strip().splitlines()[-1]


def compile_peer(classpath: str, folder: Path) -> Path:
    """javac of ConnectPeer.java with SmtHarness.java (whose stages it reuses) into `folder`."""
    done = subprocess.run(
        [
            "javac",
            "-nowarn",
            "-d",
            str(folder),
            "-cp",
            classpath,
            str(DIFFERENTIAL / "SmtHarness.java"),
            str(PEER_SOURCE),
        ],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"javac of bench/ConnectPeer.java failed:\n{done.stderr}")
    return folder


def export_records(raw, folder: Path) -> Path:
    """The raw Kafka rows (bench/generate.py's shape) as ConnectPeer reads them: JSON lines, bytes in base64, the
    timestamp in epoch milliseconds, in the rows' order."""
    from pyspark.sql import functions as F

    (
        raw.select(
            "key", "value", "topic", "partition", "offset", F.unix_millis("timestamp").alias("timestamp"), "headers"
        )
        .write.mode("overwrite")
        .json(str(folder))
    )
    return folder


class Peer:
    """A running ConnectPeer over one set of records: `ask("pass")` and the like (bench/ConnectPeer.java)."""

    def __init__(self, classes: Path, classpath: str, records: Path, doc: dict):
        self.chain = Path(tempfile.mkstemp(prefix="connect-peer-chain-", suffix=".json")[1])
        self.chain.write_text(json.dumps(kafka_chain_document(doc)), encoding="utf-8")
        self.proc = subprocess.Popen(
            ["java", *PEER_JVM, "-cp", f"{classes}:{classpath}", "ConnectPeer", str(records), str(self.chain)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        ready = self._answer()
        self.records, self.version = ready["ready"], ready["kafka"]

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _answer(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"ConnectPeer ended (exit {self.proc.wait()}); its error output is above")
        answer = json.loads(line)
        if "error" in answer:
            raise SystemExit(f"ConnectPeer: {answer['error']}")
        return answer

    def ask(self, command: str) -> dict:
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self._answer()

    def dump(self, limit: int) -> list[dict]:
        """The first `limit` records' outcomes (ConnectPeer's `dump`), in order."""
        with tempfile.TemporaryDirectory(prefix="connect-peer-dump-") as tmp:
            path = Path(tmp) / "dump.jsonl"
            self.ask(f"dump {path} {limit}")
            return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.chain.unlink(missing_ok=True)

    def __enter__(self) -> Peer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
