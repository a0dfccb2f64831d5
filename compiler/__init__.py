"""pipec: compile pipeline YAML into standalone, reviewable PySpark jobs.

The flow, one module per stage: loader (YAML + source map) -> validate (JSON Schema) -> build (model,
semantic checks, schema propagation) -> lower (IR) -> emit (render, templates, black) -> writer.
"""

__version__ = "0.1.0"
