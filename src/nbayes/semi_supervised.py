"""Semi-supervised Naive Bayes by EM (Nigam, McCallum, Thrun & Mitchell 2000, "Text
classification from labeled and unlabeled documents using EM", Machine Learning 39).

``fit(X, y, X_unlabeled=U)`` (and rows of ``y`` equal to the model's ``unlabeled_label``)
starts from the model of the labelled rows and alternates

* E-step: the posterior of every unlabelled row, R[i, k] = P(k | u_i; theta), from the model's
  own joint log-likelihood normalised by log-sum-exp;
* M-step: statistics = labelled counts + lambda x expected counts, the expected counts being the
  unlabelled rows counted with weight lambda R[i, k] for class k (one sparse product R^T U for
  the count models), then the usual estimate (smoothing and priors) of those statistics;

until the relative change of the objective

    l(theta) = log P(theta) + sum_labelled w_i log P(x_i, y_i) + lambda sum_unlabelled w_i log sum_k P(u_i, k)

is at most ``em_tol`` (or ``em_max_iter`` M-steps). log P(theta) is the log density of the prior
whose posterior mode the estimate is (MAP-EM): Dirichlet / Beta terms sum alpha log theta for the
count models, class_alpha log pi for a smoothed class prior, nothing for Gaussian parts (their
floored variances make that objective monotone only up to the floor). lambda is
``unlabeled_weight`` (EM-lambda, section 5.2 of the paper), or chosen among :data:`WEIGHT_GRID` by
stratified cross-validation on the labelled rows (``"cv"``). The expected counts are statistics
like any other: the fitted model predicts, saves, merges as usual, and ``partial_fit`` /
``unlearn`` add or remove labelled rows from the EM-completed statistics without running EM again.

With ``n_components`` > 1 (several mixture components per class, section 5.3 of the paper;
:mod:`nbayes.naive_bayes._components`) ``fit`` always runs EM (:func:`run_mixture_em`), with or
without unlabelled rows: labelled rows are spread over their class's components, unlabelled rows
over all of them.

EM with one component per class is deterministic: no randomness is involved (the folds of
``"cv"`` are fixed by row order). With several, the start is drawn from ``random_state``: the same
data and seed give the same model bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._validation import (
    check_number,
    check_sample_weight,
    check_y,
    classes_and_codes,
    label_array,
    missing_mask,
    n_rows,
    show,
    take_rows,
)
from .errors import DataError, InvalidParameterError, NBayesError

__all__ = ["OFF", "WEIGHT_GRID", "CV_FOLDS", "EM_ATTRS", "fit_em", "check_no_unlabeled"]

#: the default ``unlabeled_label``: no row of ``y`` is unlabelled. It is never compared with the
#: labels, so a class named "off" is an ordinary class.
OFF = "off"
#: the values of lambda that ``unlabeled_weight="cv"`` tries (0 is the supervised model)
WEIGHT_GRID = (0.0, 0.01, 0.03, 0.1, 0.3, 1.0)
#: folds of ``unlabeled_weight="cv"`` (fewer when the smallest class has fewer labelled rows)
CV_FOLDS = 3
#: at most this many EM iterations in each fold of ``"cv"`` (EM's accuracy settles in a few)
CV_MAX_ITER = 10
#: what an EM fit reports (a plain ``fit`` removes them)
EM_ATTRS = ("n_iter_", "em_log_likelihood_", "em_converged_", "unlabeled_weight_", "em_cv_scores_",
            "n_unlabeled_")

_MODELS = "MultinomialNB, BernoulliNB, CategoricalNB, NaiveBayes and TextClassifier"


def is_off(label: Any) -> bool:
    return isinstance(label, str) and label == OFF


# ---------------------------------------------------------------------------- the models' parts
def soft_class_sum(R: np.ndarray, X: Any) -> np.ndarray:
    """R.T @ X as a dense C-ordered (K, d) array: per-class sums of the rows weighted by R[i, k]
    (expected counts), for dense or sparse X: one sparse product."""
    out = (X.T @ R).T if sp.issparse(X) else R.T @ np.asarray(X)
    return np.ascontiguousarray(out, dtype=np.float64)


def dirichlet_log_density(alpha: Any, log_theta: np.ndarray) -> float:
    """sum alpha log theta (0 where alpha is 0, also against log 0): the log density, up to a
    constant, of the Dirichlet / Beta prior whose posterior mode is the (n + alpha)-smoothed
    estimate."""
    if np.ndim(alpha) == 0 and alpha > 0 and np.isfinite(log_theta).all():
        return float(alpha) * float(np.sum(log_theta))
    a = np.broadcast_to(np.asarray(alpha, dtype=np.float64), log_theta.shape)
    with np.errstate(invalid="ignore"):
        terms = a * log_theta
    return float(np.sum(np.where(a == 0, 0.0, terms)))


# ---------------------------------------------------------------------------- checks
def check_em_params(model: Any) -> None:
    lam = model.unlabeled_weight
    if not (isinstance(lam, str) and lam == "cv"):
        if isinstance(lam, str):
            raise InvalidParameterError(
                f"parameter 'unlabeled_weight' must be a number >= 0 or 'cv', got {lam!r}"
            )
        check_number("unlabeled_weight", lam, low=0.0)
        if not np.isfinite(lam):
            raise InvalidParameterError(f"parameter 'unlabeled_weight' must be finite, got {lam!r}")
    check_number("em_max_iter", model.em_max_iter, low=0, integer=True)
    check_number("em_tol", model.em_tol, low=0.0)


def check_no_unlabeled(model: Any, y: np.ndarray, what: str) -> None:
    """``partial_fit`` / ``unlearn`` take labelled rows only: EM runs in ``fit``."""
    label = getattr(model, "unlabeled_label", OFF)
    if is_off(label):
        return
    mask = unlabeled_mask(y, label)
    if mask.any():
        i = int(np.argmax(mask))
        raise DataError(
            f"y: row {i} has the unlabeled_label {show(label)}; {what} takes labelled rows only "
            "(EM over unlabelled rows runs in fit)"
        )


def unlabeled_mask(y: Any, label: Any) -> np.ndarray:
    """Rows of ``y`` equal to ``label`` (``None``: the missing labels, None / NaN / NA)."""
    arr = label_array(y)
    if label is None:
        return missing_mask(arr)
    if arr.dtype.kind == "O":
        return np.fromiter((_same(v, label) for v in arr.tolist()), dtype=bool, count=len(arr))
    numeric_label = isinstance(label, int | float | np.integer | np.floating) and not isinstance(label, bool)
    if arr.dtype.kind in "iuf" and numeric_label:
        return np.asarray(arr == label, dtype=bool)
    if arr.dtype.kind in "US" and isinstance(label, str):
        return np.asarray(arr == label, dtype=bool)
    if arr.dtype.kind == "b" and isinstance(label, bool | np.bool_):
        return np.asarray(arr == label, dtype=bool)
    return np.zeros(len(arr), dtype=bool)


def _same(v: Any, label: Any) -> bool:
    if isinstance(v, bool | np.bool_) != isinstance(label, bool | np.bool_):
        return False  # True is not the label 1
    try:
        return bool(v == label)
    except (TypeError, ValueError):
        return False


# ---------------------------------------------------------------------------- the entry point
def fit_em(model: Any, X: Any, y: Any, sample_weight: Any, X_unlabeled: Any) -> Any:
    """``model.fit(X, y, sample_weight, X_unlabeled=...)`` by EM; returns the model. The model
    is changed only when everything succeeded."""
    from .naive_bayes._base import is_chunk_stream

    name = type(model).__name__
    if "unlabeled_weight" not in model._param_names():
        raise InvalidParameterError(
            f"{name} does not learn from unlabelled rows (X_unlabeled); semi-supervised EM is built "
            f"for {_MODELS}"
        )
    model._check_params()
    check_em_params(model)
    model._check_em()
    mixture = model._has_components()
    # several components per class: the labelled start is the ordinary model (its classes,
    # vocabulary, corpus statistics); the components are laid out when EM starts
    work = type(model)(**{**model.get_params(), **({"n_components": 1} if mixture else {})})
    label = model.unlabeled_label
    raw_unlabeled: list[tuple[Any, np.ndarray | None, str]] = []
    raw_labelled: list[tuple[Any, np.ndarray, np.ndarray | None]] = []
    if y is None and is_chunk_stream(X):
        if isinstance(model.unlabeled_weight, str):
            raise InvalidParameterError(
                "unlabeled_weight='cv' needs the labelled rows in memory to cross-validate: pass X "
                "and y as arrays (a stream of chunks is read once)"
            )
        _read_stream(work, X, label, raw_labelled, raw_unlabeled)
    else:
        Xl, yl, wl, unl = _split(X, y, sample_weight, label)
        if unl is not None:
            raw_unlabeled.append((unl[0], unl[1], "X"))
        work._fit_supervised(Xl, yl, wl)
        raw_labelled.append((Xl, yl, wl))
    if X_unlabeled is not None:
        raw_unlabeled.extend(_unlabeled_parts(X_unlabeled))
    parts = []
    for raw, wu, who in raw_unlabeled:
        if n_rows(raw) == 0:
            continue
        try:
            Xv, _ = work._prepare_X(raw, fitting=False)
        except NBayesError as exc:
            raise _renamed(exc, who) from None
        parts.append((Xv, wu))
    n_unlabeled = sum(int(Xv.shape[0]) for Xv, _ in parts)
    lam: Any = model.unlabeled_weight
    cv_scores = None
    spec = model.n_components if mixture else 1
    if mixture:
        from .naive_bayes._components import Components

        Components.of(spec, n_classes=len(work.classes_))  # one entry per class
    if isinstance(lam, str):
        lam, cv_scores = _choose_weight(work, raw_labelled[0], parts, spec) if parts else (0.0, None)
    lam = float(lam)
    trace: list[float] = []
    n_iter, converged = 0, True
    if mixture:
        labelled = [(work._prepare_X(Xl, fitting=False)[0], _codes(work, yl), wl) for Xl, yl, wl in raw_labelled]
        lab, unl, _ = prepare_views(work, labelled, parts if lam > 0 else [])
        n_iter, converged, trace = run_mixture_em(work, spec, model.random_state, lab, unl, lam,
                                                  int(model.em_max_iter), float(model.em_tol), int(model.n_init))
    elif parts and lam > 0:
        labelled = [(work._prepare_X(Xl, fitting=False)[0], _codes(work, yl), wl) for Xl, yl, wl in raw_labelled]
        lab, unl, _ = prepare_views(work, labelled, parts)
        n_iter, converged, trace = run_em(work, work.stats_, lab, unl, lam, int(model.em_max_iter),
                                          float(model.em_tol))
    model.__dict__.clear()
    model.__dict__.update(work.__dict__)
    model.n_iter_ = n_iter
    model.em_log_likelihood_ = np.asarray(trace, dtype=np.float64)
    model.em_converged_ = converged
    model.unlabeled_weight_ = lam
    model.em_cv_scores_ = cv_scores
    model.n_unlabeled_ = n_unlabeled
    return model


def _codes(model: Any, y: Any) -> np.ndarray:
    from ._validation import encode_labels

    codes, _ = encode_labels(check_y(y, len(y)), model.classes_)
    return codes


def _split(X: Any, y: Any, sample_weight: Any, label: Any):
    """(labelled X, y, w, (unlabelled X, w) or None): the rows whose label is ``label`` apart."""
    if is_off(label):
        return X, y, sample_weight, None
    if isinstance(X, Iterator):
        X = list(X)  # a one-shot iterable of documents: read it once
    arr = label_array(y)
    n = n_rows(X)
    if len(arr) != n:
        raise DataError(f"y has {len(arr)} labels but X has {n} rows; they must match")
    mask = unlabeled_mask(arr, label)
    if not mask.any():
        return X, y, sample_weight, None
    if mask.all():
        raise DataError(
            f"y: every row has the unlabeled_label {show(label)}; EM needs labelled rows (at least "
            "one per class to learn) to start from"
        )
    w = check_sample_weight(sample_weight, n)
    lab, unl = np.flatnonzero(~mask), np.flatnonzero(mask)
    wl = None if w is None else w[lab]
    wu = None if w is None else w[unl]
    return take_rows(X, lab), arr[lab], wl, (take_rows(X, unl), wu)


def _read_stream(work: Any, chunks: Any, label: Any, labelled: list, unlabeled: list) -> None:
    """A stream of (X_i, y_i[, w_i]) chunks, read once: labelled rows counted as they come (and
    kept for the objective), unlabelled rows kept for EM."""
    from .naive_bayes._base import stream_chunks

    for i, X, y, w in stream_chunks(chunks):
        try:
            Xl, yl, wl, unl = _split(X, y, w, label)
        except DataError as exc:
            if "every row has the unlabeled_label" not in str(exc):
                raise type(exc)(f"chunk {i} of the stream: {exc}") from None
            Xl, yl, wl, unl = None, None, None, (X, None if w is None else check_sample_weight(w, n_rows(X)))
        if unl is not None:
            unlabeled.append((unl[0], unl[1], f"chunk {i} of the stream: X"))
        if Xl is None:
            continue
        try:
            work.partial_fit(Xl, yl, sample_weight=wl)
        except NBayesError as exc:
            raise type(exc)(f"chunk {i} of the stream: {exc}") from None
        labelled.append((Xl, yl, wl))
    if not labelled:
        raise DataError(
            f"every row of the stream has the unlabeled_label {show(label)}; EM needs labelled "
            "rows to start from"
        )


def _unlabeled_parts(X_unlabeled: Any) -> list[tuple[Any, None, str]]:
    """X_unlabeled: one batch of rows, or an iterator of batches (read once, held in memory)."""
    from .naive_bayes._base import is_chunk_stream

    if not is_chunk_stream(X_unlabeled):
        return [(X_unlabeled, None, "X_unlabeled")]
    out = []
    for i, chunk in enumerate(X_unlabeled):
        if isinstance(chunk, str | bytes | tuple):
            raise DataError(
                f"X_unlabeled: chunk {i} is a {type(chunk).__name__}; an iterator passed as "
                "X_unlabeled yields batches of rows (arrays, frames, lists of documents), not "
                "single documents or (X, y) pairs; pass a list for one batch"
            )
        out.append((chunk, None, f"X_unlabeled: chunk {i}: X"))
    return out


def _renamed(exc: NBayesError, who: str) -> NBayesError:
    """An error about prepared rows, naming where they came from (X_unlabeled, a chunk)."""
    msg = str(exc)
    if who == "X":
        return exc
    if msg.startswith("X:") or msg.startswith("X "):
        msg = who + msg[1:]
    else:
        msg = f"{who}: {msg}"
    return type(exc)(msg)


# ---------------------------------------------------------------------------- EM
def prepare_views(work: Any, labelled: list, parts: list, extra: list = ()) -> tuple[list, list, list]:
    """The prepared rows as the model's EM views (for text: count matrices over one vocabulary,
    tokenised once): (labelled (view, codes, w), unlabelled (view, w), extra views)."""
    views = work._em_views([Xv for Xv, _, _ in labelled] + [Xv for Xv, _ in parts] + list(extra))
    a, b = len(labelled), len(labelled) + len(parts)
    lab = [(v, codes, wl) for v, (_, codes, wl) in zip(views[:a], labelled)]
    unl = [(v, np.ones(n_rows(Xv)) if wu is None else wu) for v, (Xv, wu) in zip(views[a:b], parts)]
    return lab, unl, views[b:]


def run_em(
    work: Any, stats_l: Any, lab: list, unl: list, lam: float, max_iter: int, tol: float
) -> tuple[int, bool, list[float]]:
    """EM from the labelled statistics ``stats_l``; commits every M-step into ``work``.

    ``lab``: labelled views (view, codes, w) for the objective; ``unl``: unlabelled views
    (view, w). Returns (M-steps done, converged, the objective at theta_0 (the labelled model)
    and after each M-step)."""
    classes, d, names = work.classes_, work.n_features_in_, work._names()
    stats_l = work._em_align(stats_l, [v for v, _, _ in lab] + [v for v, _ in unl])
    K = len(classes)

    def m_step(Rs: list[np.ndarray]) -> None:
        total = stats_l
        for (view, _), R in zip(unl, Rs):
            total = total + work._count_soft(view, R)
        work._commit(total, classes, d, names)

    # theta_0: the labelled counts (for text models over every term of every row)
    m_step([np.zeros((len(wu), K)) for _, wu in unl])
    trace: list[float] = []
    it = 0
    while True:
        obj = 0.0
        for view, codes, wl in lab:
            jl = work._em_jll(view)[np.arange(len(codes)), codes]
            obj += float(np.sum(jl if wl is None else wl * jl))
        Rs = []
        for view, wu in unl:
            log_r, lse = _posterior(work, work._em_jll(view))
            ok = np.isfinite(lse)  # rows impossible under every class: left out (prior posterior)
            obj += lam * float(np.sum(wu[ok] * lse[ok]))
            Rs.append(np.exp(log_r) * (lam * wu)[:, None])
        obj += work._em_log_prior() + _class_prior_term(work)
        trace.append(obj)
        if it > 0 and abs(obj - trace[-2]) <= tol * abs(trace[-2]):
            return it, True, trace
        if it >= max_iter:
            return it, max_iter == 0, trace
        m_step(Rs)
        it += 1


def run_mixture_em(
    work: Any, spec: Any, seed: Any, lab: list, unl: list, lam: float, max_iter: int, tol: float,
    n_init: int = 1,
) -> tuple[int, bool, list[float]]:
    """EM with ``spec`` components per class (Nigam et al. section 5.3); commits into ``work``.

    Start (theta_0): each labelled row's weight spread over its class's components at random
    (Dirichlet(1, ..., 1), from ``numpy.random.default_rng(seed)``), the components estimated
    from those labelled shares alone. E-step: a labelled row's posterior over its own class's
    components, an unlabelled row's over every component; M-step: the components' statistics
    are the labelled rows counted with weight w_i R_im plus the unlabelled ones with
    lambda w_i R_im. Objective: log P(theta) + sum_labelled w_i log P(x_i, y_i) + lambda
    sum_unlabelled w_i log P(u_i), each P a log-sum-exp over components. ``n_init`` starts, one
    after the other from the same generator; the one of highest final objective is kept (the
    first among equals). Returns as :func:`run_em`, for the kept start."""
    from .naive_bayes._components import Components

    classes, d, names = work.classes_, work.n_features_in_, work._names()
    work.n_components = spec
    mix = Components.of(spec, n_classes=len(classes))
    rng = np.random.default_rng(seed)
    best = None
    for _ in range(n_init):
        R0 = [mix.random_split(codes, rng) * _col(wl, len(codes)) for _, codes, wl in lab]
        n_iter, converged, trace = _mixture_em(work, mix, R0, lab, unl, lam, max_iter, tol)
        if best is None or trace[-1] > best[2][-1]:
            best = (n_iter, converged, trace, work.stats_)
    if n_init > 1:
        work._commit(best[3], classes, d, names)
    return best[0], best[1], best[2]


def _mixture_em(work: Any, mix: Any, R0: list, lab: list, unl: list, lam: float, max_iter: int,
                tol: float) -> tuple[int, bool, list[float]]:
    classes, d, names = work.classes_, work.n_features_in_, work._names()
    owner = mix.owner

    def m_step(R_lab: list[np.ndarray], R_unl: list[np.ndarray]) -> None:
        total = None
        for (view, _, _), R in zip(lab, R_lab):
            part = work._count_soft(view, R)
            total = part if total is None else total + part
        for (view, _), R in zip(unl, R_unl):
            total = total + work._count_soft(view, R)
        work._commit(total, classes, d, names)

    own = [owner[None, :] == codes[:, None] for _, codes, _ in lab]
    # theta_0: the labelled shares (for text models over every term of every row, as run_em)
    m_step(R0, [np.zeros((len(wu), mix.total)) for _, wu in unl])
    trace: list[float] = []
    it = 0
    while True:
        obj = 0.0
        log_w = np.asarray(work.component_log_weight_)
        R_lab = []
        for (view, codes, wl), mask in zip(lab, own):
            jll = np.where(mask, work._em_jll(view), -np.inf)
            log_r, lse = _normalize_rows(jll, np.where(mask, log_w[None, :], -np.inf))
            ok = np.isfinite(lse)  # impossible under every component of its class: left out
            w = np.ones(len(codes)) if wl is None else wl
            obj += float(np.sum(w[ok] * lse[ok]))
            R_lab.append(np.exp(log_r) * w[:, None])
        R_unl = []
        for view, wu in unl:
            log_r, lse = _normalize_rows(work._em_jll(view), np.asarray(work._intercept)[None, :])
            ok = np.isfinite(lse)
            obj += lam * float(np.sum(wu[ok] * lse[ok]))
            R_unl.append(np.exp(log_r) * (lam * wu)[:, None])
        obj += work._em_log_prior() + _class_prior_term(work) + _weight_prior_term(work, log_w)
        trace.append(obj)
        if it > 0 and abs(obj - trace[-2]) <= tol * abs(trace[-2]):
            return it, True, trace
        if it >= max_iter:
            return it, max_iter == 0, trace
        m_step(R_lab, R_unl)
        it += 1


def _col(w: np.ndarray | None, n: int) -> np.ndarray:
    return np.ones((n, 1)) if w is None else np.asarray(w, dtype=np.float64)[:, None]


def _normalize_rows(jll: np.ndarray, fallback: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log posterior over the columns, log-sum-exp) per row; a row with no finite column
    takes ``fallback`` (log weights, normalised here; uniform if they are all -inf too)."""
    n, T = jll.shape
    m = jll.max(axis=1)
    fin = np.isfinite(m)
    lse = np.full(n, -np.inf)
    out = np.empty((n, T))
    if fin.any():
        z = jll[fin] - m[fin, None]
        s = np.log(np.exp(z).sum(axis=1))
        lse[fin] = m[fin] + s
        out[fin] = z - s[:, None]
    if not fin.all():
        fb = np.broadcast_to(fallback, (n, T))[~fin]
        fm = fb.max(axis=1, keepdims=True)
        fm = np.where(np.isfinite(fm), fm, 0.0)
        with np.errstate(divide="ignore"):
            e = np.exp(fb - fm)
            tot = e.sum(axis=1, keepdims=True)
            out[~fin] = np.where(tot > 0, np.log(e) - np.log(np.where(tot > 0, tot, 1.0)), -np.log(T))
    return out, lse


def _weight_prior_term(model: Any, log_w: np.ndarray) -> float:
    """class_alpha sum log P(m | c): the Dirichlet prior behind the smoothed component weights."""
    ca = float(getattr(model, "class_alpha", 0.0) or 0.0)
    return float(ca * np.sum(log_w)) if ca > 0 else 0.0


def _posterior(model: Any, jll: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log P(k | x) with the class prior for impossible rows, log sum_k P(x, k))."""
    from ._kernels import run
    from ._kernels.normalize import log_normalize

    jll = np.ascontiguousarray(jll, dtype=np.float64)
    m = jll.max(axis=1)
    fin = np.isfinite(m)
    lse = np.full(len(m), -np.inf)
    if fin.any():
        z = jll[fin] - m[fin, None]
        lse[fin] = m[fin] + np.log(np.exp(z).sum(axis=1))
    return run(log_normalize, jll, model._fallback), lse


def _class_prior_term(model: Any) -> float:
    """class_alpha log pi: the Dirichlet prior behind a smoothed class prior (eq. 9)."""
    ca = float(getattr(model, "class_alpha", 0.0) or 0.0)
    if ca <= 0 or not model.fit_prior or model.class_prior is not None:
        return 0.0
    return float(np.sum(ca * model.class_log_prior_))


# ---------------------------------------------------------------------------- EM-lambda by CV
def _choose_weight(work: Any, labelled: tuple, parts: list, spec: Any = 1) -> tuple[float, dict[float, float]]:
    """lambda among :data:`WEIGHT_GRID` by stratified k-fold CV on the labelled rows (k = 3, or
    the size of the smallest class when smaller); each fold runs EM (at most
    :data:`CV_MAX_ITER` iterations) on its training rows and every unlabelled row and scores
    accuracy on its held-out rows (ties: the higher mean log
    P(y | x), then the larger lambda). A class with a single labelled row cannot be held out and
    still learned: then lambda = 1 (the paper's EM), and no scores are reported. With several
    components per class (``spec``) every lambda, 0 included, runs the components' EM from the
    same random start."""
    X, y, w = labelled
    y = check_y(y, n_rows(X))
    w = check_sample_weight(w, len(y))
    classes, codes = classes_and_codes(y)
    k = min(CV_FOLDS, int(np.bincount(codes).min()))
    if k < 2:
        return 1.0, None  # type: ignore[return-value]
    folds = _stratified_folds(codes, k)
    G = len(WEIGHT_GRID)
    hits, logp, total = np.zeros(G), np.zeros(G), 0.0
    params = work.get_params()
    if getattr(work, "column_kinds_", None) is not None:  # NaiveBayes: the full fit's column types
        params["column_types"] = dict(enumerate(work.column_kinds_))
    for f in range(k):
        tr, te = np.flatnonzero(folds != f), np.flatnonzero(folds == f)
        w_tr, wt = (None, np.ones(len(te))) if w is None else (w[tr], w[te])
        fm = type(work)(**params)
        fm._fit_supervised(take_rows(X, tr), y[tr], w_tr)
        Xv_tr, _ = fm._prepare_X(take_rows(X, tr), fitting=False)
        Xv_te, _ = fm._prepare_X(take_rows(X, te), fitting=False)
        codes_te = _codes(fm, y[te])
        stats_l = fm.stats_
        lab, unl, (view_te,) = prepare_views(fm, [(Xv_tr, _codes(fm, y[tr]), w_tr)], parts, [Xv_te])
        total += float(wt.sum())
        for g, lam in enumerate(WEIGHT_GRID):  # ascending: 0 scores the labelled fit as it is
            if spec != 1:
                run_mixture_em(fm, spec, work.random_state, lab, unl if lam > 0 else [], lam,
                               min(int(work.em_max_iter), CV_MAX_ITER), float(work.em_tol), int(work.n_init))
                jll = fm._mixture().class_logsumexp(fm._em_jll(view_te))
            elif lam == 0:
                jll = fm._jll(Xv_te)
            else:
                run_em(fm, stats_l, lab, unl, lam, min(int(work.em_max_iter), CV_MAX_ITER), float(work.em_tol))
                jll = fm._em_jll(view_te)
            log_r, _ = _posterior(fm, jll)
            hits[g] += float(np.sum(wt * (np.argmax(jll, axis=1) == codes_te)))
            logp[g] += float(np.sum(wt * log_r[np.arange(len(te)), codes_te]))
    acc = hits / total
    best = max(range(G), key=lambda g: (acc[g], logp[g], WEIGHT_GRID[g]))
    return WEIGHT_GRID[best], {lam: float(a) for lam, a in zip(WEIGHT_GRID, acc)}


def _stratified_folds(codes: np.ndarray, k: int) -> np.ndarray:
    """Fold of each row: within each class, its rows in order are dealt to folds 0, 1, ..., k-1
    in turn (every fold holds each class about equally; deterministic)."""
    folds = np.empty(len(codes), dtype=np.intp)
    for c in np.unique(codes):
        rows = np.flatnonzero(codes == c)
        folds[rows] = np.arange(len(rows)) % k
    return folds
