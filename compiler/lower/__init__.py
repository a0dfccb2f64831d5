"""Stage 4, lower: the resolved pipeline -> IR blocks for the job's `decode`, `chain` and `encode` functions
(`record_path`), with runs of struct edits fused (`fusion`); `spark_line` is the Spark line the lowered code needs.
"""
