"""Connectors own their config: each registered source and sink connector names a config record
(compiler/connectors/*_config.py) whose fields are exactly the keys of its block in the checked-in schema, whose
defaults are the schema's, and from which the schema block, the reference and the model's `config` come. Adding a
connector touches its module, its record and its registration: the last test adds one that exists only here."""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError, dataclass, fields, is_dataclass
from pathlib import Path
from typing import ClassVar

import jsonschema
import pytest
import yaml
from pipec import connectors
from pipec.connectors import SINKS, SOURCES
from pipec.connectors.base import SinkConnector, envelope_layout
from pipec.connectors.config import MISSING, default_of, key, keys, read_config, ref, shown_default, text
from pipec.connectors.schema_registry import OPTIONS as REGISTRY_OPTIONS
from pipec.model import Sink, SinkConfig, Source, SourceConfig
from pipec.package_data import SCHEMA_PATH
from pipec.project.driver import build_all
from pipec.tools import reference
from pipec.validate import connector_schema, schema_gen

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
DEFS = SCHEMA["$defs"]
CONNECTORS = [("source", n, c) for n, c in SOURCES.items()] + [("sink", n, c) for n, c in SINKS.items()]
IDS = [f"{block}:{name}" for block, name, _ in CONNECTORS]


def schema_keys(node: dict) -> set[str]:
    """The dotted keys of a connector block in the schema: its properties, and those of its nested key/value
    blocks (not the Schema Registry's options, which the `Registry` record holds)."""
    out = set()
    for name, prop in node["properties"].items():
        if name == "connector":
            continue
        if name in ("key", "value") and "properties" in prop:
            out |= {f"{name}.{k}" for k in prop["properties"] if k not in REGISTRY_OPTIONS}
        else:
            out.add(name)
    return out


def node_at(node: dict, path: tuple[str, ...]) -> dict:
    for part in path[:-1]:
        node = node["properties"][part]
    return node["properties"][path[-1]]


@pytest.mark.parametrize(("block", "name", "connector"), CONNECTORS, ids=IDS)
def test_the_record_covers_exactly_its_schema_blocks_keys(block, name, connector):
    record = connector.config
    assert is_dataclass(record) and record.__dataclass_params__.frozen and "__slots__" in record.__dict__
    assert issubclass(record, SourceConfig if block == "source" else SinkConfig)
    node = DEFS[connector_schema.def_name(name, block)]
    assert {spec.name for _, spec in keys(record)} == schema_keys(node)
    assert {f.name for f in fields(record)} == {f.name for f, _ in keys(record)}  # no field that is not a key


@pytest.mark.parametrize(("block", "name", "connector"), CONNECTORS, ids=IDS)
def test_each_key_has_a_doc_and_the_schemas_default_and_requiredness(block, name, connector):
    node = DEFS[connector_schema.def_name(name, block)]
    for f, spec in keys(connector.config):
        prop = node_at(node, spec.path)
        assert spec.doc and prop["description"] == spec.doc, spec.name
        shown = shown_default(f)
        assert prop.get("default", MISSING) == shown, spec.name
        if shown is not MISSING:  # the documented default is the value the model holds when the key is not written
            assert default_of(f) == shown
        parent = node if len(spec.path) == 1 else node["properties"][spec.path[0]]
        assert (spec.path[-1] in parent.get("required", [])) == spec.required, spec.name


def test_the_schemas_connector_blocks_are_the_generated_ones():
    """Equal to what the records generate (schema_gen --write), dispatchers included, in registration order."""
    for group in connector_schema.generated_defs():
        for name, node in group.items():
            expected = schema_gen.with_registry_options(node)  # the registry's options follow schema-id
            assert DEFS[name] == expected, f"{name}: run python -m pipec.validate.schema_gen --write"
    assert DEFS["Source"]["properties"]["connector"]["enum"] == list(SOURCES)
    assert DEFS["Sink"]["properties"]["connector"]["enum"] == list(SINKS)


@pytest.mark.parametrize(("block", "name", "connector"), CONNECTORS, ids=IDS)
def test_generic_readings_answer_for_every_record(block, name, connector):
    """What generic code asks of any config (SourceConfig/SinkConfig) every record answers, without its keys set;
    and a record is frozen."""
    base = SourceConfig if block == "source" else SinkConfig
    config = connector.config()
    for reading in base.__annotations__:
        getattr(config, reading)
    with pytest.raises(FrozenInstanceError):
        config.options = ()


def test_the_models_config_is_the_blocks_record_for_every_example():
    """Each example's source and sink config: its record, holding each key as written (as read, where its field
    converts it)."""
    result = build_all([str(ROOT / "pipelines")])
    assert not result.diags.errors and len(result.compiled) >= 9
    for compiled in result.compiled:
        p = compiled.pipeline
        path = ROOT / p.file
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert type(p.source.config) is SOURCES[p.source.connector].config
        assert type(p.sink.config) is SINKS[p.sink.connector].config
        for block, model in (("source", p.source), ("sink", p.sink)):
            for f, spec in keys(type(model.config)):
                written = raw[block]
                for part in spec.path:
                    written = written.get(part, MISSING) if isinstance(written, dict) else MISSING
                if written is MISSING or spec.resolved or spec.read is not None:
                    continue
                if block == "sink" and f.name == "key_format":
                    continue  # a sink's key.format defaults to the source's
                assert getattr(model.config, f.name) == written, (path.name, spec.name)


# ---------------------------------------------------------------- adding a connector


@dataclass(frozen=True, slots=True)
class NullSinkConfig(SinkConfig):
    """`sink` with `connector: null`: a test's connector, defined nowhere else."""

    DOC: ClassVar[str] = "Drops every record (a test's connector)."

    checkpoint: object = key("checkpoint", "Checkpoint folder.", ref("Checkpoint"), read=text)
    trigger: str | None = key("trigger", "When to run a micro-batch.", ref("Trigger"))
    options: tuple = key("options", "None known.", ref("Options"), ())
    reason: str = key("reason", "Why the records are dropped.", {"type": "string", "minLength": 1}, "testing")


NULL_SINK = SinkConnector(
    name="null",
    config=NullSinkConfig,
    check=lambda sink, shape, diags: None,
    encode=lambda sink, shape: (),
    writer=lambda sink, source: {},
    checkpoint_required=False,
    test_layout=envelope_layout,
)


def test_adding_a_connector_touches_its_module_its_record_and_its_registration(monkeypatch):
    """Registered, the connector gets a schema block and dispatch (from its record), a section of the reference,
    and a model config read by resolve's reader: no hand edit of the model, resolve, schema or docs."""
    monkeypatch.setitem(SINKS, "null", NULL_SINK)
    assert connectors.SINKS["null"] is NULL_SINK
    regenerated = schema_gen.regenerate(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    block = regenerated["$defs"]["NullSink"]
    assert set(block["properties"]) == {"connector", "checkpoint", "trigger", "options", "reason"}
    assert block["properties"]["reason"]["default"] == "testing"
    assert "null" in regenerated["$defs"]["Sink"]["properties"]["connector"]["enum"]
    pipeline = yaml.safe_load((ROOT / "pipelines" / "orders_enriched.yaml").read_text(encoding="utf-8"))
    pipeline["sink"] = {"connector": "null", "reason": "a dry run"}
    jsonschema.Draft202012Validator(regenerated).validate(pipeline)
    pipeline["sink"]["unknown"] = 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(regenerated).validate(pipeline)
    config = read_config(NullSinkConfig, {"connector": "null", "reason": "a dry run"})
    assert config == NullSinkConfig(reason="a dry run") and config.envelope is False and config.path is None
    assert isinstance(Sink("null", None, config).config, SinkConfig)
    assert (
        "### `null`" in reference.render_connectors()
        and "`reason` (default `testing`)" in reference.render_connectors()
    )
    assert Source.__dataclass_fields__.keys() == {"connector", "loc", "config", "changelog", "registries"}
