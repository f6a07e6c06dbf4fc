"""The exact sums behind Gaussian moments (stats.moments): per (class, feature) cell the weight
W, S1 = sum of W_b mean_b and S2 = sum of (m2_b + W_b mean_b**2) over the batches b, with
``mean = RN(S1 / W)`` and ``m2 = RN((S2 W - S1**2) / W)`` correctly rounded from them.

Two paths give the same bits: a compiled one over all cells (float expansions by error-free
transformations, nbayes._kernels.exact; its NumPy twin stats.expansion; each result certified
exactly) and, for the few cells it cannot certify (a rounding tie, products past float64's
range), the exact one by Python integers scaled by 2**1074.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import StatisticsError
from .exact import from_int, to_int
from .._kernels.exact import moment_cells

__all__ = ["combine_cells", "exact_cell", "exact_sums", "sums_expansions"]


def _parts(x: list[Any]) -> np.ndarray:
    """An expansion of (K, d) arrays as one (parts, K * d) array (a view for one part)."""
    if len(x) == 1:
        return np.ascontiguousarray(x[0], dtype=np.float64).reshape(1, -1)
    return np.stack([np.asarray(t, dtype=np.float64).ravel() for t in x])


def _side(s: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]:
    """A statistics' cells as the kernel reads them: weight parts, mean, m2, and the stored
    expansions of S1 and S2 when it holds them."""
    w = _parts([s.weight, *s.exact.get("weight", [])])
    mean, m2 = _parts([s.mean])[0], _parts([s.m2])[0]
    if "s1" in s.exact:
        return w, mean, m2, _parts(s.exact["s1"]), _parts(s.exact["s2"]), True
    none = np.zeros((0, w.shape[1]))
    return w, mean, m2, none, none, False


def _trim(x: np.ndarray) -> list[np.ndarray]:
    nz = np.flatnonzero(x.any(axis=1))
    return list(x[: int(nz[-1]) + 1 if len(nz) else 1])


def combine_cells(a: Any, b: Any, sign: int, W_all: list[np.ndarray]) -> dict[str, Any]:
    """Every cell (flat) of the exact ``a + sign * b`` whose weight expansion is ``W_all``:
    mean, m2, the canonical expansions s1, s2 (lists of flat arrays), ``need`` (the rounded
    mean and m2 do not give S1, S2 back) and ``ok`` (certified; the other cells take the integer
    path, ``exact_cell``). A cell without weight has mean, m2, s1 and s2 0. Compiled
    (nbayes._kernels.exact.moment_cells), one pass over the cells."""
    got = moment_cells(*_side(a), *_side(b), _parts(W_all), float(sign))
    got["s1"], got["s2"] = _trim(got["s1"]), _trim(got["s2"])
    return got


# ----------------------------------------------------------------------------- the integer path
def _cell_state(w: int, mean: float, m2: float) -> tuple[int, int] | None:
    """(S1, S2) * 2**1074 of a cell of exact weight w * 2**-1074, mean and m2 (None when a
    product has bits below float64's smallest, 2**-1074: not a sum of doubles)."""
    mu = to_int(mean)
    s1, r1 = divmod(w * mu, 1 << 1074)
    s2, r2 = divmod(w * mu * mu, 1 << 2148)
    if r1 or r2:
        return None
    return s1, s2 + to_int(m2)


def _ints(exp: list[np.ndarray], i: tuple[Any, ...]) -> int:
    return sum(to_int(float(c[i])) for c in exp)


def exact_sums(s: Any, w: list[np.ndarray], i: tuple[Any, ...]) -> tuple[int, int] | None:
    """A cell's exact (S1, S2) * 2**1074: from the stored expansions, else from weight, mean, m2."""
    if "s1" in s.exact:
        return _ints(s.exact["s1"], i), _ints(s.exact["s2"], i)
    return _cell_state(_ints(w, i), float(s.mean[i]), float(s.m2[i]))


def _too_small(j: int) -> StatisticsError:
    return StatisticsError(
        f"X: column {j}: values or weights so small (below about 1e-150) that their "
        "products leave float64's range; exact unlearning needs them rescaled"
    )


def exact_cell(a: Any, b: Any, sign: int, W_all: list[np.ndarray], i: tuple[Any, ...]) -> dict[str, Any]:
    """One cell of ``combine_cells`` by exact integers (always certified)."""
    sa = exact_sums(a, [a.weight, *a.exact.get("weight", [])], i)
    sb = exact_sums(b, [b.weight, *b.exact.get("weight", [])], i)
    if sa is None or sb is None:
        raise _too_small(int(i[1]))
    w = _ints(W_all, i)
    x1, x2 = sa[0] + sign * sb[0], sa[1] + sign * sb[1]
    mu = x1 / w  # correctly rounded: RN(S1 / W)
    v = (x2 * w - x1 * x1) / (w << 1074)  # RN(S2 - S1**2 / W), S2 W - S1**2 >= 0 for data
    mean, m2 = mu, max(v, 0.0)
    try:
        s1, s2 = from_int(x1), from_int(x2)
    except OverflowError:
        raise StatisticsError("X: the sums of squares of a column overflow float64 (its values pass about "
                              "1e154); rescale the column") from None
    return {"mean": mean, "m2": m2, "s1": s1, "s2": s2, "need": _cell_state(w, mean, m2) != (x1, x2)}


def sums_expansions(s: Any) -> dict[str, list[np.ndarray]]:
    """The canonical expansions of S1 and S2 of every cell of the moments ``s`` (zeros where
    the weight is 0): ``{"s1": [...], "s2": [...]}``."""
    K, d = np.shape(s.weight)
    W_all = [s.weight, *s.exact.get("weight", [])]
    zero = type(s)(np.zeros(K), np.zeros((K, d)), np.zeros((K, d)), np.zeros((K, d)))
    got = combine_cells(s, zero, 1, W_all)
    slow = {}
    for i in np.flatnonzero(~got["ok"]).tolist():
        cell = np.unravel_index(i, (K, d))
        st = exact_sums(s, W_all, cell)
        if st is None:
            raise _too_small(int(cell[1]))
        slow[i] = (from_int(st[0]), from_int(st[1]))
    return {name: [t.reshape(K, d) for t in assemble(got[name], {i: v[k] for i, v in slow.items()})]
            for k, name in enumerate(("s1", "s2"))}


def assemble(fast: list[np.ndarray], slow: dict[int, list[float]]) -> list[np.ndarray]:
    """Flat expansions: ``fast`` with the entries ``slow`` (flat index -> expansion) replaced;
    trailing all-zero parts dropped (at least one part)."""
    if not slow:
        return fast
    L = max([len(fast)] + [len(v) for v in slow.values()])
    out = [f.copy() for f in fast] + [np.zeros_like(fast[0]) for _ in range(L - len(fast))]
    for i, v in slow.items():
        for k in range(L):
            out[k][i] = v[k] if k < len(v) else 0.0
    while len(out) > 1 and not out[-1].any():
        out.pop()
    return out
