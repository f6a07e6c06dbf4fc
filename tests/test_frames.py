"""Results as frames (#29 item 7): ``SearchCV.to_frame`` and ``explanation.to_frame`` (pandas
when installed, else polars), one schema for text and table explanations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import nbayes
from nbayes._frames import EXPLANATION_COLUMNS
from nbayes.calibration import CalibratedClassifier
from nbayes.errors import InvalidParameterError
from nbayes.model_selection import SearchCV

TEXTS = ["win a free prize", "free cash now", "claim the prize now", "lunch at noon", "see you at home",
         "meeting at noon"] * 2
LABELS = ["spam"] * 3 + ["ham"] * 3
Y = LABELS * 2


def test_search_frame_is_cv_results_best_first():
    X = [[3, 0], [2, 1], [4, 0], [0, 3], [1, 2], [0, 4]] * 2
    y = list("aaabbb") * 2
    search = SearchCV(nbayes.MultinomialNB(), {"alpha": [0.01, 1.0, 50.0], "fit_prior": [True, False]}, cv=3).fit(X, y)
    res = search.cv_results_
    order = np.argsort(res["rank_test_score"], kind="stable")
    for library, kind in (("pandas", pd.DataFrame), ("polars", pl.DataFrame), (None, pd.DataFrame)):
        df = search.to_frame(library)
        assert isinstance(df, kind) and len(df) == 6
        as_dict = df.to_dict("list") if isinstance(df, pd.DataFrame) else df.to_dict(as_series=False)
        assert as_dict["alpha"] == [res["params"][c]["alpha"] for c in order]
        np.testing.assert_array_equal(as_dict["mean_test_score"], res["mean_test_score"][order])
        assert as_dict["rank_test_score"] == sorted(as_dict["rank_test_score"])
        assert "split2_test_score" in as_dict and "params" not in as_dict
    with pytest.raises(InvalidParameterError, match="library"):
        search.to_frame("arrow")


def _log_odds(model, X):
    joint = np.sort(model.predict_joint_log_proba(X), axis=1)
    return joint[:, -1] - joint[:, -2]


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_text_and_table_explanations_share_one_schema_that_adds_up(library):
    text = nbayes.TextClassifier().fit(TEXTS, Y)
    e = text.explain("claim your free prize at noon").to_frame(library)
    X = pd.DataFrame({"age": [20.0, 35, 50, 62, 28, 44], "job": ["a", "b", "a", "b", "a", None]})
    table = nbayes.NaiveBayes().fit(X, LABELS)
    t = table.explain(X).to_frame(library)
    assert list(e.columns) == list(t.columns) == list(EXPLANATION_COLUMNS)
    if library == "polars":
        assert e.schema == t.schema
        e, t = e.to_pandas(), t.to_pandas()
    else:
        assert list(e.dtypes) == list(t.dtypes)
    assert e["row"].eq(0).all() and e["start"].notna().all()
    total = e["contribution"].sum() + e["baseline"].iloc[0]
    np.testing.assert_allclose(total, _log_odds(text, ["claim your free prize at noon"])[0], rtol=1e-10)
    assert t["start"].isna().all() and set(t["term"]) == {"age", "job"}
    per_row = t.groupby("row")["contribution"].sum() + t.groupby("row")["baseline"].first()
    np.testing.assert_allclose(per_row.to_numpy(), _log_odds(table, X), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(t.groupby("row")["predicted"].first().to_numpy(), table.predict(X))


def test_a_calibrated_explanation_has_the_same_frame():
    cal = CalibratedClassifier(nbayes.TextClassifier(), cv=2).fit(TEXTS, Y)
    e = cal.explain("claim your free prize").to_frame("pandas")
    assert list(e.columns) == list(EXPLANATION_COLUMNS) and len(e) == 4


def test_polars_when_pandas_is_not_installed(monkeypatch):
    import nbayes._frames as frames

    real = frames.find_spec
    monkeypatch.setattr(frames, "find_spec", lambda name: None if name == "pandas" else real(name))
    model = nbayes.TextClassifier().fit(TEXTS, Y)
    assert isinstance(model.explain("free prize").to_frame(), pl.DataFrame)
    search = SearchCV(nbayes.MultinomialNB(), {"alpha": [0.1, 1.0]}, cv=2).fit([[1, 0], [0, 1]] * 4, list("abab") * 2)
    assert isinstance(search.to_frame(), pl.DataFrame)
    with pytest.raises(nbayes.errors.MissingDependencyError, match="pip install pandas"):
        search.to_frame("pandas")
