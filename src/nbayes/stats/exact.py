"""Exact sums of float64 statistics: a value and, where rounding lost something, its tail.

A statistic that is later subtracted (unlearn, a fold, a tenant's delete) must come back bit for
bit (CORRECTNESS: "exactness under floating point"; 1e17 + 430 - 1e17 is 0 in doubles). Each such
statistic is held as the *exact* sum of the batch values added minus those subtracted, written as
its canonical expansion: ``hi = RN(v)`` (the float64 nearest the exact value v, what estimation and
the model file's usual array read), then ``t1 = RN(v - hi)``, ``t2 = RN(v - hi - t1)``, ... until
nothing is left. The expansion is a function of v alone, so learning a batch and unlearning it
returns the very same arrays. Almost always nothing is lost (integer counts; the first batch) and
the tail is absent: the fast path is one float addition checked by an error-free transformation
(Knuth's TwoSum). Only the entries whose addition rounded take the exact path (Python integers
scaled by 2**1074: every float64 is an integer multiple of 2**-1074, so sums of them are exact).

A tail is a list of arrays shaped like the value (dense, or CSR matrices over the same classes x
terms), most significant first; an empty list when v is a float64.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from .._scipy import sparse as sp

from ..errors import StatisticsError
from .._kernels.exact import canonical

__all__ = ["add_exact", "to_int", "from_int", "SCALE", "tail_rows", "tail_embed", "tail_arrays", "read_tail"]

#: every finite float64 is an integer multiple of 2**-SCALE
SCALE = 1074
_ONE = 1 << SCALE


def to_int(x: float) -> int:
    """x * 2**1074 exactly, as a Python integer."""
    p, q = float(x).as_integer_ratio()
    return p * (_ONE // q)


def from_int(n: int) -> list[float]:
    """The canonical expansion of n * 2**-1074 (most significant first; [] for 0). OverflowError
    past float64's range."""
    out = []
    while n:
        c = n / _ONE  # Python's int / int is correctly rounded: c = RN(n * 2**-1074)
        out.append(c)
        n -= to_int(c)
    return out


def _two_sum_err(a: np.ndarray, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The rounding error of s = a + b (Knuth's TwoSum: a + b = s + err exactly, barring overflow)."""
    with np.errstate(invalid="ignore", over="ignore"):
        bb = s - a
        err: np.ndarray = (a - (s - bb)) + (b - bb)
    return err


def _add_vectors(a: list[np.ndarray], b: list[np.ndarray], sign: int) -> list[np.ndarray]:
    """Expansion a + sign * b over flat float vectors (``a[0]``, ``b[0]`` the values, the rest
    their tails): the canonical expansion of the exact result."""
    x, y = a[0], b[0] if sign > 0 else -b[0]
    with np.errstate(invalid="ignore", over="ignore"):
        s = x + y
    err = _two_sum_err(x, y, s)
    slow = (err != 0) | ~np.isfinite(s)
    for t in a[1:] + b[1:]:
        slow |= t != 0
    if not slow.any():
        return [s]
    idx = np.flatnonzero(slow)
    # vectorised: error-free sums put in canonical form, certified entry by entry
    fast_parts, ok = canonical(np.stack([c[idx] for c in a] + [(c[idx] if sign > 0 else -c[idx]) for c in b]))
    nz = np.flatnonzero(fast_parts.any(axis=1))
    fast = list(fast_parts[: int(nz[-1]) + 1 if len(nz) else 1])
    rest = idx[~ok]
    parts = [_exact_cell([float(c[i]) for c in a] + [float(c[i]) * sign for c in b], float(s[i]))
             for i in rest.tolist()]
    L = max([len(fast)] + [len(p) for p in parts])
    out = [s.copy()] + [np.zeros_like(s) for _ in range(L - 1)]
    for k in range(L):
        out[k][idx] = fast[k] if k < len(fast) else 0.0
    for i, p in zip(rest.tolist(), parts):
        for k in range(L):
            out[k][i] = p[k] if k < len(p) else 0.0
    return out


def _exact_cell(comps: list[float], rounded: float) -> list[float]:
    """The canonical expansion of sum(comps) by exact integers (``rounded``: the float sum,
    kept when an input is infinite or NaN, as floats would)."""
    if not all(np.isfinite(comps)):
        return [rounded]
    n = sum(to_int(c) for c in comps)
    try:
        return from_int(n) or [0.0]
    except OverflowError:
        return [float(np.inf if n > 0 else -np.inf)]


def add_exact(a: Any, a_tail: list[Any] | None, b: Any, b_tail: list[Any] | None, sign: int = 1) -> tuple[Any, list[Any]]:
    """(value, tail) of the exact a + sign * b, for dense arrays of one shape or CSR matrices
    (a tail may be None or [] for none). CSR results hold only their nonzero entries."""
    a_tail, b_tail = list(a_tail or []), list(b_tail or [])
    if not sp.issparse(a) and not sp.issparse(b):
        A = np.asarray(a, dtype=np.float64)
        B = np.asarray(b, dtype=np.float64)
        if A.shape != B.shape:
            A, B = np.broadcast_arrays(A, B)
        shape = A.shape
        out = _add_vectors([A.ravel()] + [np.asarray(t, dtype=np.float64).ravel() for t in a_tail],
                           [B.ravel()] + [np.asarray(t, dtype=np.float64).ravel() for t in b_tail], sign)
        return out[0].reshape(shape), [t.reshape(shape) for t in out[1:]]
    mats = [_csr(m) for m in [a, *a_tail, b, *b_tail]]
    pattern = _csr(sum((abs(m) for m in mats[1:] if m.nnz), abs(mats[0])))
    vals = [_values_at(m, pattern) for m in mats]
    na = 1 + len(a_tail)
    out = _add_vectors(vals[:na], vals[na:], sign)
    res = []
    for v in out:
        m = sp.csr_matrix((v, pattern.indices.copy(), pattern.indptr.copy()), shape=pattern.shape)
        m.eliminate_zeros()
        res.append(m)
    return res[0], res[1:]


def _csr(m: Any) -> sp.csr_matrix:
    out = m.tocsr() if sp.issparse(m) else sp.csr_matrix(np.asarray(m, dtype=np.float64))
    if out.dtype != np.float64:
        out = out.astype(np.float64)
    if not out.has_canonical_format:
        out = out.copy()
        out.sum_duplicates()
    return out


def _values_at(m: sp.csr_matrix, pattern: sp.csr_matrix) -> np.ndarray:
    """m's values at the stored entries of ``pattern`` (0 where m stores none)."""
    if m.nnz == pattern.nnz and np.array_equal(m.indptr, pattern.indptr) and np.array_equal(m.indices, pattern.indices):
        return np.asarray(m.data, dtype=np.float64)
    def keys(x: sp.csr_matrix) -> np.ndarray:
        rows = np.repeat(np.arange(x.shape[0], dtype=np.int64), np.diff(x.indptr))
        out: np.ndarray = rows * np.int64(x.shape[1]) + x.indices.astype(np.int64)
        return out
    have, want = keys(m), keys(pattern)
    out = np.zeros(len(want))
    if len(have):
        at = np.minimum(np.searchsorted(have, want), len(have) - 1)
        hit = have[at] == want
        out[hit] = m.data[at[hit]]
    return out


# ----------------------------------------------------------------------------- tails of statistics
def tail_rows(tails: dict[str, list[Any]], idx: Any) -> dict[str, list[Any]]:
    """The tails of the class rows ``idx`` (the first axis of every field is the class)."""
    return {k: [t[idx] for t in v] for k, v in tails.items()}


def tail_embed(tails: dict[str, list[Any]], pos: np.ndarray, n_classes: int) -> dict[str, list[Any]]:
    """The tails inside a class set of ``n_classes``: class k goes to row ``pos[k]``."""
    out: dict[str, list[Any]] = {}
    for k, v in tails.items():
        grown = []
        for t in v:
            if sp.issparse(t):
                m = t.tocoo()
                g = sp.csr_matrix((m.data, (pos[m.row], m.col)), shape=(n_classes, t.shape[1]))
            else:
                g = np.zeros((n_classes,) + t.shape[1:])
                g[pos] = t
            grown.append(g)
        out[k] = grown
    return out


def tail_arrays(tails: dict[str, list[Any]]) -> dict[str, np.ndarray]:
    """A statistics' tails as model-file arrays: ``stats/exact/<field>`` stacked (tail length
    first); none when every value is exact as a float64 (files of ordinary models are unchanged)."""
    return {f"stats/exact/{k}": np.stack([np.asarray(t) for t in v]) for k, v in tails.items() if v}


def read_tail(arrays: dict[str, np.ndarray], name: str, shape: tuple[int, ...]) -> list[np.ndarray]:
    """The tail of field ``name`` from a model file's arrays ([] when the file holds none)."""
    key = f"stats/exact/{name}"
    if key not in arrays:
        return []
    t = np.asarray(arrays[key], dtype=np.float64)
    if t.ndim != len(shape) + 1 or t.shape[1:] != tuple(shape) or not np.isfinite(t).all():
        raise StatisticsError(f"statistics {key!r}: expected finite tails of shape (L, {', '.join(map(str, shape))}), got {t.shape}")
    return list(t)


def concat_tails(a: dict[str, list[Any]], b: dict[str, list[Any]], ref_a: dict[str, Any],
                 ref_b: dict[str, Any]) -> dict[str, list[Any]]:
    """The tails of a's class rows then b's (``ref_*``: each field's value, for the shape of a
    side without a tail there)."""
    out: dict[str, list[Any]] = {}
    for name in sorted(set(a) | set(b)):
        ta, tb = list(a.get(name, [])), list(b.get(name, []))
        L = max(len(ta), len(tb))
        za, zb = _zeros_like(ref_a[name]), _zeros_like(ref_b[name])
        ta += [za] * (L - len(ta))
        tb += [zb] * (L - len(tb))
        out[name] = [sp.vstack([_csr(x), _csr(y)], format="csr") if sp.issparse(x) or sp.issparse(y)
                     else np.concatenate([x, y]) for x, y in zip(ta, tb)]
    return out


def _zeros_like(v: Any) -> Any:
    return sp.csr_matrix(v.shape) if sp.issparse(v) else np.zeros(np.shape(v))


def combine(a: Any, b: Any, names: tuple[str, ...], sign: int) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The exact ``a + sign * b`` of the named fields of two statistics (a field None on one side
    counts as 0; None on both stays None): (values, tails without empty ones)."""
    values: dict[str, Any] = {}
    tails: dict[str, list[Any]] = {}
    for name in names:
        x, y = getattr(a, name), getattr(b, name)
        if x is None and y is None:
            values[name] = None
            continue
        if x is None:
            x = 0 * y
        if y is None:
            y = 0 * x
        hi, tail = add_exact(x, a.exact.get(name), y, b.exact.get(name), sign)
        values[name] = hi
        if tail:
            tails[name] = tail
    return values, tails


def value_of(hi: Any, tail: list[Any]) -> Any:
    """hi + tail summed in float64 (an estimate: for comparisons that tolerate rounding)."""
    out = hi
    for t in tail:
        out = out + t
    return out
