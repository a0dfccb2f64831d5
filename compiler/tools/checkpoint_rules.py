"""The rules `pipec diff` judges a change by, each with the documentation it comes from.

Spark's rules are the Structured Streaming Programming Guide's section "Recovery Semantics after Changes in a
Streaming Query" (docs/streaming/apis-on-dataframes-and-datasets.md in Spark 4, GUIDE below), its "Additional
Information" page for configurations (ADDITIONAL), and the Kafka Integration Guide (KAFKA_GUIDE). Sink-contract
rules come from the sinks' documented behaviour (SPEC section 7) and Spark's file sink source (FILE_SINK).
"""

from __future__ import annotations

from dataclasses import dataclass

GUIDE = (
    "https://spark.apache.org/docs/latest/streaming/apis-on-dataframes-and-datasets.html"
    "#recovery-semantics-after-changes-in-a-streaming-query"
)
ADDITIONAL = "https://spark.apache.org/docs/latest/streaming/additional-information.html#miscellaneous-notes"
KAFKA_GUIDE = "https://spark.apache.org/docs/latest/streaming/structured-streaming-kafka-integration.html"
FILE_SINK = (
    "https://github.com/apache/spark/blob/v4.0.0/sql/core/src/main/scala/org/apache/spark/sql/"
    "execution/streaming/FileStreamSink.scala (addBatch: 'Skipping already committed batch')"
)
SPEC_SINKS = "docs/reference/semantics.md (Sinks): delivery, topic, payload and encoding"


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    says: str  # the rule, in our words
    source: str  # the section (and bullet) it comes from
    url: str


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        # --- Spark's guide, "Recovery Semantics after Changes in a Streaming Query", "Types of changes"
        Rule(
            "source-type",
            "a change in the number or type of input sources is not allowed",
            "Types of changes: 'Changes in the number or type (i.e. different source) of input sources'",
            GUIDE,
        ),
        Rule(
            "source-subscription",
            "changes to subscribed topics or files are generally not allowed: the results are unpredictable",
            "Changes in the parameters of input sources: 'Changes to subscribed topics/files are generally not allowed'",
            GUIDE,
        ),
        Rule(
            "source-parameters",
            "whether another change of a source's parameters is allowed depends on the source; "
            "pipec allows only those Spark documents as allowed",
            "Changes in the parameters of input sources: 'depends on the source and the query'",
            GUIDE,
        ),
        Rule(
            "rate-limits",
            "adding, removing or changing a rate limit is allowed",
            "Changes in the parameters of input sources: 'Addition/deletion/modification of rate limits is allowed'",
            GUIDE,
        ),
        Rule(
            "sink-file-to-kafka",
            "a file sink may become a Kafka sink; Kafka sees only the new data",
            "Changes in the type of output sink: 'File sink to Kafka sink is allowed'",
            GUIDE,
        ),
        Rule(
            "sink-kafka-to-file",
            "a Kafka sink may not become a file sink",
            "Changes in the type of output sink: 'Kafka sink to file sink is not allowed'",
            GUIDE,
        ),
        Rule(
            "sink-kafka-foreach",
            "a Kafka sink may become a foreach(Batch) sink and back",
            "Changes in the type of output sink: 'Kafka sink changed to foreach, or vice versa is allowed'",
            GUIDE,
        ),
        Rule(
            "sink-other-combination",
            "other changes of the sink's type are not among the combinations Spark allows",
            "Changes in the type of output sink: 'Changes between a few specific combinations of sinks are allowed'",
            GUIDE,
        ),
        Rule(
            "file-sink-path",
            "the output directory of a file sink may not change",
            "Changes in the parameters of output sink: 'Changes to output directory of a file sink are not allowed'",
            GUIDE,
        ),
        Rule(
            "output-topic",
            "the output topic of a Kafka sink may change",
            "Changes in the parameters of output sink: 'Changes to output topic are allowed'",
            GUIDE,
        ),
        Rule(
            "filters",
            "adding or removing filters is allowed",
            "Changes in projection / filter / map-like operations: 'Addition / deletion of filters is allowed'",
            GUIDE,
        ),
        Rule(
            "projections",
            "changed projections are allowed when the output schema stays, and otherwise only where the "
            "sink allows the schema change",
            "Changes in projection / filter / map-like operations: 'Changes in projections with same output schema are "
            "allowed' / 'with different output schema are conditionally allowed'",
            GUIDE,
        ),
        Rule(
            "stateful",
            "the schema of a stateful operation's state, and its keys, may not change",
            "Changes in stateful operations: 'any changes ... to the stateful operations of a streaming query are not "
            "allowed between restarts' ('Any change in number or type of grouping keys ... is not allowed')",
            GUIDE,
        ),
        Rule(
            "fixed-configuration",
            "spark.sql.shuffle.partitions, the state store provider and the multiple-watermark "
            "policy are not modifiable after the query has run: Spark keeps the checkpoint's value",
            "Miscellaneous Notes: 'Several configurations are not modifiable after the query has run'",
            ADDITIONAL,
        ),
        Rule(
            "starting-offsets",
            "startup offsets apply only when a new query starts; a restart resumes from the checkpoint",
            "Kafka source options, startingOffsets: 'this only applies when a new query is started, and that resuming "
            "will always pick up from where the query left off'",
            KAFKA_GUIDE,
        ),
        # --- sinks' contracts
        Rule(
            "file-sink-log",
            "a files sink's folder keeps its own log of committed batch ids (_spark_metadata): a new "
            "checkpoint restarts at batch 0, and the sink skips every batch id the log already holds",
            "FileStreamSink.addBatch skips a batch id at or below the log's latest",
            FILE_SINK,
        ),
        Rule(
            "sink-contract",
            "what consumers of the sink read: destination, formats, key, fields, headers",
            "the sink writes the value's fields, key and headers in the configured formats",
            SPEC_SINKS,
        ),
    )
}

# Spark reader options that are rate limits ('Addition/deletion/modification of rate limits is allowed').
RATE_LIMITS = frozenset(
    {
        "maxOffsetsPerTrigger",
        "minOffsetsPerTrigger",
        "maxTriggerDelay",
        "maxFilesPerTrigger",
        "maxBytesPerTrigger",
    }
)
# Session settings Spark keeps from the checkpoint (the 'Miscellaneous Notes').
FIXED_CONF = frozenset(
    {
        "spark.sql.shuffle.partitions",
        "spark.sql.streaming.stateStore.providerClass",
        "spark.sql.streaming.multipleWatermarkPolicy",
    }
)
# How the job writes a stream, by Spark sink type, and which changes between them Spark allows.
SINK_CHANGES: dict[tuple[str, str], tuple[str, bool]] = {
    ("file", "kafka"): ("sink-file-to-kafka", True),
    ("kafka", "file"): ("sink-kafka-to-file", False),
    ("kafka", "foreachBatch"): ("sink-kafka-foreach", True),
    ("foreachBatch", "kafka"): ("sink-kafka-foreach", True),
}
