"""Stage 4, lower: the resolved pipeline -> IR blocks for the job's `decode`, `chain` and `encode` functions.
`record_path` drafts them (the source's decode, each step as its transform lowers it, the sink's encode) and applies
`passes.PASSES` in order: predicates, pinned filters, record errors, fused struct edits (`fusion`). `spark_line` is
the Spark line the lowered code needs.
"""
