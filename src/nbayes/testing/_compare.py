"""How the laws compare models: predictions at a tolerance, state bit for bit, saved bytes."""

from __future__ import annotations

import copy
import os
import tempfile
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.testing import assert_allclose, assert_array_equal

from ..io.load import load
from .data import Dataset


class LawError(AssertionError):
    """A law does not hold: the message names the law, the estimator and what differs."""


@dataclass(frozen=True)
class Tolerance:
    """How close two models' outputs must be to be "the same model"."""

    rtol: float
    atol: float


EXACT = Tolerance(1e-9, 1e-10)
#: moments subtracted (unlearn) or merged cancel with rounding relative to the data removed
MOMENTS = Tolerance(1e-7, 1e-8)
#: iterative solvers (no statistics): the same optimum to solver tolerance
SOLVER = Tolerance(1e-5, 1e-6)


def tolerance(estimator: Any, data: Dataset, *, subtracting: bool = False) -> Tolerance:
    """EXACT for models that are their statistics, MOMENTS when floats were subtracted,
    SOLVER for models fitted by an optimiser."""
    if "statistics" not in estimator.capabilities:
        return SOLVER
    if subtracting and data.kind in ("real", "frame"):
        return MOMENTS
    return EXACT


def clone(estimator: Any) -> Any:
    """An unfitted estimator with the same parameters (nested estimators cloned too)."""
    params = {}
    for name, value in estimator.get_params(deep=False).items():
        params[name] = clone(value) if hasattr(value, "get_params") and hasattr(value, "fit") else copy.deepcopy(value)
    return type(estimator)(**params)


def describe(estimator: Any) -> str:
    return repr(estimator)


def same_predictions(a: Any, b: Any, X: Any, tol: Tolerance, what: str) -> None:
    """Same classes, same probabilities (and joint log-probabilities where both have them)."""
    ca, cb = list(a.classes_.tolist()), list(b.classes_.tolist())
    if [(type(v), v) for v in ca] != [(type(v), v) for v in cb]:
        raise LawError(f"{what}: classes differ: {ca!r} vs {cb!r}")
    if "joint_log_proba" in a.capabilities and "joint_log_proba" in b.capabilities:
        same_log(a.predict_joint_log_proba(X), b.predict_joint_log_proba(X), tol, f"{what}: joint log-probabilities")
    pa, pb = a.predict_proba(X), b.predict_proba(X)
    try:
        assert_allclose(pa, pb, rtol=tol.rtol, atol=tol.atol)
    except AssertionError as exc:
        raise LawError(f"{what}: probabilities differ\n{exc}") from None


def same_log(ja: np.ndarray, jb: np.ndarray, tol: Tolerance, what: str) -> None:
    """Log-probabilities: the same -inf cells, the finite ones close."""
    ja, jb = np.asarray(ja, dtype=float), np.asarray(jb, dtype=float)
    if ja.shape != jb.shape:
        raise LawError(f"{what}: shapes differ {ja.shape} vs {jb.shape}")
    if not np.array_equal(np.isneginf(ja), np.isneginf(jb)):
        raise LawError(f"{what}: -inf in different cells ({int(np.isneginf(ja).sum())} vs {int(np.isneginf(jb).sum())})")
    fin = np.isfinite(ja)
    try:
        assert_allclose(ja[fin], jb[fin], rtol=tol.rtol, atol=tol.atol * max(1.0, float(np.max(np.abs(ja[fin]), initial=0))))
    except AssertionError as exc:
        raise LawError(f"{what} differ\n{exc}") from None


def saved_bytes(model: Any) -> bytes:
    """The bytes ``model.save`` writes."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.nbm")
        model.save(path)
        with open(path, "rb") as f:
            return f.read()


def load_bytes(raw: bytes) -> Any:
    """``nbayes.load`` of a model file held in memory."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.nbm")
        with open(path, "wb") as f:
            f.write(raw)
        return load(path)


def snapshot(model: Any) -> tuple[bytes | None, dict[str, Any]]:
    """Everything a model is: its saved bytes (if it saves) and a deep copy of ``__dict__``."""
    raw = saved_bytes(model) if "save" in model.capabilities and hasattr(model, "classes_") else None
    return raw, copy.deepcopy(dict(vars(model)))


def assert_unchanged(before: tuple[bytes | None, dict[str, Any]], model: Any, what: str) -> None:
    """The model is bit for bit what ``snapshot`` saw."""
    raw, state = before
    now_raw, now_state = snapshot(model)
    if raw != now_raw:
        raise LawError(f"{what}: the saved model file changed")
    diff = differences(state, now_state, "model")
    if diff:
        raise LawError(f"{what}: the model changed: {'; '.join(diff[:5])}")


def differences(x: Any, y: Any, where: str, depth: int = 0) -> list[str]:
    """Where two states differ, bit for bit (arrays by their bytes, so NaN equals NaN and
    -0.0 differs from 0.0)."""
    if depth > 12:
        return []
    if type(x) is not type(y):
        return [f"{where}: {type(x).__name__} vs {type(y).__name__}"]
    if isinstance(x, np.ndarray):
        if x.dtype != y.dtype or x.shape != y.shape:
            return [f"{where}: {x.dtype}{x.shape} vs {y.dtype}{y.shape}"]
        if x.dtype == object:
            return differences(x.ravel().tolist(), y.ravel().tolist(), where, depth + 1)
        return [] if x.tobytes() == y.tobytes() else [f"{where}: values differ"]
    if hasattr(x, "tocsr") and hasattr(x, "nnz"):  # scipy.sparse
        return differences(x.toarray(), y.toarray(), where, depth + 1)
    if isinstance(x, list | tuple):
        if len(x) != len(y):
            return [f"{where}: length {len(x)} vs {len(y)}"]
        return [d for i, (p, q) in enumerate(zip(x, y)) for d in differences(p, q, f"{where}[{i}]", depth + 1)]
    if isinstance(x, dict):
        if list(x) != list(y):
            return [f"{where}: keys {sorted(map(str, x))} vs {sorted(map(str, y))}"]
        return [d for k in x for d in differences(x[k], y[k], f"{where}.{k}", depth + 1)]
    if isinstance(x, set | frozenset):
        return [] if x == y else [f"{where}: {x!r} vs {y!r}"]
    if hasattr(x, "equals") and hasattr(x, "dtypes"):  # pandas
        return [] if x.equals(y) else [f"{where}: frames differ"]
    if isinstance(x, float):
        return [] if np.float64(x).tobytes() == np.float64(y).tobytes() else [f"{where}: {x!r} vs {y!r}"]
    if isinstance(x, int | str | bytes | bool | type(None) | np.generic):
        return [] if (x == y or (x != x and y != y)) else [f"{where}: {x!r} vs {y!r}"]
    # (a class's ``_cache_slots`` hold what the others determine, made on demand: skipped)
    cache = getattr(type(x), "_cache_slots", ())
    if hasattr(x, "__dict__") and not isinstance(x, type) and not callable(x):
        return differences({k: v for k, v in vars(x).items() if k not in cache},
                           {k: v for k, v in vars(y).items() if k not in cache}, where, depth + 1)
    slots = getattr(type(x), "__slots__", None)
    if slots:
        return [d for s in slots if s not in cache
                for d in differences(getattr(x, s, None), getattr(y, s, None), f"{where}.{s}", depth + 1)]
    return []  # opaque objects (compiled tables, locks): the saved bytes cover what they hold


def same_array(a: Any, b: Any, what: str) -> None:
    try:
        assert_array_equal(a, b)
    except AssertionError as exc:
        raise LawError(f"{what}\n{exc}") from None
