"""Headless Chromium from Debian's packages (scripts/browser installs `chromium` and `chromium-driver`), driven
through selenium with Debian's chromedriver: nothing is downloaded, and the browser reaches no network."""

from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = ("chromium", "/usr/bin/chromium")
CHROMEDRIVER = ("chromedriver", "/usr/bin/chromedriver")
# A closed machine: no sandbox (root in a container), no GPU, nothing fetched in the background.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
)


def _find(names: tuple[str, str]) -> str | None:
    return shutil.which(names[0]) or (names[1] if Path(names[1]).exists() else None)


def missing() -> str | None:
    """Why the browser cannot start here, or None."""
    if _find(CHROMIUM) is None or _find(CHROMEDRIVER) is None:
        return "chromium and chromedriver are not installed: run ./scripts/browser (or ./scripts/setup-env)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed: run ./scripts/setup-env"
    return None


@contextmanager
def chromium(width: int = 1280, height: int = 900):
    """A selenium driver of a fresh headless Chromium (its own profile folder, removed afterwards) that keeps the
    page's console messages (`driver.get_log("browser")`)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="pipec-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = _find(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(_find(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(driver) -> list[str]:
    """The page's console errors (and failed loads) since the last call."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
