"""SearchCV over a scikit-learn Pipeline (#29): the grid names the steps' parameters as
GridSearchCV's does, with the same scores; the Pipeline given is not modified."""

from __future__ import annotations

import numpy as np
import pytest

import nbayes
from nbayes.errors import InvalidParameterError
from nbayes.model_selection import SearchCV

sklearn = pytest.importorskip("sklearn")
from sklearn.feature_extraction.text import CountVectorizer  # noqa: E402
from sklearn.model_selection import GridSearchCV, StratifiedKFold  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402

TEXTS = ["win a free prize", "free cash now", "claim the prize now", "cash prize to win", "urgent call now win",
         "lunch at noon", "see you at home", "meeting at noon", "home for lunch", "call me at home"] * 3
LABELS = ["spam"] * 5 + ["ham"] * 5
Y = LABELS * 3
GRID = {"vec__ngram_range": [(1, 1), (1, 2)], "nb__alpha": [0.1, 1.0]}


def pipeline():
    return Pipeline([("vec", CountVectorizer()), ("nb", nbayes.MultinomialNB())])


def test_pipeline_grid_scores_equal_gridsearchcv_and_leave_the_pipeline_alone():
    pipe = pipeline()
    cv = StratifiedKFold(3)
    ours = SearchCV(pipe, GRID, cv=cv).fit(TEXTS, Y)
    theirs = GridSearchCV(pipeline(), GRID, cv=cv).fit(TEXTS, Y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"])
    assert ours.best_params_ == theirs.best_params_
    assert isinstance(ours.best_estimator_, Pipeline)
    assert ours.best_estimator_.named_steps["vec"].ngram_range == ours.best_params_["vec__ngram_range"]
    assert pipe.named_steps["vec"].ngram_range == (1, 1) and not hasattr(pipe.named_steps["vec"], "vocabulary_")
    np.testing.assert_array_equal(ours.predict(TEXTS[:4]), ours.best_estimator_.predict(TEXTS[:4]))


def test_an_unknown_step_parameter_is_refused_up_front():
    with pytest.raises(InvalidParameterError, match=r"Pipeline has no hyperparameter 'vec__bogus'.*vec__ngram_range"):
        SearchCV(pipeline(), {"vec__bogus": [1]}).fit(TEXTS, Y)
