"""Black's layout of a generated job without running black: its pinned mode and the check that a text is black-stable
(`black_mode`), the job text laid out (`layout`) and the statement printer (`printer/`).
"""
