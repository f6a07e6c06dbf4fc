"""Each compiled kernel against its NumPy twin."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from nbayes._kernels import threads
from nbayes._kernels import categorical as kc
from nbayes._kernels import gaussian as kg
from nbayes._kernels import normalize as kn


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [1, 7, 513, 5000])  # below, at and above one block of rows
def test_moments(rng, n, weighted):
    K, d = 4, 6
    X = rng.normal(3.0, 2.0, (n, d))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.integers(0, K - 1, n)  # class K-1 never appears
    w = rng.random(n) * 2 if weighted else None
    cc, W, mu, m2, bad = kg.moments(X, y, w if weighted else np.empty(0), weighted, K, threads())
    ref = kg.moments_numpy(X, y, w, K)
    assert bad == -1
    for got, want in zip((cc, W, mu, m2), ref):
        assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_moments_flags_infinity(rng):
    X = rng.normal(size=(2000, 3))
    X[1234, 2] = -np.inf
    *_, bad = kg.moments(X, np.zeros(2000, dtype=np.intp), np.empty(0), False, 1, threads())
    assert bad == 1234


def test_joint_log_likelihood(rng):
    X = rng.normal(size=(3000, 5))
    X[rng.random(X.shape) < 0.1] = np.nan
    mu, var = rng.normal(size=(3, 5)), rng.random((3, 5)) + 0.1
    prec, lognorm, icpt = 0.5 / var, -0.5 * np.log(2 * np.pi * var), np.log([0.2, 0.3, 0.5])
    out, bad = kg.joint_log_likelihood(X, mu, prec, lognorm, icpt, threads())
    assert bad == -1
    assert_allclose(out, kg.joint_log_likelihood_numpy(X, mu, prec, lognorm, icpt), rtol=1e-12)
    X[17, 1] = np.inf
    assert kg.joint_log_likelihood(X, mu, prec, lognorm, icpt, threads())[1] == 17


def test_log_normalize(rng):
    jll = rng.normal(-500, 50, (1000, 4))
    jll[3] = -np.inf
    jll[5, :2] = -np.inf
    fallback = np.log([0.1, 0.2, 0.3, 0.4])
    want = kn.log_normalize_numpy(jll.copy(), fallback)
    got = kn.log_normalize(jll.copy(), fallback)
    assert_allclose(got, want, rtol=1e-12)
    assert_array_equal(got[3], fallback)
    assert not np.isnan(got).any()


def test_answer_rows_equals_predict_and_log_normalize(rng):
    """The served answer's one pass: log_normalize's values to the bit, predict's class (the
    prior's class on a row impossible under every class), the first row that overflowed."""
    jll = rng.normal(-500, 50, (300, 4))
    jll[3] = -np.inf
    jll[5, :2] = -np.inf
    jll[7, 1:] = jll[7, 0]  # ties: the first, as argmax
    fallback = np.log([0.1, 0.4, 0.3, 0.2])
    best, got, bad = kn.answer_rows(jll.copy(), fallback, int(np.argmax(fallback)))
    assert_array_equal(got, kn.log_normalize(jll.copy(), fallback))
    want = np.argmax(jll, axis=1)
    want[3] = 1
    assert_array_equal(best, want)
    assert bad == -1
    for row, value in ((11, np.nan), (9, np.inf)):
        jll[row, 2] = value
    assert kn.answer_rows(jll.copy(), fallback, 1)[2] == 9
    jll[9, 2] = 0.0
    assert kn.answer_rows(jll.copy(), fallback, 1)[2] == 11


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.float64])
def test_count_values(rng, dtype):
    n, d, K = 4000, 5, 3
    X = rng.integers(-3, 9, (n, d)).astype(dtype)
    if dtype == np.float64:
        X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.integers(0, K, n)
    w = rng.random(n)
    lo, hi, whole = kc.value_range(X, threads())
    assert whole.all()
    assert_array_equal(lo, np.nanmin(X.astype(float), axis=0))
    assert_array_equal(hi, np.nanmax(X.astype(float), axis=0))
    width = (hi - lo + 1).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(K * width)]).astype(np.int64)
    got = kc.count_values(X, y, w, True, K, lo, offsets, width, threads())
    assert_allclose(got, kc.count_values_numpy(X, y, w, K, lo, offsets, width), rtol=1e-12)


def test_value_range_spots_fractions(rng):
    X = rng.integers(0, 5, (100, 2)).astype(float)
    X[50, 1] = 2.5
    assert kc.value_range(X, threads())[2].tolist() == [True, False]


def test_linear_kernels_equal_their_numpy_twins(rng):
    """Small problems run the NumPy twins, large ones the compiled kernels: same numbers."""
    import scipy.sparse as sp

    from nbayes._kernels import linear as k

    X = sp.random(50, 30, density=0.2, format="csr", random_state=1)
    B = rng.normal(size=(30, 4))
    a, b = np.empty((50, 4)), np.empty((50, 4))
    np.testing.assert_allclose(
        k.csr_dense(X.indptr, X.indices, X.data, B, a), k.csr_dense_numpy(X.indptr, X.indices, X.data, B, b)
    )
    Z = rng.normal(size=(50, 4)) * 30
    codes = rng.integers(0, 4, 50).astype(np.int64)
    w = rng.uniform(0, 2, 50)
    Z1, Z2, P1, P2 = Z.copy(), Z.copy(), np.empty_like(Z), np.empty_like(Z)
    np.testing.assert_allclose(k.softmax_loss(Z1, codes, w, P1), k.softmax_loss_numpy(Z2, codes, w, P2))
    np.testing.assert_allclose(Z1, Z2, atol=1e-12)
    np.testing.assert_allclose(P1, P2, atol=1e-12)
    R1, R2 = Z.copy(), Z.copy()
    np.testing.assert_allclose(k.softmax_hess_factor(R1, P1, w), k.softmax_hess_factor_numpy(R2, P1, w))
    z = rng.normal(size=50) * 40
    y = (codes % 2).astype(float)
    z1, z2, d1, d2 = z.copy(), z.copy(), np.empty(50), np.empty(50)
    np.testing.assert_allclose(k.binary_loss(z1, y, w, d1), k.binary_loss_numpy(z2, y, w, d2))
    np.testing.assert_allclose(z1, z2, atol=1e-12)
    np.testing.assert_allclose(d1, d2, atol=1e-12)
    s, d, M, r = (rng.normal(size=40) for _ in range(4))
    M = np.abs(M) + 0.5
    s1, s2 = s.copy(), s.copy()
    np.testing.assert_allclose(k.axpy_mnorm(s1, 0.3, d, M), k.axpy_mnorm_numpy(s2, 0.3, d, M))
    np.testing.assert_allclose(s1, s2)
    r1, r2, q1, q2 = r.copy(), r.copy(), np.empty(40), np.empty(40)
    np.testing.assert_allclose(k.residual_step(r1, 0.7, d, M, q1), k.residual_step_numpy(r2, 0.7, d, M, q2))
    np.testing.assert_allclose(q1, q2)
    np.testing.assert_allclose(k.direction_step(s.copy(), d, 0.2), k.direction_step_numpy(s.copy(), d, 0.2))
    np.testing.assert_allclose(k.mdots(s, d, M), k.mdots_numpy(s, d, M))
    np.testing.assert_allclose(k.add_scaled(s.copy(), 0.1, d), k.add_scaled_numpy(s.copy(), 0.1, d))
    np.testing.assert_allclose(k.vdot(s, d), k.vdot_numpy(s, d))
    f1, f2 = np.empty(40, np.float32), np.empty(40, np.float32)
    np.testing.assert_array_equal(k.to_float32(s, f1), k.to_float32_numpy(s, f2))
    np.testing.assert_allclose(k.add_from32(s.copy(), f1, 0.5, d), k.add_from32_numpy(s.copy(), f1, 0.5, d))


# ---------------------------------------------------------------------------- twins, at random
# The Gaussian, categorical and linear kernels against their NumPy twins on random shapes (0
# rows too), NaN and inf, weights, and 1, 2 or 3 threads. Where the twin adds in the same order
# the results are equal to the bit; sums split over threads are compared with a tolerance, and
# separately to numba's split of a reduction (``_numba_sum``) to the bit.
from contextlib import contextmanager  # noqa: E402

from hypothesis import HealthCheck  # noqa: E402
from hypothesis import given as _given  # noqa: E402
from hypothesis import settings as _settings  # noqa: E402
from hypothesis import strategies as _st  # noqa: E402

from nbayes._kernels import set_max_threads  # noqa: E402
from nbayes._kernels import linear as kl  # noqa: E402

_THREADS = _st.sampled_from([1, 2, 3])
_SEED = _st.integers(0, 2**32 - 1)
_TWIN = _settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def _threads(T):
    before = threads()
    set_max_threads(T)
    try:
        yield
    finally:
        set_max_threads(before)


def _numba_sum(terms, T):
    """numba's parallel reduction of ``total += term`` over prange(n) on T threads: T contiguous
    ranges, the first n % T one longer, each summed in order from 0, then 0 + each range's sum
    in order (Python floats add as C doubles do)."""
    n = len(terms)
    q, r = divmod(n, T)
    total, lo = 0.0, 0
    for t in range(T):
        hi = lo + q + (t < r)
        part = 0.0
        for v in terms[lo:hi]:
            part += float(v)
        total += part
        lo = hi
    return total


def _gaussian_data(seed, n, d, K, special):
    gen = np.random.default_rng(seed)
    X = gen.normal(3.0, 2.0, (n, d)) * np.exp(gen.normal(0.0, 2.0, (n, d)))
    if special and X.size:
        X[gen.random(X.shape) < 0.15] = np.nan
    y = gen.integers(0, K, n)
    w = gen.random(n) * 3
    return X, y, w


@_TWIN
@_given(seed=_SEED, n=_st.integers(0, 700), d=_st.integers(0, 7), K=_st.integers(1, 4), T=_THREADS,
        weighted=_st.booleans(), nan=_st.booleans())
def test_moments_twin_at_random(seed, n, d, K, T, weighted, nan):
    X, y, w = _gaussian_data(seed, n, d, K, nan)
    got = kg.moments(X, y, w if weighted else np.empty(0), weighted, K, T)
    assert got[4] == -1
    for a, b in zip(got[:4], kg.moments_numpy(X, y, w if weighted else None, K)):
        assert_allclose(a, b, rtol=1e-9, atol=1e-9 * max(1.0, float(np.nanmax(np.abs(X), initial=0.0)) ** 2))
    again = kg.moments(X, y, w if weighted else np.empty(0), weighted, K, T)  # deterministic
    for a, b in zip(got, again):
        assert_array_equal(a, b)
    if n and d:
        i, j = divmod(seed % (n * d), d)
        X[i, j] = -np.inf if seed % 2 else np.inf
        first = int(np.argmax(np.isinf(X).any(axis=1)))
        assert kg.moments(X, y, w, True, K, T)[4] == first


@_TWIN
@_given(seed=_SEED, n=_st.integers(0, 300), d=_st.integers(0, 40), K=_st.integers(1, 5), T=_THREADS,
        nan=_st.booleans())
def test_joint_log_likelihood_twin_at_random(seed, n, d, K, T, nan):
    X, _, _ = _gaussian_data(seed, n, d, K, nan)
    X = X / np.maximum(1.0, np.nanmax(np.abs(X), initial=1.0))  # within a few sigma
    gen = np.random.default_rng(seed + 1)
    mu, var = gen.normal(size=(K, d)), gen.random((K, d)) + 0.1
    prec, lognorm, icpt = 0.5 / var, -0.5 * np.log(2 * np.pi * var), np.log(gen.dirichlet(np.ones(K)))
    out, bad = kg.joint_log_likelihood(X, mu, prec, lognorm, icpt, T)
    assert bad == -1
    want = kg.joint_log_likelihood_numpy(X, mu, prec, lognorm, icpt)
    assert_allclose(out, want, rtol=1e-12, atol=1e-12 * (1 + np.abs(want).max(initial=0.0)))
    if n and d:
        i = seed % n
        X[i, seed % d] = np.inf
        out, bad = kg.joint_log_likelihood(X, mu, prec, lognorm, icpt, T)
        assert bad == int(np.argmax(np.isinf(X).any(axis=1)))
        assert np.all(out[i] == -np.inf)


_CAT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
               np.float32, np.float64]


@_TWIN
@_given(seed=_SEED, n=_st.integers(0, 500), d=_st.integers(0, 5), K=_st.integers(1, 4), T=_THREADS,
        dtype=_st.sampled_from(_CAT_DTYPES), weighted=_st.booleans())
def test_categorical_twin_at_random(seed, n, d, K, T, dtype, weighted):
    gen = np.random.default_rng(seed)
    low = 0 if np.dtype(dtype).kind == "u" else -4
    X = gen.integers(low, 9, (n, d)).astype(dtype)
    if np.dtype(dtype).kind == "f" and X.size:
        X[gen.random(X.shape) < 0.2] = np.nan
    y = gen.integers(0, K, n)
    w = gen.integers(0, 4, n).astype(float) if weighted else None  # whole weights: exact sums
    lo, hi, whole = kc.value_range(X, T)
    with np.errstate(all="ignore"):
        Xf = X.astype(float)
        seen = ~np.isnan(Xf).all(axis=0) if n else np.zeros(d, bool)
        if seen.any():
            assert_array_equal(lo[seen], np.nanmin(Xf[:, seen], axis=0))
            assert_array_equal(hi[seen], np.nanmax(Xf[:, seen], axis=0))
    assert np.all(lo[~seen] > hi[~seen]) and whole.all()
    width = np.where(whole & (hi >= lo), hi - lo + 1, 0).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(K * width)]).astype(np.int64)
    lo0 = np.where(width > 0, lo, 0.0)
    got = kc.count_values(X, y, w if weighted else np.empty(0), weighted, K, lo0, offsets, width, T)
    assert_array_equal(got, kc.count_values_numpy(X, y, w, K, lo0, offsets, width))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_value_range_whole_numbers_at_the_edges(dtype):
    """value_range's test of whole numbers (no call to floor) says what v == floor(v) says,
    near 2^52, at the float limits, for -0.0, subnormals, inf (whole) and NaN (no value)."""
    vals = [0.5, -0.5, 2.0**52, 2.0**52 - 0.5, -(2.0**52 - 0.5), 2.0**53 + 2, 1e300, -1e300, np.inf, -np.inf,
            np.nan, -0.0, 0.49999999999999994, -1.5, 3.0, 1e-300, -7.0, 2.0**51 + 0.5, -(2.0**51) - 0.5, 1.5e-320]
    with np.errstate(over="ignore"):
        vals = np.array(vals).astype(dtype)
    for v in vals:
        X = np.array([[v], [1.0]], dtype=dtype)
        want = bool(np.isnan(v) or v == np.floor(v))
        assert bool(kc.value_range(X, 1)[2][0]) == want, v
        assert bool(kc.value_range(X, 2)[2][0]) == want, v


def test_categorical_other_dtypes_and_layouts(rng):
    X = rng.integers(0, 5, (60, 3))
    want = kc.value_range(X, 2)
    for Y in (X.astype(np.float16), np.asfortranarray(X), np.repeat(X, 2, axis=1)[:, ::2]):
        if Y.dtype == np.float16:
            with pytest.raises(TypeError):
                kc.value_range(Y, 2)
            continue
        for a, b in zip(kc.value_range(Y, 2), want):
            assert_array_equal(a, b)


def _csr(gen, n, d, density, index_dtype):
    import scipy.sparse as sp

    A = sp.random(n, d, density=density, format="csr", random_state=gen)
    A.data = gen.normal(size=A.nnz) * 10
    return A.indptr.astype(index_dtype), A.indices.astype(index_dtype), A.data


@_TWIN
@_given(seed=_SEED, n=_st.integers(0, 60), d=_st.integers(1, 40), K=_st.integers(1, 4), T=_THREADS,
        index=_st.sampled_from([np.int32, np.int64]), single=_st.booleans())
def test_linear_products_twin_at_random(seed, n, d, K, T, index, single):
    gen = np.random.default_rng(seed)
    ip, ind, data = _csr(gen, n, d, 0.2, index)
    real = np.float32 if single else np.float64
    B = gen.normal(size=(d, K)).astype(real)
    with _threads(T):
        got = kl.csr_dense(ip, ind, data.astype(real), B, np.empty((n, K), real))
        # SciPy's product adds each row's terms in the same order: equal to the bit
        assert_array_equal(got, kl.csr_dense_numpy(ip, ind, data.astype(real), B, np.empty((n, K), real)))
        out = np.empty((n, K))
        assert_array_equal(kl.presence_dot(ip, ind, B, out), kl.presence_dot_numpy(ip, ind, B, np.empty((n, K))))
        tip, tind = kl.transpose_pattern(ip.astype(np.int64), ind, d)
        assert tind.dtype == ind.dtype
        import scipy.sparse as sp

        PT = sp.csr_matrix((np.ones(len(ind)), ind, ip), shape=(n, d)).T.tocsr()
        assert_array_equal(tip, PT.indptr)
        assert_array_equal(tind, PT.indices)
        G = gen.normal(size=(n, K))
        s = gen.normal(size=d)
        V = gen.normal(size=(d, K))
        for blocks in (kl.even_blocks(tip, 64), kl.even_blocks(tip, 3), np.array([0, d], dtype=np.int64)):
            for lam in (0.0, 0.3):
                o1, o2 = np.empty((d, K)), np.empty((d, K))
                total = kl.presence_tdot(tip, tind, G, s, lam, V, o1, blocks)
                want = kl.presence_tdot_numpy(tip, tind, G, s, lam, V, o2, blocks)
                assert_array_equal(o1, o2)
                assert_allclose(total, want, rtol=1e-12, atol=1e-12 * np.abs(o1 * V).sum())
                per_block = [_block_sum(o1, V, a, b) for a, b in zip(blocks[:-1], blocks[1:])]
                assert total == (_numba_sum(per_block, T) if lam else 0.0)
        o1 = np.empty((d, K), real)
        assert_array_equal(kl.scale_rows(V, s, o1), kl.scale_rows_numpy(V, s, np.empty((d, K), real)))


def _block_sum(out, V, a, b):
    """presence_tdot's sum of out * V over the columns a..b-1, in its order."""
    sub = 0.0
    for j in range(a, b):
        for c in range(out.shape[1]):
            sub += float(out[j, c]) * float(V[j, c])
    return sub


@_TWIN
@_given(seed=_SEED, n=_st.integers(0, 80), K=_st.integers(1, 5), T=_THREADS, scale=_st.sampled_from([1.0, 30.0, 800.0]))
def test_losses_twin_at_random(seed, n, K, T, scale):
    import math

    gen = np.random.default_rng(seed)
    Z = gen.normal(size=(n, K)) * scale
    codes = gen.integers(0, K, n).astype(np.int64)
    w = gen.uniform(0, 2, n)
    with _threads(T):
        if K > 1:
            Z1, Z2, P1, P2 = Z.copy(), Z.copy(), np.empty_like(Z), np.empty_like(Z)
            total = kl.softmax_loss(Z1, codes, w, P1)
            assert_allclose(total, kl.softmax_loss_numpy(Z2, codes, w, P2), rtol=1e-12, atol=1e-12)
            assert_allclose(Z1, Z2, rtol=1e-12, atol=1e-12)
            assert_allclose(P1, P2, rtol=1e-12, atol=1e-12)
            rows = []
            for i in range(n):
                m = max(Z[i])
                e = 0.0
                for v in Z[i]:
                    e += math.exp(v - m)
                lse = m + math.log(e)
                rows.append(w[i] * (lse - Z[i, codes[i]]))
            assert total == _numba_sum(rows, T)
            R1, R2 = Z.copy(), Z.copy()
            assert_allclose(kl.softmax_hess_factor(R1, P1, w), kl.softmax_hess_factor_numpy(R2, P1, w),
                            rtol=1e-12, atol=1e-12 * (1 + np.abs(R2).max(initial=0.0)))
        z = Z[:, 0].copy()
        y = (codes % 2).astype(float)
        z1, z2, d1, d2 = z.copy(), z.copy(), np.empty(n), np.empty(n)
        total = kl.binary_loss(z1, y, w, d1)
        assert_allclose(total, kl.binary_loss_numpy(z2, y, w, d2), rtol=1e-12, atol=1e-12)
        assert_allclose(z1, z2, rtol=1e-12, atol=1e-15)
        assert_allclose(d1, d2, rtol=1e-12, atol=1e-15)
        log1pexp = [v + math.log1p(math.exp(-v)) if v > 0 else math.log1p(math.exp(v)) for v in z]
        assert total == _numba_sum([w[i] * (log1pexp[i] - y[i] * z[i]) for i in range(n)], T)


@_TWIN
@_given(seed=_SEED, n=_st.integers(0, 300), T=_THREADS)
def test_cg_steps_twin_at_random(seed, n, T):
    gen = np.random.default_rng(seed)
    s, d, r, V = (gen.normal(size=n) * 1e3 for _ in range(4))
    M = np.abs(gen.normal(size=n)) + 0.5
    with _threads(T):
        s1, s2 = s.copy(), s.copy()
        got = kl.axpy_mnorm(s1, 0.37, d, M)
        assert_allclose(got, kl.axpy_mnorm_numpy(s2, 0.37, d, M), rtol=1e-12)
        assert_array_equal(s1, s2)
        assert got == _numba_sum(s1 * M * s1, T)
        r1, r2, z1, z2 = r.copy(), r.copy(), np.empty(n), np.empty(n)
        rz, rr = kl.residual_step(r1, 0.71, d, M, z1)
        assert_allclose((rz, rr), kl.residual_step_numpy(r2, 0.71, d, M, z2), rtol=1e-12)
        assert_array_equal(r1, r2)
        assert_array_equal(z1, z2)
        assert (rz, rr) == (_numba_sum(r1 * z1, T), _numba_sum(r1 * r1, T))
        assert_array_equal(kl.direction_step(s.copy(), d, 0.23), kl.direction_step_numpy(s.copy(), d, 0.23))
        sd, ss, dd = kl.mdots(s, d, M)
        assert_allclose((sd, ss, dd), kl.mdots_numpy(s, d, M), rtol=1e-12)
        assert (sd, ss, dd) == (_numba_sum(s * M * d, T), _numba_sum(s * M * s, T), _numba_sum(d * M * d, T))
        assert kl.vdot(s, d) == _numba_sum(s * d, T)
        assert_allclose(kl.vdot(s, d), kl.vdot_numpy(s, d), rtol=1e-12, atol=1e-9 * np.abs(s * d).sum())
        assert_array_equal(kl.add_scaled(s.copy(), 0.1, V), kl.add_scaled_numpy(s.copy(), 0.1, V))
        f1, f2 = np.empty(n, np.float32), np.empty(n, np.float32)
        assert_array_equal(kl.to_float32(s, f1), kl.to_float32_numpy(s, f2))
        assert_array_equal(kl.add_from32(s.copy(), f1, 0.5, V), kl.add_from32_numpy(s.copy(), f1, 0.5, V))


@_TWIN
@_given(seed=_SEED, n=_st.integers(0, 50), d=_st.integers(1, 30))
def test_frequency_order_at_random(seed, n, d):
    gen = np.random.default_rng(seed)
    _, ind, _ = _csr(gen, n, d, 0.3, np.int32)
    new = kl.frequency_order(ind, d)
    assert_array_equal(np.sort(new), np.arange(d))
    df = np.bincount(ind, minlength=d)
    first = np.full(d, len(ind))
    first[ind[::-1]] = len(ind) - 1 - np.arange(len(ind))
    order = np.lexsort((np.where(df > 0, first, len(ind) + np.arange(d)), -df))  # the expected order
    assert_array_equal(new[order], np.arange(d))


# ---------------------------------------------------------------------------- text kernels
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from nbayes._kernels import text_twin  # noqa: E402
from nbayes._kernels.text import murmur3  # noqa: E402
from nbayes.text._buffer import to_buffer  # noqa: E402
from nbayes.text.vocab import HashedTerms, Pairs, TermTable, Tokens, hash_terms, learn_terms  # noqa: E402

_WORDS = ["cheap", "pills", "the", "of", "naïve", "ΟΔΟΣ", "東京", "zürich", "ab", "x", "İstanbul", "straße"]
_DOCS = st.lists(
    st.one_of(st.text(max_size=30), st.lists(st.sampled_from(_WORDS), max_size=8).map(" ".join)),
    min_size=1, max_size=6,
)
_MODES = [((1, 1), ()), ((1, 2), ()), ((2, 3), ("the", "of")), ((1, 3), ("the", "cheap"))]


@pytest.mark.parametrize("ngram_range, stop", _MODES)
@pytest.mark.parametrize("n_features", [0, 7, 2**16])  # 0: vocabulary mode; 7: many collisions
@settings(max_examples=30, deadline=None)
@given(docs=_DOCS, data=st.data())
def test_text_kernels_equal_their_twins(ngram_range, stop, n_features, docs, data):
    how = Tokens(ngram_range, list(stop))
    buf, bounds, table = to_buffer(docs)
    lowered = [d.lower() for d in docs]
    K = 3
    codes = np.array(data.draw(st.lists(st.integers(0, K - 1), min_size=len(docs), max_size=len(docs))))
    w = np.array(data.draw(st.lists(st.floats(0.0, 3.0), min_size=len(docs), max_size=len(docs))))
    # counting (with growth of the learner's tables in vocabulary mode)
    if n_features:
        terms, counts, cdf, df, tf = hash_terms(buf, bounds, table, codes, w, K, n_features, how)
        terms = terms.tolist()
    else:
        terms, counts, cdf, df, tf, _ = learn_terms(buf, bounds, table, codes, w, K, how)
        terms = terms.tolist()
    twin = text_twin.count_terms(lowered, codes.tolist(), w.tolist(), K, ngram_range, stop, n_features)
    assert terms == twin[0]
    for got, want in zip((counts.T, cdf.T, df, tf), twin[1:]):
        got = got.toarray() if hasattr(got, "toarray") else got  # vocabulary mode: the pairs seen (CSR)
        assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # looking up: over a vocabulary of part of the terms (the rest unknown), or the buckets
    vocab = sorted(terms[::2]) if not n_features else None
    lookup = HashedTerms(n_features, how) if n_features else TermTable(vocab, how)
    ids = text_twin.term_ids(lowered, ngram_range, stop, {t: i for i, t in enumerate(vocab or [])}, n_features)
    assert_array_equal(lookup.tokens(buf, bounds, table), ids)
    W = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).normal(size=(len(lookup), 2))
    for binary in (False, True):
        want = text_twin.score(lowered, ngram_range, stop, {t: i for i, t in enumerate(vocab or [])},
                               n_features, W, binary)
        assert_allclose(lookup.score(buf, bounds, table, W, binary), want, rtol=1e-12, atol=1e-12)
        if not n_features:  # weights as (class, term) pairs over a per-class base: the same sums
            # 9 classes, each pair held with probability 0.3: terms held by 3 or more classes
            # score by their full row, the others by their pairs (Pairs.heavy)
            gen = np.random.default_rng(len(terms))
            seen = gen.random((len(lookup), 9)) < 0.3
            base = gen.normal(size=9)
            rows, cls = np.nonzero(seen)
            pairs = Pairs(np.r_[0, np.cumsum(seen.sum(axis=1))].astype(np.int64), cls.astype(np.int64),
                          gen.normal(size=len(rows)), base)
            want = text_twin.score(lowered, ngram_range, stop, {t: i for i, t in enumerate(vocab or [])},
                                   n_features, pairs.dense(), binary)
            assert_allclose(lookup.score_pairs(buf, bounds, table, pairs, binary), want, rtol=1e-12, atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_murmur3_equals_its_twin_and_scikit_learn(text):
    from sklearn.utils import murmurhash3_32

    buf, bounds, _ = to_buffer([text], lowercase=False)
    assert murmur3(buf, 0, len(buf)) == text_twin.murmur3(text) == murmurhash3_32(text, positive=False)


def test_text_score_on_threads_equals_one_thread(monkeypatch):
    """``score`` (through ``score_pairs``) splits the documents over Python threads (its compiled loop releases the GIL):
    each document's sums are made in the same order, so the result is the same bit for bit."""
    import nbayes._kernels.text as kt
    from nbayes._kernels.text_pairs import score

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(300)]
    docs = [" ".join(rng.choice(words, rng.integers(1, 40))) for _ in range(700)]
    buf, bounds, table = to_buffer(docs)
    for lookup in (TermTable(words[::2], Tokens((1, 1), [])), HashedTerms(2**10, Tokens((1, 2), ["w1"]))):
        W = rng.normal(size=(len(lookup), 3))
        for binary in (False, True):
            monkeypatch.setattr(kt, "_MIN_THREAD_DOCS", 10**9)
            one = lookup.score(buf, bounds, table, W, binary)
            monkeypatch.setattr(kt, "_MIN_THREAD_DOCS", 1)
            assert_array_equal(lookup.score(buf, bounds, table, W, binary), one)
            for T in (2, 3, 700):  # more threads than cores, one document each
                w = np.ascontiguousarray(W)
                assert_array_equal(score(buf, bounds, table, *lookup_args(lookup), w, binary, T), one)


def lookup_args(lookup):
    """The kernel arguments between the word table and the weights (as vocab.py passes them)."""
    if isinstance(lookup, HashedTerms):
        from nbayes.text.vocab import _NONE_I, _no_table

        return (*lookup.how.args(), lookup.n_features, _no_table(_NONE_I))
    return (*lookup._how().args(), 0, lookup._terms())


# ------------------------------------------------- vocabulary tables: sort, parts, pairs, online
from nbayes._kernels import online as ko  # noqa: E402
from nbayes._kernels import text_parts as kp  # noqa: E402
from nbayes._kernels import text_sort as ks  # noqa: E402

#: letters that make long shared prefixes, NUL, Latin-1, BMP and non-BMP code points
_LETTERS = ["a", "b", " ", "\x00", "é", "ÿ", "\u4e00", "\U0001f600", "\U0010fffd"]


def _laid(words, dtype=np.uint32):
    """(cps, start, length) of ``words`` end to end, as a term table holds them."""
    cps = np.frombuffer("".join(words).encode("utf-32-le", errors="surrogatepass"), dtype=np.uint32).astype(dtype)
    length = np.array([len(w) for w in words], dtype=np.int64)
    start = np.zeros(len(words), dtype=np.int64)
    if len(words):
        start[1:] = np.cumsum(length)[:-1]
    return cps, start, length


@settings(max_examples=80, deadline=None)
@given(words=st.lists(st.text(alphabet=st.sampled_from(_LETTERS), max_size=14), max_size=60),
       n_threads=st.sampled_from([1, 2, 3, 5]), latin1=st.booleans())
def test_sort_order_kernels_equal_pythons_sorted(words, n_threads, latin1):
    """The compiled sort (split_terms, sort_parts on 1..5 threads) against Python's ``sorted``
    of the strings: code point order, a prefix first, copies kept in their order (stable);
    empty and one-term inputs, empty terms, non-BMP code points; uint8 buffers for Latin-1."""
    if latin1:
        words = [w for w in words if all(ord(ch) < 256 for ch in w)]
    cps, start, length = _laid(words, np.uint8 if latin1 else np.uint32)
    want = sorted(range(len(words)), key=words.__getitem__)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ks, "_SMALL", 2)  # the kernels however few the terms
        mp.setattr(ks, "_THREADED", 2)  # and on threads
        order = ks.sort_order(cps, start, length, n_threads)
    assert order.dtype == np.int64 and order.tolist() == want
    assert ks.term_strings(cps, start[order], length[order]) == [words[i] for i in want]
    i, same = ks.first_unsorted(cps, start[order], length[order])
    dup = [k for k in range(1, len(want)) if words[want[k]] == words[want[k - 1]]]
    assert (i, same) == ((dup[0], True) if dup else (-1, False))
    if len(words) > 1 and words[0] != words[1]:  # two terms out of order
        lo, hi = sorted(range(2), key=words.__getitem__)
        assert ks.first_unsorted(cps, start[[hi, lo]], length[[hi, lo]]) == (1, False)
    joined = np.empty(int(length.sum()), dtype=np.uint32)
    ks.gather_terms(cps, start, length, joined)
    assert joined.tobytes().decode("utf-32-le", errors="surrogatepass") == "".join(words)


@pytest.mark.parametrize("n_threads", [1, 3])
def test_sort_order_many_terms_on_threads(n_threads):
    """Past _SMALL and _THREADED as they are: parts of many terms, radix passes, ties over
    several rounds of keys (few letters, long words, copies)."""
    rng = np.random.default_rng(n_threads)
    ends = np.cumsum(rng.integers(0, 30, size=70_000))
    text = "".join(np.array(["a", "b", "\U0001f600"])[rng.integers(0, 3, size=int(ends[-1]))].tolist())
    words = [text[a:b] for a, b in zip([0, *ends[:-1].tolist()], ends.tolist())]
    words += words[::50]
    cps, start, length = _laid(words)
    assert ks.sort_order(cps, start, length, n_threads).tolist() == sorted(range(len(words)), key=words.__getitem__)


def _pairs_twin(keys, count, cdf, rank, K):
    cls, col = keys % K, rank[keys // K]
    want = np.lexsort((col, cls))
    return np.concatenate([[0], np.cumsum(np.bincount(cls, minlength=K))]), col[want], count[want], cdf[want]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_terms=st.sampled_from([1, 2, 9, 300, 2049, 5000]), K=st.integers(1, 8),
       wide=st.booleans())
def test_pair_csr_and_dense_pairs_equal_a_numpy_twin(seed, n_terms, K, wide):
    """(class, term) pairs to CSR over classes, ranks as columns: pair_csr from distinct keys
    (radix passes of 11 bits: two past 2048 terms), dense_pair_counts / _fill from dense rows."""
    rng = np.random.default_rng(seed)
    it = np.int64 if wide else np.int32
    keys = rng.permutation(n_terms * K)[: int(rng.integers(0, n_terms * K + 1))].astype(np.int64)
    count, cdf = rng.random(len(keys)), rng.random(len(keys))
    rank = rng.permutation(n_terms).astype(np.int64)
    indptr, indices = np.zeros(K + 1, dtype=np.int64), np.empty(len(keys), dtype=it)
    tc, dc = np.empty(len(keys)), np.empty(len(keys))
    ks.pair_csr(keys, count, cdf, rank, K, indptr, indices, tc, dc)
    for got, want in zip((indptr, indices, tc, dc), _pairs_twin(keys, count, cdf, rank, K)):
        assert_array_equal(got, want)
    # the same pairs as dense rows (term t's K counts at t * K), read in the order of the ranks
    dense_c, dense_d = np.zeros(n_terms * K), np.zeros(n_terms * K)
    dense_c[keys], dense_d[keys] = count, cdf
    dense_d[keys[: len(keys) // 3]] = 0.0  # a count without documents is still a pair
    order = np.argsort(rank).astype(np.int64)
    ptr = ks.dense_pair_counts(dense_c, dense_d, order, K)
    assert_array_equal(ptr, indptr)
    indices2, tc2, dc2 = np.empty(len(keys), dtype=it), np.empty(len(keys)), np.empty(len(keys))
    ks.dense_pair_fill(dense_c, dense_d, order, K, ptr, indices2, tc2, dc2)
    assert_array_equal(indices2, indices)
    assert_array_equal(tc2, tc)
    assert_array_equal(dc2, dense_d[keys][np.lexsort((rank[keys // K], keys % K))])
    # held: not 0 as a float (-0.0 is 0; NaN and the smallest subnormal are not)
    odd = np.array([-0.0, 0.0, np.nan, -0.0, 5e-324, 0.0, 0.0, -5e-324])
    assert ks.dense_pair_counts(odd, np.zeros(8), np.arange(4, dtype=np.int64), 2).tolist() == [0, 2, 3]
    assert ks.dense_pair_counts(np.zeros(8), odd, np.arange(4, dtype=np.int64), 2).tolist() == [0, 2, 3]
    slots = np.full(2 * 8, -1, dtype=np.int64)
    slots[1: 2 * min(n_terms, 8): 2] = np.arange(min(n_terms, 8))
    want = np.where(slots[1::2] >= 0, rank[np.maximum(slots[1::2], 0)], -1)
    ks.renumber_slots(slots, rank)
    assert_array_equal(slots[1::2], want)


def _parts_twin(vocab):
    """(parts, loose) of a vocabulary by a dictionary: a term split at its last space into two
    terms (neither empty) has their ids; loose: a space and no known parts."""
    ids = {t: i for i, t in enumerate(vocab)}
    out, loose = np.full((len(vocab), 2), -1, dtype=np.int32), 0
    for i, t in enumerate(vocab):
        b = t.rfind(" ")
        if 0 < b < len(t) - 1 and t[:b] in ids and t[b + 1:] in ids:
            out[i] = ids[t[:b]], ids[t[b + 1:]]
        else:
            loose += b >= 0
    return out, loose


_GRAM_WORDS = ["ab", "b", "naïve", "東京", "\U0001f600x", "zürichsee", "a" * 9]


@st.composite
def _closed_vocab(draw):
    """Every 1..3-gram of a few documents (each n-gram's prefix and last word are terms too)."""
    docs = draw(st.lists(st.lists(st.sampled_from(_GRAM_WORDS), min_size=1, max_size=7), min_size=1, max_size=5))
    grams = {" ".join(d[i:i + n]) for d in docs for n in (1, 2, 3) for i in range(len(d) - n + 1)}
    return sorted(grams)


@settings(max_examples=60, deadline=None)
@given(vocab=_closed_vocab(), odd=st.lists(st.sampled_from(["", " ", " ab", "ab ", "ab  b", "b ab", "x ab", "ab x"]),
                                           unique=True),
       data=st.data())
def test_gram_parts_equal_a_dictionary(vocab, odd, data):
    """gram_parts (and build_parts over ranges on threads) against the dictionary twin, odd
    strings included (spaces first, last or doubled; parts that are no term); kept_parts of a
    pruned closed vocabulary and renumbered_parts of a learner's unsorted ids, the same way."""
    from nbayes.text.vocab import TermTable

    full = sorted(set(vocab) | set(odd))
    table = TermTable(full)
    want, loose = _parts_twin(full)
    out = np.empty((len(full), 2), dtype=np.int32)
    assert kp.gram_parts(table.slots, table.start, table.length, table.cps, out) == loose
    assert_array_equal(out, want)
    cut = data.draw(st.integers(0, len(full)))
    part = np.full_like(out, 7)
    n1 = kp.gram_parts(table.slots, table.start, table.length, table.cps, part, 0, cut)
    n2 = kp.gram_parts(table.slots, table.start, table.length, table.cps, part, cut, len(full))
    assert n1 + n2 == loose
    assert_array_equal(part, want)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kp, "_PER_THREAD", 1)
        for T in (1, 2, 3):
            got, n = kp.build_parts(table.slots, table.start, table.length, table.cps, T)
            assert n == loose
            assert_array_equal(got, want)
    # pruned: the kept terms' parts from the closed vocabulary's (loose 0)
    closed = TermTable(vocab)
    parts, n = kp.build_parts(closed.slots, closed.start, closed.length, closed.cps, 1)
    assert n == 0
    keep = np.array(data.draw(st.lists(st.booleans(), min_size=len(vocab), max_size=len(vocab))), dtype=bool)
    kept = [t for t, k in zip(vocab, keep) if k]
    out = np.empty((len(kept), 2), dtype=np.int32)
    want, loose = _parts_twin(kept)
    assert kp.kept_parts(parts, keep, out) == loose
    assert_array_equal(out, want)
    # a learner's table (ids in the order terms came, parts in 4 columns) renumbered to sorted ids
    came = data.draw(st.permutations(vocab))
    learner = TermTable(came)
    lparts = np.full((len(came), 4), -1, dtype=np.int32)
    lparts[:, :2] = kp.build_parts(learner.slots, learner.start, learner.length, learner.cps, 1)[0]
    order = ks.sort_order(learner.cps, learner.start, learner.length)
    rank = np.empty(len(came), dtype=np.int64)
    rank[order] = np.arange(len(came))
    out = np.empty((len(came), 2), dtype=np.int32)
    assert kp.renumbered_parts(lparts, order, rank, learner.start[order], learner.length[order], learner.cps, out) == 0
    assert_array_equal(out, _parts_twin(vocab)[0])


@st.composite
def _update(draw):
    """(old K x V counts, insertion points, update K x V+k counts) of a model and an update."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    K, V = draw(st.integers(1, 5)), draw(st.integers(0, 40))
    old = rng.integers(0, 3, (K, V)).astype(float) * (rng.random((K, V)) < 0.4)
    ins = np.sort(rng.integers(0, V + 1, draw(st.integers(0, 6)))).astype(np.int64)
    up = rng.integers(0, 3, (K, V + len(ins))).astype(float) * (rng.random((K, V + len(ins))) < 0.3)
    up[:, ins + np.arange(len(ins))] += rng.random((K, len(ins))) < 0.5
    return old, ins, up


def _new_ids(V, ins):
    """(new_id, key, known) of every new column, from a dense recomputation."""
    new_id = np.arange(V) + np.searchsorted(ins, np.arange(V), side="right")
    key, known = np.empty(V + len(ins), dtype=np.int64), np.ones(V + len(ins), dtype=bool)
    key[new_id] = np.arange(V)
    fresh = ins + np.arange(len(ins))
    key[fresh], known[fresh] = ins, False
    return new_id, key, known


@settings(max_examples=60, deadline=None)
@given(case=_update(), ptr32=st.booleans(), idx32=st.booleans())
def test_online_merges_equal_a_dense_recomputation(case, ptr32, idx32):
    """merge_rows (int32 or int64 row pointers and indices, one or two matrices) and
    merge_pairs against the dense tables with the new columns inserted and the update added
    (or, for pairs, put in place); update_entries, inserted, renumbered, heavy_rows likewise."""
    import scipy.sparse as sp

    from nbayes.text.vocab import Pairs

    old, ins, up = case
    K, V = old.shape
    new_id, key, known = _new_ids(V, ins)
    assert_array_equal(ko.renumbered(V, ins), new_id)
    m, u = sp.csr_matrix(old), sp.csr_matrix(up)
    m.sort_indices()
    u.sort_indices()
    indptr = m.indptr.astype(np.int32 if ptr32 else np.int64)
    indices = m.indices.astype(np.int32 if idx32 else np.int64)
    cols = u.indices.astype(np.int64)
    args = (ins, u.indptr.astype(np.int64), key[cols], known[cols], cols)
    want = np.insert(old, ins, 0.0, axis=1) + up
    old2, up2 = old * 0.5 + (old != 0), up * 3.0 + (up != 0)
    want2 = np.insert(old2, ins, 0.0, axis=1) + up2
    for two in (False, True):
        data2, vals2 = (old2[old != 0], up2[up != 0]) if two else (np.zeros(0), np.zeros(0))
        p, i, d, d2, at, sums = ko.merge_rows(indptr, indices, m.data, data2, *args, u.data, vals2, 2 if two else 1)
        assert i.dtype == indices.dtype and p.dtype == np.int64
        got = sp.csr_matrix((d, i, p), shape=want.shape)
        assert got.has_sorted_indices and got.nnz == int((want != 0).sum())
        assert_array_equal(got.toarray(), want)
        assert_array_equal(d[at], want[np.repeat(np.arange(K), np.diff(u.indptr)), u.indices])
        rows = np.repeat(np.arange(K), np.diff(p))
        assert_array_equal(sums, np.bincount(rows, weights=d2 if two else d, minlength=K))
        if two:
            assert_array_equal(sp.csr_matrix((d2, i, p), shape=want.shape).toarray(), want2)
        else:
            assert len(d2) == 0
    # the update's entries from dense counts, in (class, new term) order
    cpos, pos = np.arange(K, dtype=np.int64), np.arange(V + len(ins), dtype=np.int64)
    B = np.where(up != 0, up + 1, 0.0)
    rows, cols2, keys, kn, va, vb, ptr, same = ko.update_entries(np.ascontiguousarray(up), B, cpos, pos, key, known, K)
    r, c = np.nonzero(up)
    assert same and kn.dtype == np.bool_
    for got, w in zip((rows, cols2, keys, kn, va, vb, ptr), (r, c, key[c], known[c], up[r, c], B[r, c],
                                                              np.r_[0, np.cumsum(np.bincount(r, minlength=K))])):
        assert_array_equal(got, w)
    # pairs by term (CSC), the update's replacing the old ones at their (term, class)
    weight = np.where(old != 0, old * 10 + 1, 0.0)
    cw, uc = sp.csc_matrix(weight), sp.csc_matrix(up)
    cw.sort_indices()
    uc.sort_indices()
    up_terms = np.repeat(np.arange(up.shape[1]), np.diff(uc.indptr))
    pp, pc, pd = ko.merge_pairs(cw.indptr.astype(np.int64), cw.indices.astype(np.int64), cw.data,
                                new_id if len(ins) else new_id[:0], up.shape[1], up_terms, key[up_terms],
                                known[up_terms], uc.indices.astype(np.int64), -uc.data)
    wp = np.insert(weight, ins, 0.0, axis=1)
    wp[up != 0] = -up[up != 0]
    got = sp.csc_matrix((pd, pc, pp), shape=wp.shape)
    assert got.has_sorted_indices and got.nnz == int((wp != 0).sum())
    assert_array_equal(got.toarray(), wp)
    pairs = Pairs(pp, pc, pd, np.linspace(-3, -1, K))
    row, rows_full = ko.heavy_rows(pp, pc, pd, pairs.base)
    want_row, want_rows = pairs.heavy()
    assert_array_equal(row, want_row)
    assert_array_equal(rows_full, want_rows)
    for dtype in (np.float64, np.float32, np.int64, np.int32, np.uint16):  # uint16: NumPy's own
        a = (np.arange(V) * 3).astype(dtype)
        values = np.arange(len(ins)).astype(dtype)
        got = ko.inserted(a, ins, values)
        assert got.dtype == a.dtype
        assert_array_equal(got, np.insert(a, ins, values))

# ------------------------------------------------ word kernels against scikit-learn, all of Unicode
# Characters from the whole code point range (non-BMP included), with the ones the token pattern
# turns on over-represented: combining marks (\w in Python's re? Mn is not), digits of several
# scripts, underscores, letters outside the BMP, separators and punctuation.
_EDGE = ["_", "0", "٣", "٤", "\u0301", "\u0300", "\u200d", "\u00a0", " ", "\n", "-", "'", ".", "\x00", "ß", "İ",
         "ǅ", "ﬁ", "𝔘", "𝟘", "𐐀", "😀", "中", "é", "ÿ", "\u00b5", "\u00aa", "\u2160", "\u3007"]
_ANY = st.characters(min_codepoint=0, max_codepoint=0x10FFFF)  # (surrogates excluded)
_UNICODE_DOCS = st.lists(st.text(st.one_of(_ANY, st.sampled_from(_EDGE)), max_size=40), min_size=1, max_size=5)
_LATIN1_DOCS = st.lists(st.text(st.one_of(st.characters(max_codepoint=255), st.sampled_from(["_", "5", "ÿ", "µ", " "])),
                                max_size=40), min_size=1, max_size=5)


def _sklearn_tokens(doc):
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(lowercase=False).build_tokenizer()(doc)


@pytest.mark.parametrize("latin1", [True, False])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_word_tokens_equal_scikit_learn_over_all_of_unicode(latin1, data):
    """The tokeniser (spans of term_ids, uint8 and uint32 buffers) finds exactly scikit-learn's
    ``(?u)\\b\\w\\w+\\b`` tokens, and hashes each as ``murmurhash3_32`` does."""
    from sklearn.utils import murmurhash3_32

    from nbayes._kernels.text import term_ids

    docs = data.draw(_LATIN1_DOCS if latin1 else _UNICODE_DOCS)
    buf, bounds, table = to_buffer(docs, lowercase=False)
    if latin1:
        assert buf.dtype == np.uint8
    elif buf.dtype == np.uint8:
        buf = buf.astype(np.uint32)  # (the wide buffer and table, for text that happens to fit in one byte)
        from nbayes.text._buffer import word_table

        table = word_table(True)
    n_features = 2**18
    how = Tokens()
    got = term_ids(buf, bounds, table, *how.args(), n_features, _lookup_table(None))
    want = [(d, t) for d, doc in enumerate(docs) for t in _sklearn_tokens(doc)]
    assert [(d, docs[d][s:e]) for d, _, s, e in got.tolist()] == want
    for (d, col, s, e), (_, token) in zip(got.tolist(), want):
        h = murmurhash3_32(token, positive=False)
        assert murmur3(buf, int(bounds[d] + s), int(bounds[d] + e)) == h
        assert col == (abs(h) if h != -(2**31) else 2**31 - 1 - (n_features - 1)) % n_features


def _lookup_table(vocab):
    from nbayes.text.vocab import _NONE_I, _no_table

    return _no_table(_NONE_I) if vocab is None else vocab._terms()


_STOP = ["the", "of", "ab", "naïve", "東京"]
_MIXED_DOCS = st.lists(
    st.one_of(st.text(st.one_of(_ANY, st.sampled_from(_EDGE)), max_size=25),
              st.lists(st.sampled_from(_WORDS + _STOP + ["Ab", "THE", "x_1", "𝔘𝔘"]), max_size=10).map(" ".join)),
    min_size=1, max_size=6,
)


@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2), (2, 3), (1, 3)])
@pytest.mark.parametrize("stop", [(), tuple(_STOP)])
@settings(max_examples=25, deadline=None)
@given(docs=_MIXED_DOCS)
def test_word_ngrams_equal_count_and_hashing_vectorizers(ngram_range, stop, docs):
    """Counting (learn_counts) finds CountVectorizer's vocabulary and counts, n-grams formed after
    the stop words are dropped; hashing mode (hash_counts, term_ids, presence rows) gives
    HashingVectorizer's columns."""
    import warnings

    import scipy.sparse as sp
    from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

    how = Tokens(ngram_range, list(stop))
    buf, bounds, table = to_buffer(docs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn on stop words the lower-casing changes
        cv = CountVectorizer(ngram_range=ngram_range, stop_words=list(stop) or None)
        try:
            X = cv.fit_transform(docs)
            vocab = cv.get_feature_names_out().tolist()
        except ValueError:  # no term at all
            X, vocab = sp.csr_matrix((len(docs), 0)), []
        H = HashingVectorizer(n_features=2**10, ngram_range=ngram_range, stop_words=list(stop) or None,
                              alternate_sign=False, norm=None).transform(docs)
    codes = np.zeros(len(docs), dtype=np.int64)
    terms, counts, _, _, _, learned = learn_terms(buf, bounds, table, codes, None, 1, how)
    assert terms.tolist() == vocab
    occurrences = np.zeros((len(docs), len(vocab)))
    for d, t, _, _ in learned.tokens(buf, bounds, table).tolist():
        occurrences[d, t] += 1
    assert_array_equal(occurrences, X.toarray())
    assert_array_equal(counts.toarray()[0], np.asarray(X.sum(axis=0)).ravel())
    hashed = HashedTerms(2**10, how)
    cols = np.zeros((len(docs), 2**10))
    for d, t, _, _ in hashed.tokens(buf, bounds, table).tolist():
        cols[d, t] += 1
    assert_array_equal(cols, H.toarray())
    _, hcounts, _, _, _ = hash_terms(buf, bounds, table, codes, None, 1, 2**10, how)
    assert_array_equal(hcounts[0], np.asarray(H.sum(axis=0)).ravel())
    for lookup, M in ((learned, X), (hashed, H)):
        indptr, indices = lookup.presence(buf, bounds, table)
        present = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=M.shape)
        assert_array_equal(present.toarray(), (M.toarray() > 0).astype(float))


@pytest.mark.parametrize("ngram_range, stop", _MODES)
@settings(max_examples=25, deadline=None)
@given(docs=_DOCS, data=st.data())
def test_learn_counts_resumed_and_merged_equal_the_twin(ngram_range, stop, docs, data):
    """learn_counts from tiny tables (it stops before each document that could overflow them and
    resumes once they grew), over two learners merged (merge_learned, count_new), weighted:
    the twin's counts."""
    from nbayes.text import vocab as v

    how = Tokens(ngram_range, list(stop))
    buf, bounds, table = to_buffer(docs)
    K = 4
    codes = np.array(data.draw(st.lists(st.integers(0, K - 1), min_size=len(docs), max_size=len(docs))))
    w = np.array(data.draw(st.lists(st.floats(0.0, 3.0), min_size=len(docs), max_size=len(docs))))
    cut = data.draw(st.integers(0, len(docs)))

    def tiny() -> v._Learner:
        learner = v._Learner(K, 0, ngram_range[1] - ngram_range[0] + 1)
        learner.slots = np.full(8, -1, dtype=np.int64)  # room for 2 terms: a stop on nearly every document
        for name in ("keys", "start", "length", "df", "tf"):
            setattr(learner, name, getattr(learner, name)[:2].copy())
        learner.last, learner.parts, learner.cps = learner.last[:2].copy(), learner.parts[:2].copy(), learner.cps[:4].copy()
        return learner

    a = tiny().learn(buf, bounds[: cut + 1], table, codes[:cut], w[:cut], how)
    b = tiny().learn(buf, bounds[cut:], table, codes[cut:], w[cut:], how)
    main = a.absorb(b)
    terms, counts, cdf, df, tf, _ = v.learned_terms(main, K, how)
    twin = text_twin.count_terms([d.lower() for d in docs], codes.tolist(), w.tolist(), K, ngram_range, stop, 0)
    assert terms.tolist() == twin[0]
    for got, want in zip((counts.T.toarray(), cdf.T.toarray(), df, tf), twin[1:]):
        assert_allclose(got, want, rtol=1e-12, atol=1e-12)

# ----------------------------------------------------------------- character n-gram kernels
import re  # noqa: E402

from nbayes._kernels import text_chars  # noqa: E402
from nbayes.text._buffer import space_table, to_char_buffer  # noqa: E402

#: every code point Python's ``\s`` matches (the kernels' whitespace), as text
_SPACES = "".join(map(chr, np.flatnonzero(space_table(True))))
#: all of Unicode: astral planes, and lone surrogates (which hypothesis leaves out by itself)
_ANY = st.one_of(st.characters(codec=None), st.sampled_from("\ud800\udbff\udc00\udfff"))
_CHAR_TEXT = st.text(st.one_of(_ANY, st.sampled_from(_SPACES), st.sampled_from("ab ")), max_size=25)
_LATIN_TEXT = st.text(st.one_of(st.characters(max_codepoint=0xFF), st.sampled_from(_SPACES[:11])), max_size=25)
#: documents over all of Unicode, or Latin-1 only (a uint8 buffer: also run as uint32)
_CHAR_DOCS = st.one_of(st.lists(_CHAR_TEXT, min_size=1, max_size=5), st.lists(_LATIN_TEXT, min_size=1, max_size=5))


def _char_units(doc: str, wb: bool) -> list[list[tuple[str, int, int]]]:
    """Twin of the kernels' normalisation: per segment its characters as the analyzer sees
    them, each with the span of ``doc`` it stands for (``char``: one segment, a run of two or
    more whitespace characters one space spanning the run; ``char_wb``: per word, padded with
    a space each side that spans nothing)."""
    if not wb:
        return [[(" " if m.end() - m.start() >= 2 else m.group(), m.start(), m.end())
                 for m in re.finditer(r"\s+|\S", doc)]]
    return [[(" ", m.start(), m.start()), *((c, m.start() + i, m.start() + i + 1) for i, c in enumerate(m.group())),
             (" ", m.end(), m.end())] for m in re.finditer(r"\S+", doc)]


def _char_grams(doc: str, analyzer: str, lo: int, hi: int) -> list[tuple[str, int, int]]:
    """(gram, start, end) of the grams of ``doc`` in scikit-learn's order (checked against its
    analyzers), start:end the stretch of ``doc`` the gram stands for."""
    out = []
    for seg in _char_units(doc, analyzer == "char_wb"):
        L = len(seg)
        for n in range(lo, hi + 1):
            if analyzer == "char_wb" and n >= L:  # the padded word itself, once
                out.append(("".join(c for c, _, _ in seg), seg[0][1], seg[-1][2]))
                break
            out.extend(("".join(c for c, _, _ in seg[i : i + n]), seg[i][1], seg[i + n - 1][2]) for i in range(L - n + 1))
    return out


def _char_buffers(docs: list[str]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The documents' buffer as the library makes it (lower-casing off), and for a Latin-1
    (uint8) one the same code points as uint32 too: every kernel runs on both."""
    buf, bounds, table = to_char_buffer(docs, lowercase=False)
    out = [(buf, bounds, table)]
    if buf.dtype == np.uint8:
        out.append((buf.astype(np.uint32), bounds, space_table(True)))
    return out


def _tiny_learner(K: int):
    """A learner whose tables hold 8 terms: counting stops before the documents that could
    overflow them, the learner grows them and counting resumes."""
    from nbayes.text.vocab import _Learner

    L = _Learner(K, 1)
    L.slots = np.full(32, -1, dtype=np.int64)
    L.keys, L.start, L.length = (np.zeros(8, dtype=np.int64) for _ in range(3))
    L.last, L.parts = np.full(8, -1, dtype=np.int64), np.full((8, 4), -1, dtype=np.int32)
    L.df, L.tf, L.cps = np.zeros(8), np.zeros(8), np.zeros(16, dtype=np.uint32)
    L.pslots, L.pkeys, L.pcount, L.pcdf = np.full(32, -1, dtype=np.int64), np.zeros(8, dtype=np.int64), np.zeros(8), np.zeros(8)
    return L


@pytest.mark.parametrize("analyzer", ["char", "char_wb"])
@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 3), (2, 5)])
@settings(max_examples=40, deadline=None)
@given(docs=_CHAR_DOCS, data=st.data())
def test_char_kernels_equal_scikit_learn_analyzers(analyzer, ngram_range, docs, data):
    """Grams (their order, their spans), weighted counts (a learner that grows mid batch too),
    lookups, presence rows and scores over a vocabulary: scikit-learn's char / char_wb
    analyzers and their Python twins, on uint8 and uint32 buffers."""
    from sklearn.feature_extraction.text import CountVectorizer

    from nbayes.text.vocab import learned_terms

    analyse = CountVectorizer(analyzer=analyzer, ngram_range=ngram_range, lowercase=False).build_analyzer()
    grams = [_char_grams(doc, analyzer, *ngram_range) for doc in docs]
    assert [[g for g, _, _ in gs] for gs in grams] == [analyse(doc) for doc in docs]  # the twin is scikit-learn's
    how = Tokens(ngram_range, None, analyzer)
    K = data.draw(st.sampled_from([2, 9]))  # 2: the learner's counts as dense rows, 9: as (term, class) pairs
    codes = np.array(data.draw(st.lists(st.integers(0, K - 1), min_size=len(docs), max_size=len(docs))), dtype=np.int64)
    w = np.array(data.draw(st.lists(st.floats(0.0, 3.0), min_size=len(docs), max_size=len(docs))))
    terms = sorted({g for gs in grams for g, _, _ in gs})
    col = {t: i for i, t in enumerate(terms)}
    V = len(terms)
    counts, cdf, df, tf = np.zeros((K, V)), np.zeros((K, V)), np.zeros(V), np.zeros(V)
    for d, gs in enumerate(grams):
        ids = [col[g] for g, _, _ in gs]
        for t in ids:
            counts[codes[d], t] += w[d]
            tf[t] += 1
        for t in set(ids):
            cdf[codes[d], t] += w[d]
            df[t] += 1
    vocab = terms[::2]  # the others unknown
    known = {t: i for i, t in enumerate(vocab)}
    Wt = np.random.default_rng(len(terms)).normal(size=(len(vocab), 3))
    for buf, bounds, table in _char_buffers(docs):
        for learner in (None, _tiny_learner(K)):
            if learner is None:
                got = learn_terms(buf, bounds, table, codes, w, K, how)
            else:
                got = learned_terms(learner.learn(buf, bounds, table, codes, w, how), K, how)
            assert got[0].tolist() == terms
            for a, b in zip((got[1].toarray(), got[2].toarray(), got[3], got[4]), (counts, cdf, df, tf)):
                assert_allclose(a, b, rtol=1e-12, atol=1e-12)
        lookup = TermTable(vocab, how)
        want = [(d, known.get(g, -1), s, e) for d, gs in enumerate(grams) for g, s, e in gs]
        assert_array_equal(lookup.tokens(buf, bounds, table), np.array(want, dtype=np.int64).reshape(-1, 4))
        indptr, indices = lookup.presence(buf, bounds, table)
        rows = [sorted({known[g] for g, _, _ in gs if g in known}) for gs in grams]
        assert_array_equal(indptr, np.r_[0, np.cumsum([len(r) for r in rows])])
        assert_array_equal(indices, [t for r in rows for t in r])
        for binary in (False, True):
            want = np.zeros((len(docs), 3))
            for d, gs in enumerate(grams):
                ids = [known[g] for g, _, _ in gs if g in known]
                for t in (sorted(set(ids)) if binary else ids):
                    want[d] += Wt[t]
            one = lookup.score(buf, bounds, table, Wt, binary)
            assert_allclose(one, want, rtol=1e-12, atol=1e-12)
            for T in (2, 3, 50):  # ranges of documents on threads: the same sums, bit for bit
                assert_array_equal(text_chars.score(buf, bounds, table, *how.args(), 0, lookup._terms(), Wt, binary, T),
                                   one)


@pytest.mark.parametrize("analyzer", ["char", "char_wb"])
@pytest.mark.parametrize("ngram_range", [(1, 1), (2, 4)])
@pytest.mark.parametrize("n_features", [7, 2**16])  # 7: many collisions
@settings(max_examples=40, deadline=None)
@given(docs=_CHAR_DOCS, data=st.data())
def test_char_kernels_hash_as_hashing_vectorizer(analyzer, ngram_range, n_features, docs, data):
    """Hashing mode: every gram's column, the weighted counts and presence rows are
    HashingVectorizer's (over UTF-8: no lone surrogates), on uint8 and uint32 buffers."""
    from sklearn.feature_extraction.text import HashingVectorizer

    docs = [d.encode("utf-8", errors="replace").decode("utf-8") for d in docs]
    ref = HashingVectorizer(analyzer=analyzer, ngram_range=ngram_range, n_features=n_features, lowercase=False,
                            alternate_sign=False, norm=None)
    X = ref.transform(docs).toarray()
    cols = [[text_twin.bucket(g, n_features) for g, _, _ in _char_grams(doc, analyzer, *ngram_range)] for doc in docs]
    assert_array_equal(X, [np.bincount(c, minlength=n_features) for c in cols])
    K = 3
    codes = np.array(data.draw(st.lists(st.integers(0, K - 1), min_size=len(docs), max_size=len(docs))), dtype=np.int64)
    w = np.array(data.draw(st.lists(st.floats(0.0, 3.0), min_size=len(docs), max_size=len(docs))))
    how = Tokens(ngram_range, None, analyzer)
    seen = (X > 0).astype(float)
    for buf, bounds, table in _char_buffers(docs):
        _, counts, cdf, df, tf = hash_terms(buf, bounds, table, codes, w, K, n_features, how)
        for c in range(K):
            assert_allclose(counts[c], (w[codes == c, None] * X[codes == c]).sum(axis=0), rtol=1e-12, atol=1e-12)
            assert_allclose(cdf[c], (w[codes == c, None] * seen[codes == c]).sum(axis=0), rtol=1e-12, atol=1e-12)
        assert_array_equal(df, seen.sum(axis=0))
        assert_array_equal(tf, X.sum(axis=0))
        lookup = HashedTerms(n_features, how)
        ids = lookup.tokens(buf, bounds, table)
        assert_array_equal(ids[:, 1], [t for c in cols for t in c])
        indptr, indices = lookup.presence(buf, bounds, table)
        assert_array_equal(indptr, np.r_[0, np.cumsum((X > 0).sum(axis=1))])
        assert_array_equal(indices, np.nonzero(X)[1])


def test_char_room_bounds_the_grams():
    """What a document may add (room) bounds its grams and their code points."""
    for analyzer in ("char", "char_wb"):
        for doc in ("", "a", "a b", "a  b\tc", "x" * 9, " a a a a "):
            for lo, hi in ((1, 1), (2, 4), (3, 7)):
                grams, cps = text_chars.room(len(doc), lo, hi, analyzer == "char_wb")
                found = _char_grams(doc, analyzer, lo, hi)
                assert len(found) <= grams and sum(len(g) for g, _, _ in found) <= cps
