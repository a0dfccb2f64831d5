"""`scripts/bench chain-what-if` and `scripts/bench connect-peer --what-if` edit the compiled jobs' text: each edit
must still find what it replaces in the job as the compiler writes it today (they broke silently when the jobs moved
to runtime helpers: record_error, parsed_json). Spark-free: the variants are compiled, edited and imported only."""

from __future__ import annotations

from pathlib import Path

import yaml

from bench import chain_whatif, peer_whatif
from bench.peer_side import CHAIN, peer_chain


def test_every_chain_what_if_variant_edits_the_job_and_imports(tmp_path: Path):
    jobs = chain_whatif.variants(tmp_path)
    assert set(jobs) == {
        "job",
        "handwritten",
        "no_record_checks",
        "plain_casts",
        "no_filter_barrier",
        "key_as_read",
        "header_by_filter",
    }
    job = (tmp_path / "bench_chain.py").read_text(encoding="utf-8")
    for name in set(jobs) - {"job", "handwritten"}:
        edited = (tmp_path / f"chain_{name}.py").read_text(encoding="utf-8")
        assert edited != job and callable(jobs[name].transform), name
    assert '"__key"' not in (tmp_path / "chain_key_as_read.py").read_text(encoding="utf-8")
    assert "last_header(F.col" not in (tmp_path / "chain_header_by_filter.py").read_text(encoding="utf-8")


def test_connect_peer_what_if_reads_the_key_as_read(tmp_path: Path):
    jobs = peer_whatif.variants(peer_chain(yaml.safe_load(CHAIN.read_text(encoding="utf-8"))), tmp_path)
    assert set(jobs) == {"job", "filter_first", "key_as_read", "filter_first_key_as_read"}
    for name in ("key_as_read", "filter_first_key_as_read"):
        text = (tmp_path / f"whatif_{name}.py").read_text(encoding="utf-8")
        assert 'parsed_json(F.col("key")' not in text and '"__key"' not in text, name
