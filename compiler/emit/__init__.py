"""Stage 5, emit: the job's file. The IR rendered to Python (`render`, with repeated subexpressions bound to locals:
`subexpressions`), laid out by the job templates (`job`; `job_templates` is their Python translation, written by
`template_translator`) and formatted as black would (`format/`).
"""
