"""A generated job run as users run it (`python job.py ...`) in its own process group, so a test can SIGKILL it.

PySpark's driver (Python) starts the JVM as its child in the same process group; the JVM exits when its
stdin (a pipe from Python) closes. `JobProcess.kill` SIGKILLs the Python driver alone or the whole group and
then makes sure nothing of the group survives (reporting any orphan it had to kill), so a restart never
shares the checkpoint with a leftover JVM. `Checkpoint` reads a streaming checkpoint's offset and commit logs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ORPHAN_GRACE_S = 30.0  # how long the JVM may take to notice its driver died before it counts as an orphan


@dataclass
class KillReport:
    """What one SIGKILL did: the target, the batch state it landed in, and any process left to kill."""

    how: str  # "driver" (os.kill on the Python pid) or "group" (os.killpg: driver and JVM at once)
    planned: int  # newest batch id in offsets/ when the kill landed
    committed: int  # newest batch id in commits/ when the kill landed
    orphans: list[str]  # command lines of processes still alive after ORPHAN_GRACE_S (killed then)
    exit_s: float  # seconds until the whole group was gone


def job_env(extra: dict[str, str]) -> dict[str, str]:
    """A fresh job's environment: no PySpark gateway of the test's own session, the test's Python for workers."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYSPARK_GATEWAY")}
    env["PYSPARK_PYTHON"] = sys.executable
    env.update(extra)
    return env


def group_members(pgid: int) -> dict[int, str]:
    """Live processes (not zombies) whose process group is pgid: pid -> command line."""
    members = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            state, pgrp = fields[0], int(fields[2])
            if pgrp == pgid and state != "Z":
                members[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:200]
        except (OSError, ValueError):
            continue  # the process ended while we looked
    return members


class JobProcess:
    """One run of a generated job; stdout and stderr go to log_path."""

    def __init__(self, job_file: Path, args: list[str], env: dict[str, str], log_path: Path):
        self.log_path = log_path
        with open(log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, str(job_file), *args],
                cwd=job_file.parent,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: the driver and its JVM
            )
        self.pgid = self.proc.pid

    def output(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self, how: str, checkpoint: Checkpoint) -> KillReport:
        """SIGKILL the driver ("driver") or the whole group ("group"); wait until no process of the group is left."""
        planned, committed = checkpoint.latest("offsets"), checkpoint.latest("commits")
        if how == "driver":
            os.kill(self.proc.pid, signal.SIGKILL)
        else:
            os.killpg(self.pgid, signal.SIGKILL)
        start = time.monotonic()
        self.proc.wait(timeout=10)
        orphans: list[str] = []
        while group_members(self.pgid):
            if time.monotonic() - start > ORPHAN_GRACE_S:
                orphans = list(group_members(self.pgid).values())
                os.killpg(self.pgid, signal.SIGKILL)
            time.sleep(0.05)
        return KillReport(how, planned, committed, orphans, round(time.monotonic() - start, 2))

    def wait(self, timeout: float) -> int:
        """Wait for a run that ends on its own (available-now); kill the group if it overruns."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.pgid, signal.SIGKILL)
            self.proc.wait()
            raise AssertionError(f"the job did not finish within {timeout}s:\n{self.output()[-4000:]}") from None
        finally:
            deadline = time.monotonic() + ORPHAN_GRACE_S
            while group_members(self.pgid) and time.monotonic() < deadline:
                time.sleep(0.05)

    def ensure_dead(self) -> None:
        """Teardown: nothing of this run may outlive the test."""
        if group_members(self.pgid) or self.alive():
            try:
                os.killpg(self.pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(timeout=10)


class Checkpoint:
    """A streaming checkpoint folder: offsets/N is written when batch N is planned, commits/N when it is done."""

    def __init__(self, path: Path):
        self.path = path

    def latest(self, log: str) -> int:
        folder = self.path / log
        if not folder.is_dir():
            return -1
        ids = [int(p.name) for p in folder.iterdir() if p.name.isdigit()]
        return max(ids, default=-1)

    def end_offsets(self, batch: int) -> int:
        """The sum over partitions of batch's end offsets (its offsets/N file's last line); 0 before batch 0."""
        if batch < 0:
            return 0
        lines = (self.path / "offsets" / str(batch)).read_text().splitlines()
        return sum(sum(parts.values()) for parts in json.loads(lines[-1]).values())

    def records_in(self, batch: int) -> int:
        """Records batch read (a source that started from the earliest offsets of fresh topics)."""
        return self.end_offsets(batch) - self.end_offsets(batch - 1)

    def in_flight(self) -> bool:
        """A batch is planned but not committed: a kill now lands mid-batch."""
        return self.latest("offsets") > self.latest("commits")

    def wait_until(self, condition, job: JobProcess, timeout: float = 90.0, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if not job.alive():
                raise AssertionError(
                    f"the job exited (code {job.proc.returncode}) waiting for {what}:\n{job.output()[-4000:]}"
                )
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {what}:\n{job.output()[-4000:]}")
            time.sleep(0.02)
