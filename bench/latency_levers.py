"""The latency benchmark's levers (bench/latency.py, issue 28): per-batch settings of a stateless Kafka-to-Kafka
query, each applied alike to the payments job and to the pass-through written by hand, so that a lever's effect is
read as a ratio in one run (a lever that helps the pass-through as much changes no ratio). The lever of the job's
own plan measured here before, its counts observed once (no observation after decoding), ships: the generated job
takes a micro-batch's `in` from its numInputRows where its decode yields one row per record.

  async   the Kafka sink's `asyncProgressTrackingEnabled`: the offset and commit logs written off the micro-batch's
          path (walCommit, commitOffsets) every `asyncProgressTrackingCheckpointIntervalMs` (1 s). Spark refuses it
          with an available-now or once trigger, in real-time mode and for stateful queries; a checkpoint written
          with it cannot simply be restarted without it (Spark's performance tips).
  rules   `spark.sql.optimizer.excludedRules`: optimizer rules that leave the payments plan as it is (the optimized
          plan is the same with and without them, checked in tests/spark/test_physical_plan.py), which each
          micro-batch otherwise runs over the whole plan again. Exact only for a plan they do nothing to: a
          measurement of what the optimizer's idle walks cost, not a setting for every job.
Not levers here: `spark.sql.streaming.noDataMicroBatches.enabled` (Spark runs a micro-batch without new rows only
when a stateful operator asks for one, IncrementalExecution.shouldRunAnotherBatch: a stateless query runs none
either way), and `minOffsetsPerTrigger`/`maxTriggerDelay` (they hold a micro-batch back until that many offsets
arrived: fewer, larger batches for throughput; at this rate a back-to-back micro-batch already finds some 1,000
records, so a smaller minimum changes nothing and a larger one adds its wait to every record's latency).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

# Spark's optimizer rules (4.2) that change nothing in the payments job's plan (RuleExecutor's metrics over its plan:
# no effective run; the optimized plan is the same without them), each of which walks the whole plan per micro-batch.
# Those Spark will not exclude are not listed. PushDownPredicates left the list when the payments plan lost its
# observation after decoding (counts observed once): it now pushes a filter through the decode's projections.
IDLE_RULES = tuple(
    f"org.apache.spark.sql.catalyst.optimizer.{name}"
    for name in [
        "BooleanSimplification",
        "CheckCartesianProducts",
        "CleanUpTempCTEInfo",
        "CollapseRepartition",
        "CollapseWindow",
        "CombineConcats",
        "CombineTypedFilters",
        "CombineUnions",
        "ConstantPropagation",
        "ConvertToLocalRelation",
        "CostBasedJoinReorder",
        "DecimalAggregates",
        "EliminateAggregateFilter",
        "EliminateDistinct",
        "EliminateLimits",
        "EliminateMapObjects",
        "EliminateOffsets",
        "EliminateOuterJoin",
        "EliminateSerialization",
        "EliminateSorts",
        "EliminateWindowPartitions",
        "GenerateOptimization",
        "InferFiltersFromConstraints",
        "InferFiltersFromGenerate",
        "InferWindowGroupLimit",
        "InjectRuntimeFilter",
        "InlineCTE",
        "LikeSimplification",
        "LimitPushDown",
        "LimitPushDownThroughWindow",
        "MergeSubplans",
        "NullDownPropagation",
        "ObjectSerializerPruning",
        "OptimizeCsvJsonExprs",
        "OptimizeExpand",
        "OptimizeIn",
        "OptimizeJoinCondition",
        "OptimizeOneRowPlan",
        "OptimizeOneRowRelationSubquery",
        "OptimizeRand",
        "OptimizeRepartition",
        "OptimizeWindowFunctions",
        "Optimizer$UpdateCTERelationStats",
        "PropagateEmptyRelation",
        "PruneFilters",
        "PullOutNestedDataOuterRefExpressions",
        "PushDownJoinThroughUnion",
        "PushDownLeftSemiAntiJoin",
        "PushExtraPredicateThroughJoin",
        "PushLeftSemiLeftAntiThroughJoin",
        "PushPredicateThroughJoin",
        "PushPredicateThroughNonJoin",
        "PushProjectionThroughLimitAndOffset",
        "PushProjectionThroughUnion",
        "PushdownPredicatesAndPruneColumnsForCTEDef",
        "ReassignLambdaVariableID",
        "RemoveLiteralFromGroupExpressions",
        "RemoveNoopUnion",
        "RemoveRedundantAggregates",
        "RemoveRedundantSorts",
        "RemoveRepetitionFromGroupExpressions",
        "ReorderAssociativeOperator",
        "ReorderJoin",
        "ReplaceNullWithFalseInPredicate",
        "RewriteNonCorrelatedExists",
        "SimplifyBinaryComparison",
        "SimplifyCaseConversionExpressions",
        "SimplifyDateTimeConversions",
        "SimplifyExtractValueOps",
        "TransposeWindow",
        "UnwrapCastInBinaryComparison",
    ]
) + tuple(
    f"org.apache.spark.sql.execution.datasources.{name}"
    for name in [
        "ApplyCharTypePadding",
        "DataSourceAnalysis",
        "FallBackFileSourceV2",
        "FindDataSourceTable",
        "PreprocessTableCreation",
        "PreprocessTableInsertion",
        "PruneFileSourcePartitions",
        "PushVariantIntoScan",
        "QualifyLocationWithWarehouse",
        "ResolveSQLOnFile",
        "SchemaPruning",
        "V1Writes",
        "v2.OptimizeMetadataOnlyDeleteFromTable",
    ]
)

LEVERS: dict[str, dict[str, dict[str, str]]] = {  # name -> {"writer": sink options, "conf": session settings}
    "async": {"writer": {"asyncProgressTrackingEnabled": "true"}},
    "rules": {"conf": {"spark.sql.optimizer.excludedRules": ",".join(IDLE_RULES)}},
}
COMBINATIONS = (("async",), ("rules",), ("async", "rules"))  # the levers measured: each alone, and together


@contextlib.contextmanager
def levers_applied(spark, names: tuple[str, ...]) -> Iterator[None]:
    """Within the block, the levers' session settings are set and every streaming writer started gets their sink
    options (the payments job's and the pass-through's alike); both are undone after it (the session is shared by
    every mode)."""
    from pyspark.sql.streaming import DataStreamWriter

    conf = {k: v for n in names for k, v in LEVERS.get(n, {}).get("conf", {}).items()}
    writer = {k: v for n in names for k, v in LEVERS.get(n, {}).get("writer", {}).items()}
    original = DataStreamWriter.start
    for key, value in conf.items():
        spark.conf.set(key, value)
    if writer:
        DataStreamWriter.start = lambda self, *a, **k: original(self.options(**writer), *a, **k)
    try:
        yield
    finally:
        DataStreamWriter.start = original
        for key in conf:
            spark.conf.unset(key)
