"""scripts/registry refuses clearly and never stops what is not its registry (no JVM is started here)."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "registry"


def run(command: str, state_dir: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SCRIPT), command],
        env={**os.environ, "PIPEC_REGISTRY_DIR": str(state_dir), **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_stop_without_a_registry_is_a_no_op(tmp_path):
    state = tmp_path / "state"
    result = run("stop", state)
    assert result.returncode == 0 and result.stdout == ""
    assert "no registry running" in result.stderr
    assert not state.exists()


def test_a_stale_pid_of_another_process_is_neither_reported_nor_killed(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    bystander = subprocess.Popen(["sleep", "60"])
    try:
        (state / "registry.pid").write_text(f"{bystander.pid}\n")
        (state / "url").write_text("http://127.0.0.1:1/apis/ccompat/v7\n")
        assert run("status", state).returncode == 1
        assert run("stop", state).returncode == 0
        assert bystander.poll() is None  # still running
        assert not state.exists()
    finally:
        bystander.kill()
        bystander.wait()


def test_a_taken_port_is_refused_before_anything_is_fetched(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run("start", tmp_path / "state", PIPEC_REGISTRY_PORT=str(port), PIPEC_CACHE=str(tmp_path / "cache"))
    assert result.returncode == 1 and result.stdout == ""
    assert f"PIPEC_REGISTRY_PORT={port}: something already listens on 127.0.0.1:{port}" in result.stderr
    assert not (tmp_path / "cache").exists()


def test_usage(tmp_path):
    result = run("restart", tmp_path)
    assert result.returncode == 2 and "usage: scripts/registry start|stop|status|fetch" in result.stderr
