"""The git reads the tools share: the repository root, a default base revision, changed files, files at a revision."""

from __future__ import annotations

from pathlib import Path


class GitError(Exception):
    """A git command failed; the message says which and why (shown to the user, exit code 2)."""


def git(root: Path, *args: str) -> str:
    """stdout of `git args...` run in `root`."""
    import subprocess  # here: the CLI imports this module for GitError, and most commands never run git

    try:
        proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=60)
    except FileNotFoundError as exc:
        raise GitError("git is not installed (needed to compare revisions)") from exc
    if proc.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {proc.stderr.strip() or 'failed'}")
    return proc.stdout


def toplevel(start: Path) -> Path:
    """The root of the git checkout holding `start`."""
    folder = start if start.is_dir() else start.parent
    try:
        return Path(git(folder.resolve(), "rev-parse", "--show-toplevel").strip())
    except GitError as exc:
        raise GitError(f"{start} is not inside a git repository ({exc})") from exc


def resolve(root: Path, ref: str) -> str:
    """The commit a revision names, with a clear error for one that does not exist."""
    try:
        return git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()
    except GitError as exc:
        raise GitError(f"unknown revision '{ref}': name a branch, tag or commit of this repository") from exc


# Where `pipec diff` looks for the branch a change will merge into, in order.
BASE_CANDIDATES = ("@{upstream}", "origin/HEAD", "origin/main", "origin/master", "main", "master")


def default_base(root: Path) -> str:
    """The merge base of HEAD with the branch it will merge into (the first of BASE_CANDIDATES that exists)."""
    for candidate in BASE_CANDIDATES:
        try:
            other = resolve(root, candidate)
        except GitError:
            continue
        return git(root, "merge-base", "HEAD", other).strip()
    raise GitError("no base branch found (tried " + ", ".join(BASE_CANDIDATES) + "): pass --against REF")


def changed_files(root: Path, ref: str) -> dict[str, str | None]:
    """Repository-relative paths that differ between `ref` and the working tree (staged, unstaged and untracked),
    each mapped to its path at `ref` (None for a file `ref` does not have)."""
    commit = resolve(root, ref)
    out: dict[str, str | None] = {}
    fields = [f for f in git(root, "diff", "--name-status", "-M", "-z", commit, "--").split("\0") if f]
    i = 0
    while i < len(fields):
        status = fields[i]
        if status.startswith(("R", "C")):
            old, new = fields[i + 1], fields[i + 2]
            out[new] = old
            if status.startswith("R"):
                out.setdefault(old, old)  # the old path is gone: it changed too
            i += 3
        else:
            path = fields[i + 1]
            out[path] = None if status.startswith("A") else path
            i += 2
    for path in git(root, "ls-files", "--others", "--exclude-standard", "-z").split("\0"):
        if path:
            out.setdefault(path, None)
    return out


def show(root: Path, ref: str, path: str) -> str | None:
    """The text of `path` at `ref`, or None where `ref` has no such file."""
    try:
        return git(root, "show", f"{resolve(root, ref)}:{path}")
    except GitError:
        return None


def files_at(root: Path, ref: str, under: str = "") -> list[str]:
    """Every file path at `ref` (below `under`, a repository-relative folder, when given)."""
    args = ["ls-tree", "-r", "--name-only", "-z", resolve(root, ref)]
    if under:
        args += ["--", under]
    return [p for p in git(root, *args).split("\0") if p]
