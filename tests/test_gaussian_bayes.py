"""GaussianBayes: full-covariance Gaussian class-conditionals (notes 001) against scikit-learn's
QDA / LDA(solver="lsqr"), the direct density formula, weights, missing values, files, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import multivariate_normal
from sklearn.base import clone
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as LDA
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis as QDA

import nbayes
from nbayes import GaussianBayes
from nbayes.errors import (
    DataError,
    FeatureMismatchError,
    InvalidParameterError,
    NBayesError,
    NotFittedError,
)

RTOL = 1e-9
LOG_2PI = np.log(2 * np.pi)


def correlated(rng, n=300, d=4, k=3, shift=1.0):
    """Classes with different full covariances and shifted means."""
    y = rng.integers(0, k, n)
    A = rng.normal(size=(k, d, d)) + 2 * np.eye(d)
    X = np.einsum("nij,nj->ni", A[y], rng.normal(size=(n, d))) + shift * y[:, None]
    return X, y


def direct_joint(model, X):
    """log pi_c + log N(x; mu_c, Sigma_c) by scipy (centres x - mu directly, eigen-decomposes)."""
    K = len(model.classes_)
    cov = model.covariance_ if model.covariance_.ndim == 3 else [model.covariance_] * K
    cols = [multivariate_normal(model.means_[c], cov[c]).logpdf(X) for c in range(K)]
    with np.errstate(divide="ignore"):
        return np.column_stack(cols) + np.log(model.class_prior_)


def same_posterior(ours, theirs, X):
    assert_allclose(ours.predict_log_proba(X), theirs.predict_log_proba(X), rtol=RTOL, atol=1e-10)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=RTOL, atol=1e-13)
    assert_array_equal(ours.predict(X), theirs.predict(X))
    assert ours.score(X, theirs.predict(X)) == 1.0


def read_table(folder):
    df = pd.read_csv(folder / "data.csv.gz")
    return df.drop(columns="class"), df["class"]


# ----------------------------------------------------------------------------- scikit-learn
@pytest.mark.parametrize("reg_param", [0.0, 0.05, 0.5])
def test_class_covariance_equals_qda(rng, reg_param):
    X, y = correlated(rng)
    ours = GaussianBayes(reg_param=reg_param).fit(X, y)
    theirs = QDA(reg_param=reg_param, store_covariance=True).fit(X, y)
    assert_allclose(ours.means_, theirs.means_, rtol=RTOL)
    assert_allclose(ours.covariance_, np.array(theirs.covariance_), rtol=RTOL, atol=1e-13)
    assert_allclose(ours.priors_, theirs.priors_, rtol=RTOL)
    # QDA's decision function is the joint log-probability without the -d/2 log(2 pi)
    d = X.shape[1]
    assert_allclose(ours.predict_joint_log_proba(X) + d / 2 * LOG_2PI, theirs.decision_function(X), rtol=RTOL)
    same_posterior(ours, theirs, X)


@pytest.mark.parametrize("shrinkage", ["auto", 0.0, 0.3, 1.0])
def test_class_shrinkage_equals_qda_eigen(rng, shrinkage):
    X, y = correlated(rng, n=120, d=5)
    ours = GaussianBayes(shrinkage=shrinkage).fit(X, y)
    theirs = QDA(solver="eigen", shrinkage=shrinkage, store_covariance=True).fit(X, y)
    assert_allclose(ours.covariance_, np.array(theirs.covariance_), rtol=RTOL, atol=1e-13)
    same_posterior(ours, theirs, X)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("shrinkage", [None, "auto", 0.3])
def test_shared_covariance_equals_lda_lsqr(rng, shrinkage, k):
    X, y = correlated(rng, n=200, d=6, k=k)
    ours = GaussianBayes(covariance="shared", shrinkage=shrinkage).fit(X, y)
    theirs = LDA(solver="lsqr", shrinkage=shrinkage).fit(X, y)
    assert ours.covariance_.shape == (6, 6)
    assert_allclose(ours.covariance_, theirs.covariance_, rtol=RTOL, atol=1e-13)
    assert_allclose(ours.means_, theirs.means_, rtol=RTOL)
    jll = ours.predict_joint_log_proba(X)
    dec = theirs.decision_function(X)
    # LDA's scores drop the class-independent -1/2 x^T Sigma^-1 x: compare differences of classes
    if k == 2:
        assert_allclose(jll[:, 1] - jll[:, 0], dec, rtol=1e-8, atol=1e-10)
    else:
        assert_allclose(jll - jll[:, [0]], dec - dec[:, [0]], rtol=1e-8, atol=1e-10)
    same_posterior(ours, theirs, X)


def test_shared_is_pooled_mle_of_notes_001(rng):
    X, y = correlated(rng, n=90)
    model = GaussianBayes(covariance="shared").fit(X, y)
    R = X - model.means_[np.searchsorted(model.classes_, y)]
    assert_allclose(model.covariance_, R.T @ R / len(X), rtol=1e-12)  # 1/n, not 1/(n - K)


def test_pima_equals_qda_and_lda(shared_data):
    X, y = read_table(shared_data / "pima_diabetes")
    ours = GaussianBayes().fit(X, y)
    assert_array_equal(ours.feature_names_in_, X.columns)
    same_posterior(ours, QDA().fit(X, y), X)
    for shrinkage in (None, "auto", 0.2):
        same_posterior(
            GaussianBayes(covariance="shared", shrinkage=shrinkage).fit(X, y),
            LDA(solver="lsqr", shrinkage=shrinkage).fit(X, y),
            X,
        )


def test_ionosphere_constant_column(shared_data):
    # a2 is constant 0: the plain MLE is singular and says which column; shrinkage fixes it
    X, y = read_table(shared_data / "ionosphere")
    for covariance in ("class", "shared"):
        with pytest.raises(DataError, match=r"column 'a2' is constant.*shrinkage='auto'"):
            GaussianBayes(covariance=covariance).fit(X, y)
    same_posterior(
        GaussianBayes(covariance="shared", shrinkage="auto").fit(X, y),
        LDA(solver="lsqr", shrinkage="auto").fit(X, y),
        X,
    )
    same_posterior(
        GaussianBayes(shrinkage=0.2).fit(X, y), QDA(solver="eigen", shrinkage=0.2).fit(X, y), X
    )


# ----------------------------------------------------------------------------- the density
@pytest.mark.parametrize("covariance", ["class", "shared"])
def test_joint_is_the_direct_formula(rng, covariance):
    X, y = correlated(rng, n=150)
    model = GaussianBayes(covariance=covariance).fit(X, y)
    assert_allclose(model.predict_joint_log_proba(X), direct_joint(model, X), rtol=1e-12)
    P = model.predict_proba(X)
    assert_allclose(P.sum(axis=1), 1.0, rtol=1e-14)
    assert_allclose(P, np.exp(model.predict_log_proba(X)), rtol=1e-15)


@pytest.mark.parametrize("covariance", ["class", "shared"])
def test_far_offsets_do_not_cancel(rng, covariance):
    # a feature offset by 1e6 and classes 1e6 apart: (x - mu_c) is formed per class
    X, y = correlated(rng, n=200, d=3, k=2, shift=0.0)
    X[:, 0] += 1e6
    X[y == 1] += 1e6
    model = GaussianBayes(covariance=covariance).fit(X, y)
    jll = model.predict_joint_log_proba(X)
    assert_allclose(jll, direct_joint(model, X), rtol=1e-9)
    near = jll[np.arange(len(y)), y]
    assert np.all(near > -50)  # each row's own class: an O(1) log-density, not rounding noise
    assert_array_equal(model.predict(X), y)


def test_missing_features_are_marginalised(rng):
    X, y = correlated(rng, n=200, d=4)
    for covariance in ("class", "shared"):
        model = GaussianBayes(covariance=covariance).fit(X, y)
        Xt = X[:6].copy()
        Xt[0, 1] = np.nan
        Xt[1, [0, 3]] = np.nan
        Xt[2, 1] = np.nan  # same pattern as row 0
        Xt[4, :] = np.nan
        jll = model.predict_joint_log_proba(Xt)
        K = len(model.classes_)
        for i in range(6):
            obs = ~np.isnan(Xt[i])
            for c in range(K):
                cov = model.covariance_ if covariance == "shared" else model.covariance_[c]
                if obs.any():
                    ll = multivariate_normal(model.means_[c, obs], cov[np.ix_(obs, obs)]).logpdf(Xt[i, obs])
                else:
                    ll = 0.0
                assert_allclose(jll[i, c], ll + np.log(model.class_prior_[c]), rtol=1e-12)
        assert_allclose(model.predict_proba(Xt[[4]])[0], model.class_prior_, rtol=1e-12)
        full = model.predict_joint_log_proba(X[[3, 5]])
        assert_allclose(jll[[3, 5]], full, rtol=1e-15)


def test_zero_prior_class_is_impossible_not_nan(rng):
    X, y = correlated(rng, n=100, k=2)
    model = GaussianBayes(priors=[1.0, 0.0]).fit(X, y)
    lp = model.predict_log_proba(X)
    assert np.all(np.isneginf(lp[:, 1])) and not np.isnan(lp).any()
    assert_allclose(model.predict_proba(X)[:, 0], 1.0)
    assert np.all(model.predict(X) == 0)


# ----------------------------------------------------------------------------- weights
@pytest.mark.parametrize("covariance", ["class", "shared"])
@pytest.mark.parametrize("shrinkage", [None, "auto", 0.25])
def test_integer_weights_equal_repeated_rows(rng, covariance, shrinkage):
    X, y = correlated(rng, n=80)
    w = rng.integers(0, 4, len(y))
    a = GaussianBayes(covariance=covariance, shrinkage=shrinkage, reg_param=0.01)
    weighted = clone(a).fit(X, y, sample_weight=w)
    repeated = clone(a).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    for attr in ("means_", "covariance_", "class_count_", "class_prior_", "shrinkage_"):
        assert_allclose(getattr(weighted, attr), getattr(repeated, attr), rtol=1e-10, atol=1e-14)
    assert_allclose(weighted.predict_log_proba(X), repeated.predict_log_proba(X), rtol=1e-9, atol=1e-12)
    assert weighted.score(X, y, sample_weight=w) == repeated.score(np.repeat(X, w, axis=0), np.repeat(y, w))


# ----------------------------------------------------------------------------- files, API
@pytest.mark.parametrize(
    "params",
    [{}, {"covariance": "shared", "shrinkage": "auto"}, {"priors": [0.2, 0.3, 0.5], "reg_param": 0.1}],
)
def test_save_load_round_trip(rng, tmp_path, params):
    X, y = correlated(rng, n=120)
    labels = np.array(["ant", "bee", "cat"])[y]
    frame = pd.DataFrame(X, columns=["p", "q", "r", "s"])
    model = GaussianBayes(**params).fit(frame, labels)
    path = tmp_path / "model.nbayes"
    model.save(path)
    back = nbayes.load(path)
    assert type(back) is GaussianBayes
    got, want = back.get_params(), model.get_params()
    if want["priors"] is not None:
        assert_array_equal(got.pop("priors"), want.pop("priors"))
    assert got == want
    assert_array_equal(back.classes_, model.classes_)
    assert_array_equal(back.feature_names_in_, ["p", "q", "r", "s"])
    for attr in ("means_", "covariance_", "class_count_", "class_prior_", "shrinkage_"):
        assert_array_equal(getattr(back, attr), getattr(model, attr))
    Xt = frame.copy()
    Xt.iloc[0, 2] = np.nan
    assert_array_equal(back.predict_joint_log_proba(Xt), model.predict_joint_log_proba(Xt))
    assert_array_equal(back.predict(Xt), model.predict(Xt))
    with pytest.raises(FeatureMismatchError):
        back.predict(frame[["q", "p", "r", "s"]])


def test_params_and_lazy_export():
    model = nbayes.GaussianBayes(covariance="shared", shrinkage=0.1)
    assert model.get_params() == {"covariance": "shared", "priors": None, "reg_param": 0.0, "shrinkage": 0.1}
    assert model.set_params(reg_param=0.2) is model and model.reg_param == 0.2
    assert repr(clone(model)) == "GaussianBayes(covariance='shared', reg_param=0.2, shrinkage=0.1)"
    with pytest.raises(InvalidParameterError, match="no parameter 'alpha'"):
        model.set_params(alpha=1.0)
    assert "GaussianBayes" in nbayes.__all__


def test_failed_fit_changes_nothing(rng):
    X, y = correlated(rng, n=90)
    model = GaussianBayes().fit(X, y)
    before = model.predict_joint_log_proba(X)
    Xbad = np.column_stack([X, X[:, 0] + X[:, 1]])  # a linear combination: singular
    with pytest.raises(DataError, match=r"column 4 is \(almost\) a linear combination"):
        model.fit(Xbad, y)
    assert model.n_features_in_ == 4
    assert_array_equal(model.predict_joint_log_proba(X), before)


# ----------------------------------------------------------------------------- bad input
def test_bad_input_messages(rng):
    X, y = correlated(rng, n=60, d=3, k=2)
    m = GaussianBayes()
    with pytest.raises(NotFittedError, match="not fitted"):
        m.predict(X)
    with pytest.raises(DataError, match="only one class, 0; a classifier needs at least 2"):
        m.fit(X, np.zeros(60, dtype=int))
    with pytest.raises(DataError, match="y has 59 labels but X has 60 rows"):
        m.fit(X, y[:-1])
    Xn = X.copy()
    Xn[7, 2] = np.nan
    with pytest.raises(DataError, match=r"row 7, column 2 is missing \(NaN\).*needs complete rows"):
        m.fit(Xn, y)
    Xi = X.copy()
    Xi[5, 1] = np.inf
    with pytest.raises(DataError, match=r"row 5, column 1 holds inf"):
        m.fit(Xi, y)
    one = y.copy()
    one[:] = 0
    one[3] = 1
    with pytest.raises(DataError, match=r"class 1 \(1 row\) is singular: column 0 is constant.*1 row for 3"):
        m.fit(X, one)
    GaussianBayes(covariance="shared").fit(X, one)  # pooled: one row of a class is fine
    with pytest.raises(DataError, match="pooled.*single row per class it is always singular"):
        GaussianBayes(covariance="shared").fit(X[:2], [0, 1])
    # Ledoit-Wolf picks intensity 0 when every standardised row has the same norm: still singular
    Xc = np.repeat([[1.0, 3], [2, 1], [3, 3], [4, 1]], 4, axis=0)
    with pytest.raises(DataError, match=r"column 1 is constant.*Ledoit-Wolf may choose 0.*reg_param > 0"):
        GaussianBayes(covariance="shared", shrinkage="auto").fit(Xc, np.repeat([1, 2, 1, 2], 4))
    # regularised, a one-row class has covariance reg_param I, as for that row repeated
    assert_allclose(GaussianBayes(reg_param=0.1).fit(X, one).covariance_[1], 0.1 * np.eye(3), atol=1e-15)
    few = np.r_[np.zeros(3, int), np.ones(57, int)]
    with pytest.raises(DataError, match=r"class 0 \(3 rows\) is singular.*3 rows for 3 features.*shrinkage"):
        m.fit(X, few)
    GaussianBayes(reg_param=0.1).fit(X, few)  # regularised: fine
    with pytest.raises(DataError, match="class 1: every row of this class has sample_weight 0"):
        m.fit(X, y, sample_weight=(y == 0).astype(float))
    with pytest.raises(DataError, match="weights sum to zero"):
        m.fit(X, y, sample_weight=np.zeros(60))
    with pytest.raises(DataError, match="sample_weight: entry 2"):
        m.fit(X, y, sample_weight=np.r_[1, 1, -1, np.ones(57)])
    model = m.fit(X, y)
    with pytest.raises(FeatureMismatchError, match="X has 2 features, but GaussianBayes is expecting 3"):
        model.predict(X[:, :2])
    with pytest.raises(DataError, match=r"row 5, column 1 holds inf"):
        model.predict_proba(Xi)
    assert all(issubclass(e, NBayesError) for e in (DataError, InvalidParameterError))


@pytest.mark.parametrize(
    "params,match",
    [
        ({"covariance": "full"}, "'covariance' must be one of 'class', 'shared'"),
        ({"shrinkage": "lw"}, "'shrinkage' must be None, 'auto' or a number in"),
        ({"shrinkage": 1.5}, "'shrinkage' must be <= 1"),
        ({"shrinkage": True}, "'shrinkage' must be a real number"),
        ({"reg_param": -0.1}, "'reg_param' must be >= 0"),
        ({"reg_param": 2}, "'reg_param' must be <= 1"),
        ({"priors": [0.5, 0.2, 0.3]}, "'priors' has 3 entries for 2 classes"),
        ({"priors": {0: 0.5, 7: 0.5}}, "'priors' names class 7, which is not a class"),
        ({"priors": [0.5, float('nan')]}, "'priors': class 1 has nan"),
        ({"priors": [0.5, 0.2]}, "'priors' must sum to 1"),
        ({"priors": [[0.5, 0.5]]}, "'priors' must be None, a 1-D array"),
    ],
)
def test_bad_parameters(rng, params, match):
    X, y = correlated(rng, n=40, d=2, k=2)
    with pytest.raises(InvalidParameterError, match=match):
        GaussianBayes(**params).fit(X, y)
