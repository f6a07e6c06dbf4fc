"""The page of ``nbayes serve --learn`` in Debian's headless Chromium (Playwright): "correct this
prediction" learns the document shown under the chosen class and shows the new version."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")
uvicorn = pytest.importorskip("uvicorn", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")

import nbayes  # noqa: E402
from nbayes.serve import create_app  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
TOKEN = "page-token"
SPAM = ["win a free prize now", "free cash claim now", "claim your free prize"]
HAM = ["lunch at noon tomorrow", "see you at home tonight", "meeting moved to thursday"]


def base():
    return nbayes.TextClassifier(alpha=0.5).fit(SPAM + HAM, ["spam"] * 3 + ["ham"] * 3)


@pytest.fixture
def service(tmp_path):
    path = tmp_path / "spam.nbm"
    base().save(path)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(str(path), learn=True, token=TOKEN), host="127.0.0.1",
                                           port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    end = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < end and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}", server
    server.should_exit = True
    thread.join(timeout=30)


@pytest.fixture
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CHROMIUM} is absent")
        pytest.skip(f"{CHROMIUM} is absent: apt-get install chromium")
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                              args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
        try:
            yield b
        finally:
            b.close()


def until(page, selector, ok, timeout=10.0):
    """The text of ``selector`` once ``ok(text)`` (the page's CSP allows no eval, so no
    wait_for_function)."""
    end = time.monotonic() + timeout
    while True:
        text = page.inner_text(selector)
        if ok(text):
            return text
        assert time.monotonic() < end, f"{selector}: {text!r}"
        time.sleep(0.05)


def test_correct_this_prediction_learns_the_document_shown(browser, service):
    url, server = service
    page = browser.new_context().new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    try:
        page.goto(url + "/")
        page.wait_for_selector("#go:not([disabled])", timeout=10_000)
        assert "version 0" in page.inner_text("#meta")
        text = "zebra okapi free"
        page.fill("#text", text)
        page.click("#go")
        page.wait_for_selector("#correct", state="visible", timeout=10_000)
        assert page.inner_text("#label") == "spam"
        page.select_option("#as", label="ham")
        page.fill("#token", "wrong")
        page.click("#learn")
        assert "token" in until(page, "#learned", lambda t: t)
        page.fill("#token", TOKEN)
        page.click("#learn")
        until(page, "#learned", lambda t: "version 1" in t)
        assert "version 1" in page.inner_text("#meta")
        ref = base().partial_fit([text], ["ham"])
        assert page.inner_text("#label") == ref.predict([text])[0]
        probs = page.eval_on_selector_all("#bars .bar-row", "rows => rows.map(r => Number(r.dataset.p))")
        np.testing.assert_allclose(sorted(probs), sorted(ref.predict_proba([text])[0]), rtol=0, atol=1e-9)
        assert not problems, problems
    finally:
        page.context.close()
