"""EM's iterations over the models' statistics protocol (Nigam, McCallum, Thrun & Mitchell
2000): one component per class (:func:`run_em`), several (:func:`run_mixture_em`, section 5.3),
and lambda by cross-validation (:func:`choose_weight`, EM-lambda of section 5.2).

Written against the protocol every Naive Bayes model implements (``_em_views``, ``_em_align``,
``_em_jll``, ``_count_soft``, ``_em_log_prior``, ``_commit``, ``_prepare_X``,
``_fit_supervised``, ``stats_``, the class prior settings): no concrete model is imported here.
The entry point and the settings are :mod:`nbayes.naive_bayes._em`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._kernels.normalize import log_normalize
from .._validation import check_sample_weight, check_y, classes_and_codes, encode_labels, n_rows, take_rows
from ._components import Components, is_mixture

__all__ = ["WEIGHT_GRID", "CV_FOLDS", "CV_MAX_ITER", "prepare_views", "run_em", "run_mixture_em",
           "choose_weight", "label_codes"]

#: the values of lambda that ``unlabeled_weight="cv"`` tries (0 is the supervised model)
WEIGHT_GRID = (0.0, 0.01, 0.03, 0.1, 0.3, 1.0)
#: folds of ``unlabeled_weight="cv"`` (fewer when the smallest class has fewer labelled rows)
CV_FOLDS = 3
#: a labelled EM input: (the prepared rows or their EM view, class codes, weights or None)
Labelled = tuple[Any, np.ndarray, np.ndarray | None]
#: an unlabelled EM input: (the prepared rows, weights or None for 1 each)
UnlabeledPart = tuple[Any, np.ndarray | None]
#: an unlabelled EM view: (the view, weights)
UnlabeledView = tuple[Any, np.ndarray]

#: at most this many EM iterations in each fold of ``"cv"`` (EM's accuracy settles in a few)
CV_MAX_ITER = 10


def label_codes(model: Any, y: Any) -> np.ndarray:
    """The class index (in ``model.classes_``) of each label of ``y``."""
    codes, _ = encode_labels(check_y(y, len(y)), model.classes_)
    return codes


# ---------------------------------------------------------------------------- EM
def prepare_views(
    work: Any, labelled: list[Labelled], parts: list[UnlabeledPart], extra: Sequence[Any] = ()
) -> tuple[list[Labelled], list[UnlabeledView], list[Any]]:
    """The prepared rows as the model's EM views (for text: count matrices over one vocabulary,
    tokenised once): (labelled (view, codes, w), unlabelled (view, w), extra views)."""
    views = work._em_views([Xv for Xv, _, _ in labelled] + [Xv for Xv, _ in parts] + list(extra))
    a, b = len(labelled), len(labelled) + len(parts)
    lab = [(v, codes, wl) for v, (_, codes, wl) in zip(views[:a], labelled)]
    unl = [(v, np.ones(n_rows(Xv)) if wu is None else wu) for v, (Xv, wu) in zip(views[a:b], parts)]
    return lab, unl, views[b:]


def run_em(
    work: Any, stats_l: Any, lab: list[Labelled], unl: list[UnlabeledView], lam: float, max_iter: int, tol: float
) -> tuple[int, bool, list[float]]:
    """EM from the labelled statistics ``stats_l``; commits every M-step into ``work``.

    ``lab``: labelled views (view, codes, w) for the objective; ``unl``: unlabelled views
    (view, w). Returns (M-steps done, converged, the objective at theta_0 (the labelled model)
    and after each M-step)."""
    classes, d, names = work.classes_, work.n_features_in_, work.input_feature_names()
    stats_l = work._em_align(stats_l, [v for v, _, _ in lab] + [v for v, _ in unl])
    K = len(classes)

    def m_step(Rs: list[np.ndarray]) -> None:
        total = stats_l
        for (view, _), R in zip(unl, Rs):
            total = total + work.count_expected(view, R)
        work.set_statistics(total, classes, d, names)

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
    work: Any, spec: Any, seed: Any, lab: list[Labelled], unl: list[UnlabeledView], lam: float, max_iter: int,
    tol: float, n_init: int = 1,
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
    classes, d, names = work.classes_, work.n_features_in_, work.input_feature_names()
    mix = Components.of(spec, n_classes=len(classes))
    assert mix is not None, "run_mixture_em: spec asks for one component per class"  # callers check is_mixture
    work.__dict__["_layout"] = mix  # fitted state: the statistics get one row per component
    rng = np.random.default_rng(seed)
    best: tuple[int, bool, list[float], Any] | None = None
    for _ in range(n_init):
        R0 = [mix.random_split(codes, rng) * _col(wl, len(codes)) for _, codes, wl in lab]
        n_iter, converged, trace = _mixture_em(work, mix, R0, lab, unl, lam, max_iter, tol)
        if best is None or trace[-1] > best[2][-1]:
            best = (n_iter, converged, trace, work.stats_)
    assert best is not None, "run_mixture_em: n_init >= 1"  # checked by EMSettings.check
    if n_init > 1:
        work.set_statistics(best[3], classes, d, names)
    return best[0], best[1], best[2]


def _mixture_em(work: Any, mix: Components, R0: list[np.ndarray], lab: list[Labelled], unl: list[UnlabeledView],
                lam: float, max_iter: int, tol: float) -> tuple[int, bool, list[float]]:
    classes, d, names = work.classes_, work.n_features_in_, work.input_feature_names()
    owner = mix.owner

    def m_step(R_lab: list[np.ndarray], R_unl: list[np.ndarray]) -> None:
        total = None
        for (view, _, _), R in zip(lab, R_lab):
            part = work.count_expected(view, R)
            total = part if total is None else total + part
        for (view, _), R in zip(unl, R_unl):
            total = total + work.count_expected(view, R)
        work.set_statistics(total, classes, d, names)

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
    jll = np.ascontiguousarray(jll, dtype=np.float64)
    m = jll.max(axis=1)
    fin = np.isfinite(m)
    lse = np.full(len(m), -np.inf)
    if fin.any():
        z = jll[fin] - m[fin, None]
        lse[fin] = m[fin] + np.log(np.exp(z).sum(axis=1))
    return log_normalize(jll, model.prior_fallback), lse


def _class_prior_term(model: Any) -> float:
    """class_alpha log pi: the Dirichlet prior behind a smoothed class prior (eq. 9)."""
    ca = float(getattr(model, "class_alpha", 0.0) or 0.0)
    if ca <= 0 or not model.fit_prior or model.class_prior is not None:
        return 0.0
    return float(np.sum(ca * model.class_log_prior_))


# ---------------------------------------------------------------------------- EM-lambda by CV
def choose_weight(
    work: Any, labelled: tuple[Any, Any, np.ndarray | None], parts: list[UnlabeledPart], spec: Any, seed: Any, max_iter: int, tol: float, n_init: int
) -> tuple[float, dict[float, float] | None]:
    """lambda among :data:`WEIGHT_GRID` by stratified k-fold CV on the labelled rows (k = 3, or
    the size of the smallest class when smaller); each fold runs EM (at most
    :data:`CV_MAX_ITER` iterations) on its training rows and every unlabelled row and scores
    accuracy on its held-out rows (ties: the higher mean log
    P(y | x), then the larger lambda). A class with a single labelled row cannot be held out and
    still learned: then lambda = 1 (the paper's EM), and no scores are reported. With several
    components per class (``spec``) every lambda, 0 included, runs the components' EM from the
    same random start (``seed``)."""
    X, y, w = labelled
    y = check_y(y, n_rows(X))
    w = check_sample_weight(w, len(y))
    classes, codes = classes_and_codes(y)
    k = min(CV_FOLDS, int(np.bincount(codes).min()))
    if k < 2:
        return 1.0, None
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
        Xv_tr, _ = fm.prepare_input(take_rows(X, tr), fitting=False)
        Xv_te, _ = fm.prepare_input(take_rows(X, te), fitting=False)
        codes_te = label_codes(fm, y[te])
        stats_l = fm.stats_
        lab, unl, (view_te,) = prepare_views(fm, [(Xv_tr, label_codes(fm, y[tr]), w_tr)], parts, [Xv_te])
        total += float(wt.sum())
        for g, lam in enumerate(WEIGHT_GRID):  # ascending: 0 scores the labelled fit as it is
            if is_mixture(spec):  # (spec may be an array: no `spec != 1`)
                run_mixture_em(fm, spec, seed, lab, unl if lam > 0 else [], lam, min(max_iter, CV_MAX_ITER), tol,
                               n_init)
                jll = fm._mixture().class_logsumexp(fm._em_jll(view_te))
            elif lam == 0:
                jll = fm.joint_log_likelihood(Xv_te)
            else:
                run_em(fm, stats_l, lab, unl, lam, min(max_iter, CV_MAX_ITER), tol)
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
