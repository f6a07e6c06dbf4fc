"""The page of ``nbayes serve`` in Debian's headless Chromium: with ``--learn`` and a pool, the
"label these" queue suggests items to the annotator and learns the label chosen; with
``--track-prior``, the drift of the class prior is shown (and refreshed)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("starlette", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")
pytest.importorskip("uvicorn", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")

import nbayes  # noqa: E402
from nbayes.serve import create_app  # noqa: E402

from .test_page import TOKEN, base, page_of, until  # noqa: E402  (the page's helpers, written once)
from .test_page import HAM, SPAM  # noqa: E402

POOL = {"p1": "zebra okapi free", "p2": "lunch prize", "p3": "home cash tonight", "p4": "river stone"}


def test_the_label_these_queue_suggests_and_learns(browser, tmp_path, live_server):
    import httpx

    path = tmp_path / "spam.nbm"
    base().save(path)
    with live_server(create_app(str(path), learn=True, token=TOKEN)) as url:
        with page_of(browser, url) as page:
            assert page.is_visible("#queue") and "no pool" in page.inner_text("#queue-status")
        r = httpx.post(url + "/v1/pool", json={"texts": POOL}, headers={"Authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 200, r.text
        with page_of(browser, url) as page:
            assert "4 of 4 items free" in page.inner_text("#queue-status")
            page.fill("#annotator", "alice")
            page.fill("#queue-token", TOKEN)
            page.fill("#queue-k", "3")
            page.click("#suggest")
            until(page, "#queue-status", lambda t: "leased to alice" in t)
            ids = page.eval_on_selector_all("#queue-items li", "items => items.map(li => li.dataset.id)")
            assert len(ids) == 3 and set(ids) <= set(POOL)
            first = ids[0]
            page.select_option(f"#queue-items li[data-id='{first}'] select", label="ham")
            page.click(f"#queue-items li[data-id='{first}'] button")
            until(page, "#queue-status", lambda t: "version 1" in t)
            assert page.eval_on_selector_all("#queue-items li", "items => items.length") == 2
            assert "version 1" in page.inner_text("#meta")
        ref = base().partial_fit([POOL[first]], ["ham"])
        got = httpx.post(url + "/v1/predict", json={"text": POOL[first]}).json()
        np.testing.assert_allclose(got["probabilities"]["ham"], ref.predict_proba([POOL[first]])[0][0], rtol=1e-12)
        # another annotator is offered only the item left
        r = httpx.post(url + "/v1/suggest", json={"annotator": "bob", "k": 4}, headers={"Authorization": f"Bearer {TOKEN}"})
        assert [it["id"] for it in r.json()["items"]] == sorted(set(POOL) - set(ids))


def test_the_page_shows_the_drift_of_the_prior(browser, tmp_path, live_server):
    import httpx

    path = tmp_path / "spam.nbm"
    model = nbayes.TextClassifier(alpha=0.5).fit(SPAM * 5 + HAM * 5, ["spam"] * 15 + ["ham"] * 15)
    model.save(path)
    with live_server(create_app(str(path), track_prior=True, track_refresh=0)) as url:
        with page_of(browser, url) as page:
            assert page.is_visible("#drift") and "no rows predicted yet" in page.inner_text("#drift-message")
            assert not page.is_visible("#queue")  # no learning: no queue
            r = httpx.post(url + "/v1/predict", json={"texts": ["win a free prize now", "claim free cash"] * 100})
            assert r.status_code == 200
            page.click("#drift-refresh")
            message = until(page, "#drift-message", lambda t: "differs from training" in t)
            assert "with_prior" in message
            assert page.get_attribute("#drift", "data-drift") == "true"
            rows = page.eval_on_selector_all("#drift-table tr[data-label]", "rows => rows.map(r => [r.dataset.label, "
                                                                             "Number(r.dataset.estimate)])")
            tracked = httpx.get(url + "/v1/model").json()["prior_tracking"]["estimate"]["prior"]
            assert sorted(k for k, _ in rows) == ["ham", "spam"]
            np.testing.assert_allclose([p for _, p in rows], [tracked[k] for k, _ in rows], rtol=1e-12)
            assert dict(rows)["spam"] > 0.9
