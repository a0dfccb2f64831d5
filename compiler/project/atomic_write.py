"""Writing files whole: each text goes to a new temporary file in the target's folder, which a rename then puts
in its place, so a reader sees the old file or the new one, never half of one. `write_all` does it for many
files at once, all or none: every file is staged (written to its temporary) and every target checked before the
first rename, and a failure removes what was staged and the folders it made. (tempfile.mkstemp would make the
temporary file as well, but importing tempfile, with shutil and random, costs every cold start about 4 ms.)"""

from __future__ import annotations

import errno
import itertools
import os
import stat
from pathlib import Path

ATTEMPTS = 100  # temporary names tried for one file (another process's leftovers take some)
_NUMBERS = itertools.count()  # this process's temporaries, numbered on: a staged file keeps its name until renamed


def write_text(target: Path, text: str, mode: int = 0o644) -> None:
    """Write `text` (UTF-8, newlines as given) to `target` with permissions `mode`, through a temporary file
    and a rename."""
    write_all(target.parent, {target.name: text}, mode, make_folder=False)


def write_all(folder: Path, files: dict[str, str], mode: int = 0o644, make_folder: bool = True) -> list[Path]:
    """Write each `name: text` of `files` into `folder` (made with its parents when missing), every file or none;
    the paths written. Raises OSError (its filename the path at fault) with nothing changed: a target that is a
    folder, a name longer than the folder's file system takes, a folder that cannot be made or written."""
    made = _make_folders(folder) if make_folder else []
    staged: list[tuple[Path, Path]] = []
    try:
        name_max = _name_max(folder)
        for name, text in files.items():
            target = folder / name
            _check_target(target, name_max)
            staged.append((_staged(folder, text, mode), target))
        for tmp, target in staged:
            os.replace(tmp, target)
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        for made_folder in reversed(made):
            try:
                made_folder.rmdir()
            except OSError:
                pass
        raise
    return [target for _, target in staged]


def _make_folders(folder: Path) -> list[Path]:
    """Make `folder` and its missing parents; the folders made, outermost first."""
    missing = []
    for path in (folder, *folder.parents):
        if os.path.lexists(path):
            break
        missing.append(path)
    folder.mkdir(parents=True, exist_ok=True)  # FileExistsError when `folder` is a file
    return missing[::-1]


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def _check_target(target: Path, name_max: int) -> None:
    if len(os.fsencode(target.name)) > name_max:
        raise OSError(errno.ENAMETOOLONG, f"the file system takes names of at most {name_max} bytes", str(target))
    try:
        if stat.S_ISDIR(os.lstat(target).st_mode):
            raise IsADirectoryError(errno.EISDIR, "a folder has the file's name", str(target))
    except FileNotFoundError:
        pass


def _staged(folder: Path, text: str, mode: int) -> Path:
    """A new temporary file in `folder` holding `text`, with permissions `mode` whatever the umask."""
    fd, tmp = _new_temporary(folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, mode)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _new_temporary(folder: Path) -> tuple[int, Path]:
    """A file in `folder` that no one else made (O_EXCL), open for writing, private until renamed; its short
    name (whatever the target's length) holds this process's id and a count."""
    for number in itertools.islice(_NUMBERS, ATTEMPTS):
        tmp = folder / f".pipec-{os.getpid()}-{number}.tmp"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), tmp
        except FileExistsError:
            continue
        except OSError as exc:  # the folder is at fault, not a name the user never chose
            raise OSError(exc.errno, exc.strerror, str(folder)) from None
    raise FileExistsError(errno.EEXIST, f"no free temporary name after {ATTEMPTS} attempts", str(folder))
