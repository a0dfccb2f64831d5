"""Writing the site into its folder, and `--check`ing a folder against it.

The folder's `.pipec-docs` lists the files pipec wrote there, so a rebuild removes the pages of pipelines that are
gone, and pipec never writes into (or deletes from) a folder of files it did not write."""

from __future__ import annotations

from pathlib import Path

from ..project.atomic_write import write_text

MANIFEST = ".pipec-docs"
HEADER = "# files `pipec docs` wrote here; it rewrites or removes only these\n"


class NotOurs(Exception):
    """The folder holds files and no manifest: not a site pipec wrote."""


def _listed(out: Path) -> list[str] | None:
    try:
        text = (out / MANIFEST).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def _manifest(pages: dict[str, str]) -> str:
    return HEADER + "".join(f"{name}\n" for name in sorted(pages))


def _current(path: Path, text: str) -> bool:
    try:
        return path.read_bytes() == text.encode("utf-8")
    except OSError:
        return False


def stale(out: Path, pages: dict[str, str]) -> list[str]:
    """What differs between the folder and the site: missing, differing and left-over files."""
    problems = [
        f"{out / name}: " + ("differs" if (out / name).exists() else "missing")
        for name, text in sorted(pages.items())
        if not _current(out / name, text)
    ]
    listed = _listed(out)
    problems += [
        f"{out / name}: no longer part of the site"
        for name in listed or ()
        if name not in pages and (out / name).exists()
    ]
    if listed is None or not _current(out / MANIFEST, _manifest(pages)):
        problems.append(f"{out / MANIFEST}: " + ("missing" if listed is None else "differs"))
    return problems


def write_site(out: Path, pages: dict[str, str]) -> tuple[int, int]:
    """Write the pages that changed (each atomically) and remove the ones no longer part of the site: (written,
    removed)."""
    listed = _listed(out)
    if listed is None and out.exists() and any(out.iterdir()):
        raise NotOurs(f"{out} holds files that pipec docs did not write (no {MANIFEST}); choose an empty or new folder")
    written = 0
    for name, text in sorted(pages.items()):
        target = out / name
        if not _current(target, text):
            target.parent.mkdir(parents=True, exist_ok=True)
            write_text(target, text)
            written += 1
    removed = 0
    for name in listed or ():
        target = out / name
        if name not in pages and ".." not in Path(name).parts and target.is_file():
            target.unlink()
            removed += 1
    write_text(out / MANIFEST, _manifest(pages))
    return written, removed
