"""`pipec diff [--against REF] [PATH...]`: verdicts for the pipelines changed since REF, as text, markdown or JSON."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Diagnostic
from ..project.driver import SUFFIXES, build_all
from ..resolve.builder import Compiled
from .checkpoint_diff import VERDICTS, Verdict, judge
from .checkpoint_rules import RULES
from .git import changed_files, default_base, resolve, show, toplevel


@dataclass(slots=True)
class DiffResult:
    ref: str
    commit: str
    verdicts: list[Verdict] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)  # the working tree's pipelines that do not compile

    def exit_code(self, fail_on_contract: bool) -> int:
        if self.errors:
            return 2
        if any(v.needs_reset or (fail_on_contract and v.breaking) for v in self.verdicts):
            return 1
        return 0


def _in_scope(path: str, scopes: list[str]) -> bool:
    return path.endswith(SUFFIXES) and any(
        s in ("", ".") or path == s or path.startswith(s.rstrip("/") + "/") for s in scopes
    )


def _build_each(files: list[Path]) -> tuple[dict[Path, Compiled], list[Diagnostic]]:
    compiled, errors = {}, []
    for f in files:
        result = build_all([str(f)])
        errors += result.diags.errors
        if not result.diags.errors and result.compiled:
            compiled[f] = result.compiled[0]
    return compiled, errors


def default_paths(root: Path) -> list[str]:
    return [str(root / "pipelines")] if (root / "pipelines").is_dir() else [str(root)]


def run_diff(paths: list[str], against: str | None) -> DiffResult:
    """Build the changed pipelines at `against` (default: the merge base) and in the working tree; judge each."""
    root = toplevel(Path(paths[0]) if paths else Path.cwd())
    paths = paths or default_paths(root)
    ref = against or default_base(root)
    result = DiffResult(ref, resolve(root, ref))
    scopes = [
        Path(p).resolve().relative_to(root).as_posix() if Path(p).resolve().is_relative_to(root) else p for p in paths
    ]
    changed = {
        new: old
        for new, old in changed_files(root, ref).items()
        if _in_scope(new, scopes) or (old and _in_scope(old, scopes))
    }
    new_files = [root / p for p in changed if (root / p).is_file()]
    new, result.errors = _build_each(new_files)
    with tempfile.TemporaryDirectory(prefix="pipec-diff-") as tmp:
        base = Path(tmp)
        (base / ".git").mkdir()  # file names then read as repository-relative, like the working tree's
        old_files = {}
        for new_path, old_path in changed.items():
            text = show(root, ref, old_path) if old_path else None
            if text is not None:
                target = base / old_path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
                old_files[target] = (new_path, old_path)
        old, _ = _build_each(list(old_files))
    new_by_name = {c.pipeline.name: (c, f.relative_to(root).as_posix()) for f, c in new.items()}
    old_by_name = {c.pipeline.name: (c, old_files[f][1]) for f, c in old.items()}
    for name, (compiled, path) in new_by_name.items():
        before = old_by_name.get(name)
        result.verdicts.append(judge(before[0] if before else None, compiled, path, before[1] if before else None))
    failed_old = {old_path for target, (_, old_path) in old_files.items() if target not in old}
    for verdict in result.verdicts:
        if verdict.kind == "new" and changed.get(verdict.file) in failed_old:
            verdict.kind, verdict.old_file = "unknown", changed[verdict.file]
    for name, (compiled, path) in old_by_name.items():
        if name not in new_by_name and not any(e.loc and e.loc.file.endswith(path) for e in result.errors):
            result.verdicts.append(judge(compiled, None, path, path))
    result.verdicts.sort(key=lambda v: v.file)
    return result


# ------------------------------------------------------------------ rendering


def render_text(result: DiffResult) -> str:
    if not result.verdicts:
        return f"no pipeline changed since {result.ref}"
    lines = []
    for v in result.verdicts:
        moved = f" (was {v.old_file})" if v.old_file and v.old_file != v.file else ""
        lines.append(f"{v.file}{moved}: {v.name}: {VERDICTS[v.kind]}")
        for r in v.reasons:
            lines.append(f"  [{r.severity}] {r.message}")
            lines.append(f"      rule: {RULES[r.rule].says} ({RULES[r.rule].source})")
    return "\n".join(lines)


def render_markdown(result: DiffResult) -> str:
    lines = [f"### pipec diff against `{result.ref}` (`{result.commit[:12]}`)", ""]
    if not result.verdicts:
        return "\n".join(lines + ["No pipeline changed."])
    lines += ["| pipeline | file | verdict |", "|---|---|---|"]
    icons = {"reset": ":x:", "unknown": ":x:", "breaking": ":warning:", "compatible": ":information_source:"}
    for v in result.verdicts:
        lines.append(f"| `{v.name}` | `{v.file}` | {icons.get(v.kind, ':white_check_mark:')} {VERDICTS[v.kind]} |")
    used = []
    for v in result.verdicts:
        if v.reasons:
            lines += ["", f"<details><summary><code>{v.name}</code>: {VERDICTS[v.kind]}</summary>", ""]
            for r in v.reasons:
                if r.rule not in used:
                    used.append(r.rule)
                lines.append(f"- **{r.severity}**: {r.message} [^{used.index(r.rule) + 1}]")
            lines += ["", "</details>"]
    lines.append("")
    lines += [
        f"[^{i + 1}]: {RULES[rule].says}: [{RULES[rule].source}]({RULES[rule].url})" for i, rule in enumerate(used)
    ]
    return "\n".join(lines)


def render_json(result: DiffResult) -> str:
    return json.dumps(
        {
            "against": result.ref,
            "commit": result.commit,
            "pipelines": [
                {
                    "name": v.name,
                    "file": v.file,
                    "old_file": v.old_file,
                    "verdict": v.kind,
                    "summary": VERDICTS[v.kind],
                    "needs_reset": v.needs_reset,
                    "breaking": v.breaking,
                    "reasons": [{"severity": r.severity, "rule": r.rule, "message": r.message} for r in v.reasons],
                }
                for v in result.verdicts
            ],
            "rules": {rule.id: {"says": rule.says, "source": rule.source, "url": rule.url} for rule in RULES.values()},
            "errors": [d.to_json() for d in result.errors],
        },
        indent=2,
    )


RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json}
