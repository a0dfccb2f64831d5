"""pipec as a user gets it: the project built into a wheel, installed into a fresh virtualenv, and run in a git
repository of pipelines that is not this one (issue 12: templates and the schema are package data).

The fresh venv has no site packages of its own but a `.pth` line naming this environment's site-packages, for the
third-party dependencies only: this environment holds `pipec` through the editable finder, which a `.pth` line
does not run, so `pipec` can come only from the wheel (the test checks where it was imported from). Also the
sources uninstalled, as scripts/compat runs them: a folder on PYTHONPATH holding a `pipec` link to compiler/. Needs
no Spark; 10-30 seconds (mostly the build).
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

pytestmark = (
    pytest.mark.slow
)  # subprocesses (a wheel build, git, cold starts): the full suite runs it, not the fast lane

SOURCES = ("pyproject.toml", "README.md", "compiler", "templates", "schemas")  # what the wheel is built from
PACKAGE_DATA = {"templates": "pipec/templates", "schemas": "pipec/schemas"}
PIPELINES = len(list((ROOT / "pipelines").glob("*.yaml")))


def run(*args: str | Path, cwd: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath)
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


def bare_venv(venv: Path) -> Path:
    """A venv without pipec that sees this environment's third-party packages; returns its python."""
    assert run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=venv.parent).returncode == 0
    python = venv / "bin" / "python"
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=venv.parent).stdout
    (Path(site.strip()) / "third_party.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    return python


def fresh_venv(tmp: Path, wheel: Path) -> Path:
    """A venv holding pipec from the wheel only; returns its bin folder."""
    python = bare_venv(tmp / "venv")
    proc = run(
        sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index", wheel, cwd=tmp
    )
    assert proc.returncode == 0, proc.stderr
    return python.parent


def compiled_in_this_repository(out: Path, monkeypatch, capsys) -> dict[str, str]:
    """The jobs of pipelines/ compiled in this repository by this environment's pipec."""
    monkeypatch.chdir(ROOT)
    assert run_cli(["compile", "pipelines", "--out", out], capsys).code == 0
    jobs = {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}
    assert len(jobs) == PIPELINES
    return jobs


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(tmp)
    return wheel, fresh_venv(tmp, wheel)


def test_the_wheel_holds_every_module_template_and_schema(installed):
    wheel, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"pipec/{p.relative_to(ROOT / 'compiler').as_posix()}" for p in (ROOT / "compiler").rglob("*.py")}
    for folder, package in PACKAGE_DATA.items():
        expected |= {
            f"{package}/{p.relative_to(ROOT / folder).as_posix()}"
            for p in (ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
    assert expected - names == set()
    assert {name.split("/")[0] for name in names if not name.startswith("pipec-")} == {"pipec"}  # no `compiler`


def test_pipec_from_the_wheel_validates_compiles_and_checks_another_repository(
    installed, tmp_path, monkeypatch, capsys
):
    _, bin_dir = installed
    repo = Repo(tmp_path / "elsewhere")
    shutil.copytree(ROOT / "pipelines", repo.path / "pipelines")
    repo.commit("pipelines")

    where = run(bin_dir / "python", "-c", "import pipec; print(pipec.__file__)", cwd=repo.path)
    assert Path(where.stdout.strip()).is_relative_to(bin_dir.parent), where.stdout + where.stderr

    validate = run(bin_dir / "pipec", "validate", "pipelines", cwd=repo.path)
    assert (validate.returncode, validate.stdout.strip()) == (0, f"{PIPELINES} pipeline(s) valid"), validate.stderr
    assert repo.git("status", "--porcelain") == ""  # validate writes nothing

    compiled = run(bin_dir / "pipec", "compile", "pipelines", cwd=repo.path)
    assert compiled.returncode == 0, compiled.stderr
    jobs = {p.name: p.read_text(encoding="utf-8") for p in (repo.path / "generated").iterdir()}
    assert repo.git("status", "--porcelain", "-uall").splitlines() == [f"?? generated/{n}" for n in sorted(jobs)]

    assert jobs == compiled_in_this_repository(tmp_path / "in-repo", monkeypatch, capsys)

    check = run(bin_dir / "pipec", "check", "pipelines", cwd=repo.path)
    assert (check.returncode, check.stdout.strip()) == (0, f"{len(jobs)} generated job(s) current"), check.stderr
    job = repo.path / "generated" / "orders_enriched.py"
    job.write_text(job.read_text(encoding="utf-8") + "# edited by hand\n", encoding="utf-8")
    stale = run(bin_dir / "pipec", "check", "pipelines", cwd=repo.path)
    assert stale.returncode == 1 and "orders_enriched.py" in stale.stdout + stale.stderr, stale.stdout + stale.stderr


def test_the_docs_generator_of_a_wheel_says_it_needs_the_repository(installed, tmp_path):
    _, bin_dir = installed
    proc = run(bin_dir / "python", "-m", "pipec.transforms.docs", cwd=tmp_path)
    assert proc.returncode == 2 and "pipec's repository" in proc.stderr, proc.stdout + proc.stderr
    assert not list(bin_dir.parent.rglob("transforms.md"))


def test_the_sources_run_uninstalled_from_pythonpath(tmp_path, monkeypatch, capsys):
    """scripts/compat runs pipec from PYTHONPATH in virtualenvs that do not install it: a folder holding a `pipec`
    link to compiler/."""
    python = bare_venv(tmp_path / "venv")
    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "pipec").symlink_to(ROOT / "compiler", target_is_directory=True)
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(ROOT / "pipelines", elsewhere / "pipelines")
    proc = run(python, "-m", "pipec", "compile", "pipelines", cwd=elsewhere, pythonpath=sources)
    assert proc.returncode == 0, proc.stderr
    jobs = {p.name: p.read_text(encoding="utf-8") for p in (elsewhere / "generated").iterdir()}
    assert jobs == compiled_in_this_repository(tmp_path / "in-repo", monkeypatch, capsys)
