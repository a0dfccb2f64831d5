"""Every generated job ends with one runtime section, from its `# pipec runtime` line to the end of the file: the
parts of compiler/runtime/ it uses, pasted verbatim in their fixed order, so jobs using the same parts carry the same
text; a reviewer reads the pipeline's own code above it, ending with `transform`, and may skip the rest. Checked over
every pipeline in the repository, a matrix of connectors, modes and dead-letter queues, and synthetic chains of every
transform family."""

from __future__ import annotations

import ast
import builtins
import itertools
import re
from pathlib import Path

import pytest
from pipec import __version__
from pipec.emit import runtime_text
from pipec.project.driver import build_all, generate_all
from pipec.runtime import PARTS

from bench.synthetic import pipeline_yaml

ROOT = Path(__file__).resolve().parents[2]
MARKER = "# pipec runtime"
SYNTHETIC_STEPS = (5, 50)

SOURCES = {
    "files": "{connector: files, path: in, format: json, columns: [{name: id, type: BIGINT}, {name: name, type: STRING}]}",
    "kafka": "{connector: kafka, topics: [t], properties: {bootstrap.servers: 'localhost:9092'}, key: {format: json, fields: [id]}, "
    "value: {format: json}, columns: [{name: id, type: BIGINT}, {name: name, type: STRING}]}",
    "upsert-kafka": "{connector: upsert-kafka, topics: [t], properties: {bootstrap.servers: 'localhost:9092'}, "
    "primary-key: [id], key: {format: json}, value: {format: json}, "
    "columns: [{name: id, type: BIGINT}, {name: name, type: STRING}]}",
}
SINKS = {
    "console": "{connector: console, checkpoint: ck}",
    "files": "{connector: files, path: out, format: json, envelope: true, checkpoint: ck}",
    "kafka": "{connector: kafka, topic: out, properties: {bootstrap.servers: 'b:9092'}, value: {format: json}, checkpoint: ck}",
    "upsert-kafka": "{connector: upsert-kafka, topic: out, properties: {bootstrap.servers: 'b:9092'}, primary-key: [id], "
    "value: {format: json}, checkpoint: ck}",
}
DEAD_LETTERS = {
    "none": "",
    "path": "errors: {tolerance: all, deadletterqueue.path: dlq}\n",
    "topic": "errors: {tolerance: all, deadletterqueue.topic.name: dlq, deadletterqueue.context.headers.enable: true}\n",
}


def matrix() -> dict[str, str]:
    """name -> YAML for each source x sink x mode x dead-letter queue that pipec accepts: dead letters from a
    kafka source to a sink other than upsert-kafka (E109), a streaming changelog into no plain kafka sink (E540)."""
    out = {}
    for source, sink, mode, dlq in itertools.product(SOURCES, SINKS, ("batch", "streaming"), DEAD_LETTERS):
        if dlq != "none" and (source != "kafka" or sink == "upsert-kafka"):
            continue
        if (source, sink, mode) == ("upsert-kafka", "kafka", "streaming"):
            continue
        name = "_".join(part.replace("-", "_") for part in (source, sink, mode, dlq))
        out[name] = (
            f"version: 1\nname: {name}\nmode: {mode}\nsource: {SOURCES[source]}\n"
            "transforms:\n  - {name: mask, type: MaskField$Value, fields: [name]}\n"
            f"sink: {SINKS[sink]}\n{DEAD_LETTERS[dlq]}"
        )
    offsets = SOURCES["kafka"].replace(
        "columns:", "startup: {mode: specific-offsets, specific-offsets: 'partition:0,offset:4'}, columns:"
    )
    out["kafka_offsets"] = (
        out["kafka_kafka_streaming_none"]
        .replace(SOURCES["kafka"], offsets)
        .replace("kafka_kafka_streaming_none", "kafka_offsets")
    )
    return out


def runtime(source: str) -> str:
    """From the marker line to the end of the file."""
    return source[source.index("\n" + MARKER) + 1 :]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory) -> dict[str, str]:
    """Every job: the repository's pipelines (each folder built apart: names repeat across folders) and the matrix."""
    folders = [ROOT / "pipelines", *sorted(ROOT.glob("tests/**/pipelines"))]
    synthetic = tmp_path_factory.mktemp("matrix")
    for name, text in matrix().items():
        (synthetic / f"{name}.yaml").write_text(text, encoding="utf-8")
    for steps in SYNTHETIC_STEPS:  # every transform family (the black-layout corpus)
        (synthetic / f"s{steps}.yaml").write_text(pipeline_yaml(f"s{steps}", steps, 7), encoding="utf-8")
    out = {}
    for folder in [*folders, synthetic]:
        result = build_all([str(folder)])
        assert not result.diags.errors, [d.render() for d in result.diags.items]
        out.update({f"{folder.name}/{name}": source for name, source in generate_all(result).items()})
    return out


def test_every_kind_of_job_is_built(jobs):
    repository = sum(1 for p in ROOT.glob("pipelines/*.yaml")) + sum(1 for p in ROOT.glob("tests/**/pipelines/*.yaml"))
    assert len(jobs) == repository + len(matrix()) + len(SYNTHETIC_STEPS)
    used = {part for source in jobs.values() for part in parts_of(source)}
    assert used == set(PARTS) - {"registry_main", "schema_registry"}  # a registry job: tests/schema_registry
    texts = list(jobs.values())
    for feature in ('format("console")', "shown.show(", "def micro_batch(", "def write_dead_letters("):
        assert any(feature in text for text in texts), feature


def parts_of(source: str) -> list[str]:
    """The parts the marker line names."""
    line = next(line for line in source.split("\n") if line.startswith(MARKER))
    return line.split("Parts: ", 1)[1].rstrip(".").split(", ")


def test_the_runtime_marker_is_there_once(jobs):
    for name, source in jobs.items():
        lines = [line for line in source.split("\n") if line.startswith(MARKER)]
        assert len(lines) == 1, name
        assert lines[0].startswith(f"{MARKER} {__version__}, pasted from pipec's runtime modules"), lines[0]


def test_the_runtime_is_its_parts_pasted_verbatim_in_order(jobs):
    """The parts are in PARTS order, each module's body exactly: jobs with the same parts have the same runtime."""
    bodies = runtime_text.parts()
    for name, source in jobs.items():
        names = parts_of(source)
        assert names == [p for p in PARTS if p in names], name
        expected = "\n\n\n".join([source[source.index(MARKER) :].split("\n", 1)[0], *(bodies[p].body for p in names)])
        assert runtime(source) == expected + "\n", name


def test_the_pipeline_comes_first_in_order_and_ends_with_transform(jobs):
    """Above the runtime: read_source, decode, chain, encode, the sink's writer and transform last; none below."""
    for name, source in jobs.items():
        rest = runtime(source)
        pipeline = source[: -len(rest)]
        found = [pipeline.index(f"\ndef {f}(") for f in ("read_source", "decode", "chain", "encode")]
        assert found == sorted(found), name
        assert pipeline.index("\ndef write_") > found[-1], name
        assert pipeline.rstrip().split("\n\n\n")[-1].startswith("def transform("), name
        assert not any(f"\ndef {f}(" in rest for f in ("read_source", "decode", "chain", "encode", "transform")), name


def test_a_table_job_carries_only_its_apply_modes_part(jobs):
    """A table sink's job pastes the part of its apply mode (TableApply) and no other mode's: an append job carries
    no MERGE."""
    modes = {"append": "table_append", "upsert": "table_upsert", "history": "table_history"}
    seen = set()
    for name, source in jobs.items():
        carried = set(parts_of(source)) & {*modes.values(), "table_merge"}
        mode = re.search(r'\n        apply="(\w+)",', source)
        if mode is None:
            assert not carried, name
            continue
        seen.add(mode[1])
        assert carried == {modes[mode[1]], *(["table_merge"] if mode[1] != "append" else [])}, name
    assert seen == set(modes)


def test_no_name_is_defined_twice(jobs):
    """Alternative parts (compiler/runtime ALTERNATIVES) never meet in one job."""
    for name, source in jobs.items():
        defined = [n.name for n in ast.parse(source).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
        assert sorted(defined) == sorted(set(defined)), name


def unbound_names(source: str) -> set[str]:
    """Names the job reads that nothing in it binds (nor Python's builtins): the runtime, the same in every job,
    must call only what every job defines."""
    tree = ast.parse(source)
    bound = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return read - bound


def test_every_name_a_job_reads_is_defined_in_it(jobs):
    """A micro-batch job's runtime once called write_micro_batches, which other jobs do not define."""
    assert {name: unbound for name, source in jobs.items() if (unbound := unbound_names(source))} == {}


def options_of(source: str) -> set[str]:
    """The flags of the job's OPTIONS setting."""
    node = next(n for n in ast.parse(source).body if isinstance(n, ast.Assign) and n.targets[0].id == "OPTIONS")
    return set(ast.literal_eval(node.value))


def test_a_job_has_the_options_its_code_reads(jobs):
    """OPTIONS holds the flags whose `args.NAME` the job reads (--spark-packages-version only with connectors): a
    files -> files batch job has no --bootstrap-servers, --checkpoint or --trigger."""
    for name, source in jobs.items():
        read = {"--" + attribute.replace("_", "-") for attribute in re.findall(r"\bargs\.(\w+)", source)}
        expected = read & set(runtime_text.OPTIONS)
        if "spark_lines" not in parts_of(source):
            expected.discard("--spark-packages-version")
        assert options_of(source) == expected, name
    by_name = {name.rsplit("/", 1)[1].removesuffix(".py"): source for name, source in jobs.items()}
    assert options_of(by_name["files_files_batch_none"]) == {"--source-path", "--sink-path"}
    assert options_of(by_name["kafka_kafka_streaming_none"]) == {
        "--bootstrap-servers",
        "--checkpoint",
        "--trigger",
        "--spark-packages-version",
    }
