"""Stage 3, resolve: the validated document -> the resolved Pipeline model (`builder`), with every semantic check and
the record shape after each step. One module per part: the source, the chain, the sink and errors policy, the
test cases; `real_time` checks what Spark's real-time mode can run.
"""
