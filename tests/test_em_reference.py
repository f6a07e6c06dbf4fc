"""nbayes.EM equals the EM of the constructors' settings it replaced, to 1e-12.

``em_reference.json`` holds what nbayes at e981f7e (the seven EM settings in every Naive Bayes
constructor: ``MultinomialNB(unlabeled_weight=..., em_max_iter=..., n_components=...)``) gave on
the cases below (n_iter_, the objective's trace, the chosen lambda and cross-validation scores,
probabilities and predictions); the wrapper must give the same numbers for the same settings
(``em_max_iter`` / ``em_tol`` are now ``max_iter`` / ``tol``). To record it again with such a
version: ``python tests/test_em_reference.py old`` (run against that version's source).
"""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

import nbayes

REFERENCE = pathlib.Path(__file__).with_name("em_reference.json")
RENAMED = {"em_max_iter": "max_iter", "em_tol": "tol"}



@pytest.fixture(autouse=True)
def _basic_em_default(monkeypatch):
    """These tests check the EM algorithm at the paper's lambda = 1, which ``model.fit(X, y,
    X_unlabeled=U)`` ran by default before its default became ``"auto"`` (lambda by
    cross-validation; tested in tests/test_semi_supervised_default.py)."""
    import functools

    import nbayes.naive_bayes._base as base

    monkeypatch.setattr(base, "EMSettings", functools.partial(base.EMSettings, unlabeled_weight=1.0))


def counts(seed, n=120, d=12, K=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    P = rng.dirichlet(np.ones(d) * 0.5, K)
    return np.stack([rng.multinomial(15, P[k]) for k in y]).astype(float), y


def texts(seed, n=80):
    rng = np.random.default_rng(seed)
    topics = [["ball", "goal", "team", "match", "score", "win"], ["bread", "cheese", "wine", "soup", "salad", "oven"],
              ["vote", "law", "party", "court", "tax", "mayor"]]
    docs, ys = [], []
    for _ in range(n):
        k = int(rng.integers(0, 3))
        words = list(rng.choice(topics[k], 5)) + list(rng.choice(sum(topics, []), 2)) + list(rng.choice(["the", "a", "and"], 2))
        docs.append(" ".join(words))
        ys.append(["sport", "food", "politics"][k])
    return docs, np.array(ys)


def cases():
    """name -> (model class, its own settings, EM settings (old names), X, y, fit keywords, rows to predict)."""
    X, y = counts(0)
    X2, y2 = counts(1)
    yb = y2.copy()
    yb[20:] = -1
    Xc = np.minimum(X2, 3).astype(int)
    docs, ty = texts(2)
    M, B, C, N, T = nbayes.MultinomialNB, nbayes.BernoulliNB, nbayes.CategoricalNB, nbayes.NaiveBayes, nbayes.TextClassifier
    return {
        "multinomial": (M, {"alpha": 0.5}, {}, X[:15], y[:15], {"X_unlabeled": X[15:]}, X),
        "multinomial-cv": (M, {"alpha": 0.1, "class_alpha": 1.0}, {"unlabeled_weight": "cv"}, X[:30], y[:30],
                           {"X_unlabeled": X[30:]}, X),
        "bernoulli-label": (B, {"alpha": 1.0, "binarize": 1.0}, {"unlabeled_label": -1, "unlabeled_weight": 0.3, "em_tol": 1e-8},
                            X2, yb, {}, X2),
        "categorical": (C, {"alpha": 1.0}, {"em_max_iter": 7}, Xc[:25], y2[:25], {"X_unlabeled": Xc[25:]}, Xc),
        "mixed": (N, {}, {}, Xc[:25], y2[:25], {"X_unlabeled": Xc[25:]}, Xc),
        "text": (T, {"alpha": 0.2}, {}, docs[:9], ty[:9], {"X_unlabeled": docs[9:]}, docs),
        "text-hash-bern-cv": (T, {"model": "bernoulli", "n_features": 64}, {"unlabeled_weight": "cv"}, docs[:24], ty[:24],
                              {"X_unlabeled": docs[24:]}, docs),
        "mixture": (M, {"alpha": 1.0}, {"n_components": [2, 1, 1], "n_init": 3, "random_state": 4}, X[:30], y[:30],
                    {"X_unlabeled": X[30:]}, X),
        "mixture-labelled": (B, {"class_alpha": 0.5}, {"n_components": 2}, X2[:60], y2[:60], {}, X2),
        "text-mixture": (T, {}, {"n_components": 2, "unlabeled_weight": "cv", "random_state": 1}, docs[:30], ty[:30],
                         {"X_unlabeled": docs[30:]}, docs),
    }


def outcome(report, model, rows):
    cv = report.em_cv_scores_
    return {
        "n_iter": int(report.n_iter_), "trace": np.asarray(report.em_log_likelihood_).tolist(),
        "converged": bool(report.em_converged_), "lam": float(report.unlabeled_weight_),
        "cv": None if cv is None else {str(k): v for k, v in cv.items()},
        "proba_first_rows": np.asarray(model.predict_proba(rows)).tolist()[:12],
        "pred": [str(v) for v in model.predict(rows)],
    }


@pytest.mark.parametrize("name", sorted(cases()))
def test_wrapper_equals_the_constructor_settings_it_replaced(name):
    want = json.loads(REFERENCE.read_text())["cases"][name]
    cls, own, em, X, y, kw, rows = cases()[name]
    fitted = nbayes.EM(cls(**own), **{RENAMED.get(k, k): v for k, v in em.items()}).fit(X, y, **kw)
    got = outcome(fitted, fitted.estimator_, rows)
    assert got["n_iter"] == want["n_iter"] and got["converged"] == want["converged"]
    assert got["lam"] == want["lam"] and got["cv"] == want["cv"]
    np.testing.assert_allclose(got["trace"], want["trace"], rtol=1e-12, atol=0)
    np.testing.assert_allclose(got["proba_first_rows"], want["proba_first_rows"], rtol=1e-12, atol=1e-15)
    assert got["pred"] == want["pred"]
    # the wrapper predicts as its model
    np.testing.assert_array_equal(fitted.predict_proba(rows), fitted.estimator_.predict_proba(rows))
    if not em:  # the defaults: model.fit(X, y, X_unlabeled=U) is the same run
        plain = cls(**own).fit(X, y, **kw)
        assert outcome(plain, plain, rows) == got


if __name__ == "__main__" and sys.argv[1:] == ["old"]:  # pragma: no cover - records the reference
    out = {}
    for name, (cls, own, em, X, y, kw, rows) in cases().items():
        model = cls(**own, **em).fit(X, y, **kw)
        out[name] = outcome(model, model, rows)
    REFERENCE.write_text(json.dumps({"recorded_with": "nbayes with the EM settings in the constructors",
                                     "cases": out}, indent=0))
