"""The runtime a generated job runs on: real modules, pasted into each job verbatim, only the parts it uses.

Each module here is one part. Its body (everything after its imports) is what a job carries; its imports say what
it needs: `import`/`from` lines of the standard library and pyspark go into the job's own import block, and a
relative import names another part it needs (`from .counts import Counts`), or a name the job's pipeline part
defines (`from .job_names import PIPELINE`; `job_names` is never pasted). `compiler/emit/runtime_text.py` takes the
parts a job's pipeline part and features call for, closes them over these imports and pastes them in `PARTS`
order, so jobs using the same features carry the same runtime text. The modules import, lint and unit-test as
ordinary code (tests/unit/test_runtime_*.py); a job never imports pipec.
"""

# The order parts are pasted in: helpers first, then what runs the job, `main` last.
PARTS = (
    "env",
    "spark_lines",
    "no_connectors",
    "arguments",
    "session",
    "failures",
    "counts",
    "batch_counts",
    "record_error",
    "records",
    "unless_corrupt",
    "null_unless_corrupt",
    "headers",
    "offsets",
    "file_lines",
    "schema_registry",
    "upsert_source",
    "decodable",
    "changelog",
    "upserts",
    "table_sql",
    "table_setup",
    "table_append",
    "table_merge",
    "table_upsert",
    "table_history",
    "tables",
    "table_source",
    "dead_letters",
    "split_writes",
    "dead_letter_files",
    "dead_letter_topic",
    "one_write",
    "stream_writer",
    "handover",
    "no_handover",
    "straight_through",
    "micro_batches",
    "streaming",
    "batch",
    "registry_main",
    "main",
)

# Names several parts define, one for each kind of job: the emitter picks the part by the job's features, never by a
# name.
ALTERNATIVES = {
    "start": ("micro_batches", "straight_through"),
    "print_handed": ("handover", "no_handover"),
    "spark_packages": ("spark_lines", "no_connectors"),
    "check_connectors": ("spark_lines", "no_connectors"),
    "run": ("streaming", "batch"),
    "main": ("registry_main", "main"),
    "TableApply": ("table_append", "table_upsert", "table_history"),  # a table sink's apply mode
}
