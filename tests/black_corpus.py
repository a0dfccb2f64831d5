"""Every job the tests build, written to one folder for `scripts/black-contract`: the checked-in jobs (generated/),
each golden file's cases as the module of functions they are formatted in (tests/golden/), and the jobs of
tests/unit/test_job_runtime_section.py (every pipeline of the repository, a matrix of connectors, modes and dead-letter
queues), the record tests' pipelines (tests/*/pipelines) and synthetic chains of every transform family at many lengths
and literals (bench/synthetic.py). The suite itself checks only generated/ with black (tests/cli/test_cli_generated_jobs.py):
the rest is this corpus's, under two black releases.

Usage: python tests/black_corpus.py FOLDER
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

from golden.golden import RETURN, every_file  # noqa: E402
from pipec.project.driver import build_all, generate_all  # noqa: E402
from unit.test_job_runtime_section import SYNTHETIC_STEPS, matrix  # noqa: E402

from bench.synthetic import pipeline_yaml  # noqa: E402

SYNTHETIC_LENGTHS = (1, 2, 5, 13, 20, 37, 50)
SYNTHETIC_VARIANTS = (0, 7, 123456789)


def golden_modules() -> dict[str, str]:
    """file name -> each golden file's cases as functions of one module, as the golden tests format them."""
    modules = {}
    for golden in every_file():
        functions = [
            f"def case_{i}(records):\n" + textwrap.indent(f"{case.code.rstrip()}\n{RETURN}\n", "    ")
            for i, case in enumerate(golden.cases)
            if case.code is not None
        ]
        modules["golden_" + golden.name.replace("/", "_").removesuffix(".md") + ".py"] = "\n\n".join(functions)
    return modules


def built_jobs(scratch: Path) -> dict[str, str]:
    """file name -> job, for every pipeline folder of the repository and the runtime section's matrix."""
    for name, text in matrix().items():
        (scratch / f"{name}.yaml").write_text(text, encoding="utf-8")
    for steps in SYNTHETIC_STEPS:
        (scratch / f"s{steps}.yaml").write_text(pipeline_yaml(f"s{steps}", steps, 7), encoding="utf-8")
    for steps in SYNTHETIC_LENGTHS:  # every transform family at many lengths and literals
        for variant in SYNTHETIC_VARIANTS:
            name = f"s{steps}_{variant}"
            (scratch / f"{name}.yaml").write_text(pipeline_yaml(name, steps, variant), encoding="utf-8")
    jobs = {}
    for index, folder in enumerate([*sorted(ROOT.glob("tests/**/pipelines")), scratch]):
        result = build_all([str(folder)])
        jobs.update({f"built{index}_{name}": source for name, source in generate_all(result).items()})
    return jobs


def main(argv: list[str]) -> int:
    (out,) = argv
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for job in sorted((ROOT / "generated").glob("*.py")):
        shutil.copy(job, folder / f"generated_{job.name}")
    scratch = folder / "yaml"
    scratch.mkdir()
    files = {**golden_modules(), **built_jobs(scratch)}
    shutil.rmtree(scratch)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    print(f"{len(files) + len(list((ROOT / 'generated').glob('*.py')))} files in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
