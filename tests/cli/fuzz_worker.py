"""A `pipec` runner for the fuzz test: one process that imports pipec once, then runs each command line in a child
forked from it, measuring the child alone: its exit code, CPU seconds, and peak resident memory.

Protocol: one JSON object a line on stdin, `{"cwd": FOLDER, "args": [...]}`; one JSON object a line on stdout,
`{"code", "cpu", "peak_mb", "out", "err", "timeout"}`. The child's peak is reset at its start
(/proc/self/clear_refs), so it counts what the command itself made resident, on top of the warm compiler it
inherited (a fresh `pipec` process is about 30 MB more, and about 0.25 s more CPU, for its imports).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import tempfile

ADDRESS_SPACE = 3 << 30  # a runaway child dies here (MemoryError) rather than take the machine
TIMEOUT = 20  # seconds of wall time before the child is killed and the run reported as a timeout


def _warm() -> None:
    """Import what any command imports lazily, so children inherit it instead of paying for it."""
    from pipec.cli import main  # noqa: F401
    from pipec.emit import job  # noqa: F401
    from pipec.validate import schema

    schema._validator()
    schema._check()
    import difflib  # noqa: F401

    import jsonschema  # noqa: F401


def _peak_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        return int(next(line.split()[1] for line in status if line.startswith("VmHWM:")))


def _child(cwd: str, args: list[str], out: int, err: int, report: int) -> None:
    signal.alarm(TIMEOUT)  # a command still running then dies of SIGALRM, reported as a timeout
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.chdir(cwd)
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
        refs.write("5")  # the peak resident size restarts from what the child has now
    code = 99
    try:
        from pipec.cli import main

        code = main(args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 98
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        os.write(
            report,
            json.dumps({"code": code, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": _peak_kb() / 1024}).encode(),
        )
        os._exit(0)


def run(cwd: str, args: list[str]) -> dict:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            _child(cwd, args, out.fileno(), err.fileno(), write)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            sent = pipe.read()
        _, status = os.waitpid(pid, 0)
        report = json.loads(sent) if sent else {"code": None, "cpu": 0.0, "peak_mb": 0.0}
        timeout = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM
        out.seek(0)
        err.seek(0)
        report.update(
            out=out.read().decode("utf-8", "replace"), err=err.read().decode("utf-8", "replace"), timeout=timeout
        )
        return report


def main() -> None:
    _warm()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        print(json.dumps(run(request["cwd"], request["args"])), flush=True)


if __name__ == "__main__":
    main()
