"""A real git repository of pipelines in a temp folder, for the tools' tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PIPEC = [sys.executable, "-m", "pipec"]


class Repo:
    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "dev@example.com")
        self.git("config", "user.name", "Dev")

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.path, check=True, capture_output=True, text=True).stdout

    def write(self, rel: str, text: str) -> Path:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return target

    def commit(self, message: str) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def pipec(self, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
        environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        return subprocess.run([*PIPEC, *args], cwd=self.path, capture_output=True, text=True, env=environ, timeout=600)

    def diff_json(self, *args: str) -> tuple[int, dict]:
        proc = self.pipec("diff", "--format", "json", *args)
        assert proc.returncode in (0, 1), proc.stderr
        return proc.returncode, json.loads(proc.stdout)
