"""The scaled presence design X = P diag(s) (NB-weighted logistic regression's data): the same
products, objective and optimum as the CSR matrix it stands for, with its columns renumbered."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import LogisticRegression as SkLR

from nbayes import LogisticRegression
from nbayes._kernels import linear as k
from nbayes.linear.logistic import minimise
from nbayes.linear.loss import Design, LogLoss, Presence


def pattern(rng, n, d, density):
    """A 0/1 CSR pattern with a few frequent columns and many rare ones (text-like), some
    empty rows and some columns never used."""
    P = sp.random(n, d, density=density, format="csr", random_state=int(rng.integers(1 << 30)))
    hot = sp.random(n, 3, density=0.6, format="csr", random_state=int(rng.integers(1 << 30)))
    P = sp.hstack([hot, P]).tocsr()
    P.data[:] = 1.0
    P.sort_indices()
    P = P[np.r_[0 : n // 2, n - 3 : n, n // 2 : n - 3]]  # rows in another order
    P = sp.csr_matrix(P)
    P.sort_indices()
    return P


def as_design(P, s):
    X = sp.csr_matrix((s[P.indices], P.indices.copy(), P.indptr.copy()), shape=P.shape)
    return Design(X)


@pytest.mark.parametrize("reorder", [False, True])
@pytest.mark.parametrize("K", [1, 3])
@pytest.mark.parametrize("big", [False, True])  # big: the compiled kernels (PARALLEL_MIN entries)
def test_products_equal_the_csr_designs(rng, reorder, K, big):
    n, d, density = (3000, 2000, 0.04) if big else (60, 40, 0.1)
    P = pattern(rng, n, d, density)
    s = rng.normal(size=P.shape[1])
    pat = Presence(P.indptr, P.indices.astype(np.int32), P.shape[1], reorder=reorder)
    new = pat.scaled(s)
    assert new.compiled == big
    old = as_design(P, s)
    order = pat.order
    assert_array_equal(np.sort(order), np.arange(P.shape[1]))
    B = rng.normal(size=(P.shape[1], K))
    G = rng.normal(size=(n, K))
    assert_allclose(new.dot(B[order]), old.dot(B), rtol=1e-12, atol=1e-12)
    out_new, out_old = np.empty((P.shape[1], K)), np.empty((P.shape[1], K))
    assert_allclose(new.tdot(G, out_new), old.tdot(G, out_old)[order], rtol=1e-12, atol=1e-12)
    new.grad_tdot(G, 0.7, B[order], out_new)
    old.grad_tdot(G, 0.7, B, out_old)
    assert_allclose(out_new, out_old[order], rtol=1e-12, atol=1e-12)
    assert_allclose(new.sq_tdot(G, out_new), old.sq_tdot(G, out_old)[order], rtol=1e-12, atol=1e-12)
    # the Hessian's products read V in single precision: equal to float32 rounding
    assert_allclose(new.hess_products(B[order]), old.hess_products(B), rtol=1e-5, atol=1e-5)
    flat_new, flat_old = np.empty(P.shape[1] * K), np.empty(P.shape[1] * K)
    vHv = new.hess_back(G, 0.7, B[order], flat_new)
    old.hess_back(G, 0.7, B, flat_old)
    assert_allclose(flat_new.reshape(-1, K), flat_old.reshape(-1, K)[order], rtol=1e-5, atol=1e-5)
    assert_allclose(vHv, np.sum(flat_new.reshape(-1, K) * B[order]), rtol=1e-10)
    assert_allclose(pat.original(B[order]), B, rtol=0, atol=0)


def test_pattern_arrays(rng):
    P = pattern(rng, 200, 150, 0.05)
    pat = Presence(P.indptr, P.indices, P.shape[1])
    # the renumbered pattern is P's columns permuted, rows sorted, and its transpose
    Q = sp.csr_matrix((np.ones(len(pat.indices)), pat.indices, pat.indptr), shape=P.shape)
    assert_allclose(Q.toarray(), P.toarray()[:, pat.order], rtol=0, atol=0)
    assert all(np.all(np.diff(pat.indices[a:b]) > 0) for a, b in zip(pat.indptr[:-1], pat.indptr[1:]))
    QT = Q.T.tocsr()
    assert_array_equal(pat.tindptr, QT.indptr)
    assert_array_equal(pat.tindices, QT.indices)
    # most frequent first; among equally frequent columns, the first to appear first
    df = np.asarray(P.sum(axis=0)).ravel()[pat.order]
    assert np.all(np.diff(df) <= 0)
    first = np.full(P.shape[1], len(P.indices))
    seen = P.indices[::-1]
    first[seen] = len(P.indices) - 1 - np.arange(len(seen))
    first = first[pat.order]
    same = np.diff(df) == 0
    assert np.all(np.diff(first)[same & (df[1:] > 0)] > 0)


def test_kernels_equal_their_numpy_twins(rng):
    P = pattern(rng, 80, 50, 0.1)
    ip, ind = P.indptr.astype(np.int64), P.indices.astype(np.int32)
    tip, tind = k.transpose_pattern(ip, ind, P.shape[1])
    B = rng.normal(size=(P.shape[1], 2))
    G = rng.normal(size=(80, 2))
    s = rng.normal(size=P.shape[1])
    a, b = np.empty((80, 2)), np.empty((80, 2))
    assert_allclose(k.presence_dot(ip, ind, B, a), k.presence_dot_numpy(ip, ind, B, b), rtol=1e-12)
    B32 = B.astype(np.float32)
    assert_allclose(k.presence_dot(ip, ind, B32, a), k.presence_dot_numpy(ip, ind, B32, b), rtol=1e-12)
    o1, o2 = np.empty_like(B), np.empty_like(B)
    d = P.shape[1]
    for blocks in (k.even_blocks(tip, 4), np.array([0, 3, 3, d], dtype=np.int64), np.array([0, d], dtype=np.int64)):
        assert_allclose(k.presence_tdot(tip, tind, G, s, 0.3, B, o1, blocks),
                        k.presence_tdot_numpy(tip, tind, G, s, 0.3, B, o2, blocks), rtol=1e-12)
        assert_allclose(o1, o2, rtol=1e-12, atol=1e-12)
        assert k.presence_tdot(tip, tind, G, s, 0.0, o1, o1, blocks) == 0.0
        assert_allclose(o1, s[:, None] * (P.T @ G), rtol=1e-12, atol=1e-12)
    assert_allclose(k.scale_rows(B, s, o1), k.scale_rows_numpy(B, s, o2), rtol=0)


@pytest.mark.parametrize("big", [False, True])
def test_same_optimum_as_sklearn(rng, big):
    """Fitted on the presence design, the optimum of LogisticRegression(C) on X = P diag(s):
    scikit-learn's, to the solvers' tolerance."""
    n, d, density = (2500, 1500, 0.06) if big else (150, 60, 0.1)
    P = pattern(rng, n, d, density)
    s = np.abs(rng.normal(size=P.shape[1])) + 0.1
    truth = rng.normal(size=P.shape[1])
    z = P @ (s * truth) * 0.5
    y = (rng.random(n) < 1 / (1 + np.exp(-(z - z.mean())))).astype(np.int64)
    w = rng.uniform(0.5, 2.0, n)
    pat = Presence(P.indptr, P.indices.astype(np.int32), P.shape[1])
    loss = LogLoss(pat.scaled(s), y, 2, w, 1.0, True)
    res = minimise(loss, np.zeros(loss.size), tol=1e-10)
    W, b = loss.split(res.theta)
    X = sp.csr_matrix((s[P.indices], P.indices, P.indptr), shape=P.shape)
    sk = SkLR(C=1.0, tol=1e-12, max_iter=10_000).fit(X, y, sample_weight=w)
    assert_allclose(pat.original(W[:, 0]), sk.coef_[0], atol=2e-5)  # as test_logistic's
    assert_allclose(b, sk.intercept_, atol=2e-5)
    csr = LogisticRegression(C=1.0, tol=1e-10).fit(X, y, sample_weight=w)  # the CSR design, same solver
    assert_allclose(pat.original(W[:, 0]), csr.coef_[0], rtol=1e-7, atol=1e-8)
    assert_allclose(b, csr.intercept_, rtol=1e-7, atol=1e-8)
    X_sk = sp.csr_matrix(X)
    sk_obj = -np.sum(w * sk.predict_log_proba(X_sk)[np.arange(n), y]) + np.sum(sk.coef_**2) / 2
    assert res.f <= sk_obj * (1 + 1e-10)
    # and the same objective as the CSR design at any point
    theta = rng.normal(size=loss.size) * 0.1
    old = LogLoss(Design(X), y, 2, w, 1.0, True)
    order = np.r_[pat.order, P.shape[1]]
    f_new, g_new = loss.value_grad(theta)
    f_old, g_old = old.value_grad(theta[np.argsort(order)])
    assert_allclose(f_new, f_old, rtol=1e-12)
    assert_allclose(g_new, g_old[order], rtol=1e-10, atol=1e-10)


def test_even_blocks_split_the_entries_evenly(rng):
    lengths = np.r_[np.full(5, 1000), np.ones(10_000, dtype=np.int64)]  # frequent columns first
    indptr = np.r_[0, np.cumsum(lengths)]
    blocks = k.even_blocks(indptr, 8)
    assert blocks[0] == 0 and blocks[-1] == len(lengths) and np.all(np.diff(blocks) >= 0)
    per = np.diff(indptr[blocks])
    assert per.max() <= indptr[-1] / 8 + 1000  # within one column of an equal share
    assert_array_equal(k.even_blocks(np.zeros(1, dtype=np.int64), 4), np.zeros(5))
