"""Gaussian kernels: per-class moments in one pass over X, and joint log-likelihoods: the
compiled kernels (:mod:`._gaussian`) and their NumPy twins."""

from __future__ import annotations

import numpy as np

from ._gaussian import joint_log_likelihood, moments

__all__ = ["joint_log_likelihood", "joint_log_likelihood_numpy", "moments", "moments_numpy"]


def moments_numpy(
    X: np.ndarray, y: np.ndarray, w: np.ndarray | None, K: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Twin of :func:`moments` in plain NumPy (two passes), for tests."""
    d = X.shape[1]
    w = np.ones(X.shape[0]) if w is None else w
    cc, W, mu, m2 = np.zeros(K), np.zeros((K, d)), np.zeros((K, d)), np.zeros((K, d))
    for c in range(K):
        rows = y == c
        Xc, wc = X[rows], w[rows]
        cc[c] = wc.sum()
        obs = ~np.isnan(Xc)
        wo = np.where(obs, wc[:, None], 0.0)
        W[c] = wo.sum(axis=0)
        safe = np.where(W[c] > 0, W[c], 1.0)
        mu[c] = np.where(obs, Xc, 0.0).T @ wc / safe
        m2[c] = (wo * np.where(obs, Xc - mu[c], 0.0) ** 2).sum(axis=0)
    return cc, W, mu, m2


def joint_log_likelihood_numpy(
    X: np.ndarray, mu: np.ndarray, prec: np.ndarray, lognorm: np.ndarray, intercept: np.ndarray
) -> np.ndarray:
    """Twin of :func:`joint_log_likelihood`, for tests."""
    obs = ~np.isnan(X)[:, None, :]
    terms = lognorm[None] - prec[None] * (X[:, None, :] - mu[None]) ** 2
    jll: np.ndarray = intercept[None] + np.where(obs, terms, 0.0).sum(axis=2)
    return jll
