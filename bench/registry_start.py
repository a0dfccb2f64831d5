"""How long `scripts/registry start` takes and how much memory the registry holds (docs/design/avro-registry.md).

Each cycle starts the registry in a fresh state dir (the distribution already fetched), times `start` until it has
printed the URL (the registry answered and took the BACKWARD config), reads the JVM's resident memory, registers
`--schemas` schema versions under one subject and fetches each by id `--lookups` times in all through
confluent-kafka's client (a fresh client: no cache), reads the memory again, and stops it.

    .venv/bin/python -m bench.registry_start [--cycles 5] [--schemas 100] [--lookups 2000]

Run it under /work/bin/jvm on a shared machine: the registry is a JVM.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .compiler_speed import summary

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "registry"


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def workload(url: str, schemas: int, lookups: int) -> float:
    """Register `schemas` versions (each adds a field with a default), then fetch ids round-robin; seconds taken."""
    from confluent_kafka.schema_registry import Schema, SchemaRegistryClient

    writer = SchemaRegistryClient({"url": url})
    fields: list[dict] = [{"name": "id", "type": "long"}]
    ids = []
    t0 = time.perf_counter()
    for version in range(schemas):
        fields.append({"name": f"f{version}", "type": "string", "default": ""})
        schema = {"type": "record", "name": "Bench", "fields": fields}
        ids.append(writer.register_schema("bench-value", Schema(json.dumps(schema), "AVRO")))
    reader = SchemaRegistryClient({"url": url, "cache.capacity": 1})
    for i in range(lookups):
        reader.get_schema(ids[i % len(ids)])
        reader.clear_caches()
    return time.perf_counter() - t0


def cycle(schemas: int, lookups: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="pipec-registry-bench-") as state:
        env = {**os.environ, "PIPEC_REGISTRY_DIR": state}
        t0 = time.perf_counter()
        started = subprocess.run(["bash", str(SCRIPT), "start"], env=env, capture_output=True, text=True, check=True)
        start_s = time.perf_counter() - t0
        url = started.stdout.strip()
        pid = int(Path(state, "registry.pid").read_text())
        try:
            idle = rss_mib(pid)
            work_s = workload(url, schemas, lookups)
            loaded = rss_mib(pid)
        finally:
            subprocess.run(["bash", str(SCRIPT), "stop"], env=env, capture_output=True, check=True)
    return {"start_s": start_s, "rss_idle_mib": idle, "workload_s": work_s, "rss_after_workload_mib": loaded}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.registry_start", description=__doc__.split("\n")[0])
    parser.add_argument("--cycles", type=int, default=5)
    parser.add_argument("--schemas", type=int, default=100)
    parser.add_argument("--lookups", type=int, default=2000)
    args = parser.parse_args(argv)
    subprocess.run(["bash", str(SCRIPT), "fetch"], check=True, capture_output=True)
    load_start = os.getloadavg()
    runs = [cycle(args.schemas, args.lookups) for _ in range(args.cycles)]
    result = {
        "version": os.environ.get("PIPEC_REGISTRY_VERSION", "default"),
        "settings": vars(args),
        "load_average": {"start": load_start, "end": os.getloadavg()},
        **{key: summary([r[key] for r in runs]) for key in runs[0]},
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
