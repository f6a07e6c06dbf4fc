"""Laws of the class prior and of explanations: ``with_prior`` is Bayes' rule with the new
prior exactly; impossible priors are refused clearly; explanations add up.

Same contract as :mod:`nbayes.testing.laws_learning`: ``law(estimator, data)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import NBayesError
from ._compare import LawError, Tolerance, assert_unchanged, clone, same_log, snapshot
from .data import Dataset

__all__ = ["BAD_PRIORS", "law_explanations_add_up", "law_prior_parameter", "law_with_prior"]

#: priors for three classes that must be refused with a clear error
BAD_PRIORS: dict[str, Any] = {
    "a negative entry": [-0.1, 0.6, 0.5],
    "a NaN entry": [np.nan, 0.5, 0.5],
    "an infinite entry": [np.inf, 1.0, 1.0],
    "all zero": [0.0, 0.0, 0.0],
    "two entries for three classes": [0.5, 0.5],
    "a string": "uniform",
}


def _normalised(log_p: np.ndarray) -> np.ndarray:
    m = log_p.max(axis=1, keepdims=True)
    out: np.ndarray = log_p - (m + np.log(np.exp(log_p - m).sum(axis=1, keepdims=True)))
    return out


def law_with_prior(estimator: Any, data: Dataset) -> None:
    """``with_prior(p)`` predicts P(y | x) proportional to P(x | y) p(y), exactly, for p as a
    list in ``classes_`` order or a mapping label -> probability (not necessarily summing to
    1); a zero entry gives its class probability 0; impossible priors are a clear error;
    the original model is unchanged."""
    model = clone(estimator).fit(data.X, data.y)
    classes = model.classes_.tolist()
    before = snapshot(model)
    p1, p2 = np.array([0.6, 0.3, 0.1]), np.array([0.1, 0.2, 0.7])
    m1 = model.with_prior(p1.tolist())
    m2 = model.with_prior({c: float(v) for c, v in zip(classes, p2)})
    lp1, lp2 = m1.predict_log_proba(data.X), m2.predict_log_proba(data.X)
    tol = Tolerance(1e-10, 1e-12)
    expected = _normalised(lp1 - np.log(p1) + np.log(p2))
    try:
        np.testing.assert_allclose(np.exp(lp2), np.exp(expected), rtol=tol.rtol, atol=tol.atol)
    except AssertionError as exc:
        raise LawError(f"with_prior: posteriors under {p1.tolist()} and {p2.tolist()} are not Bayes' rule apart\n{exc}") from None
    if "joint_log_proba" in estimator.capabilities:
        j1, j2 = m1.predict_joint_log_proba(data.X), m2.predict_joint_log_proba(data.X)
        same_log(j2 - np.log(p2), j1 - np.log(p1), tol, "with_prior: joint log-probabilities minus log prior")
    scaled = model.with_prior((p1 * 7).tolist())
    try:
        np.testing.assert_allclose(scaled.predict_proba(data.X), m1.predict_proba(data.X), rtol=1e-12, atol=1e-14)
    except AssertionError as exc:
        raise LawError(f"with_prior: a prior times 7 predicts differently\n{exc}") from None
    as_list, as_map = model.with_prior(p2.tolist()), m2
    if not np.array_equal(as_list.predict_proba(data.X), as_map.predict_proba(data.X)):
        raise LawError("with_prior: a list in classes_ order and the same mapping predict differently")
    zero = model.with_prior([0.5, 0.5, 0.0])
    if np.any(zero.predict_proba(data.X)[:, 2] != 0) or np.any(zero.predict(data.X) == model.classes_[2]):
        raise LawError("with_prior: a class of prior 0 keeps probability (or is predicted)")
    for name, bad in {**BAD_PRIORS, "a mapping missing a class": {classes[0]: 0.5, classes[1]: 0.5},
                      "a mapping with an unknown label": {**dict(zip(classes, p1)), "no-such-label": 0.1}}.items():
        try:
            model.with_prior(bad)
        except NBayesError:
            continue
        except Exception as exc:
            raise LawError(f"with_prior with {name} ({bad!r}) raised {type(exc).__name__}: {exc}") from None
        raise LawError(f"with_prior with {name} ({bad!r}) was accepted")
    assert_unchanged(before, model, "with_prior (the original model)")


def law_prior_parameter(estimator: Any, data: Dataset) -> None:
    """An impossible prior given as a parameter (``class_prior`` / ``priors``) is refused with
    a clear error at fit."""
    names = [n for n in ("class_prior", "priors") if n in estimator.get_params(deep=False)]
    for name in names:
        for what, bad in BAD_PRIORS.items():
            model = clone(estimator).set_params(**{name: bad})
            try:
                model.fit(data.X, data.y)
            except NBayesError:
                continue
            except Exception as exc:
                raise LawError(f"{name}={bad!r} ({what}) raised {type(exc).__name__}: {exc}") from None
            raise LawError(f"{name}={bad!r} ({what}) was accepted by fit")


def law_explanations_add_up(estimator: Any, data: Dataset) -> None:
    """Explanations add up: per row and class the terms plus the intercept are the joint
    log-probability (``explain(X).joint() == predict_joint_log_proba(X)``); for texts the
    tokens' contributions plus the baseline are the log-odds of the predicted class against
    the runner-up."""
    model = clone(estimator).fit(data.X, data.y)
    if "text" in estimator.capabilities:
        _text_explanations_add_up(model, data)
        return
    X = data.rows(slice(0, 30)).X
    e = model.explain(X)
    base = _reference(model, e)
    log_p = base.predict_log_proba(X)
    tol = Tolerance(1e-9, 1e-9)
    if "joint_log_proba" in base.capabilities:
        same_log(e.joint(), base.predict_joint_log_proba(X), tol, "explain(X).joint() vs predict_joint_log_proba(X)")
    joint = e.joint()
    fin = np.isfinite(joint).all(axis=1)
    same_log(_normalised(joint[fin]), log_p[fin], tol, "explain(X).joint() normalised vs predict_log_proba(X)")
    for row in np.flatnonzero(fin)[:10]:
        a, b, terms, baseline = e.log_odds(int(row))
        ia, ib = base.classes_.tolist().index(a), base.classes_.tolist().index(b)
        got, want = float(np.sum(terms) + baseline), float(log_p[row, ia] - log_p[row, ib])
        if not np.isclose(got, want, rtol=1e-9, atol=1e-9):
            raise LawError(f"explain(X).log_odds({row}): terms + baseline = {got!r}, the log-odds is {want!r}")


def _reference(model: Any, e: Any) -> Any:
    """The model whose numbers the explanation ``e`` adds up to: a wrapper's explanation says
    (a calibrated model's ``CalibratedExplanation.calibrated``: True when the terms were mapped
    to the calibrated model's log-odds, possible where the map is affine; False when they are
    the base model's, unchanged); a model without a wrapper explains itself."""
    calibrated = getattr(e, "calibrated", None)
    if calibrated is None or calibrated:
        return model
    return model.base_estimator_


def _text_explanations_add_up(model: Any, data: Dataset) -> None:
    docs = list(data.X[:30]) + ["ff ff ff ff", "cheap cheap unknownword", "", "Noon NOON noon meeting"]
    log_p = model.predict_log_proba(docs)
    for i, doc in enumerate(docs):
        e = model.explain(doc)
        if _reference(model, e) is not model:
            log_p[i] = _reference(model, e).predict_log_proba([doc])[0]
        ia, ib = model.classes_.tolist().index(e.predicted), model.classes_.tolist().index(e.runner_up)
        got, want = float(np.sum(e.contributions) + e.baseline), float(log_p[i, ia] - log_p[i, ib])
        if not np.isclose(got, want, rtol=1e-9, atol=1e-9):
            raise LawError(f"explain({doc!r}): contributions + baseline = {got!r}, the log-odds is {want!r}")
        if log_p[i, ia] < log_p[i].max() - 1e-12:
            raise LawError(f"explain({doc!r}) names {e.predicted!r} as predicted; predict_proba says otherwise")
