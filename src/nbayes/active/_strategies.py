"""Which unlabelled rows to label: uncertainty, information density with a diverse batch, and
expected error reduction from the statistics."""

from __future__ import annotations

import numpy as np

from .._math import logsumexp
from ..errors import InvalidParameterError
from ._pool import Pool


def uncertainty(L: np.ndarray, kind: str) -> np.ndarray:
    """Higher = less certain, from log-posteriors ``L`` (rows x classes): ``least_confident``
    1 - max p; ``margin`` -(p1 - p2); ``entropy`` -sum p log p (Settles 2009, section 3.1)."""
    P = np.exp(L)
    if kind == "least_confident":
        out: np.ndarray = 1.0 - P.max(axis=1)
        return out
    if kind == "margin":
        top = np.sort(P, axis=1)[:, -2:] if P.shape[1] > 1 else np.c_[np.zeros(len(P)), P]
        out = -(top[:, 1] - top[:, 0])
        return out
    plogp = np.where(P > 0, P * np.where(P > 0, L, 0.0), 0.0)
    out = -plogp.sum(axis=1)
    return out


def density_batch(pool: Pool, rows: np.ndarray, L: np.ndarray, k: int, beta: float = 1.0,
                  shortlist: int = 20) -> np.ndarray:
    """Information density (Settles & Craven 2008): entropy x (mean cosine similarity to the
    pool)^beta, so that outliers, which uncertainty alone loves, wait; then a diverse batch:
    greedily, each pick's score is scaled by (1 - its largest similarity to the rows already
    picked), over the ``shortlist * k`` best rows."""
    if pool.counts is None:  # a table of mixed columns: no similarity to weigh by; entropy alone
        return np.asarray(rows[np.argsort(-uncertainty(L, "entropy"), kind="stable")[:k]], dtype=np.int64)
    V = pool.vectors
    centroid = np.asarray(V[rows].mean(axis=0)).ravel()
    dens = np.maximum(np.asarray(V[rows] @ centroid).ravel(), 0.0)
    score = uncertainty(L, "entropy") * dens ** beta
    short = np.argsort(-score, kind="stable")[: max(k, shortlist * k)]
    cand, s = rows[short], score[short].copy()
    Vc = V[cand]
    most = np.zeros(len(cand))
    free = np.ones(len(cand), dtype=bool)
    picked: list[int] = []
    for _ in range(min(k, len(cand))):
        j = int(np.argmax(np.where(free, s * (1.0 - most), -np.inf)))
        picked.append(j)
        free[j] = False
        most = np.maximum(most, np.asarray(Vc @ Vc[j].T.toarray()).ravel())
    return np.asarray(cand[picked], dtype=np.int64)


def expected_error(pool: Pool, candidates: np.ndarray, evaluate: np.ndarray, loss: str = "zero_one") -> np.ndarray:
    """Roy & McCallum's (2001) expected error after labelling each candidate, over the rows
    ``evaluate``: sum_c P(c | x) * loss of the model that learnt (x, c), summed over the rows.
    The model that learnt (x, c) is exact for multinomial Naive Bayes from the statistics:
    only class c's estimates move, log theta_cw = log(N_cw + x_w + alpha) - log(T_c + |x|)
    (notes 004; T_c = N_c + alpha |V|; a vocabulary the document would add is left out) and
    the class count n_c + 1, so the change to every evaluated row's joint log-probability is a
    sparse product over the candidate's terms: O(|x| + evaluated rows x classes) per candidate,
    no refit. ``loss``: ``zero_one`` (1 - max p) or ``log`` (entropy of the posterior)."""
    lin = pool.linear_parameters()
    if lin is None:
        raise InvalidParameterError(
            "strategy='expected_error' needs a multinomial text model with per-term log-probabilities "
            "(TextClassifier(model='multinomial'), no tf-idf, binary or hashing); use strategy='density'"
        )
    cols, flp, log_prior = lin
    m = pool.model
    alpha = float(m.get_params()["alpha"])
    K = flp.shape[0]
    known = np.flatnonzero(cols >= 0)
    logT = np.log(alpha) - flp.min(axis=1)  # a term class c never saw has theta = alpha / T_c
    N = np.maximum(np.exp(flp[:, cols[known]] + logT[:, None]) - alpha, 0.0)  # K x known terms
    Xk = pool.counts[:, known].tocsr()
    Xe = Xk[evaluate].tocsc()
    jll = np.asarray(Xe @ (flp[:, cols[known]].T)) + log_prior
    len_e = np.asarray(Xe.sum(axis=1)).ravel()
    p = m.get_params()
    counts = np.asarray(m.class_count_, dtype=np.float64)
    if p.get("class_prior") is None and p.get("fit_prior", True):
        with np.errstate(divide="ignore"):
            dprior = np.log(counts + 1.0) - np.log(counts)
        dprior[~np.isfinite(dprior)] = 0.0  # a class with no document yet: its prior leaves -inf by labelling
    else:
        dprior = np.zeros(K)
    # the other classes' log-sum and maximum, per evaluated row and hypothesis c
    others = np.empty_like(jll)
    best_other = np.empty_like(jll)
    for c in range(K):
        rest = np.delete(jll, c, axis=1)
        others[:, c] = logsumexp(rest, axis=1) if K > 1 else -np.inf
        best_other[:, c] = rest.max(axis=1) if K > 1 else -np.inf
    Lc = pool.log_proba(candidates)
    out = np.empty(len(candidates))
    for j, row in enumerate(candidates):
        x = Xk[row]
        idx, v = x.indices, x.data
        A = np.log(N[:, idx] + v[None, :] + alpha) - np.log(N[:, idx] + alpha)  # K x |x|
        B = np.logaddexp(logT, np.log(max(v.sum(), 1e-300))) - logT if v.size else np.zeros(K)
        delta = np.asarray(Xe[:, idx] @ A.T) - len_e[:, None] * B[None, :] + dprior[None, :]
        a = jll + delta  # column c: class c's new joint log-probability if x is labelled c
        total = np.logaddexp(others, a)
        if loss == "log":
            # entropy of the new posterior: class c's term plus the others' (rescaled) terms
            pa = np.exp(a - total)
            err = -(pa * (a - total)) - _rest_entropy(jll, total)
        else:
            err = 1.0 - np.exp(np.maximum(a, best_other) - total)
        out[j] = float(np.exp(Lc[j]) @ err.sum(axis=0))
    return out


def _rest_entropy(jll: np.ndarray, total: np.ndarray) -> np.ndarray:
    """sum over k != c of -p_k log p_k, p_k = exp(jll_k - total_c), for every c (rows x K)."""
    K = jll.shape[1]
    out = np.empty_like(total)
    for c in range(K):
        rest = np.delete(jll, c, axis=1) - total[:, [c]]
        out[:, c] = np.sum(np.exp(rest) * rest, axis=1)
    return out
