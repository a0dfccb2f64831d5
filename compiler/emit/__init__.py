"""Stage 5, emit: the job's file. The IR rendered to Python (`render`, with repeated subexpressions bound to locals:
`subexpressions`), laid into the job templates (`job`), the parts of the runtime it uses pasted after it
(`runtime_text`, from compiler/runtime/) and formatted in black's style by ruff (`formatter`).
"""
