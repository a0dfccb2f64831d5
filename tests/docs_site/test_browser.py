"""The `pipec docs` site of the examples in a real browser: headless Chromium from Debian's packages
(scripts/browser), opened from the file system and from `python -m http.server` on loopback. The index and a
pipeline page open without console errors, the search finds a pipeline by a column name, a graph node and a step
link lead where they say. Screenshots of both pages are kept in out/test-artifacts/docs-site/ (git ignores out/)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from chromium import chromium, console_errors, missing

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "out" / "test-artifacts" / "docs-site"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    reason = missing()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(reason)  # CI's setup-env installs the browser: its absence is a defect there
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "pipec", "docs", "pipelines", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def browser(site):
    with chromium(1280, 900) as driver:
        yield driver


@pytest.fixture(scope="module")
def server(site):
    """`python -m http.server` serving the site on a free loopback port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(site)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _open(driver, url: str) -> None:
    driver.get(url)
    driver.execute_script("return document.readyState")  # waits for the load
    assert console_errors(driver) == [], url


def _shot(driver, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    assert path.stat().st_size > 10_000
    return path


def _visible_pipelines(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#pipelines tbody tr'))"
        ".filter(r => !r.hidden).map(r => r.querySelector('a.name').textContent)"
    )


def test_index_opens_and_search_finds_a_pipeline_by_a_column(browser, site):
    from selenium.webdriver.common.by import By

    _open(browser, (site / "index.html").as_uri())
    assert browser.title.startswith("Pipelines")
    assert len(_visible_pipelines(browser)) == len(list((ROOT / "pipelines").glob("*.yaml")))
    _shot(browser, "index.png")
    box = browser.find_element(By.ID, "search")
    box.send_keys("kafka_partition")  # a column only clicks_traced writes
    assert _visible_pipelines(browser) == ["clicks_traced"]
    hint = browser.find_element(By.CSS_SELECTOR, "#pipelines tbody tr:not([hidden]) .matched").text
    assert "column: kafka_partition" in hint
    _shot(browser, "index-search.png")
    box.clear()
    box.send_keys("card")  # masked card numbers: orders and payments
    assert _visible_pipelines(browser) == ["orders_enriched", "payments_cleared"]
    box.clear()
    box.send_keys("no such thing anywhere")
    assert _visible_pipelines(browser) == []
    assert browser.find_element(By.ID, "none").is_displayed()
    assert console_errors(browser) == []


def test_search_from_another_page_and_owner(browser, site):
    _open(browser, (site / "index.html").as_uri() + "?q=payments-oncall")
    assert _visible_pipelines(browser) == ["payments_cleared"]


def test_pipeline_page_opens_with_its_steps_lineage_and_tests(browser, site):
    from selenium.webdriver.common.by import By

    _open(browser, (site / "pipelines" / "payments_cleared.html").as_uri())
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith("payments_cleared")
    stages = browser.find_elements(By.CSS_SELECTOR, "li.stage")
    assert len(stages) == 1 + 3  # the source and its three steps
    assert "hide_card" in stages[3].text and "ReplaceField$Value" in stages[3].text
    assert stages[3].find_element(By.CSS_SELECTOR, "tr.removed").text.startswith("card")
    lineage = browser.find_element(By.CSS_SELECTOR, "table.lineage").text
    assert "from_topic metadata:topic" in lineage and "source header:source" in lineage
    assert browser.find_elements(By.CSS_SELECTOR, "section.test")
    _shot(browser, "pipeline.png")
    # a step's "in the job" link lands on that step's comment in the generated job
    stages[3].find_element(By.LINK_TEXT, "in the job").click()
    assert browser.current_url.endswith("jobs/payments_cleared.html#step-3")
    assert browser.execute_script("return document.getElementById('step-3') !== null")
    assert console_errors(browser) == []


def test_graph_nodes_link_to_their_pages(browser, site):
    from selenium.webdriver.common.by import By

    _open(browser, (site / "graph.html").as_uri())
    nodes = browser.find_elements(By.CSS_SELECTOR, "svg.graph a.node")
    assert len(nodes) >= 6 + 6
    browser.execute_script(
        "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))",
        browser.find_element(By.CSS_SELECTOR, "svg.graph a.kind-topic"),
    )
    assert "/datasets/topic-clicks-" in browser.current_url
    assert "clicks_traced" in browser.find_element(By.TAG_NAME, "main").text
    assert console_errors(browser) == []


def test_the_site_works_from_a_static_server(browser, server):
    from selenium.webdriver.common.by import By

    for page in (
        "index.html",
        "graph.html",
        "datasets.html",
        "pipelines/clicks_traced.html",
        "jobs/clicks_traced.html",
        "yaml/clicks_traced.html",
    ):
        _open(browser, f"{server}/{page}")
        assert browser.find_element(By.TAG_NAME, "h1").text
    _open(browser, f"{server}/index.html?q=trace-id")
    assert _visible_pipelines(browser) == ["clicks_traced"]
