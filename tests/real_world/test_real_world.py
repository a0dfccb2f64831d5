"""The real-world corpus: connector configurations from public Kafka Connect documentation and tutorials.

configs/  each file cites its source, quotes the original transforms, and is its translation to a pipeline whose
          `tests:` come from the source's own examples or Kafka Connect's documented behaviour. Each runs through
          its generated job as `pipec test` does; tests/differential/test_corpus_in_kafka.py runs the same given
          records through Kafka's own classes to confirm the expectations.
refused/  configurations pipec refuses at compile time; a `# refused: CODE LINE:COL text` line names the
          diagnostic (code, the node it points at, words of its message) the file must give.

A corpus case that fails on a known pipec defect is marked xfail (strict) with the defect, so it flips when the
fix lands; an expectation is never changed to make a case pass.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pipec.project.driver import build_all

HERE = Path(__file__).resolve().parent
CONFIGS = sorted((HERE / "configs").glob("*.yaml"))
REFUSED = sorted((HERE / "refused").glob("*.yaml"))

KNOWN_DEFECTS: dict[str, str] = {}
REFUSAL = re.compile(r"^# refused: (E\d+) (\d+):(\d+) (.+)$", re.M)


def _params(paths: list[Path]) -> list:
    return [
        pytest.param(
            p,
            id=p.stem,
            marks=[pytest.mark.xfail(strict=True, reason=KNOWN_DEFECTS[p.stem])] if p.stem in KNOWN_DEFECTS else [],
        )
        for p in paths
    ]


def test_every_known_defect_names_a_corpus_file():
    assert set(KNOWN_DEFECTS) <= {p.stem for p in CONFIGS}


@pytest.mark.spark
@pytest.mark.parametrize("path", _params(CONFIGS))
def test_corpus_records(path: Path, check_pipeline_records):
    check_pipeline_records(path)


@pytest.mark.parametrize("path", REFUSED, ids=[p.stem for p in REFUSED])
def test_refused_with_a_located_diagnostic(path: Path):
    (want,) = REFUSAL.findall(path.read_text(encoding="utf-8"))
    code, line, column, words = want
    errors = build_all([str(path)]).diags.errors
    found = [(d.code, d.loc.line, d.loc.col, d.message) for d in errors if d.loc]
    assert any(c == code and (l, col) == (int(line), int(column)) and words in m for c, l, col, m in found), found
