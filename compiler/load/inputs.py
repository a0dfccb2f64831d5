"""Finding and reading pipeline files: every path named on the command line, every `*.yaml`/`*.yml` below a folder.

Whatever the file system holds, each problem is one located error with its real reason, never a traceback or
a silent skip: a path that does not exist (E005), a folder without a pipeline file (E006), and (E004) a folder
that cannot be listed, a FIFO, a device, a dangling or looping symbolic link, a file that cannot be read or is
not UTF-8 (at the byte), or one too large to be a pipeline (E008). A FIFO or device is never opened: reading
one would wait for a writer, or never end. Symbolic links to files are followed; links to folders are not
descended into (as `Path.rglob` does), so a walk always ends.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from ..diagnostics import Collector, Location
from .limits import MAX_CHARS

SUFFIXES = (".yaml", ".yml")
MAX_BYTES = 4 * MAX_CHARS  # UTF-8 spells a character in at most 4 bytes: a larger file is over the budget

_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}
_HINTS = {
    errno.EACCES: "give yourself read permission (and search permission on its folders), or leave it out",
    errno.ELOOP: "the symbolic link leads back to itself: point it at a pipeline file",
    errno.ENOENT: "point the symbolic link at a file that exists, or remove it",
}


def _at(path: Path | str) -> Location:
    return Location(str(path), 1, 1)


def _cannot(diags: Collector, path: Path | str, what: str, exc: OSError) -> None:
    reason = (exc.strerror or str(exc)).lower()
    if exc.errno == errno.ENOENT and os.path.islink(path):
        reason = f"it is a symbolic link to {os.readlink(path)}, which does not exist"
    diags.error(
        "E004",
        f"cannot {what} {path}: {reason}",
        _at(path),
        _HINTS.get(exc.errno, "check the path and its permissions"),
    )


def _not_regular(diags: Collector, path: Path | str, mode: int) -> None:
    kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
    diags.error(
        "E004",
        f"{path} is {kind}, not a pipeline file",
        _at(path),
        "name a regular *.yaml or *.yml file, or a folder of them",
    )


def _walk(folder: Path, diags: Collector, found: list[Path]) -> None:
    """Every pipeline file below `folder`, in name order."""
    try:
        with os.scandir(folder) as entries:
            children = sorted(entries, key=lambda e: e.name)
    except OSError as exc:
        _cannot(diags, folder, "list the folder", exc)
        return
    for entry in children:
        path = folder / entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                _walk(path, diags, found)
                continue
            if not entry.name.endswith(SUFFIXES):
                continue
            mode = os.stat(path).st_mode
        except OSError as exc:
            _cannot(diags, path, "read", exc)
            continue
        if stat.S_ISREG(mode):
            found.append(path)
        elif not stat.S_ISDIR(mode):  # a link to a folder named like a pipeline is a folder, not descended into
            _not_regular(diags, path, mode)


def discover(paths: list[str], diags: Collector) -> list[Path]:
    """Files named, and every *.yaml / *.yml below folders named, in a stable order, each once."""
    found: list[Path] = []
    for raw in paths:
        p = Path(raw)
        try:
            mode = os.stat(p).st_mode
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR) and not os.path.islink(p):
                diags.error(
                    "E005",
                    f"no such file or folder: {raw}",
                    _at(raw),
                    "name a pipeline file or a folder of them (*.yaml, *.yml)",
                )
            else:
                _cannot(diags, raw, "read", exc)
            continue
        if stat.S_ISDIR(mode):
            _walk(p, diags, found)
        elif stat.S_ISREG(mode):
            found.append(p)
        else:
            _not_regular(diags, raw, mode)
    return list(dict.fromkeys(f.resolve() for f in found))


def read_text(path: Path, file: str, diags: Collector) -> tuple[bytes, str] | None:
    """The file's bytes and its text, or None after an error at `file` (as diagnostics name it)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO put there since discover opens without waiting
        with os.fdopen(fd, "rb") as fh:
            mode = os.fstat(fh.fileno()).st_mode
            if not stat.S_ISREG(mode):
                _not_regular(diags, file, mode)
                return None
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        _cannot(diags, file, "read", exc)
        return None
    if len(raw) > MAX_BYTES:
        diags.error(
            "E008",
            f"the file is larger than {MAX_BYTES // 1_000_000} MB; pipec reads at most {MAX_CHARS:,} characters",
            _at(file),
            "split it: one pipeline a file",
        )
        return None
    try:
        return raw, raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start)
        start = raw.rfind(b"\n", 0, exc.start) + 1
        col = len(raw[start : exc.start].decode("utf-8", "replace")) + 1
        diags.error(
            "E004",
            f"the file is not UTF-8 text: byte 0x{raw[exc.start]:02x} here is not part of a UTF-8 character",
            Location(file, line + 1, col),
            "save the file as UTF-8 (YAML 1.2 and JSON are UTF-8)",
        )
        return None
