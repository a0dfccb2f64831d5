"""Tools around the compiler for review and migration (issue 17).

Each consumes the compiler through its public entry points (`project.driver.build_all`, `Compiled`, the frozen model):

- `connect_import`: Kafka Connect connector configs -> pipeline YAML (`pipec import connect`);
- `checkpoint_diff`: whether a change can restart on the running job's checkpoint (`pipec diff`);
- `graph` and `lineage`: topics, folders and pipelines as a graph, column lineage as OpenLineage (`pipec graph`);
- `changed`: the pipelines a change touches (`--changed-since REF`);
- `git`: the few git reads they share.
"""
