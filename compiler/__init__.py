"""pipec: compile pipeline YAML into standalone, reviewable PySpark jobs.

The flow is `pipeline.STAGES`, one folder a stage: load/ (YAML + source map) -> validate/ (JSON Schema) -> resolve/
(model, semantic checks, schema propagation) -> lower/ (IR and its passes; the Spark line the code needs) -> emit/
(render, templates, the runtime parts the job uses from runtime/, ruff's format). project/ runs the stages over a project's files and writes the jobs; cli.py is
the command line. The stages ask the transforms and connectors (transforms/, connectors/), and share the basics
beside them: diagnostics, the model and record shape, the IR, record errors, types/.
"""

__version__ = "0.1.0"
