"""pipec's benchmark: `scripts/bench [--quick]` runs `python -m bench.run` (see bench/run.py)."""
