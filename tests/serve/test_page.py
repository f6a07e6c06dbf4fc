"""The page of ``nbayes serve --learn`` in Debian's headless Chromium (Playwright): "correct this
prediction" learns the document shown under the chosen class and shows the new version."""

from __future__ import annotations

import contextlib
import time

import numpy as np
import pytest

pytest.importorskip("starlette", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")
uvicorn = pytest.importorskip("uvicorn", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")

import nbayes  # noqa: E402
from nbayes.serve import create_app  # noqa: E402

TOKEN = "page-token"
SPAM = ["win a free prize now", "free cash claim now", "claim your free prize"]
HAM = ["lunch at noon tomorrow", "see you at home tonight", "meeting moved to thursday"]


def base():
    return nbayes.TextClassifier(alpha=0.5).fit(SPAM + HAM, ["spam"] * 3 + ["ham"] * 3)


@pytest.fixture
def service(tmp_path, live_server):
    path = tmp_path / "spam.nbm"
    base().save(path)
    with live_server(create_app(str(path), learn=True, token=TOKEN)) as url:
        yield url


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


@contextlib.contextmanager
def page_of(browser, url):
    """The service's page, loaded and ready to predict; no script error may happen on it."""
    page = browser.new_context().new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    try:
        page.goto(url + "/")
        page.wait_for_selector("#go:not([disabled])", timeout=10_000)
        yield page
        assert not problems, problems
    finally:
        page.context.close()


def test_correct_this_prediction_learns_the_document_shown(browser, service):
    with page_of(browser, service) as page:
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


def test_a_multi_label_model_shows_its_label_set_thresholds_and_learns_a_set(browser, tmp_path, live_server):
    path = tmp_path / "news.nbm"
    sets = [["spam", "promo"], ["spam"], ["spam", "promo"], ["ham"], ["ham", "home"], ["ham"]]
    nbayes.MultiLabel(nbayes.TextClassifier(alpha=0.5), threshold=0.5).fit(SPAM + HAM, sets).save(path)
    ref = nbayes.load(path)
    text = "free prize at home tonight"
    with live_server(create_app(str(path), learn=True, token=TOKEN)) as url, page_of(browser, url) as page:
        page.fill("#text", text)
        page.click("#go")
        page.wait_for_selector("#correct", state="visible", timeout=10_000)
        assert page.inner_text("#headline-what") == "Predicted labels"
        assert page.inner_text("#label") == ", ".join(ref.predict_labels([text])[0])
        rows = page.eval_on_selector_all(
            "#bars .bar-row", "rows => rows.map(r => [r.dataset.label, Number(r.dataset.p), Number(r.dataset.threshold),"
                              " r.classList.contains('top'), r.querySelector('.bar') !== null])")
        P = dict(zip(ref.classes_.tolist(), ref.predict_proba([text])[0]))
        assert sorted(r[0] for r in rows) == sorted(P) and all(r[2] == 0.5 and r[4] for r in rows)
        np.testing.assert_allclose([r[1] for r in rows], [P[r[0]] for r in rows], rtol=0, atol=1e-9)
        assert {r[0] for r in rows if r[3]} == set(ref.predict_labels([text])[0])
        assert "against its absence" in page.inner_text("#sum")
        page.select_option("#as", label=["ham", "home"])
        page.fill("#token", TOKEN)
        page.click("#learn")
        assert "{ham, home}" in until(page, "#learned", lambda t: "version 1" in t)
        ref.partial_fit([text], [["ham", "home"]])
        assert page.inner_text("#label") == ", ".join(ref.predict_labels([text])[0]) or "no label"
        probs = page.eval_on_selector_all("#bars .bar-row", "rows => rows.map(r => [r.dataset.label, Number(r.dataset.p)])")
        P = dict(zip(ref.classes_.tolist(), ref.predict_proba([text])[0]))
        np.testing.assert_allclose([p for _, p in probs], [P[k] for k, _ in probs], rtol=0, atol=1e-9)
