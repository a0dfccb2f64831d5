"""The connector registry imports a connector's module when a pipeline first names it: a compile imports only the
connectors its pipelines use, and every name the registry lists is its connector's."""

from __future__ import annotations

import json
import subprocess
import sys

from pipec.connectors import SINKS, SOURCES

KAFKA_TO_KAFKA = """\
version: 1
name: k2k
mode: streaming
source: {connector: kafka, topics: [t], properties: {bootstrap.servers: 'b:9092'}, value: {format: json},
  columns: [{name: id, type: BIGINT}]}
sink: {connector: kafka, topic: out, properties: {bootstrap.servers: 'b:9092'}, value: {format: json}, checkpoint: ck}
"""
PROBE = """\
import json, sys
from pipec.project.driver import build_all, generate_all
jobs = generate_all(build_all([sys.argv[1]]))
print(json.dumps([sorted(jobs), sorted(m for m in sys.modules if m.startswith("pipec.connectors."))]))
"""


def test_every_name_is_its_connectors():
    assert list(SOURCES) == ["kafka", "upsert-kafka", "files", "delta", "iceberg"]
    assert list(SINKS) == ["kafka", "upsert-kafka", "files", "console", "delta", "iceberg"]
    for registry in (SOURCES, SINKS):
        assert {name: connector.name for name, connector in registry.items()} == {name: name for name in registry}
        assert "nonesuch" not in registry and registry.get("nonesuch") is None


def test_a_kafka_compile_imports_no_files_or_table_connector(tmp_path):
    (tmp_path / "k2k.yaml").write_text(KAFKA_TO_KAFKA, encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    jobs, modules = json.loads(done.stdout)
    assert jobs == ["k2k.py"]
    assert {"pipec.connectors.kafka", "pipec.connectors.kafka_sink"} <= set(modules)
    loaded = {m.rsplit(".", 1)[1] for m in modules}
    assert not loaded & {"files", "file_lines", "tables", "table_source", "table_config", "files_config"}, modules
