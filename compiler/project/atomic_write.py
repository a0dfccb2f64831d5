"""Writing a file whole: the text goes to a new temporary file beside it, which a rename then puts in its place,
so a reader sees the old file or the new one, never half of one. (tempfile.mkstemp would make the temporary
file as well, but importing tempfile, with shutil and random, costs every cold start about 4 ms.)"""

from __future__ import annotations

import os
from pathlib import Path

ATTEMPTS = 100  # temporary names tried beside one target (another process's leftovers take some)


def write_text(target: Path, text: str, mode: int = 0o644) -> None:
    """Write `text` (UTF-8, newlines as given) to `target` with permissions `mode`, through a temporary file
    and a rename."""
    fd, tmp = _new_temporary(target)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, mode)  # as given, whatever the umask
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _new_temporary(target: Path) -> tuple[int, Path]:
    """A file beside `target` that no one else made (O_EXCL), open for writing, private until renamed; its
    name holds this process's id and a count."""
    for attempt in range(ATTEMPTS):
        tmp = target.with_name(f".{target.name}.{os.getpid()}-{attempt}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {target} after {ATTEMPTS} attempts")
