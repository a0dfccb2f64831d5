"""One line for a failed job, whatever Spark wrapped the failure in."""

from __future__ import annotations

import re

# A record error: Spark's USER_RAISED_EXCEPTION (SQLSTATE P0001), also as the text of a micro-batch function's
# traceback inside STREAM_FAILED's message, or on Spark 3.5 (raise_error without an error class) a plain Java
# RuntimeException; a line that names a qualified exception class; Py4J's own line
_RECORD_ERROR = re.compile(r"\[USER_RAISED_EXCEPTION\] (.*?) SQLSTATE: P0001", re.S)
_RECORD_ERROR_35 = re.compile(r"java\.lang\.RuntimeException: (.*)")
_TRACEBACK = "Traceback (most recent call last):"
_RAISED = re.compile(r"^:? ?(?:[A-Za-z_]\w*\.)+(\w*(?:Exception|Error)): (.*)$")
_PY4J_CALL = "An error occurred while calling "


def failure(exc: BaseException) -> str:
    """The record error, else the first line that says why, without Spark's wrappers, tracebacks or stack traces."""
    text = str(exc)
    if record := _RECORD_ERROR.search(text) or _RECORD_ERROR_35.search(text):
        return "record error: " + record[1].replace("\r", "\\r").replace("\n", "\\n")
    if getattr(exc, "getCondition", lambda: None)() == "STREAM_FAILED":
        text = (exc.getMessageParameters() or {}).get("message", text)  # its cause, without the ids
    if (
        _TRACEBACK in text
    ):  # raised in a micro-batch function: its exception's lines, not its frames
        lines = text.rsplit(_TRACEBACK, 1)[1].splitlines()
        text = "\n".join(line for line in lines if line[:1].strip())
    for line in map(str.strip, text.splitlines()):
        name, message = raised.groups() if (raised := _RAISED.match(line)) else ("", line)
        if message and not message.startswith(_PY4J_CALL):
            return message if not name or message.startswith("[") else f"{name}: {message}"
    return type(exc).__name__
