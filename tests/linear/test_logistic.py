"""nbayes.LogisticRegression: scikit-learn's optimum, log-space probabilities, streams, files."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.linear_model import LogisticRegression as SkLR

import nbayes
from nbayes import LogisticRegression
from nbayes.errors import ConvergenceError, ConvergenceWarning, DataError, InvalidParameterError


def make(rng, n=300, d=8, K=3, sparse=False):
    y = rng.integers(0, K, n)
    X = rng.normal(size=(n, d))
    X[:, :3] += y[:, None]
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) > 0.8, X, 0.0))
    return X, y


def objective(model, X, y, w=None):
    """sum_i w_i log-loss_i + ||W||^2 / (2C): the quantity both libraries minimise."""
    w = np.ones(len(y)) if w is None else w
    logp = model.predict_log_proba(X)
    codes = np.searchsorted(model.classes_, y)
    return float(-np.sum(w * logp[np.arange(len(y)), codes]) + np.sum(model.coef_**2) / (2 * model.C))


@pytest.mark.parametrize("K", [2, 3, 5])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_same_optimum_as_sklearn(rng, K, sparse, solver):
    X, y = make(rng, K=K, sparse=sparse)
    w = rng.uniform(0.5, 2.0, len(y))
    ref = SkLR(C=0.7, tol=1e-12, max_iter=10_000).fit(X, y, sample_weight=w)
    ours = LogisticRegression(C=0.7, solver=solver, tol=1e-10, max_iter=1000).fit(X, y, sample_weight=w)
    assert ours.coef_.shape == ref.coef_.shape
    assert_allclose(ours.coef_, ref.coef_, atol=2e-5)
    assert_allclose(ours.intercept_, ref.intercept_, atol=2e-5)
    assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    # at least as low an objective as scikit-learn's run to 1e-12
    assert objective(ours, X, y, w) <= objective(ref, X, y, w) * (1 + 1e-10)
    assert_allclose(ours.objective_, objective(ours, X, y, w), rtol=1e-10)


@pytest.mark.parametrize("class_weight", ["balanced", {0: 3.0, 2: 0.5}])
def test_class_weight_and_no_intercept(rng, class_weight):
    X, y = make(rng)
    ref = SkLR(C=2.0, class_weight=class_weight, fit_intercept=False, tol=1e-12, max_iter=5000).fit(X, y)
    ours = LogisticRegression(C=2.0, class_weight=class_weight, fit_intercept=False, tol=1e-10).fit(X, y)
    assert_allclose(ours.coef_, ref.coef_, atol=1e-5)
    assert_allclose(ours.intercept_, 0.0)


def test_string_labels_and_decision_function(rng):
    X, y = make(rng, K=2)
    labels = np.array(["ham", "spam"])[y]
    m = LogisticRegression().fit(X, labels)
    z = m.decision_function(X)
    assert z.shape == (len(y),)
    assert_allclose(m.predict_proba(X)[:, 1], 1 / (1 + np.exp(-z)))
    assert set(m.predict(X)) <= {"ham", "spam"}
    assert m.score(X, labels) > 0.8


def test_log_proba_is_log_softmax_not_log_of_rounded(rng):
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    m = LogisticRegression(C=1e6).fit(X, [0, 0, 1, 1])
    far = np.array([[1e4]])
    lp = m.predict_log_proba(far)
    assert np.all(np.isfinite(lp)) and lp[0, 0] < -700  # exp underflows to 0; the log does not
    m3 = LogisticRegression(C=1e6).fit(np.array([[0.0], [1.0], [2.0]]), [0, 1, 2])
    lp3 = m3.predict_log_proba(np.array([[-1e4], [1e4]]))
    assert np.all(np.isfinite(lp3))
    assert_allclose(np.exp(lp3).sum(axis=1), 1.0)


def test_convergence_warning_and_trace(rng):
    X, y = make(rng)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        m = LogisticRegression(max_iter=1, tol=1e-12).fit(X, y)
    assert m.n_iter_[0] == 1
    full = LogisticRegression(tol=1e-10).fit(X, y)
    trace = np.array(full.objective_trace_)
    # each accepted Newton step lowers f (down to f's float64 resolution near the optimum)
    assert np.all(np.diff(trace) < 1e-12 * trace[1:])


def test_features_at_the_float_limit_are_refused_or_fitted_never_nan_coefficients():
    X = np.array([[1e308], [-1e308], [1e308], [-1e308]])
    with pytest.raises(DataError, match="row 0, column 0 holds 1e\\+308.*float32"):
        LogisticRegression(C=1e6).fit(X, [0, 1, 1, 0])
    # within the solver's range: the optimum (0: each value carries both labels), no NaN
    m = LogisticRegression(C=1e6).fit(X * 1e-270, [0, 1, 1, 0])
    np.testing.assert_allclose(m.coef_, 0.0, atol=1e-12)
    np.testing.assert_allclose(m.predict_proba(X * 1e-270), 0.5)


def test_warm_start_and_nb_init_reach_the_same_optimum(rng):
    X, y = make(rng)
    X = np.abs(X)
    base = LogisticRegression(C=1.0, tol=1e-10).fit(X, y)
    warm = LogisticRegression(C=1.0, tol=1e-10, warm_start=True)
    warm.coef_, warm.intercept_, warm.classes_, warm.n_features_in_ = (
        base.coef_.copy(), base.intercept_.copy(), base.classes_, base.n_features_in_
    )
    warm.fit(X, y)
    assert warm.n_iter_[0] <= 1
    for init in ("nb", nbayes.MultinomialNB().fit(X, y)):
        m = LogisticRegression(C=1.0, tol=1e-10, init=init).fit(X, y)
        assert_allclose(m.coef_, base.coef_, atol=1e-6)
    g = LogisticRegression(C=1.0, tol=1e-10, init="nb").fit(X - 1.0, y)  # negative: Gaussian start
    assert_allclose(g.coef_, LogisticRegression(C=1.0, tol=1e-10).fit(X - 1.0, y).coef_, atol=1e-6)


def test_bad_input():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0]])
    with pytest.raises(DataError, match="at least 2 classes.*'a'"):
        LogisticRegression().fit(X, ["a", "a", "a"])
    with pytest.raises(DataError, match="row 1"):
        LogisticRegression().fit(np.array([[0.0], [np.nan], [1.0]]), [0, 1, 0])
    with pytest.raises(DataError, match="row 2"):
        LogisticRegression().fit(np.array([[0.0], [1.0], [np.inf]]), [0, 1, 0])
    with pytest.raises(DataError, match="2 labels but X has 3 rows"):
        LogisticRegression().fit(X, [0, 1])
    for C in (0, -1.0, float("inf"), "1"):
        with pytest.raises(InvalidParameterError, match="'C'"):
            LogisticRegression(C=C).fit(X, [0, 1, 0])
    with pytest.raises(InvalidParameterError, match="solver"):
        LogisticRegression(solver="sag").fit(X, [0, 1, 0])
    with pytest.raises(InvalidParameterError, match="class_weight names class 'z'"):
        LogisticRegression(class_weight={"z": 2.0}).fit(X, ["a", "b", "a"])
    m = LogisticRegression().fit(X, [0, 1, 0])
    with pytest.raises(DataError, match="3 features"):
        m.predict(np.zeros((1, 3)))
    with pytest.raises(nbayes.errors.NotFittedError):
        LogisticRegression().predict(X)


def test_partial_fit_stream_approaches_the_batch_fit(rng):
    X, y = make(rng, n=600)
    batch = LogisticRegression(C=1.0).fit(X, y)
    stream = LogisticRegression(C=1.0, random_state=0, batch_size=32, learning_rate=0.5)
    for _ in range(30):
        for chunk in np.array_split(np.arange(len(y)), 4):
            stream.partial_fit(X[chunk], y[chunk], classes=[0, 1, 2])
    assert np.mean(stream.predict(X) == batch.predict(X)) > 0.97
    assert objective(stream, X, y) < objective(batch, X, y) * 1.02
    again = LogisticRegression(C=1.0, random_state=0, batch_size=32, learning_rate=0.5)
    for _ in range(30):
        for chunk in np.array_split(np.arange(len(y)), 4):
            again.partial_fit(X[chunk], y[chunk], classes=[0, 1, 2])
    assert_allclose(again.coef_, stream.coef_)  # deterministic given the seed


def test_partial_fit_errors_leave_the_model_unchanged(rng):
    X, y = make(rng)
    with pytest.raises(DataError, match="classes"):
        LogisticRegression().partial_fit(X, y)
    m = LogisticRegression(random_state=0).partial_fit(X, y, classes=[0, 1, 2])
    before = (m.coef_.copy(), m.intercept_.copy(), {k: np.copy(v) for k, v in m._sgd.items()})
    with pytest.raises(DataError, match="row 0 has label 7"):
        m.partial_fit(X[:5], np.array([7, 0, 0, 0, 0]))
    with pytest.raises(DataError, match="features"):
        m.partial_fit(X[:5, :3], y[:5])
    with pytest.raises(ConvergenceError):
        m.set_params(learning_rate=1e300).partial_fit(X * 1e300, y)
    assert_allclose(m.coef_, before[0])
    assert_allclose(m.intercept_, before[1])
    assert_allclose(m._sgd["h"], before[2]["h"])


def test_save_load_round_trip(rng, tmp_path):
    X, y = make(rng)
    labels = np.array(["x", "y", "z"])[y]
    m = LogisticRegression(C=3.0, class_weight={"x": 2.0}).fit(X, labels)
    m.save(tmp_path / "lr.nbm")
    back = nbayes.load(tmp_path / "lr.nbm")
    assert isinstance(back, LogisticRegression)
    assert back.get_params() == m.get_params()
    assert_allclose(back.predict_proba(X), m.predict_proba(X), rtol=0, atol=0)
    assert back.predict(X).tolist() == m.predict(X).tolist()


def test_sparse_and_dense_agree(rng):
    X, y = make(rng, sparse=True)
    a = LogisticRegression(tol=1e-10).fit(X, y)
    b = LogisticRegression(tol=1e-10).fit(X.toarray(), y)
    assert_allclose(a.coef_, b.coef_, atol=1e-8)
    assert_allclose(a.predict_proba(X), b.predict_proba(X.toarray()), atol=1e-10)


def test_frames_keep_feature_names(rng):
    pd = pytest.importorskip("pandas")
    X, y = make(rng, d=3)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    m = LogisticRegression().fit(df, y)
    assert m.feature_names_in_.tolist() == ["a", "b", "c"]
    with pytest.raises(DataError, match="column names"):
        m.predict(df[["c", "b", "a"]])


def test_no_warning_at_default_settings(rng):
    X, y = make(rng)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LogisticRegression().fit(X, y)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("negative", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_nb_start_is_the_naive_bayes_models_logistic_twin(rng, n_classes, negative, weighted):
    from nbayes.linear._nb_start import nb_start

    X = np.abs(rng.normal(size=(60, 5))) * 3
    X = X - 1.5 if negative else np.round(X)
    y = np.arange(60) % n_classes
    w = rng.random(60) + 0.5 if weighted else None
    nb = nbayes.GaussianNB(variance="feature") if negative else nbayes.MultinomialNB()
    twin = nb.fit(X, y, sample_weight=w).to_logistic()
    coef, intercept = nb_start(X, y, n_classes, w)
    assert_allclose(coef, twin.coef_, rtol=1e-10, atol=1e-10)
    assert_allclose(intercept, twin.intercept_, rtol=1e-10, atol=1e-10)
