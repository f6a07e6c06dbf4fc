"""Logistic regression's numbers at the float limits (issue #27): scores that cannot overflow
into NaN at predict, and the fit's weights and features kept where the solver's arithmetic holds.

A score x w^T + b whose true value lies beyond float64 (coefficients or features near 1e308)
would come out inf, or NaN where an inf and a -inf meet in one sum, and log-softmax would turn
it into NaN probabilities. The scores are then computed scaled by 2**-k (no partial sum can
overflow) and the log-softmax taken of 2**k (z - max z): its differences overflow only to -inf,
which is a probability of exactly 0 where the true one is below float64's smallest number.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._math import log_normalize_rows
from .._scipy import sparse as sp
from .._validation import show
from ..errors import DataError

__all__ = ["checked_weights", "check_solver_range", "log_proba_of_scores", "scaled_scores", "unscaled"]

#: the largest magnitude a partial sum of the scaled scores may reach
_ROOM = 1e300
#: the largest weights solved as given (their sums hold in the solver's float32 products)
_PLAIN = (1e-8, 1e8)
#: the solver's Hessian products run in float32: features beyond its range would overflow there
FLOAT32_MAX = float(np.finfo(np.float32).max)


def _abs_max(a: Any) -> float:
    data = a.data if sp.issparse(a) else np.asarray(a)
    return float(np.max(np.abs(data))) if data.size else 0.0


def scaled_scores(Xv: Any, coef: np.ndarray, intercept: np.ndarray) -> tuple[np.ndarray, int]:
    """(Z, k) with Z * 2**k the scores ``Xv @ coef.T + intercept`` (eq. 16-17 of seeds/002):
    k = 0 when they are finite, else the smallest power of two that keeps every partial sum
    of the scaled product below 1e300."""
    with np.errstate(over="ignore", invalid="ignore"):
        Z = np.asarray(Xv @ coef.T) + intercept
    if np.isfinite(Z).all():
        return Z, 0
    xmax, wmax = _abs_max(Xv), max(_abs_max(coef), _abs_max(intercept))
    if not (math.isfinite(xmax) and math.isfinite(wmax)) or xmax == 0 or wmax == 0:
        return Z, 0  # a non-finite input: its scores are what they are
    d = int(coef.shape[1]) + 1
    k = max(0, math.ceil(math.log2(d) + math.log2(xmax) + math.log2(wmax) - math.log2(_ROOM)))
    with np.errstate(under="ignore"):  # coefficients 2**k below the largest add nothing visible
        Zs = np.asarray(Xv @ np.ldexp(coef, -k).T) + np.ldexp(intercept, -k)
    return Zs, k


def unscaled(Z: np.ndarray, k: int) -> np.ndarray:
    """Z * 2**k, overflowing to +-inf where the true score lies beyond float64."""
    if k == 0:
        return Z
    with np.errstate(over="ignore"):
        out: np.ndarray = np.ldexp(Z, k)
    return out


def log_proba_of_scores(Z: np.ndarray, k: int) -> np.ndarray:
    """log P(y | x): log-sigmoid for one score column, log-softmax otherwise, of the scores
    Z * 2**k, in a form with no inf - inf: the differences to the row's largest score."""
    if Z.ndim == 1:
        z = unscaled(Z, k)
        return np.column_stack([-np.logaddexp(0.0, z), -np.logaddexp(0.0, -z)])
    if k == 0:
        return log_normalize_rows(Z)
    return log_normalize_rows(unscaled(Z - Z.max(axis=1, keepdims=True), k))


def check_solver_range(Xv: Any) -> None:
    """DataError naming the row and column of a feature beyond float32's range (3.4e38): the
    solver's Hessian products run in float32 and would overflow there."""
    data = Xv.data if sp.issparse(Xv) else np.asarray(Xv)
    if not data.size or _abs_max(Xv) <= FLOAT32_MAX:
        return
    if sp.issparse(Xv):
        csr = sp.csr_matrix(Xv)
        i = int(np.argmax(np.abs(csr.data) > FLOAT32_MAX))
        row, col = int(np.searchsorted(csr.indptr, i, side="right") - 1), int(csr.indices[i])
        value = csr.data[i]
    else:
        row, col = (int(v) for v in np.argwhere(np.abs(data) > FLOAT32_MAX)[0])
        value = data[row, col]
    raise DataError(
        f"X: row {row}, column {col} holds {show(value)}: logistic regression's solver takes features "
        f"of magnitude up to {FLOAT32_MAX:.3g} (its Hessian products run in float32); rescale or "
        "standardise the column"
    )


def checked_weights(weights: np.ndarray, C: float) -> tuple[np.ndarray, float, float]:
    """(weights / s, C * s, s) with s the largest weight when it lies outside 1e-8..1e8 (else
    the weights as given, s = 1): the same optimum (the objective C sum w_i loss_i + |W|^2 / 2
    is unchanged), with weights of at most 1 that the solver's sums hold; a DataError when
    C * s leaves float64's range."""
    s = float(np.max(weights))
    if _PLAIN[0] <= s <= _PLAIN[1]:  # ordinary weights: solved as given (the same bytes as ever)
        return weights, C, 1.0
    Cs = C * s
    if not math.isfinite(Cs) or Cs < 1e-300 or Cs > 1e300:
        raise DataError(
            f"sample_weight: the weights' scale ({s:.3g}) times C ({C:g}) is {Cs:.3g}, outside what logistic "
            "regression's objective can be computed with (1e-300 to 1e300); rescale the weights"
        )
    return weights / s, Cs, s
