"""bench/latency.py's baseline: each payments mode against the hand-written pass-through of its trigger, round i
against round i, and the round a mode's figures come from. The rounds are written here in the shape run_mode
returns (the fields these read)."""

from __future__ import annotations

from bench.handwritten_pass_through import parse_args
from bench.latency import MODES, against_pass_through
from bench.latency_figures import median_round
from bench.report_latency import LATENCY_MODES, latency_section
from bench.targets import TARGETS


def _round(p99: float, planning: float | None, load: float) -> dict:
    figures = {"p50_s": p99 / 4, "p99_s": p99, "load_average": [load, 1.0, 1.0]}
    if planning is not None:
        figures["planning_ms_median"] = planning
    return figures


ROUNDS = {
    "micro_batch": [_round(1.2, 150, 2.0), _round(0.9, 120, 3.0), _round(1.0, 100, 4.0)],
    "pass_through": [_round(1.0, 100, 2.5), _round(1.0, 100, 3.5), _round(0.8, 125, 4.5)],
    "real_time_dead_letters": [_round(0.3, None, 1.0), {"error": "RuntimeError: broker gone"}, _round(0.2, None, 1.0)],
    "pass_through_real_time": [_round(0.2, None, 1.0), _round(0.2, None, 1.0), _round(0.25, None, 1.0)],
}


def test_ratios_pair_round_i_with_round_i_of_the_same_triggers_pass_through():
    a = against_pass_through("micro_batch", ROUNDS)
    assert a["baseline"] == "pass_through" and a["rounds"] == 3
    assert a["p99_s"]["ratio"]["values"] == [1.2, 0.9, 1.25]
    assert (a["p99_s"]["ratio"]["min"], a["p99_s"]["ratio"]["median"], a["p99_s"]["ratio"]["max"]) == (0.9, 1.2, 1.25)
    assert a["planning_ms"]["ratio"]["values"] == [1.5, 1.2, 0.8]
    assert a["planning_ms"]["job"]["median"] == 120 and a["planning_ms"]["pass_through"]["median"] == 100
    assert a["load_1min"]["values"] == [2.0, 2.5, 3.0, 3.5, 4.0, 4.5]


def test_a_failed_round_drops_its_pair_and_no_batch_end_leaves_planning_out():
    a = against_pass_through("real_time_dead_letters", ROUNDS)
    assert a["baseline"] == "pass_through_real_time" and a["rounds"] == 2
    assert [round(x, 6) for x in a["p99_s"]["ratio"]["values"]] == [1.5, 0.8]
    assert "planning_ms" not in a


def test_no_ratio_for_a_pass_through_nor_a_trigger_without_one_nor_a_baseline_not_run():
    assert against_pass_through("pass_through", ROUNDS) is None
    assert against_pass_through("zero_interval", {**ROUNDS, "zero_interval": ROUNDS["micro_batch"]}) is None
    assert against_pass_through("micro_batch", {"micro_batch": ROUNDS["micro_batch"]}) is None
    assert {m for m in MODES if against_pass_through(m, {k: ROUNDS["micro_batch"] for k in MODES})} == {
        "micro_batch",
        "micro_batch_two_writes",
        "micro_batch_observed_in",
        "micro_batch_stateless",
        "real_time",
        "real_time_dead_letters",
        "micro_batch_async",
        "micro_batch_rules",
        "micro_batch_async_rules",
    }


def test_a_lever_mode_is_measured_against_the_pass_through_with_the_same_levers():
    rounds = {**ROUNDS, "micro_batch_async": ROUNDS["micro_batch"], "pass_through_async": ROUNDS["pass_through"]}
    assert against_pass_through("micro_batch_async", rounds)["baseline"] == "pass_through_async"
    assert against_pass_through("micro_batch_async", ROUNDS) is None  # its own pass-through did not run
    assert MODES["micro_batch_async_rules"] == ("dead_letters", None, ("async", "rules"))


def test_a_modes_figures_are_its_median_p99_round_with_every_round_beside():
    figures = median_round(ROUNDS["micro_batch"])
    assert figures["p99_s"] == 1.0 and figures["planning_ms_median"] == 100
    assert [r["p99_s"] for r in figures["each_round"]] == [1.2, 0.9, 1.0]
    assert median_round(ROUNDS["real_time_dead_letters"])["p99_s"] == 0.2  # the lower middle of two that ran
    assert median_round([{"error": "x"}]) == {"error": "x"}
    assert "each_round" not in median_round([_round(1.0, 100, 2.0)])


def test_the_report_shows_the_ratios_and_the_targets_read_them():
    latency = {
        "date": "2026-11-28 23:00 UTC",
        "spark": "4.2.1",
        "cores": 2,
        "wall_s": 600,
        "rate_per_s": 2000,
        "seconds": 30,
        "warmup_s": 20,
        "rounds": 3,
        "against_pass_through": {m: against_pass_through(m, ROUNDS) for m in ("micro_batch", "real_time_dead_letters")},
    }
    text = "\n".join(latency_section(latency))
    assert (
        f"| {LATENCY_MODES['micro_batch']} | pass_through | **0.90 / 1.20 / 1.25** | 0.900 / 1.000 / 1.200 | " in text
    )
    assert "| **0.80 / 1.20 / 1.50** | 100 / 120 / 150 | 100 / 100 / 125 | 2.0 / 3.2 / 4.5 |" in text
    assert f"| {LATENCY_MODES['real_time_dead_letters']} | pass_through_real_time | **0.80 / 1.15 / 1.50** |" in text
    read = {label: read for label, read, *_ in TARGETS}
    assert read["latency, micro-batch: payments p99 ÷ pass-through p99"]({"latency": latency}) == 1.2
    assert read["latency, micro-batch: payments planning ÷ pass-through planning"]({"latency": latency}) == 1.2
    assert read["latency, real-time mode: payments p99 ÷ pass-through p99"]({"latency": latency}) == 1.15


def test_the_pass_through_takes_the_jobs_arguments():
    args = parse_args(
        [
            "--bootstrap-servers",
            "127.0.0.1:9092",
            "--checkpoint",
            "/tmp/c",
            "--master",
            "local[2]",
            "--conf",
            "spark.ui.enabled=false",
            "--trigger",
            "real-time: 5 seconds",
        ]
    )
    assert (args.bootstrap_servers, args.checkpoint, args.trigger) == (
        "127.0.0.1:9092",
        "/tmp/c",
        "real-time: 5 seconds",
    )


def test_each_lever_is_reported_against_the_same_side_without_it_round_by_round():
    from bench.report_latency import _lever_rows

    def each(*rounds):
        return {"each_round": [{"p99_s": p, "planning_ms_median": q} for p, q in rounds]}

    figures = {
        "micro_batch": each((1.0, 100), (2.0, 200), (1.5, 150)),
        "micro_batch_async": each((0.5, 50), (1.0, 100), (1.5, 150)),
        "pass_through": each((1.0, 100), (1.0, 100), (1.0, 100)),
        "pass_through_async": each((0.8, 90), (0.9, None), (1.0, 100)),
    }
    rows = _lever_rows(figures)
    assert rows[-1] == "| async | 0.50 / 0.50 / 1.00 | 0.50 / 0.50 / 1.00 | 0.80 / 0.90 / 1.00 | 0.90 / 0.90 / 1.00 |"
    assert not any(row.startswith("| rules") for row in rows)  # not run: no row
    assert _lever_rows({"micro_batch": figures["micro_batch"]}) == []
