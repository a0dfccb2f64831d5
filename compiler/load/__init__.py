"""Stage 1, load: a pipeline file's YAML read into plain data and a source map (`document`: every value knows its
file:line:col), within the limits checked on YAML's event stream before any tree is built (`limits`).
"""
