"""One line for a failed job, whatever Spark wrapped the failure in."""

from __future__ import annotations

import re

# A record error is Spark's USER_RAISED_EXCEPTION, whose SQLSTATE is always P0001. A query whose Python micro-batch
# function failed carries it only as text: the traceback Py4J passed on, inside Spark's STREAM_FAILED message.
_RECORD_ERROR = re.compile(r"\[USER_RAISED_EXCEPTION\] (.*?) SQLSTATE: P0001", re.S)
_TRACEBACK = "Traceback (most recent call last):"
# Py4J's own line, which the Java exception's line follows; a line naming a qualified exception class
_PY4J_CALL = "An error occurred while calling "
_RAISED = re.compile(r"^:? ?(?:[A-Za-z_]\w*\.)+(\w*(?:Exception|Error)): (.*)$")


def failure(exc: BaseException) -> str:
    """The record error (step, field, reason, topic, partition, offset), else the first line that says why,
    without Spark's wrappers, tracebacks or stack traces."""
    text = str(exc)
    record = _RECORD_ERROR.search(text)
    if record:
        return "record error: " + record.group(1).replace("\r", "\\r").replace("\n", "\\n")
    if getattr(exc, "getCondition", lambda: None)() == "STREAM_FAILED":
        text = (exc.getMessageParameters() or {}).get("message", text)  # its cause, without the ids
    # raised in a micro-batch function: drop the frames, keep the exception's lines
    if _TRACEBACK in text:
        text = "\n".join(
            line for line in text.rsplit(_TRACEBACK, 1)[1].splitlines() if line[:1].strip()
        )
    for line in (line.strip() for line in text.splitlines()):
        raised = _RAISED.match(line)
        name, message = raised.groups() if raised else ("", line)
        if message and not message.startswith(_PY4J_CALL):
            return message if not name or message.startswith("[") else f"{name}: {message}"
    return type(exc).__name__
