"""What `pipec diff` would say about the usual changes to a pipeline: each change is made to a copy of the compiled
pipeline and judged by diff's own `judge` (tools/checkpoint_diff.py), so the site's answers are diff's answers.

The changes are the ones on-call engineers ask about: moving the checkpoint, reading other topics or files, adding a
filter or a rate limit, writing elsewhere, changing the upsert key or a setting Spark keeps in the checkpoint.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ..connectors import SINKS, SOURCES
from ..envrefs import Text
from ..model import Pipeline, Step
from ..resolve.builder import Compiled
from ..tools.checkpoint_diff import VERDICTS, judge
from ..tools.checkpoint_rules import RULES
from ..tools.contract import writes_kafka

ELSEWHERE = "<another>"  # the stand-in value a change gives a path, topic or key


@dataclass(frozen=True, slots=True)
class WhatIf:
    change: str  # the change, in words
    verdict: str  # a key of VERDICTS
    summary: str  # VERDICTS[verdict]
    reasons: tuple[tuple[str, str, str], ...]  # (severity, message, the rule in words)


def _checkpoint(p: Pipeline) -> Pipeline | None:
    if p.sink.config.checkpoint is None:
        return None
    checkpoint = Text(p.sink.config.checkpoint.raw.rstrip("/") + "-v2")
    return replace(p, sink=replace(p.sink, config=replace(p.sink.config, checkpoint=checkpoint)))


def _subscription(p: Pipeline) -> Pipeline | None:
    connector, s = SOURCES[p.source.connector], p.source.config
    if connector.reads_files or (connector.reads_table and s.path is not None):
        changed = {"path": Text(f"{ELSEWHERE} folder")}
    elif connector.reads_table:
        changed = {"table": f"{ELSEWHERE}.table"}
    elif s.topic_pattern is not None:
        changed = {"topic_pattern": Text(f"{ELSEWHERE}-.*")}
    else:
        changed = {"topics": (*s.topics, Text(f"{ELSEWHERE}-topic"))}
    return _with_source(p, **changed)


def _filter(p: Pipeline) -> Pipeline:
    step = Step("new_filter", "Filter", None, "Filter", None, p.sink.loc)
    return replace(p, steps=p.steps + (step,))


def _rate_limit(p: Pipeline) -> Pipeline:
    key = SOURCES[p.source.connector].rate_limit
    return _with_source(p, options=(*p.source.config.options, (key, "1000")))


def _destination(p: Pipeline) -> Pipeline | None:
    sink = p.sink
    if writes_kafka(sink):
        return replace(p, sink=replace(sink, config=replace(sink.config, topic=Text(f"{ELSEWHERE}-topic"))))
    if SINKS[sink.connector].writes_files:
        return replace(p, sink=replace(sink, config=replace(sink.config, path=Text(f"{ELSEWHERE} folder"))))
    return None


def _upsert_key(p: Pipeline) -> Pipeline | None:
    if not SOURCES[p.source.connector].per_key_state:
        return None
    config = p.source.config
    named = "primary_key" if "primary_key" in config.__dataclass_fields__ else "key_fields"  # upsert-kafka: primary-key
    return _with_source(p, **{named: (*config.key_fields, f"{ELSEWHERE}_field")})


def _with_source(p: Pipeline, **changes) -> Pipeline:
    """The pipeline with its source's config changed."""
    return replace(p, source=replace(p.source, config=replace(p.source.config, **changes)))


def _shuffle(p: Pipeline) -> Pipeline:
    conf = dict(p.spark_conf)
    conf["spark.sql.shuffle.partitions"] = str(int(conf.get("spark.sql.shuffle.partitions", "200")) * 2)
    return replace(p, spark_conf=tuple(conf.items()))


CHANGES: tuple[tuple[str, Callable[[Pipeline], Pipeline | None]], ...] = (
    ("move the checkpoint to a new folder", _checkpoint),
    ("read other topics or another folder", _subscription),
    ("add a Filter step", _filter),
    ("add a rate limit to the source", _rate_limit),
    ("write to another topic or folder", _destination),
    ("change the upsert key", _upsert_key),
    ("change spark.sql.shuffle.partitions", _shuffle),
)


def what_ifs(compiled: Compiled) -> tuple[WhatIf, ...]:
    """diff's verdict on each change that applies to this pipeline (a batch pipeline keeps no checkpoint, so only
    its output contract is judged)."""
    p = compiled.pipeline
    out = []
    for words, change in CHANGES:
        changed = change(p)
        if changed is None:
            continue
        verdict = judge(compiled, replace(compiled, pipeline=changed), p.file, p.file)
        reasons = tuple((r.severity, r.message, RULES[r.rule].says) for r in verdict.reasons)
        out.append(WhatIf(words, verdict.kind, VERDICTS[verdict.kind], reasons))
    return tuple(out)
