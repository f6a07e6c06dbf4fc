"""Exact counting of a batch of documents: per-class weighted sums held as a float64 and its tail
(:mod:`nbayes.stats.exact`), whatever the weights; and when the plain float sums are exact.

A text batch is counted by the compiled kernels with float64 additions (``count += w`` per
occurrence). That is exact by construction when every weight is a whole number and every sum
stays below 2**53, or more generally every weight is a multiple of one power of two and
every sum stays below 2**53 of it (:func:`plain_bound`): the fast path, the usual case (no weights, or integer
ones). Otherwise the counting kernels' sums may round, so the batch's statistics are summed
again here exactly (:func:`class_sums`): each document's contribution ``w_d * x_dt`` (x a count,
a presence 1, or a tf-idf value) as a float expansion, and the contributions of each
(class, term) summed exactly, in canonical form. The statistics of a batch are then a function
of its (document, weight) pairs alone, in whatever order or split they were counted, so learning
a batch and unlearning it, or unlearning its documents in other batches, gives back the
statistics bit for bit (CORRECTNESS: "exactness under floating point").

The contribution of a product is exact when representable: always for counts and presences (an
integer times a float64 is a multiple of 2**-1074); a tf-idf value times a weight near the bottom
of the float range can fall between multiples of 2**-1074, and is then rounded to the nearest
one (ties to even), a function of (w, x) alone: the rule docs/architecture.md states.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._scipy import sparse as sp
from .exact import SCALE, add_exact, from_int, to_int
from .expansion import two_prod

__all__ = ["Bound", "add_bounds", "counts_bound", "plain_bound", "exact_counts", "class_sums", "class_totals", "group_sums",
           "whole_bound", "set_whole_bound"]

#: a bound of counts held on a grid: (top, e) when every count is a multiple of 2**-e and at
#: most ``top``; float sums of such counts are exact while they stay below 2**(53 - e)
Bound = tuple[float, int]
#: the cache of :func:`whole_bound` on a statistics object (not a field: never saved or compared)
_BOUND = "_whole_bound"


def _grid(v: np.ndarray) -> Bound | None:
    """(largest magnitude, e): every value a multiple of 2**-e (None: not all finite)."""
    v = np.abs(np.asarray(v, dtype=np.float64).ravel())
    v = v[v != 0]
    if v.size == 0:
        return 0.0, 0
    if not bool(np.isfinite(v).all()):
        return None
    m, x = np.frexp(v)  # v = m 2**x, m in [0.5, 1): the mantissa m 2**53 a 53-bit integer
    mi = (m * 2.0**53).astype(np.int64)
    tz = np.log2(mi & -mi).astype(np.int64)  # its trailing zero bits (exact: a power of two)
    return float(v.max()), int(max(0, -int((x - 53 + tz).min())))


def add_bounds(a: Bound | None, b: Bound | None) -> Bound | None:
    """The bound of sums of counts bounded by ``a`` and ``b``; None when a float sum of them
    could round (not on one grid below 2**53 of its unit) or either is unknown."""
    if a is None or b is None:
        return None
    top, e = (a[0] + b[0]) * (1 + 2.0**-50), max(a[1], b[1])  # (rounded up: still a bound)
    if top != 0 and (not np.isfinite(top) or np.frexp(top)[1] + e > 53):
        return None
    return top, e


def plain_bound(w: np.ndarray | None, n_items: float) -> Bound | None:
    """A bound of every sum a batch adds (class weights, term and document counts: sums of at
    most ``n_items`` weights) when those float sums are exact by construction: the weights on
    a grid 2**-e (whole numbers, halves, ...; None: all 1) and ``n_items`` times the largest
    below 2**(53 - e). None otherwise: the kernels' float sums might round, count exactly."""
    g = (1.0, 0) if w is None else _grid(w)
    if g is None:
        return None
    return add_bounds((0.0, 0), (g[0] * float(n_items), g[1]))


def whole_bound(stats: Any) -> Bound | None:
    """The bound of text statistics' per-class counts (see :func:`add_bounds`) when in-place
    float additions to them stay exact: no tail, no tf-idf sums, every count on a grid below
    2**53 of its unit; None otherwise. Computed once per statistics object (O(pairs)), then
    kept up to date by the in-place adds (:func:`set_whole_bound`)."""
    d = stats.__dict__
    if _BOUND in d:
        out: Bound | None = d[_BOUND]
        return out
    bound: Bound | None = None
    if not stats.exact and stats.weighted is None:
        bound = counts_bound(stats.class_count, stats.term_count, stats.doc_count)
    d[_BOUND] = bound
    return bound


def counts_bound(*arrays: Any) -> Bound | None:
    """The bound (see :func:`add_bounds`) of the counts in ``arrays`` (dense or CSR)."""
    bound: Bound | None = (0.0, 0)
    for a in arrays:
        bound = add_bounds(bound, _grid(a.data if sp.issparse(a) else a))
    return bound


def set_whole_bound(stats: Any, bound: Bound | None) -> None:
    """Record the bound of ``stats``' counts (after an in-place add of counts on a grid)."""
    stats.__dict__[_BOUND] = bound


def _products(w: np.ndarray, x: np.ndarray) -> list[np.ndarray]:
    """Each ``w[i] * x[i]`` as an expansion (most significant first): exact where representable
    as a multiple of 2**-1074, else the nearest one (ties to even); inf past float64's range."""
    if bool(np.all(x == 1.0)):
        return [np.asarray(w, dtype=np.float64)]
    p, e, ok = two_prod(w, x)
    p, e = p.copy(), e.copy()
    for i in np.flatnonzero(~ok).tolist():
        a, b = float(w[i]), float(x[i])
        if not (np.isfinite(a) and np.isfinite(b)):
            p[i], e[i] = a * b, 0.0
            continue
        n = to_int(a) * to_int(b)  # the product scaled by 2**2148
        q, r = divmod(n, 1 << SCALE)
        if 2 * r > (1 << SCALE) or (2 * r == (1 << SCALE) and q & 1):
            q += 1
        try:
            parts = from_int(q) or [0.0]
        except OverflowError:
            parts = [float(np.inf if q > 0 else -np.inf)]
        p[i] = parts[0]
        e[i] = parts[1] if len(parts) > 1 else 0.0  # (a product has at most 106 bits: two parts)
    return [p, e] if e.any() else [p]


def group_sums(keys: np.ndarray, comps: list[np.ndarray], presorted: bool = False) -> tuple[np.ndarray, list[np.ndarray]]:
    """(distinct keys sorted, the canonical expansion of the exact sum of each key's
    contributions): ``comps`` are the contributions as expansions (equal-length arrays; keys
    sorted already with ``presorted``). Summed pairwise in a tree of exact additions
    (:func:`nbayes.stats.exact.add_exact`), vectorised; a key summed to one term leaves the tree."""
    keys = np.asarray(keys)
    comps = [np.asarray(c, dtype=np.float64) for c in comps]
    if not presorted:
        order = np.argsort(keys, kind="stable")
        keys, comps = keys[order], [c[order] for c in comps]
    distinct = keys[np.concatenate([[True], keys[1:] != keys[:-1]])] if len(keys) else keys
    out = [np.zeros(len(distinct)) for _ in comps]
    while len(keys):
        dup = keys[1:] == keys[:-1]
        alone = ~(np.concatenate([dup, [False]]) | np.concatenate([[False], dup]))
        if alone.any():  # these keys are summed: their place among the distinct keys
            at = np.searchsorted(distinct, keys[alone])
            while len(out) < len(comps):
                out.append(np.zeros(len(distinct)))
            for k, c in enumerate(comps):
                out[k][at] = c[alone]
            keys, comps = keys[~alone], [c[~alone] for c in comps]
            dup = keys[1:] == keys[:-1]
        n = len(keys)
        if n == 0:
            break
        first = np.concatenate([[True], ~dup])
        rank = np.arange(n) - np.maximum.accumulate(np.where(first, np.arange(n), 0))
        a = np.flatnonzero((rank[:-1] % 2 == 0) & dup)
        b = a + 1
        hi, tail = add_exact(comps[0][a], [c[a] for c in comps[1:]], comps[0][b], [c[b] for c in comps[1:]])
        new = [hi, *tail]
        while len(comps) < len(new):
            comps.append(np.zeros(n))
        for k, c in enumerate(comps):
            c[a] = new[k] if k < len(new) else 0.0
        keep = np.ones(n, dtype=bool)
        keep[b] = False
        keys = keys[keep]
        comps = [c[keep] for c in comps]
    while len(out) > 1 and not out[-1].any():
        out.pop()
    return distinct, out


def class_totals(codes: np.ndarray, n_classes: int, w: np.ndarray | None) -> tuple[np.ndarray, list[np.ndarray]]:
    """Each class's weight, exactly: (value, tail)."""
    codes = np.asarray(codes, dtype=np.int64)
    weights = np.ones(len(codes)) if w is None else np.asarray(w, dtype=np.float64)
    keys, comps = group_sums(codes, [weights])
    return _spread(keys, comps, (n_classes,))


def class_sums(X: Any, codes: np.ndarray, n_classes: int, w: np.ndarray | None,
               dense: bool) -> tuple[Any, list[Any]]:
    """Per class and column, the exact sum of ``w_d * X[d, j]`` over the documents d of the class
    (X: documents x columns, CSR): (value, tail), dense arrays or CSR matrices holding the
    nonzero sums (``dense``)."""
    n, V = X.shape
    codes = np.asarray(codes, dtype=np.int64)
    by_class = np.argsort(codes, kind="stable")
    # the documents in class order, by column: the entries come sorted by (column, class)
    C = sp.csr_matrix(X)[by_class].tocsc()
    C.sum_duplicates()
    cols = np.repeat(np.arange(V, dtype=np.int64), np.diff(C.indptr))
    docs = by_class[C.indices]
    weights = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    keys = cols * np.int64(n_classes) + codes[docs]
    keys, comps = group_sums(keys, _products(weights[docs], np.asarray(C.data, dtype=np.float64)), presorted=True)
    r, j = keys % n_classes, keys // n_classes
    if dense:
        return _spread(r * V + j, comps, (n_classes, V))
    nz = comps[0] != 0
    r, j, comps = r[nz], j[nz], [c[nz] for c in comps]

    def mat(v: np.ndarray) -> sp.csr_matrix:
        m = sp.csr_matrix((v, (r, j)), shape=(n_classes, V))
        m.sum_duplicates()
        m.eliminate_zeros()
        return m

    return mat(comps[0]), [mat(c) for c in comps[1:]]


def _spread(keys: np.ndarray, comps: list[np.ndarray], shape: tuple[int, ...]) -> tuple[np.ndarray, list[np.ndarray]]:
    out = []
    for c in comps:
        a = np.zeros(int(np.prod(shape)))
        a[keys] = c
        out.append(a.reshape(shape))
    return out[0], out[1:]


def exact_counts(stats: Any, X: Any, codes: np.ndarray, w: np.ndarray | None) -> Any:
    """Set ``stats``' per-class weights, term counts and document counts (in place) to the exact
    sums of the batch whose documents x terms counts are ``X`` (in the statistics' term order),
    with their tails: what the counting kernels' float sums approximate."""
    K = len(stats.class_count)
    dense = not sp.issparse(stats.term_count)
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sum_duplicates()
    X.eliminate_zeros()
    X01 = X.copy()
    X01.data[:] = 1.0
    tails = {}
    stats.class_count, tails["class_count"] = class_totals(codes, K, w)
    stats.term_count, tails["term_count"] = class_sums(X, codes, K, w, dense)
    stats.doc_count, tails["doc_count"] = class_sums(X01, codes, K, w, dense)
    stats.exact = {k: v for k, v in tails.items() if v}
    set_whole_bound(stats, None)
    return stats
