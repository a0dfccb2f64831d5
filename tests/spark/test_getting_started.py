"""docs/getting-started.md, followed as a user follows it (issue 27): in an empty folder, write each file the page
shows (`<!-- file: PATH -->` before its block) and run each `$ command` of its `console` blocks in order, with the
installed pipec and Python first on PATH; every command must succeed and print what the page shows (timings and the
Spark version aside). Two JVMs: `pipec test` and the job."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "getting-started.md"
BLOCK = re.compile(r"(?:<!-- file: (?P<file>\S+) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.S)
VARIES = ((re.compile(r"done in \d+(\.\d+)? s"), "done in N s"), (re.compile(r"Spark \d+\.\d+\.\d+\S*"), "Spark X"))


def steps(text: str) -> list[tuple[str, str, str]]:
    """("file", path, content) and ("run", command, expected output), in the page's order."""
    out = []
    for block in BLOCK.finditer(text):
        if block["file"]:
            out.append(("file", block["file"], block["body"]))
        elif block["lang"] == "console":
            for chunk in re.split(r"^\$ ", block["body"], flags=re.M)[1:]:
                command, _, expected = chunk.partition("\n")
                out.append(("run", command, expected))
    return out


def normal(text: str) -> str:
    for pattern, fixed in VARIES:
        text = pattern.sub(fixed, text)
    return text.rstrip("\n")


def test_the_page_has_files_and_commands():
    kinds = [kind for kind, _, _ in steps(PAGE.read_text(encoding="utf-8"))]
    assert kinds.count("file") == 2 and kinds.count("run") >= 7


def test_getting_started_as_written(tmp_path):
    bin_dir = Path(sys.executable).parent
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYSPARK_GATEWAY")}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        PIPEC_SPARK_LOG=str(tmp_path / "spark.log"),
        PIPEC_CACHE_DIR="",
    )
    project = tmp_path / "project"
    project.mkdir()
    for kind, what, body in steps(PAGE.read_text(encoding="utf-8")):
        if kind == "file":
            (project / what).parent.mkdir(parents=True, exist_ok=True)
            (project / what).write_text(body, encoding="utf-8")
            continue
        done = subprocess.run(
            ["bash", "-c", what],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, f"$ {what}\n{done.stdout}"
        if body.strip():
            assert normal(done.stdout) == normal(body), f"$ {what}\nthe page shows:\n{body}\nit printed:\n{done.stdout}"
