"""`${env:…}` values are resolved when the job runs and never reach generated code, CLI output or logs.

Secrets are planted in the environment only (the YAML holds `${env:NAME}` references): in Kafka properties
(`sasl.jaas.config`, `ssl.key.password`), the topic and the sink path. Compiling, `pipec explain` and every
generated file must not contain any of them. The job then runs as users run it (`python job.py`), with Spark's
own logging at INFO and its event log on, on records that end in a bad one (so the failure path prints too);
its output, logs, event log, checkpoint and output folder must not contain the password-like values.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from killable_job import JobProcess, job_env

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

ROOT = Path(__file__).resolve().parents[2]

PIPELINE = """\
version: 1
name: secret_safe
mode: streaming
source:
  connector: kafka
  topics: ["${{env:SECRET_TOPIC}}"]
  properties:
    bootstrap.servers: ${{env:KAFKA_BOOTSTRAP_SERVERS}}
    sasl.jaas.config: ${{env:SECRET_JAAS}}
    ssl.key.password: ${{env:SECRET_KEY_PASSWORD}}
  key: {{format: json, fields: [id]}}
  value: {{format: json}}
  columns:
    - {{name: id, type: BIGINT}}
    - {{name: name, type: STRING}}
sink:
{sink}
  checkpoint: ${{env:SECRET_OUT}}/checkpoint
  trigger: available-now
"""

# files: the last record is bad, so the job fails and its failure path prints too; kafka: the sink carries the
# secret properties as well and the job ends normally
SINKS = {
    "files": """\
  connector: files
  path: ${env:SECRET_OUT}/out
  format: json""",
    "kafka": """\
  connector: kafka
  topic: ${env:SECRET_OUT_TOPIC}
  properties:
    sasl.jaas.config: ${env:SECRET_JAAS}
    ssl.key.password: ${env:SECRET_KEY_PASSWORD}
  value: {format: json}""",
}
EXPECTED_EXIT = {"files": 1, "kafka": 0}

# Spark's own logging at INFO into a file ({log}): a PySpark driver is a "shell" to Spark, whose console filter
# keeps its console at WARN whatever the configuration says
LOG4J2 = """\
rootLogger.level = info
rootLogger.appenderRef.file.ref = file
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d %p %c: %m%n
"""


def token(label: str) -> str:
    return f"{label}{uuid.uuid4().hex}"


def leaks(folder: Path, secrets: dict[str, str]) -> list[str]:
    """Files under folder (recursively, binary too) that contain any secret's value: 'path: NAME'."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found += [f"{path.relative_to(folder)}: {name}" for name, value in secrets.items() if value.encode() in data]
    return found


def pipec(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pipec.cli", *args],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("sink", list(SINKS))
def test_env_secrets_stay_out_of_code_cli_output_and_logs(sink, kafka_bootstrap, kafka_client, tmp_path):
    topic = kafka_client.create_topic(token("secret-topic-"))
    out_topic = kafka_client.create_topic(token("secret-out-"))
    passwords = {
        "SECRET_JAAS": 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" '
        f'password="{token("jaas")}";',
        "SECRET_KEY_PASSWORD": token("keypw"),
    }
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "pipeline.yaml").write_text(PIPELINE.format(sink=SINKS[sink]), encoding="utf-8")
    env = job_env(
        {
            **passwords,
            "SECRET_TOPIC": topic,
            "SECRET_OUT": str(work / "files"),
            "SECRET_OUT_TOPIC": out_topic,
            "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        }
    )
    # the topic and the path are secret for compiling's sake; the job needs them in its own logs
    compile_secrets = {
        **passwords,
        "SECRET_TOPIC": topic,
        "SECRET_OUT": env["SECRET_OUT"],
        "SECRET_OUT_TOPIC": out_topic,
    }

    generated = tmp_path / "generated"
    compiled = pipec("compile", str(tmp_path / "pipeline.yaml"), "--out", str(generated), env=env, cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stderr
    explained = pipec("explain", str(tmp_path / "pipeline.yaml"), env=env, cwd=tmp_path)
    assert explained.returncode == 0, explained.stderr
    assert "${env:SECRET_JAAS}" in (generated / "secret_safe.py").read_text()  # resolved at run time, by name
    assert leaks(generated, compile_secrets) == []
    for done in (compiled, explained):
        printed = done.stdout + done.stderr
        assert [name for name, value in compile_secrets.items() if value in printed] == []

    good = [{"key": json.dumps({"id": i}), "value": json.dumps({"id": i, "name": f"n{i}"})} for i in range(3)]
    bad = [{"key": json.dumps({"id": 3}), "value": "not json"}] if EXPECTED_EXIT[sink] else []
    kafka_client.produce(topic, good + bad)
    conf_dir = tmp_path / "spark-conf"
    conf_dir.mkdir()
    spark_log = work / "spark-logs" / "spark.log"
    (conf_dir / "log4j2.properties").write_text(LOG4J2.format(log=spark_log), encoding="utf-8")
    events = work / "events"
    events.mkdir()
    job = JobProcess(
        generated / "secret_safe.py",
        [
            "--master",
            "local[2]",
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            "spark.eventLog.enabled=true",
            "--conf",
            f"spark.eventLog.dir={events}",
            "--conf",
            "spark.eventLog.compress=false",
        ],  # scanned as text
        {**env, "SPARK_CONF_DIR": str(conf_dir), "PIPEC_SPARK_LOG": str(work / "spark-start.log")},  # scanned too
        work / "job.log",
    )
    try:
        code = job.wait(180)
    finally:
        job.ensure_dead()
    output = job.output()
    assert code == EXPECTED_EXIT[sink] and ("secret_safe: failed:" in output) == bool(code), output[-4000:]
    logged = spark_log.read_text(encoding="utf-8", errors="replace")
    assert " INFO " in logged  # Spark's INFO logging was on
    # Kafka's clients got the options (and print password-typed ones as [hidden])
    assert "sasl.jaas.config = [hidden]" in logged and "ssl.key.password = [hidden]" in logged
    if sink == "kafka":
        assert len(kafka_client.consume(out_topic)) == len(good)
        assert logged.count("sasl.jaas.config = [hidden]") >= 2  # the consumer's and the producer's config
    assert any(events.iterdir()), "no event log written"
    assert leaks(work, passwords) == []
    control = tmp_path / "control"  # the scan finds a planted value (in binary data too)
    control.mkdir()
    (control / "planted.bin").write_bytes(b"\0\1" + passwords["SECRET_KEY_PASSWORD"].encode() + b"\xff")
    assert leaks(control, passwords) == ["planted.bin: SECRET_KEY_PASSWORD"]
