"""Semi-supervised EM (nbayes.semi_supervised): Nigam et al. (2000) over the five models."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nbayes
from nbayes.errors import DataError, FeatureMismatchError, InvalidParameterError, MergeError

MODELS = ["MultinomialNB", "BernoulliNB", "CategoricalNB", "NaiveBayes", "TextClassifier"]


@pytest.fixture(autouse=True)
def _basic_em_default(monkeypatch):
    """These tests check the EM algorithm at the paper's lambda = 1, which ``model.fit(X, y,
    X_unlabeled=U)`` ran by default before its default became ``"auto"`` (lambda by
    cross-validation; tested in tests/test_semi_supervised_default.py)."""
    import functools

    import nbayes.naive_bayes._base as base

    monkeypatch.setattr(base, "EMSettings", functools.partial(base.EMSettings, unlabeled_weight=1.0))


def two_clusters(rng, n=400, d=60, length=12, sep=1.0):
    """Documents of ``length`` words from two word distributions (halves of the vocabulary
    favoured by ``sep``); labels 0 / 1."""
    base = rng.dirichlet(np.ones(d))
    tilt = np.where(np.arange(d) < d // 2, 1 + sep, 1 / (1 + sep))
    p0 = base * tilt / (base * tilt).sum()
    p1 = base / tilt / (base / tilt).sum()
    y = np.repeat([0, 1], n // 2)
    X = np.vstack([rng.multinomial(length, p0 if c == 0 else p1) for c in y])
    return X, y


def as_input(name, X):
    """X as the model takes it: counts, presence, or documents of words w0, w1, ..."""
    if name == "MultinomialNB":
        return X
    if name in ("BernoulliNB", "CategoricalNB"):
        return (X > 0).astype(np.int64)
    if name == "NaiveBayes":
        return X > 0  # boolean columns: the Bernoulli component
    return [" ".join(f"w{j}" for j in np.repeat(np.arange(X.shape[1]), r)) for r in X]


def take(A, idx):
    return [A[i] for i in idx] if isinstance(A, list) else A[idx]


#: EM's settings (nbayes.EM's parameters) among the keywords of :func:`make`
EM_PARAMS = ("unlabeled_label", "unlabeled_weight", "max_iter", "tol", "n_components", "n_init", "random_state")


def make(name, **kw):
    """The model ``name`` with its own settings; wrapped in nbayes.EM when EM settings are given."""
    em = {k: kw.pop(k) for k in list(kw) if k in EM_PARAMS}
    model = getattr(nbayes, name)(**kw)
    return nbayes.EM(model, **em) if em else model


@pytest.fixture
def data(rng):
    X, y = two_clusters(rng)
    lab = np.r_[0, 1, 2, 200, 201, 202]
    unl = np.setdiff1d(np.arange(len(y)), lab)
    return X, y, lab, unl


def params_of(model):
    out = {}
    model = getattr(model, "estimator_", model)  # nbayes.EM: its EM-completed model
    if isinstance(model, nbayes.NaiveBayes):
        model = model.components_["bernoulli"]
    for name in ("feature_log_prob_", "class_log_prior_"):
        v = getattr(model, name)
        out[name] = [np.asarray(a) for a in v] if isinstance(v, list) else np.asarray(v)
    return out


def same_model(a, b, rtol=0.0):
    pa, pb = params_of(a), params_of(b)
    for k in pa:
        xs = pa[k] if isinstance(pa[k], list) else [pa[k]]
        ys = pb[k] if isinstance(pb[k], list) else [pb[k]]
        for x, y in zip(xs, ys):
            np.testing.assert_allclose(x, y, rtol=rtol, atol=0)


# ------------------------------------------------------------------------- the method
@pytest.mark.parametrize("name", MODELS)
def test_em_recovers_two_clusters(name, data):
    X, y, lab, unl = data
    A = as_input(name, X)
    sup = make(name).fit(take(A, lab), y[lab])
    em = make(name).fit(take(A, lab), y[lab], X_unlabeled=take(A, unl))
    acc_sup = np.mean(sup.predict(take(A, unl)) == y[unl])
    acc_em = np.mean(em.predict(take(A, unl)) == y[unl])
    assert acc_em >= 0.95 and acc_em >= acc_sup
    assert em.n_iter_ >= 1 and em.em_converged_ and em.n_unlabeled_ == len(unl)
    assert len(em.em_log_likelihood_) == em.n_iter_ + 1


@pytest.mark.parametrize("name", MODELS)
def test_objective_never_decreases(name, data):
    X, y, lab, unl = data
    A = as_input(name, X)
    em = make(name, alpha=0.5, tol=0.0, max_iter=8).fit(take(A, lab), y[lab], X_unlabeled=take(A, unl))
    trace = em.em_log_likelihood_
    assert len(trace) == 9 and not em.em_converged_
    trace = trace[1:] if name in ("CategoricalNB", "NaiveBayes") else trace  # see the law below
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[:-1]))


@given(st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.3, 1.0]), st.sampled_from([0.1, 1.0, 2.5]))
def test_law_map_em_objective_is_monotone(seed, class_alpha, alpha):
    """MAP-EM (CORRECTNESS.md): the tracked objective, log-likelihood + log prior, never
    decreases, whatever the data, smoothing and class-prior smoothing."""
    rng = np.random.default_rng(seed)
    X = rng.poisson(rng.uniform(0.2, 3, size=(1, 7)), size=(30, 7))
    y = rng.integers(0, 3, size=30)
    y[:3] = [0, 1, 2]
    model = make("MultinomialNB", alpha=alpha, class_alpha=class_alpha, tol=0.0, max_iter=6)
    trace = model.fit(X[:6], y[:6], X_unlabeled=X[6:]).em_log_likelihood_
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[:-1]))
    # categorical: the labelled model may not know a value of the unlabelled rows (its unseen
    # term, another value set), so the objective is monotone from the first M-step on
    cat = make("CategoricalNB", alpha=alpha, class_alpha=class_alpha, tol=0.0, max_iter=6)
    trace = cat.fit(np.minimum(X[:6], 3), y[:6], X_unlabeled=np.minimum(X[6:], 3)).em_log_likelihood_[1:]
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[:-1]))


def test_em_step_by_hand():
    """One EM iteration of MultinomialNB written out: the M-step's counts are labelled counts
    plus lambda x posterior-weighted unlabelled counts."""
    XL, yL = np.array([[3, 0, 1], [0, 2, 2]]), np.array([0, 1])
    U = np.array([[2, 1, 0], [0, 1, 3], [1, 1, 1]])
    lam = 0.4
    m0 = nbayes.MultinomialNB(alpha=1.0).fit(XL, yL)
    R = m0.predict_proba(U)
    counts = np.array([XL[0], XL[1]], dtype=float) + lam * R.T @ U
    theta = (counts + 1) / (counts + 1).sum(axis=1, keepdims=True)
    prior = (np.array([1.0, 1.0]) + lam * R.sum(axis=0)) / (2 + lam * 3)
    em = make("MultinomialNB", alpha=1.0, unlabeled_weight=lam, max_iter=1).fit(XL, yL, X_unlabeled=U)
    np.testing.assert_allclose(np.exp(em.estimator_.feature_log_prob_), theta, rtol=1e-12)
    np.testing.assert_allclose(np.exp(em.estimator_.class_log_prior_), prior, rtol=1e-12)
    assert em.n_iter_ == 1


def test_text_em_equals_multinomial_em_on_the_matrix_of_all_documents(data):
    """TextClassifier learns the vocabulary of every document (labelled and unlabelled), so
    its EM is MultinomialNB's EM over a vectoriser fitted on all documents."""
    from nbayes.text.vectorizer import Vectorizer

    X, y, lab, unl = data
    docs = as_input("TextClassifier", X)
    docs = [d + (f" rare{i}" if i in unl[:5] else "") for i, d in enumerate(docs)]  # unseen words
    clf = nbayes.TextClassifier(alpha=0.3).fit(take(docs, lab), y[lab], X_unlabeled=take(docs, unl))
    vec = Vectorizer().fit(docs)
    mnb = nbayes.MultinomialNB(alpha=0.3).fit(vec.transform(take(docs, lab)), y[lab],
                                              X_unlabeled=vec.transform(take(docs, unl)))
    assert list(clf.vocabulary_) == list(vec.vocabulary_)
    np.testing.assert_allclose(clf.feature_log_prob_, mnb.feature_log_prob_, rtol=1e-10)
    np.testing.assert_allclose(clf.em_log_likelihood_, mnb.em_log_likelihood_, rtol=1e-10)
    assert clf.n_iter_ == mnb.n_iter_


# ------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("name", MODELS)
def test_no_unlabelled_rows_or_zero_weight_is_plain_fit(name, data):
    X, y, lab, unl = data
    A = as_input(name, X)
    plain = make(name).fit(take(A, lab), y[lab])
    zero = make(name, unlabeled_weight=0).fit(take(A, lab), y[lab], X_unlabeled=take(A, unl))
    y_marked = y[lab].copy()
    none = make(name, unlabeled_label=-1).fit(take(A, lab), y_marked)  # no row has -1
    empty = make(name).fit(take(A, lab), y[lab], X_unlabeled=[])
    for m in (zero, none, empty):
        same_model(plain, m)
        assert m.n_iter_ == 0
    np.testing.assert_array_equal(plain.predict_proba(take(A, unl)), zero.predict_proba(take(A, unl)))


@pytest.mark.parametrize("name", MODELS)
def test_deterministic(name, data):
    X, y, lab, unl = data
    A = as_input(name, X)
    fits = [make(name, unlabeled_weight="cv").fit(take(A, lab), y[lab], X_unlabeled=take(A, unl))
            for _ in range(2)]
    same_model(*fits)
    np.testing.assert_array_equal(fits[0].em_log_likelihood_, fits[1].em_log_likelihood_)
    assert fits[0].unlabeled_weight_ == fits[1].unlabeled_weight_


@pytest.mark.parametrize("name", MODELS)
def test_unlabeled_label_minus_one_equals_x_unlabeled(name, data):
    X, y, lab, unl = data
    A = as_input(name, X)
    yy = y.copy()
    yy[unl] = -1
    marked = make(name, unlabeled_label=-1).fit(A, yy)
    apart = make(name).fit(take(A, lab), y[lab], X_unlabeled=take(A, unl))
    same_model(marked, apart, rtol=1e-12)
    assert marked.classes_.tolist() == [0, 1]


def test_unlabeled_label_none_takes_missing_labels(data):
    X, y, lab, unl = data
    apart = nbayes.MultinomialNB().fit(X[lab], y[lab], X_unlabeled=X[unl])
    y_obj = np.array(["a" if v == 0 else "b" for v in y], dtype=object)
    y_obj[unl] = None
    y_obj[unl[::2]] = np.nan
    marked = make("MultinomialNB", unlabeled_label=None).fit(X, y_obj)
    same_model(marked, apart, rtol=1e-12)
    assert marked.classes_.tolist() == ["a", "b"]
    y_float = y.astype(float)
    y_float[unl] = np.nan
    same_model(make("MultinomialNB", unlabeled_label=None).fit(X, y_float), apart, rtol=1e-12)


def test_default_never_marks_rows():
    """The default ``unlabeled_label="off"`` is not a label: -1, None and "off" stay classes."""
    X = np.array([[1, 0], [0, 1], [1, 1]])
    assert nbayes.MultinomialNB().fit(X, [-1, 1, 1]).classes_.tolist() == [-1, 1]
    assert nbayes.MultinomialNB().fit(X, ["off", "on", "on"]).classes_.tolist() == ["off", "on"]
    assert make("MultinomialNB", unlabeled_label=-1).fit(X, ["off", "on", "-1"]).classes_.tolist() == ["-1", "off", "on"]


def test_chunks_equal_array(data):
    X, y, lab, unl = data
    whole = nbayes.MultinomialNB().fit(X[lab], y[lab], X_unlabeled=X[unl])
    chunks = nbayes.MultinomialNB().fit(X[lab], y[lab], X_unlabeled=iter([X[unl[:50]], X[unl[50:]]]))
    same_model(whole, chunks, rtol=1e-12)
    docs = as_input("TextClassifier", X)
    t_whole = nbayes.TextClassifier().fit(take(docs, lab), y[lab], X_unlabeled=take(docs, unl))
    t_chunks = nbayes.TextClassifier().fit(
        take(docs, lab), y[lab], X_unlabeled=(take(docs, unl[i:i + 100]) for i in range(0, len(unl), 100)))
    same_model(t_whole, t_chunks, rtol=1e-12)


def test_stream_of_labelled_and_marked_chunks_equals_arrays(data):
    X, y, lab, unl = data
    yy = y.copy()
    yy[unl] = -1
    whole = make("MultinomialNB", unlabeled_label=-1).fit(X, yy)
    stream = make("MultinomialNB", unlabeled_label=-1).fit(iter([(X[:150], yy[:150]), (X[150:], yy[150:])]))
    same_model(whole, stream, rtol=1e-12)


def test_sample_weight_of_marked_rows_weighs_them(data):
    X, y, lab, unl = data
    yy = y.copy()
    yy[unl] = -1
    w = np.ones(len(y))
    w[unl] = 0.5
    half = make("MultinomialNB", unlabeled_label=-1).fit(X, yy, sample_weight=w)
    lam = make("MultinomialNB", unlabeled_weight=0.5).fit(X[lab], y[lab], X_unlabeled=X[unl])
    same_model(half, lam, rtol=1e-12)


def test_hashing_text_em(data):
    X, y, lab, unl = data
    docs = as_input("TextClassifier", X)
    clf = nbayes.TextClassifier(n_features=2**10).fit(take(docs, lab), y[lab], X_unlabeled=take(docs, unl))
    assert np.mean(clf.predict(take(docs, unl)) == y[unl]) >= 0.95


def test_mixed_columns_em(rng):
    n = 300
    y = np.repeat([0, 1], n // 2)
    X = np.empty((n, 3), dtype=object)
    X[:, 0] = rng.normal(2.0 * y, 1.0)
    X[:, 1] = np.where(rng.random(n) < 0.2 + 0.6 * y, "red", "blue")
    X[:, 2] = rng.random(n) < 0.7 - 0.4 * y
    lab = np.r_[0, 1, 150, 151]
    unl = np.setdiff1d(np.arange(n), lab)
    em = make("NaiveBayes", tol=0.0, max_iter=5).fit(X[lab], y[lab], X_unlabeled=X[unl])
    assert em.estimator_.column_kinds_ == ["gaussian", "categorical", "bernoulli"]
    trace = em.em_log_likelihood_
    assert np.all(np.isfinite(trace)) and trace[-1] >= trace[0]


# ------------------------------------------------------------------------- a normal fitted model
@pytest.mark.parametrize("name", MODELS)
def test_save_load_round_trip(name, data, tmp_path):
    X, y, lab, unl = data
    A = as_input(name, X)
    em = make(name, unlabeled_weight="cv", unlabeled_label=None).fit(take(A, lab), y[lab], X_unlabeled=take(A, unl))
    em.save(tmp_path / "m.nbm")
    back = nbayes.load(tmp_path / "m.nbm")
    np.testing.assert_array_equal(back.predict_proba(take(A, unl)), em.predict_proba(take(A, unl)))
    assert isinstance(back, nbayes.EM) and type(back.estimator_) is type(em.estimator_)
    assert back.unlabeled_weight == "cv" and back.unlabeled_label is None
    assert (back.max_iter, back.tol) == (em.max_iter, em.tol)
    # the EM report is saved with the wrapper
    assert (back.n_iter_, back.em_converged_, back.unlabeled_weight_, back.n_unlabeled_) == \
        (em.n_iter_, em.em_converged_, em.unlabeled_weight_, em.n_unlabeled_)
    np.testing.assert_array_equal(back.em_log_likelihood_, em.em_log_likelihood_)
    assert back.em_cv_scores_ == em.em_cv_scores_
    # the EM-completed model alone saves and loads as an ordinary model
    em.estimator_.save(tmp_path / "inner.nbm")
    inner = nbayes.load(tmp_path / "inner.nbm")
    np.testing.assert_array_equal(inner.predict_proba(take(A, unl)), em.predict_proba(take(A, unl)))


def test_merge_partial_fit_unlearn_after_em(data):
    X, y, lab, unl = data
    em = nbayes.MultinomialNB().fit(X[lab], y[lab], X_unlabeled=X[unl])
    more = np.r_[unl[:5], unl[-5:]]
    other = nbayes.MultinomialNB().fit(X[more], y[more])
    merged = em.merge(other)
    np.testing.assert_allclose(merged.feature_count_, em.feature_count_ + other.feature_count_, rtol=1e-12)
    grown = nbayes.MultinomialNB().fit(X[lab], y[lab], X_unlabeled=X[unl]).partial_fit(X[more], y[more])
    np.testing.assert_allclose(grown.feature_count_, merged.feature_count_, rtol=1e-12)
    back = grown.unlearn(X[more], y[more])
    np.testing.assert_allclose(back.feature_count_, em.feature_count_, rtol=1e-9, atol=1e-9)
    assert nbayes.MultinomialNB().fit(X[lab], y[lab]).__dict__.get("n_iter_") is None


def test_plain_fit_clears_the_em_report(data):
    X, y, lab, unl = data
    m = nbayes.MultinomialNB().fit(X[lab], y[lab], X_unlabeled=X[unl])
    assert hasattr(m, "n_iter_")
    m.fit(X[lab], y[lab])
    assert not hasattr(m, "n_iter_") and not hasattr(m, "em_log_likelihood_")


def test_cv_chooses_from_the_grid(data):
    from nbayes.semi_supervised import WEIGHT_GRID

    X, y, lab, unl = data
    lab = np.r_[0, 1, 2, 3, 200, 201, 202, 203]
    m = make("MultinomialNB", unlabeled_weight="cv").fit(X[lab], y[lab], X_unlabeled=X[unl])
    assert m.unlabeled_weight_ in WEIGHT_GRID and set(m.em_cv_scores_) == set(WEIGHT_GRID)
    one = make("MultinomialNB", unlabeled_weight="cv").fit(X[[0, 200]], [0, 1], X_unlabeled=X[unl])
    assert one.unlabeled_weight_ == 1.0 and one.em_cv_scores_ is None  # one row per class: no CV


# ------------------------------------------------------------------------- errors
def test_errors(data):
    X, y, lab, unl = data
    M = "MultinomialNB"
    with pytest.raises(DataError, match="every row has the unlabeled_label -1"):
        make(M, unlabeled_label=-1).fit(X[:5], [-1] * 5)
    with pytest.raises(FeatureMismatchError, match="X_unlabeled has 59 features, but MultinomialNB is expecting 60"):
        nbayes.MultinomialNB().fit(X[lab], y[lab], X_unlabeled=X[unl, :59])
    with pytest.raises(DataError, match="X_unlabeled: chunk 1: X: Negative values in data: row 0"):
        nbayes.MultinomialNB().fit(X[lab], y[lab], X_unlabeled=iter([X[unl[:5]], -X[unl[:5]]]))
    with pytest.raises(InvalidParameterError, match="'unlabeled_weight' must be >= 0.0, got -1"):
        make(M, unlabeled_weight=-1).fit(X[lab], y[lab], X_unlabeled=X[unl])
    with pytest.raises(InvalidParameterError, match="'unlabeled_weight' must be a number >= 0, 'auto' or 'cv', got 'CV'"):
        make(M, unlabeled_weight="CV").fit(X[lab], y[lab], X_unlabeled=X[unl])
    with pytest.raises(InvalidParameterError, match="'max_iter' must be >= 0"):
        make(M, max_iter=-1).fit(X[lab], y[lab], X_unlabeled=X[unl])
    with pytest.raises(InvalidParameterError, match="GaussianNB does not learn from unlabelled rows"):
        nbayes.GaussianNB().fit(X[lab], y[lab], X_unlabeled=X[unl])
    with pytest.raises(InvalidParameterError, match="model='multinomial' or 'bernoulli' without tfidf"):
        nbayes.TextClassifier(model="complement").fit(["alpha beta", "gamma delta"], [0, 1], X_unlabeled=["alpha gamma"])
    with pytest.raises(InvalidParameterError, match="got model='nblr'"):
        nbayes.TextClassifier(model="nblr").fit(["alpha beta", "gamma delta"], [0, 1], X_unlabeled=["alpha gamma"])
    with pytest.raises(DataError, match="X_unlabeled: chunk 0 is a str"):
        nbayes.TextClassifier().fit(["alpha beta", "gamma delta"], [0, 1], X_unlabeled=iter(["alpha gamma", "beta delta"]))
    # partial_fit belongs to the EM-completed model (estimator_), which has no unlabelled label:
    # the wrapper neither has it nor declares it
    wrapper = make(M, unlabeled_label=-1)
    assert not hasattr(wrapper, "partial_fit") and "partial_fit" not in wrapper.capabilities
    with pytest.raises(InvalidParameterError, match="estimator: this model is an EM wrapper already"):
        nbayes.EM(wrapper).fit(X[lab], y[lab])
    with pytest.raises(InvalidParameterError, match="estimator: expected an nbayes classifier"):
        nbayes.EM(None).fit(X[lab], y[lab])
    with pytest.raises(InvalidParameterError, match="'cv' needs the labelled rows in memory"):
        make(M, unlabeled_weight="cv", unlabeled_label=-1).fit(iter([(X[:5], [0, 1, -1, -1, 0])]))


def test_column_names_of_x_unlabeled_are_checked(data):
    pd = pytest.importorskip("pandas")
    X, y, lab, unl = data
    cols = [f"c{j}" for j in range(X.shape[1])]
    XL = pd.DataFrame(X[lab], columns=cols)
    XU = pd.DataFrame(X[unl], columns=cols[::-1])
    with pytest.raises(FeatureMismatchError, match="X_unlabeled: column names"):
        nbayes.MultinomialNB().fit(XL, y[lab], X_unlabeled=XU)
    m = nbayes.MultinomialNB().fit(XL, y[lab], X_unlabeled=pd.DataFrame(X[unl], columns=cols))
    same_model(m, nbayes.MultinomialNB().fit(X[lab], y[lab], X_unlabeled=X[unl]), rtol=1e-12)


def test_failed_em_fit_leaves_the_model_unchanged(data):
    X, y, lab, unl = data
    m = nbayes.MultinomialNB().fit(X[lab], y[lab])
    before = m.feature_log_prob_.copy()
    with pytest.raises(FeatureMismatchError):
        m.fit(X, y, X_unlabeled=X[unl, :3])
    np.testing.assert_array_equal(m.feature_log_prob_, before)
    assert m.class_count_.sum() == len(lab)


# ------------------------------------------------------------------------- components per class
COMPONENT_MODELS = ["MultinomialNB", "BernoulliNB", "TextClassifier"]


def two_topic_class(rng, n, length=20, eps=0.1, h=15, c=10):
    """Class 0: documents of topic a (first h words favoured 9:1) or of topic b (the next h);
    class 1: documents of the two topics' average, plus ``eps`` of its own c words. One
    multinomial for class 0 is that average too, so one component per class cannot tell the
    classes apart but by the rare own words; two components for class 0 can."""
    a = np.r_[np.full(h, 0.9), np.full(h, 0.1), np.zeros(c)]
    a /= a.sum()
    b = np.r_[a[: 2 * h][::-1], np.zeros(c)]
    mid = (1 - eps) * (a + b) / 2 + eps * np.r_[np.zeros(2 * h), np.full(c, 1 / c)]
    z = rng.integers(0, 4, n)  # 0: topic a, 1: topic b, 2 and 3: class 1
    P = np.where((z == 0)[:, None], a, np.where((z == 1)[:, None], b, mid))
    return np.vstack([rng.multinomial(length, p) for p in P]), (z >= 2).astype(int)


@pytest.fixture
def union_data():
    rng = np.random.default_rng(3)
    X, y = two_topic_class(rng, 1000)
    Xte, yte = two_topic_class(rng, 2000)
    lab = np.r_[np.flatnonzero(y == 0)[:10], np.flatnonzero(y == 1)[:10]]
    unl = np.setdiff1d(np.arange(len(y)), lab)
    return X, y, lab, unl, Xte, yte


@pytest.mark.parametrize("name", COMPONENT_MODELS)
def test_one_component_is_the_ordinary_fit_bit_for_bit(name, data):
    X, y, lab, unl = data
    A = as_input(name, X)
    base = make(name, alpha=0.5).fit(take(A, lab), y[lab], X_unlabeled=take(A, unl))
    for kw in ({"n_components": 1, "random_state": 7}, {"n_components": [1, 1], "random_state": None, "n_init": 3}):
        m = make(name, alpha=0.5, **kw).fit(take(A, lab), y[lab], X_unlabeled=take(A, unl))
        same_model(base, m)  # rtol 0: equal
        np.testing.assert_array_equal(base.em_log_likelihood_, m.em_log_likelihood_)
        np.testing.assert_array_equal(base.predict_proba(take(A, unl)), m.predict_proba(take(A, unl)))
        assert not hasattr(m.estimator_, "component_log_weight_")
        assert m.estimator_.n_components_.tolist() == [1, 1] and "partial_fit" in m.estimator_.capabilities
    plain = make(name, n_components=1, random_state=3).fit(take(A, lab), y[lab])
    same_model(make(name).fit(take(A, lab), y[lab]), plain)
    assert plain.n_iter_ == 0 and len(plain.em_log_likelihood_) == 0  # no EM ran


@pytest.mark.parametrize("name", COMPONENT_MODELS)
def test_components_deterministic_given_the_seed(name, union_data):
    X, y, lab, unl, _, _ = union_data
    A = as_input(name, X)

    def fit(seed, **kw):
        return make(name, n_components=2, random_state=seed, **kw).fit(take(A, lab), y[lab], X_unlabeled=take(A, unl))

    a, b = fit(5), fit(5)
    same_model(a, b)
    np.testing.assert_array_equal(a.em_log_likelihood_, b.em_log_likelihood_)
    np.testing.assert_array_equal(a.estimator_.component_log_weight_, b.estimator_.component_log_weight_)
    # the seed draws the start: theta_0 differs between seeds
    s0, s1 = fit(0, max_iter=0), fit(1, max_iter=0)
    assert not np.array_equal(s0.estimator_.feature_log_prob_, s1.estimator_.feature_log_prob_)
    assert fit(None).classes_.tolist() == [0, 1]  # fresh randomness: still a model


@pytest.mark.parametrize("name", ["MultinomialNB", "TextClassifier"])
def test_two_components_for_a_class_of_two_topics(name, union_data):
    """Nigam et al. section 5.3: a class made of two topics, modelled by one multinomial, is
    the average of the topics (here the other class's own distribution); two components
    recover both topics from 10 labelled documents per class and 980 unlabelled ones."""
    X, y, lab, unl, Xte, yte = union_data
    A, Ate = as_input(name, X), as_input(name, Xte)
    one = make(name).fit(take(A, lab), y[lab], X_unlabeled=take(A, unl))
    two = make(name, n_components=[2, 1], n_init=5).fit(take(A, lab), y[lab], X_unlabeled=take(A, unl))
    acc1, acc2 = np.mean(one.predict(Ate) == yte), np.mean(two.predict(Ate) == yte)
    assert acc2 >= 0.95 and acc2 >= acc1 + 0.25, (acc1, acc2)
    est = two.estimator_
    assert est.feature_log_prob_.shape[0] == 3 and est.class_log_prior_.shape == (2,)
    assert est.n_components_.tolist() == [2, 1]  # fitted state of the model
    # the two components of class 0 are the two topics: each favours one half of the words
    half = np.exp(est.feature_log_prob_[:2])
    h = half.shape[1] // 2 if name == "MultinomialNB" else None
    if h is not None:
        assert sorted(np.round(half[:, :15].sum(axis=1))) == [0.0, 1.0]


def test_components_prediction_sums_the_components(union_data):
    """log P(x, c) = logsumexp_m [log P(c) + log P(m | c) + x . log theta_cm], with
    P(m | c) = N_cm / N_c and P(c) = N_c / N (class_alpha = 0)."""
    X, y, lab, unl, Xte, _ = union_data
    em = make("MultinomialNB", n_components=[2, 1]).fit(X[lab], y[lab], X_unlabeled=X[unl])
    m = em.estimator_
    cc = m.stats_.class_count
    totals = np.r_[cc[:2].sum(), cc[2]]
    np.testing.assert_allclose(m.class_count_, totals, rtol=1e-12)
    np.testing.assert_allclose(np.exp(m.class_log_prior_), totals / totals.sum(), rtol=1e-12)
    np.testing.assert_allclose(np.exp(m.component_log_weight_), cc / totals[[0, 0, 1]], rtol=1e-12)
    comp = Xte @ m.feature_log_prob_.T + m.class_log_prior_[[0, 0, 1]] + m.component_log_weight_
    joint = np.c_[np.logaddexp(comp[:, 0], comp[:, 1]), comp[:, 2]]
    np.testing.assert_allclose(m.predict_joint_log_proba(Xte), joint, rtol=1e-12)
    np.testing.assert_array_equal(em.predict_joint_log_proba(Xte), m.predict_joint_log_proba(Xte))
    np.testing.assert_array_equal(em.predict_proba(Xte), m.predict_proba(Xte))
    lse = np.logaddexp(joint[:, 0], joint[:, 1])
    np.testing.assert_allclose(m.predict_log_proba(Xte), joint - lse[:, None], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m.predict_proba(Xte).sum(axis=1), 1.0, rtol=1e-12)
    assert set(m.predict(Xte).tolist()) <= {0, 1}


@pytest.mark.parametrize("name", COMPONENT_MODELS)
def test_components_objective_never_decreases(name, union_data):
    X, y, lab, unl, _, _ = union_data
    A = as_input(name, X)
    m = make(name, alpha=0.5, class_alpha=0.5, n_components=[3, 2], tol=0.0, max_iter=10) if name != "TextClassifier" \
        else make(name, alpha=0.5, n_components=[3, 2], tol=0.0, max_iter=10)
    trace = m.fit(take(A, lab), y[lab], X_unlabeled=take(A, unl)).em_log_likelihood_
    assert len(trace) == 11 and np.all(np.isfinite(trace))
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[:-1]))


@given(st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.5]), st.sampled_from([0.1, 1.0]),
       st.sampled_from([0.0, 0.3, 1.0]))
def test_law_component_em_objective_is_monotone(seed, class_alpha, alpha, lam):
    rng = np.random.default_rng(seed)
    X = rng.poisson(rng.uniform(0.2, 3, size=(1, 7)), size=(30, 7))
    y = rng.integers(0, 2, size=30)
    y[:2] = [0, 1]
    model = make("MultinomialNB", alpha=alpha, class_alpha=class_alpha, n_components=[2, 3], unlabeled_weight=lam,
                                 tol=0.0, max_iter=6, random_state=seed % 1000)
    trace = model.fit(X[:10], y[:10], X_unlabeled=X[10:]).em_log_likelihood_
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[:-1]))


def test_components_from_labelled_rows_alone(union_data):
    """Without unlabelled rows (or with unlabeled_weight=0) EM fits the mixture inside each
    class from the labelled rows."""
    X, y, lab, unl, Xte, yte = union_data
    X, y = X[:100], y[:100]
    one = nbayes.MultinomialNB().fit(X, y)
    two = make("MultinomialNB", n_components=[2, 1], n_init=3).fit(X, y)
    assert two.n_iter_ >= 1 and two.n_unlabeled_ == 0
    assert np.mean(two.predict(Xte) == yte) >= np.mean(one.predict(Xte) == yte) + 0.1  # 0.98 against 0.80
    zero = make("MultinomialNB", n_components=[2, 1], n_init=3, unlabeled_weight=0).fit(X, y, X_unlabeled=Xte[:50])
    same_model(two, zero)
    assert zero.n_unlabeled_ == 50


def test_text_components_equal_multinomial_components_on_the_matrix_of_all_documents(union_data):
    from nbayes.text.vectorizer import Vectorizer

    X, y, lab, unl, _, _ = union_data
    docs = as_input("TextClassifier", X)
    kw = dict(alpha=0.3, n_components=[2, 1], random_state=4)  # one start: no near-tie to break
    clf = make("TextClassifier", **kw).fit(take(docs, lab), y[lab], X_unlabeled=take(docs, unl))
    vec = Vectorizer().fit(docs)
    mnb = make("MultinomialNB", **kw).fit(vec.transform(take(docs, lab)), y[lab], X_unlabeled=vec.transform(take(docs, unl)))
    np.testing.assert_allclose(clf.estimator_.feature_log_prob_, mnb.estimator_.feature_log_prob_, rtol=1e-10)
    np.testing.assert_allclose(clf.em_log_likelihood_, mnb.em_log_likelihood_, rtol=1e-10)


@pytest.mark.parametrize("name", COMPONENT_MODELS)
def test_components_save_load_round_trip(name, union_data, tmp_path):
    X, y, lab, unl, Xte, _ = union_data
    A, Ate = as_input(name, X), as_input(name, Xte)
    m = make(name, n_components=[2, 1], n_init=2, random_state=11).fit(take(A, lab), y[lab], X_unlabeled=take(A, unl))
    m.save(tmp_path / "m.nbm")
    back = nbayes.load(tmp_path / "m.nbm")
    np.testing.assert_array_equal(back.predict_proba(Ate), m.predict_proba(Ate))
    np.testing.assert_array_equal(back.estimator_.component_log_weight_, m.estimator_.component_log_weight_)
    np.testing.assert_array_equal(back.estimator_.class_count_, m.estimator_.class_count_)
    assert list(back.n_components) == [2, 1] and (back.n_init, back.random_state) == (2, 11)
    # the EM-completed model alone: its file records the component layout (fitted state)
    m.estimator_.save(tmp_path / "inner.nbm")
    inner = nbayes.load(tmp_path / "inner.nbm")
    assert inner.n_components_.tolist() == [2, 1] and "n_components" not in inner.get_params()
    np.testing.assert_array_equal(inner.predict_proba(Ate), m.predict_proba(Ate))
    m2 = make(name, n_components=2).fit(take(A, lab), y[lab], X_unlabeled=take(A, unl))
    m2.save(tmp_path / "m2.nbm")
    back2 = nbayes.load(tmp_path / "m2.nbm")
    np.testing.assert_array_equal(back2.predict_log_proba(Ate), m2.predict_log_proba(Ate))
    assert back2.n_components == 2 and back2.estimator_.feature_log_prob_.shape[0] == 4


@pytest.mark.parametrize("name", COMPONENT_MODELS)
def test_components_refuse_what_statistics_cannot_do(name, union_data):
    X, y, lab, unl, _, _ = union_data
    A = as_input(name, X)
    wrapper = make(name, n_components=2).fit(take(A, lab), y[lab], X_unlabeled=take(A, unl))
    m = wrapper.estimator_
    other = make(name, n_components=2).fit(take(A, lab), y[lab]).estimator_
    assert not {"partial_fit", "unlearn", "merge", "explain", "to_logistic"} & (m.capabilities | wrapper.capabilities)
    assert "explain" not in make(name, n_components=2).capabilities  # unfitted too
    with pytest.raises(InvalidParameterError, match=r"partial_fit: this .* has several mixture components per class "
                                                    r"\(n_components_=\[2, 2\].* not exact"):
        m.partial_fit(take(A, lab), y[lab])
    with pytest.raises(InvalidParameterError, match=r"unlearn: .*n_components_=\[2, 2\]"):
        m.unlearn(take(A, lab), y[lab])
    with pytest.raises(MergeError, match=r"merge: .*n_components_=\[2, 2\]"):
        m.merge(other)
    with pytest.raises(MergeError, match=r"merge: .*n_components_=\[2, 2\]"):
        make(name).fit(take(A, lab), y[lab]).merge(other)
    with pytest.raises(InvalidParameterError, match="explain: .* log-sum-exp over its components"):
        m.explain(A[0] if name == "TextClassifier" else A[:1])
    with pytest.raises(InvalidParameterError, match="explain: .* log-sum-exp over its components"):
        wrapper.explain(A[0] if name == "TextClassifier" else A[:1])
    if name != "TextClassifier":
        with pytest.raises(InvalidParameterError, match="to_logistic: .* log-sum-exp"):
            m.to_logistic()
    # what works: top features (on the class totals) and another deployment prior
    assert set(m.top_features(3)) == {0, 1}
    moved = m.with_prior([0.2, 0.8])
    np.testing.assert_allclose(np.exp(moved.class_log_prior_), [0.2, 0.8])
    np.testing.assert_array_equal(moved.component_log_weight_, m.component_log_weight_)


def test_components_errors(union_data):
    X, y, lab, unl, _, _ = union_data
    M = "MultinomialNB"
    for bad in (0, -1, 1.5, 2.0, "two", True, [2, 0], [[2, 1]], [], None):
        with pytest.raises(InvalidParameterError, match="'n_components' must be an integer >= 1, or a sequence"):
            make(M, n_components=bad).fit(X[lab], y[lab], X_unlabeled=X[unl])
    with pytest.raises(InvalidParameterError, match="'n_components' has 3 entries but the data has 2 classes"):
        make(M, n_components=[2, 1, 1]).fit(X[lab], y[lab], X_unlabeled=X[unl])
    with pytest.raises(InvalidParameterError, match="'n_init' must be >= 1"):
        make(M, n_components=2, n_init=0).fit(X[lab], y[lab])
    with pytest.raises(InvalidParameterError, match="'random_state' must be None or an integer >= 0"):
        make(M, n_components=2, random_state=-1).fit(X[lab], y[lab])
    with pytest.raises(InvalidParameterError, match="'random_state' must be None or an integer >= 0"):
        make(M, n_components=2, random_state=np.random.default_rng(0)).fit(X[lab], y[lab])
    with pytest.raises(InvalidParameterError, match="n_components=2 .* model='multinomial' or 'bernoulli' without tfidf"):
        make("TextClassifier", model="complement", n_components=2).fit(["alpha beta", "gamma delta"], [0, 1])
    with pytest.raises(InvalidParameterError, match=r"n_components=2 .*without tfidf\); TextClassifier\(tfidf=True\) "):
        make("TextClassifier", tfidf=True, n_components=2).fit(["alpha beta", "gamma delta"], [0, 1])
    # a model with components is not built from per-class counts
    m = make(M, n_components=2).fit(X[lab], y[lab]).estimator_
    with pytest.raises(DataError, match="statistics with 2 rows for 2 classes \\(expected 4 rows"):
        m.set_statistics(nbayes.MultinomialNB().fit(X[lab], y[lab]).stats_, m.classes_, X.shape[1], None)


def test_components_with_cv_weight(union_data):
    from nbayes.semi_supervised import WEIGHT_GRID

    X, y, lab, unl, _, _ = union_data
    fits = [make("MultinomialNB", n_components=[2, 1], unlabeled_weight="cv").fit(X[lab], y[lab], X_unlabeled=X[unl])
            for _ in range(2)]
    assert fits[0].unlabeled_weight_ in WEIGHT_GRID and set(fits[0].em_cv_scores_) == set(WEIGHT_GRID)
    same_model(*fits)


@pytest.mark.parametrize("name", COMPONENT_MODELS)
def test_cross_val_predict_refits_components_per_fold(name, union_data):
    """A model with several components per class is not a sum of per-row statistics:
    nbayes.model_selection fits it again on each fold's training rows."""
    from sklearn.model_selection import StratifiedKFold

    from nbayes.model_selection import cross_val_predict

    X, y, _, _, _, _ = union_data
    idx = np.r_[0:60]
    A, yy = take(as_input(name, X), idx), y[idx]
    model = make(name, n_components=[2, 1], max_iter=5)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    got = cross_val_predict(model, A, yy, cv=cv, method="predict_proba")
    want = np.empty((len(yy), 2))
    for tr, te in cv.split(np.zeros(len(yy)), yy):
        want[te] = make(name, n_components=[2, 1], max_iter=5).fit(take(A, tr), yy[tr]).predict_proba(take(A, te))
    np.testing.assert_array_equal(got, want)


def test_leave_one_out_of_bernoulli_components_refits():
    """The closed-form leave-one-out of BernoulliNB does not apply to components either."""
    from sklearn.model_selection import LeaveOneOut

    from nbayes.model_selection import cross_val_predict

    rng = np.random.default_rng(0)
    X = (rng.random((14, 5)) < 0.4).astype(int)
    y = np.r_[[0] * 7, [1] * 7]
    got = cross_val_predict(make("BernoulliNB", n_components=2), X, y, cv=LeaveOneOut(), method="predict_proba")
    want = np.vstack([make("BernoulliNB", n_components=2).fit(np.delete(X, i, 0), np.delete(y, i)).predict_proba(X[i:i + 1])
                      for i in range(len(y))])
    np.testing.assert_array_equal(got, want)


def test_cross_validation_of_a_loaded_model_with_components(tmp_path):
    """A loaded EM wrapper (its n_components a sequence) is refitted per fold by model_selection."""
    from sklearn.model_selection import KFold

    from nbayes.model_selection import cross_val_predict

    rng = np.random.default_rng(0)
    X, y = rng.poisson(1.0, size=(30, 5)), np.r_[[0] * 15, [1] * 15]
    make("MultinomialNB", n_components=[2, 1]).fit(X, y).save(tmp_path / "m.nbm")
    back = nbayes.load(tmp_path / "m.nbm")
    assert isinstance(back, nbayes.EM) and list(back.n_components) == [2, 1]
    cv = KFold(3, shuffle=True, random_state=0)
    got = cross_val_predict(back, X, y, cv=cv, method="predict_proba")
    want = np.empty((len(y), 2))
    for tr, te in cv.split(X):
        want[te] = make("MultinomialNB", n_components=[2, 1]).fit(X[tr], y[tr]).predict_proba(X[te])
    np.testing.assert_array_equal(got, want)


def test_cv_weight_with_components_given_as_an_array():
    """n_components as a NumPy array with unlabeled_weight='cv' equals the list (it once raised
    numpy's 'truth value of an array is ambiguous' from inside the lambda search)."""
    rng = np.random.default_rng(0)
    X, y, U = rng.integers(0, 3, (40, 5)), np.array([0, 1] * 20), rng.integers(0, 3, (30, 5))
    a = nbayes.EM(nbayes.MultinomialNB(), n_components=np.array([2, 2]), unlabeled_weight="cv", random_state=0)
    b = nbayes.EM(nbayes.MultinomialNB(), n_components=[2, 2], unlabeled_weight="cv", random_state=0)
    a.fit(X, y, X_unlabeled=U)
    b.fit(X, y, X_unlabeled=U)
    assert a.estimator_.n_components_.tolist() == [2, 2]
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
