"""Issue #27: a text update learned with fractional weights is replayed from the log bit for bit
as the service acknowledged it (its counts summed exactly, not in float64 by term number)."""

from __future__ import annotations

import numpy as np
import pytest

import nbayes
from nbayes.serve import _delta, _records

DOCS = ["cheap pills now", "meeting at noon", "cheap offer now now", "lunch meeting today"]
UPDATES = [(["cheap lunch"], ["s"], [0.1]), (["noon pills offer"], ["h"], [1 / 3]), (["new words here"], ["s"], [0.2]),
           (["cheap cheap now"], ["h"], [2.0]), (["offer today"], ["s"], None), (["lunch noon"], ["h"], [1e17])]


@pytest.mark.parametrize("weighted", [True, False])
def test_replayed_updates_equal_the_acknowledged_model(weighted):
    model = nbayes.TextClassifier().fit(DOCS, ["s", "h", "s", "h"], sample_weight=[0.3, 1, 1, 0.7] if weighted else None)
    live, terms, bodies = model, _records.LogTerms([]), []
    for X, y, w in UPDATES:
        d = _delta.count(live, X, y, w)
        bodies.append(terms.body(d))
        terms.commit()
        live = _delta.apply(live, d)
    replayed, _ = _records.replay(model, bodies, 0, "a test log")
    a, b = live.stats_.to_arrays(), replayed.stats_.to_arrays()
    assert sorted(a) == sorted(b)
    assert any(k.startswith("stats/exact/") for k in a)  # fractional weights: tails, replayed too
    for k in a:
        assert np.asarray(a[k]).tobytes() == np.asarray(b[k]).tobytes(), k
