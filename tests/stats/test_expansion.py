"""Issue #27: the vectorised exact sums (compiled kernel nbayes._kernels.exact and its NumPy twin
nbayes.stats.expansion) give, wherever they certify a result, the very bits of the exact
integer path (stats.exact.from_int, stats.moment_sums.exact_cell); elsewhere the caller takes
that path."""

from __future__ import annotations

import numpy as np
import pytest

from nbayes._kernels.exact import canonical as canonical_kernel
from nbayes.stats.exact import add_exact, from_int, to_int
from nbayes.stats.expansion import canonical as canonical_numpy
from nbayes.stats.moment_sums import combine_cells, exact_cell
from nbayes.stats.moments import MomentStats


def _parts(rng: np.random.Generator, kind: int, n: int) -> list[np.ndarray]:
    m = int(rng.integers(1, 10))
    if kind == 0:  # wide but moderate magnitudes
        return [rng.normal(size=n) * 10.0 ** rng.integers(-20, 20, n) for _ in range(m)]
    if kind == 1:  # cancellation and float64's whole range
        base = rng.normal(size=n) * 1e8
        return [base, -base] + [rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, n) for _ in range(m)]
    if kind == 2:  # exact ties at half an ulp, decided by the parts after or to even
        return [np.full(n, 1.0) + rng.integers(0, 2, n) * 2.0**-52,
                2.0**-53 * rng.choice([-1.0, 1.0, 0.5, 2.0], n), rng.choice([0.0, 1e-300, -1e-300], n)]
    return [rng.integers(-5, 5, n) * 2.0 ** rng.integers(-60, 60, n) for _ in range(m)]  # small integers


def _expected(parts: list[np.ndarray], i: int) -> list[float]:
    return from_int(sum(to_int(float(p[i])) for p in parts)) or [0.0]


@pytest.mark.parametrize("kind", range(4))
@pytest.mark.parametrize("impl", ["kernel", "numpy"])
def test_certified_canonical_sums_are_the_exact_ones(kind, impl):
    rng = np.random.default_rng(kind)
    n = 3000
    parts = _parts(rng, kind, n)
    if impl == "kernel":
        out, ok = canonical_kernel(np.stack(parts))
        out = list(out)
    else:
        out, ok = canonical_numpy(parts)
    certified = 0
    for i in range(n):
        if not ok[i]:
            continue
        certified += 1
        got = [float(o[i]) for o in out]
        while len(got) > 1 and got[-1] == 0.0:
            got.pop()
        assert got == _expected(parts, i), i
        assert not any(g == 0.0 and np.signbit(g) for g in got)
    assert certified > 0.7 * n  # ties (kind 2) are certified when their side is decided


def _stats(rng: np.random.Generator, K: int, d: int, scale: float, centre: float, fractional: bool) -> MomentStats:
    X = centre + scale * rng.normal(size=(40, d))
    y = rng.integers(0, K, 40)
    w = rng.choice([0.1, 0.3, 1 / 3, 7.0, 1e-3], 40) if fractional else None
    return MomentStats.of(X, y, K, w)


@pytest.mark.parametrize("scale,centre", [(3.0, 40.0), (1.0, 1e8), (1e-3, 0.0), (1e100, 1e101), (1e-100, 0.0),
                                          (1.0, 1e150), (1e5, 1e-5)])
@pytest.mark.parametrize("fractional", [False, True])
def test_certified_moment_cells_are_the_exact_ones(scale, centre, fractional):
    rng = np.random.default_rng(int(abs(np.log10(scale))) + 7 * fractional)
    K, d = 3, 6
    acc = _stats(rng, K, d, scale, centre, fractional)
    checked = 0
    for step in range(4):  # the later steps hold the exact sums s1, s2 of several batches
        b = _stats(rng, K, d, scale, centre, fractional)
        for sign in (1, -1) if step else (1,):
            a = acc + b if sign < 0 else acc
            W, W_t = add_exact(a.weight, a.exact.get("weight"), b.weight, b.exact.get("weight"), sign)
            got = combine_cells(a, b, sign, [W, *W_t])
            for i in np.flatnonzero(W).tolist():
                j = i
                if not got["ok"][j]:
                    continue
                try:
                    want = exact_cell(a, b, sign, [W, *W_t], np.unravel_index(i, W.shape))
                except Exception:
                    pytest.fail("a certified cell the exact path refuses")
                assert float(got["mean"][j]) == want["mean"] and float(got["m2"][j]) == want["m2"]
                for name in ("s1", "s2"):
                    parts = [float(t[j]) for t in got[name]]
                    while len(parts) > 1 and parts[-1] == 0.0:
                        parts.pop()
                    assert parts == (want[name] or [0.0]), name
                assert bool(got["need"][j]) == want["need"]
                checked += 1
        acc = acc + b
    assert checked > 0 or centre >= 1e150  # past float64's squares: all by the integer path
