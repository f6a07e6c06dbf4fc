"""The laws on drawn data and drawn chunkings (bounded: a few examples per model), and the
suite's own contract (selection by capability, errors naming the law)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbayes
from nbayes.testing import REQUIREMENTS, LawError, check_estimator, checks
from nbayes.testing.data import dataset_for
from nbayes.testing.laws_learning import law_fit_equals_chunked_partial_fit, law_unlearn_subset
from nbayes.testing.strategies import chunkings, datasets

MODELS = {"counts": nbayes.MultinomialNB(), "binary": nbayes.BernoulliNB(), "real": nbayes.GaussianNB(),
          "categories": nbayes.CategoricalNB()}


@settings(max_examples=5, deadline=None)
@given(st.data())
@pytest.mark.parametrize("kind", sorted(MODELS))
def test_chunked_partial_fit_on_drawn_data(kind, data):
    ds = data.draw(datasets(kind, min_rows=20, max_rows=40))
    law_fit_equals_chunked_partial_fit(MODELS[kind], ds, data.draw(chunkings(ds)))
    law_unlearn_subset(MODELS[kind], ds)


def test_checks_follow_capabilities():
    names = {n for n, _ in checks(nbayes.LogisticRegression())}
    assert "unlearn_class" not in names and "with_prior" not in names
    assert {"probabilities", "not_fitted", "save_load"} <= names
    assert all(REQUIREMENTS[n] <= nbayes.LogisticRegression().capabilities for n in names)
    text = {n for n, _ in checks(nbayes.TextClassifier(tfidf=True))}
    assert "fit_equals_chunked_partial_fit" not in text and "feature_order" not in text


class _Broken(nbayes.MultinomialNB):
    """A model whose probabilities do not sum to one: the suite must say which law fails."""

    def predict_proba(self, X):
        return super().predict_proba(X) * 0.5


def test_a_broken_model_fails_naming_the_law():
    with pytest.raises(LawError, match="law 'probabilities' fails for _Broken"):
        check_estimator(_Broken())


def test_check_estimator_runs_on_a_user_model():
    ran = check_estimator(nbayes.GaussianBayes(covariance="shared"), data=dataset_for(nbayes.GaussianNB(), 3),
                          skip={"labels_keep_their_types"})
    assert "scale_invariance" in ran and "save_load" in ran
    with pytest.raises(nbayes.errors.InvalidParameterError, match="no law named"):
        list(checks(nbayes.GaussianNB(), skip={"bogus"}))
    assert np.isfinite(dataset_for(nbayes.GaussianNB(), 1).X).all()


class _MislabelledExplanation(nbayes.CalibratedClassifier):
    """A calibrated model whose explanation claims to add up to the calibrated numbers while
    its terms are the base model's: the law must read the claim and fail."""

    def explain(self, X):
        import dataclasses

        e = super().explain(X)
        return dataclasses.replace(e, calibrated=not e.calibrated)


def test_explanation_law_holds_calibrated_explanations_to_their_claim():
    from nbayes.testing import laws_prior

    data = dataset_for(nbayes.MultinomialNB(), 5)
    honest = nbayes.CalibratedClassifier(nbayes.MultinomialNB(), method="temperature")
    laws_prior.law_explanations_add_up(honest, data)
    with pytest.raises(LawError, match="log-odds|joint"):
        laws_prior.law_explanations_add_up(_MislabelledExplanation(nbayes.MultinomialNB(), method="temperature"), data)
