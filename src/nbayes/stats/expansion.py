"""Vectorised float expansions: exact sums and products of float64 arrays by error-free
transformations, and their canonical form, checked exactly: the NumPy twin of the compiled
kernel nbayes._kernels.exact (stats.exact's and stats.moment_sums' fast path), for tests.

An expansion is a list of equally shaped float arrays whose entrywise sum is the exact value.
``two_sum`` (Knuth) and ``two_prod`` (Dekker's splitting) return a result and its rounding error,
exact barring overflow (and, for products, underflow: ``two_prod`` reports where it could not be
exact). ``canonical`` turns an expansion into the canonical one of stats.exact (``c0 = RN(v)``,
``c1 = RN(v - c0)``, ...) by passes of error-free summation, and *verifies* the canonical
condition entry by entry; an entry it cannot certify (a rounding tie, an overflow, too few
passes) is reported so the caller takes the exact integer path for it. Every result is thus
either certified equal to the exact path's or not used.
"""

from __future__ import annotations

import numpy as np

__all__ = ["two_sum", "two_prod", "canonical"]

_SPLIT = 134217729.0  # 2**27 + 1 (Dekker)
#: products in this range have their rounding error representable (no underflow below 2**-1022)
_PROD_LO, _PROD_HI = 2.0**-900, 2.0**1000
#: Dekker's split overflows past this magnitude
_SPLIT_MAX = 2.0**990
_PASSES = 6


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s, e) with s = RN(a + b) and a + b = s + e exactly (finite s; callers silence
    floating-point warnings)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(p, e, ok): p = RN(a * b) and a * b = p + e exactly where ``ok`` (elsewhere the product
    overflowed, underflowed or is too large to split)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        p = a * b
        ca, cb = _SPLIT * a, _SPLIT * b
        ah = ca - (ca - a)
        al = a - ah
        bh = cb - (cb - b)
        bl = b - bh
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        ap = np.abs(p)
        ok = ((a == 0) | (b == 0)) | ((ap >= _PROD_LO) & (ap <= _PROD_HI)
                                       & (np.abs(a) < _SPLIT_MAX) & (np.abs(b) < _SPLIT_MAX))
    return np.where(ok, p, 0.0), np.where(ok, e, 0.0), ok


def _verified(D: np.ndarray) -> np.ndarray:
    """Where the rows of D (most significant first) are a canonical expansion: every part is
    finite and each next part lies within half the gap to c's neighbour on its side, so
    ``c = RN(c + rest)``; at exactly half the gap (a tie) the parts after decide the side, and
    with none c must be even (round half to even)."""
    ok: np.ndarray = np.isfinite(D).all(axis=0)
    if len(D) == 1:
        return ok
    c, nxt = D[:-1], D[1:]
    after = np.concatenate([D[2:], np.zeros((1, D.shape[1]))])
    ac = np.abs(c)
    ulp = np.spacing(ac)
    mant, _ = np.frexp(ac)
    normal = ac > 2.0**-1022
    # below a (normal) power of two the gap is half the gap above
    below = (np.signbit(c) != np.signbit(nxt)) & (nxt != 0) & (mant == 0.5) & normal
    dist = np.abs(nxt) * np.where(below, 4.0, 2.0)
    good = dist < ulp
    tie = dist == ulp
    if tie.any():
        even = (np.ldexp(mant, 53).astype(np.int64) & 1) == 0
        back = (after != 0) & (np.signbit(after) != np.signbit(nxt))
        good |= tie & (((after == 0) & even & normal) | back)
    good = np.where(c == 0, nxt == 0, good)
    ok &= good.all(axis=0)
    return ok


def canonical(parts: list[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
    """(expansion, ok): the canonical expansion of the exact sum of ``parts`` (flat arrays of one
    length), most significant first, zeros normalised to +0 and all-zero trailing parts dropped
    (at least one part); ``ok`` marks the entries certified canonical (elsewhere: use the exact
    path)."""
    with np.errstate(all="ignore"):
        C = np.stack(parts)
        ok = np.isfinite(C).all(axis=0)
        C = np.where(ok, C, 0.0)
        C = C[(C != 0).any(axis=1)]
        if len(C) == 0:
            return [np.zeros(C.shape[1])], ok
        good = ok
        for _ in range(_PASSES):
            if len(C) > 1:
                C = np.take_along_axis(C, np.argsort(np.abs(C), axis=0, kind="stable"), axis=0)
                out = []
                s = C[0]
                for i in range(1, len(C)):  # VecSum: smallest first, each error kept
                    s, e = two_sum(C[i], s)
                    out.append(e)
                out.append(s)
                C = np.stack(out)
                C = C[(C != 0).any(axis=1)]
                C = np.take_along_axis(C, np.argsort(-np.abs(C), axis=0, kind="stable"), axis=0)
            good = _verified(C)
            if (good | ~ok).all():
                break
        D = C + 0.0  # -0.0 -> +0.0
    return list(D) if len(D) else [np.zeros(D.shape[1])], ok & good
