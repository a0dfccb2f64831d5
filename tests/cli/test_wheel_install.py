"""pipec as a user gets it: the project built into a wheel, installed into a fresh virtualenv, and run in a git
repository of pipelines that is not this one (issue 12: templates and the schema are package data).

The fresh venv has no site packages of its own but a `.pth` line naming this environment's site-packages, for the
third-party dependencies only: this environment holds `compiler` through the editable finder, which a `.pth` line
does not run, so `compiler` can come only from the wheel (the test checks where it was imported from).
Needs no Spark; about 10 seconds (building the wheel is most of it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from cli_harness import ROOT, run_cli

from tests.tools.gitrepo import Repo

SOURCES = ("pyproject.toml", "README.md", "compiler", "templates", "schemas")  # what the wheel is built from
PACKAGE_DATA = {"templates": "compiler/templates", "schemas": "compiler/schemas"}


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def build_wheel(tmp: Path) -> Path:
    """The wheel of a copy of the sources (a build in this tree would leave build/ behind, and could reuse it)."""
    source = tmp / "source"
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, source / name)
    proc = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp / "dist", source, cwd=tmp)
    assert proc.returncode == 0, proc.stderr
    (wheel,) = (tmp / "dist").glob("pipec-*.whl")
    return wheel


def fresh_venv(tmp: Path, wheel: Path) -> Path:
    """A venv holding pipec from the wheel only; returns its bin folder."""
    venv = tmp / "venv"
    assert run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp).returncode == 0
    python = venv / "bin" / "python"
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp).stdout.strip())
    (site / "third_party.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    proc = run(sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index", wheel,
               cwd=tmp)
    assert proc.returncode == 0, proc.stderr
    return venv / "bin"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(tmp)
    return wheel, fresh_venv(tmp, wheel)


def test_the_wheel_holds_every_module_template_and_schema(installed):
    wheel, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {p.relative_to(ROOT).as_posix() for p in (ROOT / "compiler").rglob("*.py")}
    for folder, package in PACKAGE_DATA.items():
        expected |= {f"{package}/{p.relative_to(ROOT / folder).as_posix()}" for p in (ROOT / folder).rglob("*")
                     if p.is_file() and "__pycache__" not in p.parts}
    assert expected - names == set()


def test_pipec_from_the_wheel_validates_compiles_and_checks_another_repository(installed, tmp_path, monkeypatch,
                                                                                capsys):
    _, bin_dir = installed
    repo = Repo(tmp_path / "elsewhere")
    shutil.copytree(ROOT / "pipelines", repo.path / "pipelines")
    repo.commit("pipelines")

    where = run(bin_dir / "python", "-c", "import compiler; print(compiler.__file__)", cwd=repo.path)
    assert Path(where.stdout.strip()).is_relative_to(bin_dir.parent), where.stdout + where.stderr

    validate = run(bin_dir / "pipec", "validate", "pipelines", cwd=repo.path)
    assert (validate.returncode, validate.stdout.strip()) == (0, "6 pipeline(s) valid"), validate.stderr
    assert repo.git("status", "--porcelain") == ""  # validate writes nothing

    compiled = run(bin_dir / "pipec", "compile", "pipelines", cwd=repo.path)
    assert compiled.returncode == 0, compiled.stderr
    jobs = {p.name: p.read_text(encoding="utf-8") for p in (repo.path / "generated").iterdir()}
    assert repo.git("status", "--porcelain", "-uall").splitlines() == [f"?? generated/{n}" for n in sorted(jobs)]

    monkeypatch.chdir(ROOT)  # the same pipelines compiled in this repository, by this environment's pipec
    in_repo = tmp_path / "in-repo"
    assert run_cli(["compile", "pipelines", "--out", in_repo], capsys).code == 0
    assert jobs == {p.name: p.read_text(encoding="utf-8") for p in in_repo.iterdir()}
    assert len(jobs) == len(list((ROOT / "pipelines").glob("*.yaml")))

    check = run(bin_dir / "pipec", "check", "pipelines", cwd=repo.path)
    assert (check.returncode, check.stdout.strip()) == (0, f"{len(jobs)} generated job(s) current"), check.stderr
    job = repo.path / "generated" / "orders_enriched.py"
    job.write_text(job.read_text(encoding="utf-8") + "# edited by hand\n", encoding="utf-8")
    stale = run(bin_dir / "pipec", "check", "pipelines", cwd=repo.path)
    assert stale.returncode == 1 and "orders_enriched.py" in stale.stdout + stale.stderr, stale.stdout + stale.stderr


def test_the_docs_generator_of_a_wheel_says_it_needs_the_repository(installed, tmp_path):
    _, bin_dir = installed
    proc = run(bin_dir / "python", "-m", "compiler.docs", cwd=tmp_path)
    assert proc.returncode == 2 and "pipec's repository" in proc.stderr, proc.stdout + proc.stderr
    assert not list(bin_dir.parent.rglob("transforms.md"))
