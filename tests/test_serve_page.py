"""The page of ``nbayes serve`` in headless Chromium: the probability bars start at the same x
whatever the labels' lengths, many classes show the top 5 and fold the rest ("N more"), and a
calibrated model's probabilities are said to be calibrated."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("starlette", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")
pytest.importorskip("uvicorn", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")

import nbayes  # noqa: E402
from nbayes.serve import create_app  # noqa: E402

WORDS = "apple river stone cloud maple tiger piano ocean candle forest violet silver engine garden mirror falcon " \
        "harbor lemon rocket saddle".split()
LABELS = [("c" if i % 3 else "a class with a very long name indeed, number ") + str(i) for i in range(20)]


@pytest.fixture(scope="module")
def model_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("page-models")
    docs = [f"{w} {w} {WORDS[(i + 1) % 20]} text" for i, w in enumerate(WORDS)] * 3
    nbayes.TextClassifier().fit(docs, LABELS * 3).save(d / "many.nbm")
    spam = ["win a free prize now", "free cash claim now", "claim your prize", "win cash now free"] * 3
    ham = ["lunch tomorrow at noon", "see you at home", "call me later tonight", "dinner was lovely"] * 3
    nbayes.CalibratedClassifier(nbayes.TextClassifier(), cv=3).fit(spam + ham, ["spam"] * 12 + ["ham"] * 12).save(
        d / "calibrated.nbm")
    return d


@pytest.fixture(scope="module")
def servers(model_files, live_server):
    with live_server(create_app(str(model_files / "many.nbm"))) as many, \
            live_server(create_app(str(model_files / "calibrated.nbm"))) as calibrated:
        yield {"many": many, "calibrated": calibrated}


def _classify(browser, url, text):
    page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(url + "/")
    page.wait_for_selector("#go:not([disabled])", timeout=10_000)
    page.fill("#text", text)
    page.click("#go")
    page.wait_for_selector("#bars .bar-row", timeout=10_000)
    return page, problems


def _visible_bars(page):
    """(label, x where its track starts, probability) of every shown bar row."""
    return page.eval_on_selector_all(
        "#bars .bar-row:not([hidden])",
        "rows => rows.map(r => [r.dataset.label, r.querySelector('.track').getBoundingClientRect().left, Number(r.dataset.p)])")


def test_many_classes_top_five_aligned_rest_folded(browser, servers, tmp_path):
    page, problems = _classify(browser, servers["many"], "tiger tiger piano")
    try:
        shown = _visible_bars(page)
        assert len(shown) == 5
        assert len({round(x, 1) for _, x, _ in shown}) == 1, shown  # every bar starts at the same x
        assert [p for _, _, p in shown] == sorted((p for _, _, p in shown), reverse=True)
        assert page.inner_text("#label") == shown[0][0]
        fold = page.inner_text("#bars .fold")
        assert fold.startswith("15 more")
        page.click("#bars .fold")
        every = _visible_bars(page)
        assert len(every) == 20 and len({round(x, 1) for _, x, _ in every}) == 1, every
        names = page.eval_on_selector_all("#bars .bar-row .name",
                                          "ns => ns.map(n => [n.textContent, n.clientWidth, n.scrollWidth])")
        assert all(full <= w for label, w, full in names if len(label) <= 12), names  # short labels whole
        assert all(w <= 16 * 14 + 1 for _, w, _ in names), names  # the column at most 16em: long ones cut
        assert math.fsum(p for _, _, p in every) == pytest.approx(1.0, abs=1e-9)
        assert {label for label, _, _ in every} == set(LABELS)
        page.screenshot(path=str(tmp_path / "many.png"), full_page=True)
        page.click("#bars .fold")
        assert len(_visible_bars(page)) == 5
        assert page.is_hidden("#calib")  # not a calibrated model
        assert not problems, problems
    finally:
        page.context.close()


def test_two_classes_are_not_folded_and_calibration_is_said(browser, servers):
    page, problems = _classify(browser, servers["calibrated"], "win a free prize")
    try:
        shown = _visible_bars(page)
        assert len(shown) == 2 and page.query_selector("#bars .fold") is None
        assert len({round(x, 1) for _, x, _ in shown}) == 1
        calib = page.inner_text("#calib")
        assert page.is_visible("#calib") and calib.startswith("Calibrated probabilities (temperature, T = ")
        assert "TextClassifier" in calib
        assert not problems, problems
    finally:
        page.context.close()
