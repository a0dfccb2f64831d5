"""One line for a failed job, whatever Spark wrapped the failure in."""

from __future__ import annotations

import re

# A record error (USER_RAISED_EXCEPTION, also inside a traceback; Spark 3.5: a RuntimeException), a line
# naming a qualified exception class, Py4J's own line
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
    if _TRACEBACK in text:  # raised in a micro-batch function: its exception's lines, not frames
        text = "\n".join(ln for ln in text.rsplit(_TRACEBACK, 1)[1].splitlines() if ln[:1].strip())
    for line in map(str.strip, text.splitlines()):
        name, message = raised.groups() if (raised := _RAISED.match(line)) else ("", line)
        if message and not message.startswith(_PY4J_CALL):
            return message if not name or message.startswith("[") else f"{name}: {message}"
    return type(exc).__name__
