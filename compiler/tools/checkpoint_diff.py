"""`pipec diff`: for each changed pipeline, whether the running job can restart on its checkpoint, and what the
change does to the sink's output contract. The rules, with the documentation each comes from, are in
checkpoint_rules.py; each reason names its rule."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..connectors import SINKS, SOURCES
from ..emit.job import dead_letters_in_one_write, per_batch
from ..model import Pipeline, Step
from ..resolve.builder import Compiled
from ..transforms import REGISTRY
from .checkpoint_rules import FIXED_CONF, RATE_LIMITS, RULES, SINK_CHANGES
from .contract import writes_kafka
from .contract_diff import BREAKING, COMPATIBLE, ContractJudge

# Severities: checkpoint (reset, safe, note) here, output contract (breaking, compatible) in contract_diff.py.
RESET, SAFE, NOTE = "reset", "safe", "note"
VERDICTS = {
    "reset": "needs a new checkpoint or state reset",
    "breaking": "changes the output contract (breaking)",
    "compatible": "changes the output contract (compatible)",
    "safe": "same checkpoint is safe",
    "new": "new pipeline",
    "removed": "removed pipeline",
    "moved": "moves to a new checkpoint",
    "unknown": "cannot judge: the version at the base revision does not compile",
}


@dataclass(frozen=True, slots=True)
class Reason:
    severity: str
    rule: str  # a key of checkpoint_rules.RULES
    message: str


@dataclass(slots=True)
class Verdict:
    """One pipeline's verdict: a class (VERDICTS key) and the reasons for it."""

    name: str
    file: str
    old_file: str | None
    reasons: list[Reason] = field(default_factory=list)
    kind: str = "safe"

    @property
    def needs_reset(self) -> bool:
        return self.kind in ("reset", "unknown")

    @property
    def breaking(self) -> bool:
        return any(r.severity == BREAKING for r in self.reasons)


def spark_sink(p: Pipeline) -> str:
    """The Spark sink the job's stream writes through (the rules of 'Changes in the type of output sink')."""
    if per_batch(p) or (p.errors.tolerance == "all" and not dead_letters_in_one_write(p)):
        # the upsert reduction, the changelog state, and dead letters written apart from the sink's rows, run per
        # micro-batch
        return "foreachBatch"
    return SINKS[p.sink.connector].spark_sink


def _texts(items) -> list[str]:
    return [t.raw for t in items]


def _columns(config) -> list[tuple]:
    """Declared columns without their locations (moving a line changes nothing)."""
    return [(c.name, c.type, c.metadata, c.virtual, c.headers, c.header) for c in config.columns]


def _predicates(p: Pipeline) -> dict:
    return {alias: (pred.kind, pred.config) for alias, pred in p.predicates.items()}


def _step_rule(step: Step) -> str:
    """Spark's rule for adding, removing or changing the step: a filter's, or a projection's."""
    return "filters" if REGISTRY.transforms[step.kind].filters else "projections"


def _hosts(value: str | None) -> set[str]:
    return {h.strip() for h in (value or "").split(",") if h.strip()}


class Judge(ContractJudge):
    """Compares two compiled versions of one pipeline."""

    def __init__(self, old: Compiled, new: Compiled):
        self.old, self.new = old, new
        self.o, self.n = old.pipeline, new.pipeline
        self.reasons: list[Reason] = []

    def add(self, severity: str, rule: str, message: str) -> None:
        assert rule in RULES, rule
        self.reasons.append(Reason(severity, rule, message))

    # ------------------------------------------------------------ checkpoint

    def source(self) -> None:
        o, n = self.o.source, self.n.source
        if o.connector != n.connector:
            self.add(RESET, "source-type", f"the source changes from {o.connector} to {n.connector}")
            return
        connector, o, n = SOURCES[o.connector], o.config, n.config
        if _texts(o.topics) != _texts(n.topics) or (o.topic_pattern and o.topic_pattern.raw) != (
            n.topic_pattern and n.topic_pattern.raw
        ):
            before = o.topic_pattern.raw if o.topic_pattern else ", ".join(_texts(o.topics))
            after = n.topic_pattern.raw if n.topic_pattern else ", ".join(_texts(n.topics))
            self.add(RESET, "source-subscription", f"the source topics change from [{before}] to [{after}]")
        elif any(t.has_env for t in n.topics) or (n.topic_pattern and n.topic_pattern.has_env):
            self.add(
                NOTE,
                "source-subscription",
                "the source topics come from ${env:...}: a change of that variable's "
                "value changes the subscription, which diff cannot see",
            )
        if (o.path and o.path.raw) != (n.path and n.path.raw):
            self.add(
                RESET,
                "source-subscription",
                f"the source files change from {o.path and o.path.raw} to {n.path and n.path.raw}",
            )
        if connector.reads_table and o.table != n.table:
            self.add(RESET, "source-subscription", f"the source table changes from {o.table} to {n.table}")
        if connector.reads_table and o.change_feed != n.change_feed:
            self.add(
                RESET,
                "source-parameters",
                "read-change-feed changes: the checkpoint's table versions were read "
                f"as {'changes' if o.change_feed else 'rows'}, the job would read them as "
                f"{'changes' if n.change_feed else 'rows'}",
            )
        if connector.reads_files and o.format != n.format:
            self.add(
                RESET,
                "source-parameters",
                f"the source file format changes from {o.format} to {n.format}: files "
                "the checkpoint has seen are not read again, files it has not are read in the new format",
            )
        self.properties(dict(o.properties), dict(n.properties))
        self.options(dict(o.options), dict(n.options))
        if o.startup != n.startup:
            self.add(
                NOTE,
                "starting-offsets",
                f"startup changes ({o.startup or 'default'} -> {n.startup or 'default'}) "
                "but has no effect on the existing checkpoint",
            )
        if connector.per_key_state and self.n.streaming:
            if o.key_fields != n.key_fields or o.key_format != n.key_format:
                self.add(
                    RESET,
                    "stateful",
                    f"the upsert key changes ({o.key_format} [{', '.join(o.key_fields)}] -> "
                    f"{n.key_format} [{', '.join(n.key_fields)}]): the changelog state under the checkpoint keeps "
                    "each key's last image, keyed by the old key",
                )
        elif (o.format, o.key_format, o.key_fields, _columns(o)) != (n.format, n.key_format, n.key_fields, _columns(n)):
            self.add(
                SAFE,
                "projections",
                "the source's formats or columns change: decoding is a projection of the "
                "records the checkpoint tracks by offset",
            )

    def properties(self, o: dict, n: dict) -> None:
        old_servers, new_servers = o.pop("bootstrap.servers", None), n.pop("bootstrap.servers", None)
        if old_servers is not None and new_servers is not None and old_servers.raw != new_servers.raw:
            if old_servers.has_env or new_servers.has_env or _hosts(old_servers.raw) & _hosts(new_servers.raw):
                self.add(
                    NOTE,
                    "source-parameters",
                    f"bootstrap.servers changes ({old_servers.raw} -> {new_servers.raw}): "
                    "if it names another cluster, the checkpoint's offsets are not that cluster's",
                )
            else:
                self.add(
                    RESET,
                    "source-parameters",
                    f"bootstrap.servers changes to other brokers ({old_servers.raw} -> "
                    f"{new_servers.raw}): the checkpoint's offsets belong to the old cluster",
                )
        changed = sorted(k for k in set(o) | set(n) if (o.get(k) and o[k].raw) != (n.get(k) and n[k].raw))
        if changed:
            self.add(
                SAFE,
                "source-parameters",
                f"Kafka client properties change ({', '.join(changed)}): connection settings, not what is read",
            )

    def options(self, o: dict, n: dict) -> None:
        for key in sorted(set(o) | set(n)):
            if o.get(key) == n.get(key):
                continue
            what = f"source option {key} ({o.get(key, 'unset')} -> {n.get(key, 'unset')})"
            if key in RATE_LIMITS:
                self.add(SAFE, "rate-limits", f"{what} is a rate limit")
            else:
                self.add(SAFE, "projections", f"{what} changes how records are read, not which")

    def chain(self) -> None:
        old = {s.alias: s for s in self.o.steps}
        new = {s.alias: s for s in self.n.steps}
        for alias, step in new.items():
            rule = _step_rule(step)
            if alias not in old:
                self.add(SAFE, rule, f"step '{alias}' ({step.type_name}) is added")
            elif (old[alias].type_name, old[alias].config, old[alias].predicate, old[alias].negate) != (
                step.type_name,
                step.config,
                step.predicate,
                step.negate,
            ):
                self.add(SAFE, rule, f"step '{alias}' ({step.type_name}) changes")
        for alias, step in old.items():
            if alias not in new:
                self.add(SAFE, _step_rule(step), f"step '{alias}' ({step.type_name}) is removed")
        if [s.alias for s in self.o.steps if s.alias in new] != [s.alias for s in self.n.steps if s.alias in old]:
            self.add(SAFE, "projections", "the steps run in another order")
        if _predicates(self.o) != _predicates(self.n):
            self.add(SAFE, "filters", "predicates change")

    def sink(self) -> None:
        o, n = self.o.sink, self.n.sink
        before, after = spark_sink(self.o), spark_sink(self.n)
        if before != after:
            rule, allowed = SINK_CHANGES.get((before, after), ("sink-other-combination", False))
            self.add(
                SAFE if allowed else RESET, rule, f"the job's stream changes from a {before} sink to a {after} sink"
            )
        same_files_sink = o.connector == n.connector and SINKS[o.connector].writes_files
        kafka_both = writes_kafka(o) and writes_kafka(n)
        o, n = o.config, n.config
        if same_files_sink and (o.path and o.path.raw) != (n.path and n.path.raw):
            self.add(RESET, "file-sink-path", f"the output folder changes from {o.path.raw} to {n.path.raw}")
        if same_files_sink and o.format != n.format:
            self.add(
                RESET,
                "file-sink-log",
                f"the output format changes from {o.format} to {n.format} in one folder, "
                "whose _spark_metadata log then lists files of both formats",
            )
        if (o.topic and o.topic.raw) != (n.topic and n.topic.raw) and kafka_both:
            self.add(SAFE, "output-topic", "the sink topic changes")

    def settings(self) -> None:
        o, n = dict(self.o.spark_conf), dict(self.n.spark_conf)
        for key in sorted(FIXED_CONF & (set(o) | set(n))):
            if o.get(key) != n.get(key):
                self.add(
                    NOTE,
                    "fixed-configuration",
                    f"{key} changes ({o.get(key, 'unset')} -> {n.get(key, 'unset')}) "
                    "but Spark keeps the checkpoint's value: it takes effect only with a new checkpoint",
                )
        if self.o.sink.config.trigger != self.n.sink.config.trigger:
            self.add(
                SAFE,
                "projections",
                f"the trigger changes ({self.o.sink.config.trigger or 'default'} -> "
                f"{self.n.sink.config.trigger or 'default'}): every trigger pipec writes is a micro-batch trigger",
            )

    def moved(self) -> bool:
        """A new checkpoint: the earlier reasons no longer apply; the files sink's own log still does."""
        o, n = self.o.sink.config.checkpoint, self.n.sink.config.checkpoint
        if (o and o.raw) == (n and n.raw):
            return False
        self.reasons.clear()
        same_folder = (
            self.n.sink.connector == self.o.sink.connector
            and SINKS[self.n.sink.connector].writes_files
            and self.o.sink.config.path.raw == self.n.sink.config.path.raw
        )
        if same_folder and spark_sink(self.n) == "file":
            self.add(
                RESET,
                "file-sink-log",
                f"the checkpoint moves ({o.raw} -> {n.raw}) but the output folder "
                f"{self.n.sink.config.path.raw} stays: the new query starts again at batch 0 and the files sink silently "
                "skips every batch id its _spark_metadata log already holds; move or empty the folder too",
            )
        else:
            self.add(
                NOTE,
                "starting-offsets",
                f"the checkpoint moves ({o and o.raw} -> {n and n.raw}): the job starts "
                f"over from startup.mode ({self.n.source.config.startup.get('mode', 'earliest-offset')})",
            )
        return True

    def judge(self) -> list[Reason]:
        if self.o.streaming and self.n.streaming:
            if not self.moved():
                self.source()
                self.chain()
                self.sink()
                self.settings()
        elif self.o.streaming != self.n.streaming:
            self.add(
                NOTE,
                "starting-offsets",
                f"the pipeline changes from {self.o.mode} to {self.n.mode}"
                + (": the job starts a new checkpoint" if self.n.streaming else ": a batch job uses no checkpoint"),
            )
        self.contract()
        return self.reasons


def judge(old: Compiled | None, new: Compiled | None, file: str, old_file: str | None) -> Verdict:
    """The verdict for one pipeline (old None: added; new None: removed)."""
    if new is None:
        return Verdict(old.pipeline.name, file, old_file, kind="removed")
    if old is None:
        return Verdict(new.pipeline.name, file, old_file, kind="new")
    verdict = Verdict(new.pipeline.name, file, old_file, Judge(old, new).judge())
    severities = {r.severity for r in verdict.reasons}
    moved = (old.pipeline.sink.config.checkpoint and old.pipeline.sink.config.checkpoint.raw) != (
        new.pipeline.sink.config.checkpoint and new.pipeline.sink.config.checkpoint.raw
    )
    for kind in (RESET, BREAKING, COMPATIBLE):
        if kind in severities:
            verdict.kind = kind
            break
    else:
        verdict.kind = "moved" if moved and old.pipeline.streaming and new.pipeline.streaming else "safe"
    return verdict
