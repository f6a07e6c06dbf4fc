"""The laws every Naive Bayes model obeys, generated for every estimator and setting.

fit = chunked partial_fit = merge of shards; unlearn undoes partial_fit; duplicated rows =
integer weights; probabilities are probabilities; feature order does not matter; explanations
add up; files round-trip; a failed call changes nothing.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import nbayes
from nbayes.errors import DataError, FeatureMismatchError, NBayesError, UnlearnError


# ----------------------------------------------------------------------------- data
def counts_data(rng, n=120):
    y = rng.integers(0, 3, n)
    X = rng.poisson(1 + (np.arange(6)[None, :] == y[:, None]) * 2, (n, 6)).astype(float)
    return X, y


def binary_data(rng, n=120):
    y = rng.integers(0, 3, n)
    X = (rng.random((n, 6)) < 0.2 + 0.2 * y[:, None]).astype(float)
    X[rng.random(X.shape) < 0.08] = np.nan
    return X, y


def real_data(rng, n=120):
    y = rng.integers(0, 3, n)
    X = rng.normal(y[:, None], 1.0 + y[:, None] * 0.5, (n, 5))
    X[rng.random(X.shape) < 0.08] = np.nan
    return X, y


def category_data(rng, n=120):
    y = rng.integers(0, 3, n)
    vals = np.array(["a", "b", "c", "d"], dtype=object)
    X = np.empty((n, 4), dtype=object)
    X[:, 0] = vals[(y + rng.integers(0, 2, n)) % 4]
    X[:, 1] = rng.integers(0, 5, n)
    X[:, 2] = vals[rng.integers(0, 3, n)]
    X[:, 3] = (rng.random(n) < 0.5)
    X[rng.random(X.shape) < 0.08] = None
    return X, y


def int_category_data(rng, n=120):
    y = rng.integers(0, 3, n)
    return (rng.integers(0, 4, (n, 5)) + y[:, None]) % 6, y


def frame_data(rng, n=120):
    y = rng.integers(0, 3, n)
    df = pd.DataFrame(
        {
            "x": rng.normal(y, 1.0),
            "c": pd.Series(np.array(["p", "q", "r"], dtype=object)[(y + rng.integers(0, 2, n)) % 3], dtype=object),
            "b": rng.random(n) < 0.3 + 0.2 * y,
            "z": rng.normal(-y, 2.0),
        }
    )
    df.loc[rng.random(n) < 0.1, "x"] = np.nan
    df.loc[rng.random(n) < 0.1, "c"] = None
    return df, y


CASES: list[tuple[str, Callable[..., Any], dict, Callable]] = [
    ("multinomial", nbayes.MultinomialNB, {}, counts_data),
    ("multinomial-mle", nbayes.MultinomialNB, {"alpha": 0.0}, counts_data),
    ("complement", nbayes.ComplementNB, {}, counts_data),
    ("complement-norm", nbayes.ComplementNB, {"norm": True}, counts_data),
    ("bernoulli", nbayes.BernoulliNB, {}, binary_data),
    ("bernoulli-mle", nbayes.BernoulliNB, {"alpha": 0.0, "binarize": 0.5}, binary_data),
    ("gaussian", nbayes.GaussianNB, {}, real_data),
    ("gaussian-feature-ddof1", nbayes.GaussianNB, {"variance": "feature", "ddof": 1}, real_data),
    ("gaussian-class", nbayes.GaussianNB, {"variance": "class"}, real_data),
    ("gaussian-pooled-map", nbayes.GaussianNB, {"variance": "pooled", "mean_prior_strength": 2.0}, real_data),
    ("categorical", nbayes.CategoricalNB, {}, category_data),
    ("categorical-mle", nbayes.CategoricalNB, {"alpha": 0.0}, category_data),
    ("categorical-m", nbayes.CategoricalNB, {"m": 3.0}, category_data),
    ("categorical-int", nbayes.CategoricalNB, {"class_alpha": 1.0}, int_category_data),
    ("mixed", nbayes.NaiveBayes, {}, frame_data),
]
IDS = [c[0] for c in CASES]


def rows(X, idx):
    return X.iloc[idx] if isinstance(X, pd.DataFrame) else X[idx]


def cols(X, order):
    return X.iloc[:, order] if isinstance(X, pd.DataFrame) else X[:, order]


def same_model(a, b, X, rtol=1e-9, atol=1e-10):
    assert_array_equal(a.classes_, b.classes_)
    ja, jb = a.predict_joint_log_proba(X), b.predict_joint_log_proba(X)
    assert_array_equal(np.isneginf(ja), np.isneginf(jb))
    fin = np.isfinite(ja)
    assert_allclose(ja[fin], jb[fin], rtol=rtol, atol=atol)
    assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=rtol, atol=atol)


def fitted_state(model) -> dict:
    """Everything fitted, deep-copied, to compare before and after a failed call."""
    return copy.deepcopy({k: v for k, v in vars(model).items() if k.endswith("_") or k.startswith("_")})


def assert_same_state(a: dict, b: dict):
    assert a.keys() == b.keys()
    for k in a:
        _eq(a[k], b[k], k)


def _eq(x, y, where):
    if isinstance(x, np.ndarray):
        assert_array_equal(x, y, err_msg=where)
    elif isinstance(x, list | tuple):
        assert len(x) == len(y), where
        for i, (p, q) in enumerate(zip(x, y)):
            _eq(p, q, f"{where}[{i}]")
    elif isinstance(x, dict):
        assert x.keys() == y.keys(), where
        for k in x:
            _eq(x[k], y[k], f"{where}.{k}")
    elif hasattr(x, "__dict__") and not isinstance(x, type):
        _eq(vars(x), vars(y), where)
    else:
        assert x == y or (x != x and y != y), where


# ----------------------------------------------------------------------------- laws
@pytest.mark.parametrize("name,cls,params,make", CASES, ids=IDS)
def test_fit_equals_partial_fit_equals_merge(rng, name, cls, params, make):
    X, y = make(rng)
    classes = np.unique(y)
    full = cls(**params).fit(X, y)
    chunked = cls(**params)
    edges = [0, 1, 17, 60, 61, len(y)]
    for lo, hi in zip(edges[:-1], edges[1:]):
        chunked.partial_fit(rows(X, slice(lo, hi)), y[lo:hi], classes=classes)
    same_model(full, chunked, X)
    a = cls(**params).fit(rows(X, slice(0, 50)), y[:50])
    b = cls(**params).fit(rows(X, slice(50, None)), y[50:])
    same_model(full, a.merge(b), X)


@pytest.mark.parametrize("name,cls,params,make", CASES, ids=IDS)
def test_unlearn_undoes_partial_fit(rng, name, cls, params, make):
    X, y = make(rng)
    classes = np.unique(y)
    A, B = slice(0, 70), slice(70, None)
    base = cls(**params).partial_fit(rows(X, A), y[A], classes=classes)
    grown = cls(**params).partial_fit(rows(X, A), y[A], classes=classes).partial_fit(rows(X, B), y[B])
    grown.unlearn(rows(X, B), y[B])
    # Gaussian moments subtract with rounding proportional to the removed data
    same_model(base, grown, X, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("name,cls,params,make", CASES, ids=IDS)
def test_integer_weights_are_duplicated_rows(rng, name, cls, params, make):
    X, y = make(rng)
    w = rng.integers(0, 3, len(y)).astype(float)
    w[:3] = [1, 2, 0]
    weighted = cls(**params).fit(X, y, sample_weight=w)
    idx = np.repeat(np.arange(len(y)), w.astype(int))
    repeated = cls(**params).fit(rows(X, idx), y[idx])
    same_model(weighted, repeated, X)


@pytest.mark.parametrize("name,cls,params,make", CASES, ids=IDS)
def test_probabilities(rng, name, cls, params, make):
    X, y = make(rng)
    model = cls(**params).fit(X, y)
    proba = model.predict_proba(X)
    assert np.all((proba >= 0) & (proba <= 1))
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    log_proba = model.predict_log_proba(X)
    assert_allclose(np.exp(log_proba), proba, rtol=1e-15)
    assert_array_equal(model.predict(X), model.classes_[np.argmax(proba, axis=1)])


@pytest.mark.parametrize("name,cls,params,make", CASES, ids=IDS)
def test_feature_order_does_not_matter(rng, name, cls, params, make):
    X, y = make(rng)
    order = rng.permutation(X.shape[1])
    a = cls(**params).fit(X, y).predict_proba(X)
    b = cls(**params).fit(cols(X, order), y).predict_proba(cols(X, order))
    assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name,cls,params,make", CASES, ids=IDS)
def test_explanations_add_up(rng, name, cls, params, make):
    X, y = make(rng)
    model = cls(**params).fit(X, y)
    e = model.explain(rows(X, slice(0, 20)))
    joint = model.predict_joint_log_proba(rows(X, slice(0, 20)))
    assert_array_equal(np.isneginf(e.joint()), np.isneginf(joint))
    fin = np.isfinite(joint)
    assert_allclose(e.joint()[fin], joint[fin], rtol=1e-10, atol=1e-10)
    top = model.top_features(3)
    assert list(top) == model.classes_.tolist()
    for entries in top.values():
        assert len(entries) == 3
        scores = [s for _, s in entries]
        assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("name,cls,params,make", CASES, ids=IDS)
def test_save_load_round_trip(rng, tmp_path, name, cls, params, make):
    X, y = make(rng)
    model = cls(**params).fit(X, y)
    model.save(tmp_path / "m.nbm")
    back = nbayes.load(tmp_path / "m.nbm")
    assert type(back) is cls
    assert back.get_params().keys() == model.get_params().keys()
    assert_array_equal(back.predict_proba(X), model.predict_proba(X))
    assert_array_equal(back.predict(X), model.predict(X))


@pytest.mark.parametrize("name,cls,params,make", CASES, ids=IDS)
def test_failed_calls_change_nothing(rng, name, cls, params, make):
    X, y = make(rng)
    model = cls(**params).fit(X, y)
    before = fitted_state(model)
    bad_width = cols(X, list(range(X.shape[1] - 1)))
    with pytest.raises(FeatureMismatchError):
        model.partial_fit(bad_width, y)
    with pytest.raises(DataError):
        model.partial_fit(X, y[:-1])
    with pytest.raises(UnlearnError):
        model.unlearn(rows(X, slice(0, 2)), np.array([99, 99]))
    twice = np.concatenate([np.arange(len(y))] * 2)
    with pytest.raises(UnlearnError):
        model.unlearn(rows(X, twice), y[twice])
    with pytest.raises(DataError):
        model.partial_fit(X, y, sample_weight=-np.ones(len(y)))
    assert_same_state(before, fitted_state(model))


@pytest.mark.parametrize("cls", [nbayes.MultinomialNB, nbayes.ComplementNB], ids=["multinomial", "complement"])
def test_counts_reject_nan_and_negatives_naming_the_cell(rng, cls):
    X, y = counts_data(rng)
    model = cls().fit(X, y)
    before = fitted_state(model)
    bad = X.copy()
    bad[4, 2] = np.nan
    with pytest.raises(DataError, match="row 4, column 2"):
        model.partial_fit(bad, y)
    bad[4, 2] = -1
    with pytest.raises(DataError, match="row 4, column 2 holds -1.0"):
        model.partial_fit(bad, y)
    assert_same_state(before, fitted_state(model))


def test_gaussian_rejects_inf_and_changes_nothing(rng):
    X, y = real_data(rng)
    model = nbayes.GaussianNB().fit(X, y)
    before = fitted_state(model)
    bad = X.copy()
    bad[7, 1] = np.inf
    with pytest.raises(DataError, match="row 7, column 1"):
        model.partial_fit(bad, y)
    with pytest.raises(DataError, match="row 7, column 1"):
        model.predict(bad)
    assert_same_state(before, fitted_state(model))


@pytest.mark.parametrize("cls", [nbayes.MultinomialNB, nbayes.BernoulliNB], ids=["multinomial", "bernoulli"])
def test_sparse_equals_dense(rng, cls):
    X, y = counts_data(rng)
    a = cls().fit(X, y)
    b = cls().fit(sp.csr_matrix(X), y)
    same_model(a, b, X)
    assert_allclose(b.predict_proba(sp.csr_matrix(X)), a.predict_proba(X), rtol=1e-12)


def test_declared_but_unseen_class(rng):
    X, y = counts_data(rng)
    model = nbayes.MultinomialNB().partial_fit(X, y, classes=[0, 1, 2, 3])
    assert model.class_log_prior_[3] == -np.inf
    proba = model.predict_proba(X)
    assert not np.isnan(proba).any() and np.all(proba[:, 3] == 0)


def test_params_contract():
    model = nbayes.GaussianNB(var_smoothing=1e-3)
    assert model.get_params()["var_smoothing"] == 1e-3
    model.set_params(variance="pooled")
    assert model.variance == "pooled"
    with pytest.raises(nbayes.errors.InvalidParameterError, match="no parameter 'bogus'"):
        model.set_params(bogus=1)
    with pytest.raises(TypeError):
        nbayes.MultinomialNB(0.5)  # keyword-only
    from sklearn.base import clone

    c = clone(nbayes.CategoricalNB(alpha=0.3, m=2.0))
    assert c.get_params() == nbayes.CategoricalNB(alpha=0.3, m=2.0).get_params()
    assert not hasattr(c, "classes_")
    assert repr(nbayes.CategoricalNB(alpha=0.3)) == "CategoricalNB(alpha=0.3)"


def test_errors_are_value_errors():
    assert issubclass(NBayesError, ValueError)
    with pytest.raises(nbayes.errors.NotFittedError):
        nbayes.GaussianNB().predict([[1.0]])
    with pytest.raises(AttributeError):  # NotFittedError is also an AttributeError, as sklearn's
        nbayes.GaussianNB().predict([[1.0]])


# ----------------------------------------------------------------------------- properties
def _dataset(draw_labels, n, d, kind):
    rng = np.random.default_rng(draw_labels)
    y = rng.integers(0, 3, n)
    if kind == "counts":
        return rng.poisson(2.0, (n, d)).astype(float), y
    if kind == "binary":
        return (rng.random((n, d)) < 0.4).astype(float), y
    if kind == "real":
        return rng.normal(y[:, None], 1.0, (n, d)), y
    return rng.integers(0, 4, (n, d)), y


KIND_MODEL = {
    "counts": nbayes.MultinomialNB,
    "binary": nbayes.BernoulliNB,
    "real": nbayes.GaussianNB,
    "cats": nbayes.CategoricalNB,
}


@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(6, 60),
    d=st.integers(1, 5),
    kind=st.sampled_from(sorted(KIND_MODEL)),
    cut=st.floats(0.1, 0.9),
)
def test_laws_property(seed, n, d, kind, cut):
    X, y = _dataset(seed, n, d, kind)
    cls = KIND_MODEL[kind]
    classes = np.unique(y)
    k = max(1, min(n - 1, int(n * cut)))
    full = cls().fit(X, y)
    merged = cls().partial_fit(X[:k], y[:k], classes=classes).merge(
        cls().partial_fit(X[k:], y[k:], classes=classes)
    )
    same_model(full, merged, X, rtol=1e-8, atol=1e-8)
    chunked = cls().partial_fit(X[:k], y[:k], classes=classes).partial_fit(X[k:], y[k:])
    same_model(full, chunked, X, rtol=1e-8, atol=1e-8)
    forgot = cls().partial_fit(X, y, classes=classes).unlearn(X[k:], y[k:])
    kept = cls().partial_fit(X[:k], y[:k], classes=classes)
    if kind != "real":
        same_model(kept, forgot, X, rtol=1e-9, atol=1e-9)
        return
    # Subtracting moments cancels: the error is relative to the removed data's sums of
    # squares, not to what remains (CORRECTNESS.md), so compare the statistics at that scale.
    a, b = kept.stats_, forgot.stats_
    scale = float(np.sum((X - X.mean(axis=0)) ** 2)) + 1.0
    assert_allclose(a.weight, b.weight, atol=1e-12 * n)
    assert_allclose(a.mean, b.mean, atol=1e-12 * (np.abs(X).max() + 1))
    assert_allclose(a.m2, b.m2, atol=1e-12 * scale)


@pytest.mark.parametrize("cls", [nbayes.MultinomialNB, nbayes.ComplementNB, nbayes.BernoulliNB])
def test_sparse_fit_round_trips_bit_for_bit(rng, tmp_path, cls):
    X, y = counts_data(rng)
    model = cls().fit(sp.csr_matrix(X), y)
    model.save(tmp_path / "m.nbm")
    assert_array_equal(nbayes.load(tmp_path / "m.nbm").predict_proba(X), model.predict_proba(X))


def test_bernoulli_rules_of_correctness(rng):
    X, y = counts_data(rng)
    with pytest.raises(nbayes.errors.InvalidParameterError, match="negative threshold"):
        nbayes.BernoulliNB(binarize=-0.5).fit(sp.csr_matrix(X), y)
    a = nbayes.BernoulliNB(binarize=0.0).fit(X, y)
    b = nbayes.BernoulliNB(binarize=1.0).fit(X, y)
    with pytest.raises(nbayes.errors.MergeError, match="'binarize'"):
        a.merge(b)


def test_unbiased_variance_of_a_one_row_cell_is_the_floor(rng):
    """ddof=1 on a cell with weight <= 1: the floor alone (CORRECTNESS.md)."""
    X = np.vstack([rng.normal(0, 2, (20, 3)), [[5.0, 5.0, 5.0]]])
    y = np.array([0] * 20 + [1])
    model = nbayes.GaussianNB(ddof=1).fit(X, y)
    assert_allclose(model.var_[1], model.epsilon_, rtol=1e-12)
    assert_allclose(model.var_[0], X[:20].var(axis=0, ddof=1) + model.epsilon_, rtol=1e-12)


def test_fit_and_partial_fit_take_a_stream_of_chunks(rng):
    """Iterators of (X, y[, w]) chunks: the same model as one fit; all chunks or none."""
    import pytest

    from nbayes.errors import DataError

    X = rng.poisson(2.0, (90, 5)).astype(float)
    y = rng.integers(0, 3, 90)
    w = rng.uniform(0.5, 2.0, 90)
    whole = nbayes.MultinomialNB().fit(X, y, sample_weight=w)
    parts = [(X[i : i + 25], y[i : i + 25], w[i : i + 25]) for i in range(0, 90, 25)]
    streamed = nbayes.MultinomialNB().fit(iter(parts))
    np.testing.assert_allclose(streamed.predict_proba(X), whole.predict_proba(X), rtol=1e-12)
    grown = nbayes.MultinomialNB().fit(X[:10], y[:10], sample_weight=w[:10])
    grown.partial_fit(iter([(X[10:50], y[10:50], w[10:50]), (X[50:], y[50:], w[50:])]))
    first = nbayes.MultinomialNB().fit(X[:10], y[:10], sample_weight=w[:10])
    np.testing.assert_allclose(
        grown.predict_proba(X), first.partial_fit(X[10:], y[10:], sample_weight=w[10:]).predict_proba(X), rtol=1e-12
    )
    before = grown.predict_proba(X)
    bad = iter([(X[:5], y[:5]), (X[:5, :3], y[:5])])
    with pytest.raises(DataError, match="chunk 1 of the stream"):
        grown.partial_fit(bad)
    np.testing.assert_array_equal(grown.predict_proba(X), before)
    with pytest.raises(DataError, match="empty"):
        nbayes.MultinomialNB().fit(iter([]))
    texts = ["cheap pills", "lunch at noon", "cheap offer", "noon meeting"] * 5
    labels = ["spam", "ham", "spam", "ham"] * 5
    t = nbayes.TextClassifier().fit(iter([(texts[:7], labels[:7]), (texts[7:], labels[7:])]))
    np.testing.assert_allclose(t.predict_proba(texts), nbayes.TextClassifier().fit(texts, labels).predict_proba(texts))


def test_with_prior_is_bayes_rule_with_the_new_prior(rng):
    """p'(c|x) is proportional to p(c|x) * pi'_c / pi_c, exactly; the original is unchanged."""
    import pytest

    from nbayes.errors import InvalidParameterError

    y = rng.integers(0, 3, 120)
    counts = rng.poisson(2.0, (120, 4)).astype(float) + y[:, None]
    real = rng.normal(size=(120, 3)) + y[:, None]
    cats = np.array(rng.choice(["a", "b", "c"], (120, 2)), dtype=object)
    texts = [" ".join(rng.choice(["cheap", "pills", "noon", "lunch", "meeting"], 4)) for _ in range(120)]
    frame = pd.DataFrame({"r": real[:, 0], "c": cats[:, 0]})
    new_prior = np.array([0.7, 0.2, 0.1])
    for model, X in (
        (nbayes.MultinomialNB(), counts), (nbayes.BernoulliNB(binarize=2.0), counts),
        (nbayes.GaussianNB(), real), (nbayes.CategoricalNB(), cats), (nbayes.NaiveBayes(), frame),
        (nbayes.TextClassifier(), texts),
    ):
        model.fit(X, y)
        before = model.predict_proba(X)
        moved = model.with_prior(new_prior)
        old_prior = np.exp(model.class_log_prior_) if hasattr(model, "class_log_prior_") else model.class_prior_
        expected = before * new_prior / old_prior
        expected /= expected.sum(axis=1, keepdims=True)
        assert_allclose(moved.predict_proba(X), expected, rtol=1e-10, atol=1e-12)
        assert_allclose(model.predict_proba(X), before)  # the original keeps its prior
    with pytest.raises(InvalidParameterError, match="does not use a class prior"):
        nbayes.ComplementNB().fit(counts, y).with_prior(new_prior)
    with pytest.raises(InvalidParameterError):
        nbayes.MultinomialNB().fit(counts, y).with_prior([0.5, 0.5])
