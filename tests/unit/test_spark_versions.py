"""Spark versions: the connector table, the job's own choice of coordinates, and the `spark.version` target.

No Spark session: generated jobs are imported as modules (they import pyspark, which needs no JVM to import).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pipec import spark_versions
from pipec.diagnostics import CompileError
from pipec.emit import render
from pipec.spark_versions import AVRO, KAFKA, LINES, SINCE, coordinates
from pipec.testing.runner import load_job

ROOT = Path(__file__).resolve().parents[2]

KAFKA_AVRO = """version: 1
name: t
mode: batch
source:
  connector: kafka
  topics: [t]
  properties: {bootstrap.servers: "localhost:9092"}
  value: {format: avro}
  columns: [{name: id, type: STRING}]
sink: {connector: console}
"""

CAST_STRING = """version: 1
name: t
mode: batch
source:
  connector: files
  path: in
  format: json
  columns: [{name: id, type: STRING}]
transforms:
  - {name: ids, type: Cast$Value, spec: "id:int64"}
sink: {connector: console}
"""


def job_module(compile_text, text: str, tmp_path):
    _, files = compile_text(text)
    path = tmp_path / "t.py"
    path.write_text(files["t.py"], encoding="utf-8")
    return load_job(path), files["t.py"]


def test_connector_releases_per_line():
    """The releases measured to resolve from Maven Central here (docs/compatibility.md); Spark 3.5 is Scala 2.12."""
    assert coordinates("3.5.9", (KAFKA,)) == ["org.apache.spark:spark-sql-kafka-0-10_2.12:3.5.7"]
    assert coordinates("4.0.5", (AVRO,)) == ["org.apache.spark:spark-avro_2.13:4.0.0"]
    assert coordinates("4.1.4", (KAFKA,)) == ["org.apache.spark:spark-sql-kafka-0-10_2.13:4.1.1"]
    assert coordinates("4.2.1", (KAFKA, AVRO)) == [
        "org.apache.spark:spark-sql-kafka-0-10_2.13:4.2.0",
        "org.apache.spark:spark-avro_2.13:4.2.0",
    ]
    # no 4.3 release resolves here, and a line newer than the table: the Spark's own version
    assert coordinates("4.3.0", (KAFKA,)) == ["org.apache.spark:spark-sql-kafka-0-10_2.13:4.3.0"]
    assert coordinates("5.0.1", (KAFKA,)) == ["org.apache.spark:spark-sql-kafka-0-10_2.13:5.0.1"]
    assert coordinates("4.2.1", (KAFKA,), "4.2.1") == ["org.apache.spark:spark-sql-kafka-0-10_2.13:4.2.1"]


@pytest.mark.parametrize("version", ["3.5.0", "3.5.9", "4.0.0", "4.0.5", "4.1.4", "4.2.1", "4.3.0", "4.4.0", "5.0.0"])
def test_job_picks_the_coordinates_the_compiler_table_gives(compile_text, tmp_path, version):
    job, _ = job_module(compile_text, KAFKA_AVRO, tmp_path)
    assert sorted(job.spark_packages(version)) == sorted(coordinates(version, (KAFKA, AVRO)))
    assert sorted(job.spark_packages(version, "9.9.9")) == sorted(coordinates(version, (KAFKA, AVRO), "9.9.9"))


def test_generated_jobs_do_not_depend_on_the_installed_pyspark(compile_text, tmp_path, monkeypatch):
    """The same YAML gives the same job whatever pyspark the compiling machine has."""
    import pyspark

    _, first = job_module(compile_text, KAFKA_AVRO, tmp_path)
    monkeypatch.setattr(pyspark, "__version__", "3.5.1")
    _, second = job_module(compile_text, KAFKA_AVRO, tmp_path)
    assert first == second
    assert pyspark.__version__ not in first


def test_the_override_option_and_variable_are_named_alike(compile_text, tmp_path):
    _, source = job_module(compile_text, KAFKA_AVRO, tmp_path)
    assert spark_versions.PACKAGES_VERSION_OPTION in source and spark_versions.PACKAGES_VERSION_ENV in source
    assert (
        "PIPEC_" + spark_versions.PACKAGES_VERSION_OPTION[2:].upper().replace("-", "_")
        == spark_versions.PACKAGES_VERSION_ENV
    )


def test_help_names_the_packages_for_the_installed_pyspark_and_the_master_rule(compile_text, tmp_path, capsys):
    import pyspark

    job, _ = job_module(compile_text, KAFKA_AVRO, tmp_path)
    with pytest.raises(SystemExit):
        job.parse_args(["--help"])
    out = capsys.readouterr().out
    assert ",".join(sorted(coordinates(pyspark.__version__, (KAFKA, AVRO)))) in out.split()
    text = " ".join(out.split())
    assert "ignored under spark-submit, whose --master stands" in text


def test_schema_lists_the_supported_lines():
    schema = json.loads((ROOT / "schemas" / "pipeline.schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["Spark"]["properties"]["version"]["enum"] == list(LINES)


def test_version_gated_names_are_functions_generated_code_calls():
    assert set(SINCE) <= render.SPARK_FUNCTIONS | render.COLUMN_METHODS
    assert all(line in LINES for line in SINCE.values())


def test_target_35_refuses_a_step_that_needs_40(compile_text):
    with pytest.raises(CompileError) as err:
        compile_text(CAST_STRING + 'spark: {version: "3.5"}\n')
    (diag,) = err.value.diagnostics
    assert diag.code == "E900" and diag.loc.line == 10  # the Cast step's line
    assert "needs Spark 4.0 or newer (try_cast), but spark.version is 3.5" in diag.message


def test_target_40_accepts_it_and_the_job_records_the_line_it_needs(compile_text, tmp_path):
    job, _ = job_module(compile_text, CAST_STRING + 'spark: {version: "4.0"}\n', tmp_path)
    assert job.SPARK_NEEDED == "4.0"
    job, _ = job_module(compile_text, CAST_STRING, tmp_path)  # no target: the job checks at start
    assert job.SPARK_NEEDED == "4.0"
    job, _ = job_module(compile_text, KAFKA_AVRO + 'spark: {version: "3.5"}\n', tmp_path)
    assert job.SPARK_NEEDED == "3.5"


def test_generated_jobs_never_reach_into_the_jvm():
    """Spark Connect has no JVM in the client: no py4j anywhere in generated jobs, the upsert changelog state
    included (its bookkeeping is DataFrame reads and writes)."""
    for path in sorted((ROOT / "generated").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for word in ("_jvm", "_jsc", "_gateway", "py4j", "sparkContext"):
            assert word not in text, f"{path.name} uses {word}"
