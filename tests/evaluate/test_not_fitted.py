"""One class of failure over every public estimator: a method (or a fitted attribute) used
before ``fit`` raises NotFittedError naming the class, never a raw AttributeError, TypeError or
KeyError from deep inside.

The estimators are those of ``nbayes.__all__`` (classes with ``fit``); their public methods are
discovered, so a method added later is checked too (it must get an entry in ``CALLS``). Fitted
attributes are those a fitted model of the class has (public names ending in ``_``).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np
import pytest

import nbayes
from nbayes._estimator import BaseEstimator

from nbayes.errors import NotFittedError

TEXTS = ["cheap pills now", "meeting at noon", "cheap cheap offer", "lunch meeting today",
         "win cheap prize", "noon lunch"]
LABELS = ["spam", "ham", "spam", "ham", "spam", "ham"]
_rng = np.random.default_rng(7)
COUNTS = _rng.poisson(2.0, (6, 3)).astype(float) + np.array([[3, 0, 0], [0, 3, 0]] * 3)


def _estimators() -> list[tuple[str, Callable[[], Any]]]:
    """(id, factory) for every public estimator; a wrapper once per kind of base model."""
    out: list[tuple[str, Callable[[], Any]]] = []
    for name in sorted(nbayes.__all__):
        cls = getattr(nbayes, name)
        if not (isinstance(cls, type) and hasattr(cls, "fit")):
            continue
        if "estimator" in inspect.signature(cls).parameters:  # a wrapper: over a table and a text model
            extra = {"cv": 2} if "cv" in inspect.signature(cls).parameters else {}
            out.append((f"{name}(MultinomialNB)", lambda cls=cls, extra=extra: cls(nbayes.MultinomialNB(), **extra)))
            out.append((f"{name}(TextClassifier)", lambda cls=cls, extra=extra: cls(nbayes.TextClassifier(), **extra)))
        else:
            out.append((name, cls))
    return out


ESTIMATORS = _estimators()


def _data(model: Any) -> tuple[Any, Any, Any]:
    """(X, y, one row as the model's explain takes it); label sets for a multi-label model."""
    sets = isinstance(model, nbayes.MultiLabel)
    if "text" in model.capabilities:
        return TEXTS, [[v] for v in LABELS] if sets else LABELS, TEXTS[0]
    X = np.vstack([COUNTS, COUNTS + _rng.poisson(1.0, COUNTS.shape)])  # rows enough for a covariance
    return X, [[v] for v in LABELS * 2] if sets else LABELS * 2, X[:1]


#: how each public method is called on an unfitted model (X, y, one row, a temporary folder)
CALLS: dict[str, Callable[..., Any]] = {
    "predict": lambda m, X, y, one, tmp: m.predict(X),
    "predict_labels": lambda m, X, y, one, tmp: m.predict_labels(X),
    "estimator_for": lambda m, X, y, one, tmp: m.estimator_for("spam"),
    "predict_proba": lambda m, X, y, one, tmp: m.predict_proba(X),
    "predict_index_proba": lambda m, X, y, one, tmp: m.predict_index_proba(X),
    "predict_log_proba": lambda m, X, y, one, tmp: m.predict_log_proba(X),
    "predict_joint_log_proba": lambda m, X, y, one, tmp: m.predict_joint_log_proba(X),
    "decision_function": lambda m, X, y, one, tmp: m.decision_function(X),
    "log_proba_before_after": lambda m, X, y, one, tmp: m.log_proba_before_after(X),
    "explain": lambda m, X, y, one, tmp: m.explain(one),
    "top_features": lambda m, X, y, one, tmp: m.top_features(3),
    "save": lambda m, X, y, one, tmp: m.save(tmp / "model.nbm"),
    "score": lambda m, X, y, one, tmp: m.score(X, y),
    "unlearn": lambda m, X, y, one, tmp: m.unlearn(X, y),
    "merge": lambda m, X, y, one, tmp: m.merge(m),
    "with_prior": lambda m, X, y, one, tmp: m.with_prior([0.5, 0.5]),
    "estimate_prior": lambda m, X, y, one, tmp: m.estimate_prior(X),
    "to_logistic": lambda m, X, y, one, tmp: m.to_logistic(),
    "transform": lambda m, X, y, one, tmp: m.transform(X),
    "to_state": lambda m, X, y, one, tmp: m.to_state(),
    "check_fitted": lambda m, X, y, one, tmp: m.check_fitted(),
    "display_feature_names": lambda m, X, y, one, tmp: m.display_feature_names(),
    "label_statistics": lambda m, X, y, one, tmp: m.label_statistics(X, y),
    "add_statistics": lambda m, X, y, one, tmp: m.add_statistics(None, np.array(["spam"])),
    "predict_with_thresholds": lambda m, X, y, one, tmp: m.predict_with_thresholds(X),
    "leave_one_out_joint": lambda m, X, y, one, tmp: m.leave_one_out_joint(X, np.zeros(len(y), dtype=np.intp),
                                                                          np.ones(len(y))),
}

#: methods that fit (or describe settings): they work before fit
LEARNING = {"fit", "partial_fit", "stream", "get_params", "set_params"}
#: the statistics protocol's hooks (docs/architecture.md): called by fit and by code that builds
#: models from statistics, on fitted and unfitted models alike
PROTOCOL = {"check_params", "prepare_input", "count_statistics", "count_expected", "estimate_parameters",
            "log_likelihood", "joint_log_likelihood", "feature_terms", "feature_scores", "prior_parameters",
            "set_statistics", "input_feature_names", "statistics_from_arrays", "from_state", "settings",
            "set_coefficients", "infer_column_kinds", "unfitted_like", "tfidf_key",
            # estimation's settings values (nbayes.naive_bayes.params) and the text fold door
            # (docs/architecture.md): what model selection calls to estimate over fold statistics
            "estimation_settings", "prior_settings", "term_table", "count_matrix", "kept_terms",
            "learned_idf", "tfidf_rows", "count_model",
            # a text model's parameters as a value (TextParams): its online update and the swap
            "parameters_plus", "take_parameters", "dense_part",
            # what messages and explanations show of the columns (naive_bayes._naming)
            "error_columns", "located", "naming", "feature_bins"}


def _public_methods(cls: type) -> list[str]:
    return sorted(
        k for k in dir(cls)
        if not k.startswith("_") and k not in LEARNING | PROTOCOL and callable(inspect.getattr_static(cls, k, None))
    )


METHOD_CASES = [
    pytest.param(make, method, id=f"{name}.{method}")
    for name, make in ESTIMATORS
    for method in _public_methods(type(make()))
]


@pytest.mark.parametrize("make, method", METHOD_CASES)
def test_a_method_before_fit_raises_not_fitted_naming_the_class(make, method, tmp_path):
    model = make()
    assert method in CALLS, f"{type(model).__name__}.{method}: a new public method; add how to call it to CALLS"
    X, y, one = _data(model)
    with pytest.raises(NotFittedError, match=type(model).__name__):
        CALLS[method](model, X, y, one, tmp_path)
    assert not (tmp_path / "model.nbm").exists()  # save wrote nothing


def _fitted_attributes(make: Callable[[], Any]) -> list[str]:
    model = make()
    X, y, _ = _data(model)
    model.fit(X, y)
    names = {k for k in vars(model) if k.endswith("_") and not k.startswith("_")}
    names |= {
        k for k in dir(type(model))
        if k.endswith("_") and not k.startswith("_") and isinstance(inspect.getattr_static(type(model), k), property)
    }
    return sorted(names)


ATTRIBUTE_CASES = [
    pytest.param(_make, _attr, id=f"{_name}.{_attr}")
    for _name, _make in ESTIMATORS
    for _attr in _fitted_attributes(_make)
]


@pytest.mark.parametrize("make, attribute", ATTRIBUTE_CASES)
def test_a_fitted_attribute_before_fit_raises_not_fitted_naming_the_class(make, attribute):
    model = make()
    with pytest.raises(NotFittedError, match=type(model).__name__):
        getattr(model, attribute)
    assert not hasattr(model, attribute)  # NotFittedError is an AttributeError: hasattr is False


@pytest.mark.parametrize("make", [pytest.param(m, id=n) for n, m in ESTIMATORS])
def test_capabilities_answer_before_fit(make):
    model = make()
    assert isinstance(model.capabilities, frozenset)
    assert model.capabilities <= set(nbayes._estimator.CAPABILITIES)


def test_calibrated_absent_attribute_after_fit_is_a_plain_attribute_error():
    cal = nbayes.CalibratedClassifier(nbayes.MultinomialNB(), cv=2).fit(COUNTS, LABELS)
    with pytest.raises(AttributeError) as info:
        cal.feature_names_in_  # fitted on an array: no column names, and not "not fitted"
    assert not isinstance(info.value, NotFittedError)
    assert getattr(cal, "feature_names_in_", None) is None
    with pytest.raises(AttributeError):
        cal.no_such_thing_
