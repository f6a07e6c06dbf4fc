"""Covariance estimation for :class:`GaussianBayes`: the per-class weighted mean and MLE
covariance (notes 001), scikit-learn's shrinkage (fixed or Ledoit-Wolf) and QDA's ``reg_param``,
and the test that finds the first linearly dependent column."""

from __future__ import annotations

from typing import Any

import numpy as np

def class_estimate(
    Xc: np.ndarray, wc: np.ndarray | None, W: float, shrinkage: Any
) -> tuple[np.ndarray, np.ndarray, float]:
    """Weighted mean, (regularised) MLE covariance and the shrinkage intensity used, for one
    class (notes 001: mu-hat the class mean, Sigma-hat divided by the class's weight)."""
    if wc is None:
        mean = Xc.mean(axis=0)
        D = Xc - mean
        S = D.T @ D / W
    else:
        mean = (wc @ Xc) / W
        D = Xc - mean
        S = (D * wc[:, None]).T @ D / W
    S = 0.5 * (S + S.T)
    if shrinkage is None:
        return mean, S, 0.0
    if shrinkage == "auto":
        S, s = ledoit_wolf(D, wc, W, S, mean)
        return mean, S, s
    s = float(shrinkage)
    return mean, shrunk(S, s), s


def shrunk(S: np.ndarray, s: float) -> np.ndarray:
    """(1 - s) S + s mean(diag S) I (scikit-learn's ``shrunk_covariance``)."""
    d = S.shape[0]
    out = (1.0 - s) * S
    out.flat[:: d + 1] += s * np.trace(S) / d
    return out


def ledoit_wolf(
    D: np.ndarray, w: np.ndarray | None, W: float, S: np.ndarray, mean: np.ndarray
) -> tuple[np.ndarray, float]:
    """Ledoit-Wolf shrinkage on the standardised class data, rescaled: scikit-learn's
    ``shrinkage="auto"`` (StandardScaler, ``ledoit_wolf``), with weights as repeated rows.

    ``D`` is the class data centred at its (weighted) mean, ``S`` its MLE covariance."""
    d = S.shape[0]
    var = np.diag(S).copy()
    # StandardScaler: a feature indistinguishable from a constant keeps scale 1
    eps = np.finfo(np.float64).eps
    constant = var <= W * eps * var + (W * mean * eps) ** 2
    scale = np.where(constant, 1.0, np.sqrt(var))
    if d == 1:
        return S.copy(), 0.0
    Z = D / scale
    emp = S / np.outer(scale, scale)
    r = (Z * Z).sum(axis=1)  # sum_ij (Z2^T Z2)_ij = sum_rows (sum_j z_j^2)^2
    beta_ = float(r @ r) if w is None else float(w @ (r * r))
    trace = np.diag(emp)
    mu = trace.sum() / d
    delta_ = float((emp * emp).sum())
    beta = (beta_ / W - delta_) / (d * W)
    delta = (delta_ - 2.0 * mu * trace.sum() + d * mu**2) / d
    beta = min(beta, delta)
    s = 0.0 if beta <= 0 or delta <= 0 else beta / delta
    shrunk = (1.0 - s) * emp
    shrunk.flat[:: d + 1] += s * mu
    return scale[:, None] * shrunk * scale[None, :], float(s)


def regularise(S: np.ndarray, r: float) -> np.ndarray:
    """(1 - r) S + r I (scikit-learn QDA's ``reg_param``)."""
    if r == 0:
        return S
    d = S.shape[0]
    out = (1.0 - r) * S
    out.flat[:: d + 1] += r
    return out


def first_dependent(S: np.ndarray, tol: float) -> int | None:
    """The first column whose Cholesky pivot keeps at most ``tol`` of its variance (a constant
    column, or one that is a linear combination of those before it); None if there is none."""
    d = S.shape[0]
    L = np.zeros_like(S)
    for j in range(d):
        pivot = S[j, j] - L[j, :j] @ L[j, :j]
        if S[j, j] <= 0 or pivot <= tol * S[j, j]:
            return j
        L[j, j] = np.sqrt(pivot)
        L[j + 1 :, j] = (S[j + 1 :, j] - L[j + 1 :, :j] @ L[j, :j]) / L[j, j]
    return None
