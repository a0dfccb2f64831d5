"""`pipec docs`: a static site of every pipeline (issue 29), built from the same resolved model the jobs come from.

- `facts`: one pipeline's page data from its `Compiled` (explain's shapes, lineage, contract, tests, error policy);
- `changes`: what `pipec diff` would say about changing a pipeline's checkpoint, source or sink;
- `datasets`: the topics, folders (and any other dataset kind `pipec graph` knows) with their writers and readers;
- `svg`: `pipec graph`'s graph laid out in layers and drawn as SVG at build time;
- `listing`: the YAML and the generated job as HTML with line numbers and anchors;
- `site`: every page rendered through jinja2 (autoescaped), written or checked (`--check`); `command`: the CLI.
"""
