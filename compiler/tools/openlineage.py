"""Column lineage as OpenLineage run events (spec 2-0-2), written at compile time: no job runs.

One event per pipeline: the job (namespace `pipec`, the pipeline's name, its processing type), its input datasets
(the source's topics or folder) and its output dataset (the sink's topic or folder) with a schema facet and a
columnLineage facet (1-2-0): each written field with the input fields it comes from (DIRECT: IDENTITY or
TRANSFORMATION, masked where a step replaced the value: MaskField, Drop), and the record-level inputs of filters and conditional
steps (INDIRECT: FILTER or CONDITIONAL). Metadata keys and headers are named `metadata:<key>` and `header:<key>`.
The event type is OTHER (nothing ran); runId is derived from the pipeline's name and sha256, so the same YAML
gives the same event apart from eventTime.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from pathlib import Path

from .. import __version__
from ..connectors import SINKS, SOURCES
from ..envrefs import Text
from ..project.driver import build_all
from ..resolve.builder import Compiled
from .contract import contract, flat_fields, routes, writes_kafka
from .lineage import column_lineage

SPEC = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/"
FACETS = "https://openlineage.io/spec/facets/"
PRODUCER = f"urn:pipec:{__version__}"
RUN_NAMESPACE = uuid.UUID("6f1f1f0e-5f6b-4c39-9d0e-7069706563ab")


def _facet(schema: str, **fields) -> dict:
    return {"_producer": PRODUCER, "_schemaURL": FACETS + schema, **fields}


def _servers(properties: tuple[tuple[str, Text], ...]) -> str:
    servers = dict(properties).get("bootstrap.servers")
    return servers.raw.split(",")[0].strip() if servers else "unknown"


def input_datasets(compiled: Compiled) -> list[tuple[str, str]]:
    """(namespace, name) of each dataset the source reads: OpenLineage's kafka://host:port and topic, or file and path."""
    connector, s = SOURCES[compiled.pipeline.source.connector], compiled.pipeline.source.config
    if connector.reads_files or (connector.reads_table and s.path is not None):
        return [("file", s.path.raw)]  # a path table is its folder
    if connector.reads_table:
        return [(connector.name, s.table)]
    names = [t.raw for t in s.topics] or [f"pattern:{s.topic_pattern.raw}"]
    return [(f"kafka://{_servers(s.properties)}", n) for n in names]


def output_dataset(compiled: Compiled) -> tuple[str, str]:
    p = compiled.pipeline
    sink = p.sink
    if writes_kafka(sink):
        props = (
            sink.config.properties
            if any(k == "bootstrap.servers" for k, _ in sink.config.properties)
            else p.source.config.properties
        )
        if sink.config.topic is not None:
            name = sink.config.topic.raw
        elif compiled.final.routed:
            name = "routed:" + ",".join(s.alias for s in p.steps if routes(s))
        else:
            name = ",".join(n for _, n in input_datasets(compiled))
        return f"kafka://{_servers(props)}", name
    if SINKS[sink.connector].writes_files or (SINKS[sink.connector].writes_table and sink.config.path is not None):
        return "file", sink.config.path.raw  # a path table is its folder
    if SINKS[sink.connector].writes_table:
        return sink.connector, sink.config.table
    return "console", p.name


def _schema(fields: dict) -> dict:
    return _facet(
        "1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
        fields=[{"name": name, "type": t.sql()} for name, t in fields.items()],
    )


def run_event(compiled: Compiled, event_time: str | None = None) -> dict:
    p = compiled.pipeline
    inputs = input_datasets(compiled)
    out_ns, out_name = output_dataset(compiled)
    fields, dataset = column_lineage(compiled)

    def refs(field: str, transformation: dict) -> list[dict]:
        return [
            {"namespace": ns, "name": name, "field": field, "transformations": [transformation]} for ns, name in inputs
        ]

    lineage = {
        out: {
            "inputFields": [
                ref
                for o in origins
                for ref in refs(o.field, {"type": "DIRECT", "subtype": o.subtype, "masking": o.masking})
            ]
        }
        for out, origins in fields.items()
    }
    indirect = [
        ref
        for field, subtype in sorted(dataset.items())
        for ref in refs(field, {"type": "INDIRECT", "subtype": subtype})
    ]
    source_columns = {c.name: c.type for c in p.source.config.columns if c.physical}
    written = contract(compiled)
    return {
        "eventType": "OTHER",
        "eventTime": event_time
        or dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "producer": PRODUCER,
        "schemaURL": SPEC + "RunEvent",
        "run": {"runId": str(uuid.uuid5(RUN_NAMESPACE, f"{p.name}:{p.sha256}")), "facets": {}},
        "job": {
            "namespace": "pipec",
            "name": p.name,
            "facets": {
                "jobType": _facet(
                    "2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet",
                    processingType="STREAMING" if p.streaming else "BATCH",
                    integration="SPARK",
                    jobType="JOB",
                ),
            },
        },
        "inputs": [
            {"namespace": ns, "name": name, "facets": {"schema": _schema(source_columns)}} for ns, name in inputs
        ],
        "outputs": [
            {
                "namespace": out_ns,
                "name": out_name,
                "facets": {
                    "schema": _schema(flat_fields(written.value) if written.value is not None else {}),
                    "columnLineage": _facet(
                        "1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet",
                        fields=lineage,
                        dataset=indirect,
                    ),
                },
            }
        ],
    }


def write_events(paths: list[str], folder: Path, event_time: str | None = None) -> list[Path]:
    """One `<pipeline>.openlineage.json` per pipeline under `paths` (which compile already checked)."""
    result = build_all(paths)
    result.diags.check()
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for compiled in result.compiled:
        target = folder / f"{compiled.pipeline.name}.openlineage.json"
        target.write_text(json.dumps(run_event(compiled, event_time), indent=2) + "\n", encoding="utf-8")
        written.append(target)
    return written
