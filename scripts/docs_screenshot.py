"""Regenerate docs/images/pipec-docs.png, the README's screenshot of the `pipec docs` site: the examples' site
built into a temporary folder, a pipeline page opened in headless Chromium (tests/docs_site/chromium.py)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "docs_site"))

from chromium import chromium, console_errors, missing  # noqa: E402

TARGET = ROOT / "docs" / "images" / "pipec-docs.png"
PAGE = "pipelines/payments_cleared.html"
SIZE = (1280, 800)


def main() -> int:
    reason = missing()
    if reason:
        print(f"docs_screenshot: {reason}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="pipec-docs-shot-") as tmp:
        subprocess.run(
            [sys.executable, "-m", "pipec", "docs", "pipelines", "--out", tmp],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        with chromium(*SIZE) as driver:
            driver.get((Path(tmp) / PAGE).as_uri())
            errors = console_errors(driver)
            if errors:
                print("docs_screenshot: console errors: " + "; ".join(errors), file=sys.stderr)
                return 1
            TARGET.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(TARGET))
    print(f"wrote {TARGET.relative_to(ROOT)} ({TARGET.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
