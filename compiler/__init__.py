"""pipec: compile pipeline YAML into standalone, reviewable PySpark jobs.

The flow, one folder per stage: load/ (YAML + source map) -> validate/ (JSON Schema) -> resolve/ (model, semantic
checks, schema propagation) -> lower/ (IR) -> emit/ (render, templates, black's layout); project/ runs the stages
over a project's files and writes the jobs. Transforms and connectors (transforms/, connectors/) are asked by the
stages; the shared basics (diagnostics, model, shape, ir, types/) sit beside them.
"""

__version__ = "0.1.0"
