"""Start and stop the single-node Kafka broker of `scripts/kafka` from the Kafka tests (tests/kafka/conftest.py).

Standard library only. The script fetches Kafka's jars from Maven Central on first use (cached in
$PIPEC_CACHE, default ~/.cache/pipec) and prints the bootstrap servers; see its header for settings.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "kafka"
START_TIMEOUT_S = 900  # the first start downloads ~45 MB of jars (plus Maven's plugins) before it starts
STOP_TIMEOUT_S = 60

_started: set[str | None] = set()  # state dirs this process started a broker in (None: the default one)


class BrokerError(RuntimeError):
    """`scripts/kafka` failed; the message ends with what it wrote to stderr (incl. the broker log's tail)."""


def _run(command: str, state_dir: str | os.PathLike | None, timeout: float) -> subprocess.CompletedProcess:
    if not SCRIPT.is_file():
        raise BrokerError(f"{SCRIPT} not found: the Kafka broker needs pipec's source tree (scripts/kafka)")
    env = dict(os.environ)
    if state_dir is not None:
        env["PIPEC_KAFKA_DIR"] = str(state_dir)
    return subprocess.run(
        ["bash", str(SCRIPT), command],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _key(state_dir: str | os.PathLike | None) -> str | None:
    return None if state_dir is None else os.path.abspath(state_dir)


def start_broker(state_dir: str | os.PathLike | None = None) -> str:
    """Start the broker (or find it running) and return its bootstrap servers, e.g. "127.0.0.1:41234".

    state_dir (PIPEC_KAFKA_DIR) separates brokers: config, data and broker.log live there, and `stop`
    deletes it. None uses the script's default ($PIPEC_CACHE/kafka-state), shared with `scripts/kafka`.
    """
    result = _run("start", state_dir, START_TIMEOUT_S)
    if result.stderr:
        sys.stderr.write(result.stderr)
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        raise BrokerError(f"scripts/kafka start failed (exit {result.returncode}):\n{result.stderr.strip()}")
    _started.add(_key(state_dir))
    return lines[-1].strip()


def stop_broker(state_dir: str | os.PathLike | None = None) -> None:
    """Stop the broker of state_dir (SIGTERM, then SIGKILL) and delete its state dir; no-op if none runs."""
    result = _run("stop", state_dir, STOP_TIMEOUT_S)
    _started.discard(_key(state_dir))
    if result.returncode != 0:
        raise BrokerError(f"scripts/kafka stop failed (exit {result.returncode}):\n{result.stderr.strip()}")


def broker_status(state_dir: str | os.PathLike | None = None) -> str | None:
    """The bootstrap servers of the running broker of state_dir, or None if it does not run."""
    result = _run("status", state_dir, STOP_TIMEOUT_S)
    lines = result.stdout.strip().splitlines()
    return lines[-1].strip() if result.returncode == 0 and lines else None


@atexit.register
def _stop_leftovers() -> None:
    """Brokers outlive their starter (they run in their own session): stop ours if teardown was skipped."""
    for state_dir in list(_started):
        try:
            stop_broker(state_dir)
        except Exception:
            pass
