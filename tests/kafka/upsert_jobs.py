"""A generated streaming job with an upsert-kafka source (id BIGINT key, name) into a files sink with the op, for
the changelog state's tests: compiled with a small COMPACT_AFTER, and its state's slot markers read back."""

from __future__ import annotations

import json
from pathlib import Path

from pipec.project.driver import build_all, generate_all

SOURCE = """\
version: 1
name: {name}
mode: streaming
source:
  connector: upsert-kafka
  topics: ["${{env:UPSERT_IN_TOPIC}}"]
  properties: {{bootstrap.servers: "${{env:KAFKA_BOOTSTRAP_SERVERS}}"}}
  primary-key: [id]
  key: {{format: json}}
  value: {{format: json}}
  columns:
    - {{name: id, type: BIGINT}}
    - {{name: name, type: STRING}}
sink:
  connector: files
  format: json
  envelope: true
"""
COMPACT_AFTER = "COMPACT_AFTER = 16"  # the generated job's line; the tests' copies say less


def compile_job(folder: Path, name: str, sink: dict[str, str], compact_after: int) -> Path:
    """The job, its sink given `sink`'s further settings (path, checkpoint, trigger), with COMPACT_AFTER replaced."""
    path = folder / f"{name}.yaml"
    path.write_text(SOURCE.format(name=name) + "".join(f"  {k}: {v}\n" for k, v in sink.items()), encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    ((filename, source),) = generate_all(result).items()
    assert source.count(COMPACT_AFTER) == 1, "the job's COMPACT_AFTER line changed: update this test"
    (folder / filename).write_text(source.replace(COMPACT_AFTER, f"COMPACT_AFTER = {compact_after}"), encoding="utf-8")
    return folder / filename


def markers(checkpoint: Path) -> list[dict]:
    """The changelog state's slot markers (templates/changelog/state.py.j2): slot, kind, batch, rows. A marker a
    running job is overwriting may vanish while we look: it is left out."""
    found = []
    for path in (checkpoint / "changelog-state" / "markers").glob("*/part-*.json"):
        try:
            found += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        except FileNotFoundError:
            continue
    return found
