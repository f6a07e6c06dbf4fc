"""The law of exact forgetting under adversarial numbers (issue #27): learning a batch and then
unlearning it gives back the model that never learned it, bit for bit, whatever the weights
(1e-300 to 1e300, fractions that do not sum exactly in binary) and values (outliers of 1e12
among values near 40, values near the float limits); or the learn is refused with a clean
error and changes nothing. Every state reached on the way saves a file that loads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import NBayesError
from ._compare import LawError, assert_unchanged, clone, differences, load_bytes, saved_bytes, snapshot
from .data import Dataset

__all__ = ["MAGNITUDES", "OUTLIERS", "law_unlearn_undoes_learn_under_any_magnitude"]

#: weights from the bottom of the float range to its top, and fractions inexact in binary
MAGNITUDES: tuple[float, ...] = (1e-300, 1e-150, 1e-20, 0.1, 0.3, 1 / 3, 1.0, 7.0, 1e12, 1e17, 1e150, 1e300)
#: values a numeric column may meet: a millisecond timestamp among values near 40, the float
#: limits, the smallest subnormal
OUTLIERS: tuple[float, ...] = (1.7e12, -1.7e12, 1e154, 1.7e308, -1.7e308, 5e-324, 40.000000001)


def _state(model: Any) -> dict[str, Any]:
    """What the model is, bit for bit: its statistics' arrays (a model that is its statistics)
    or its file state's arrays, with the classes and parameters."""
    state = model.to_state()
    return {"arrays": state["arrays"], "params": state["params"]}


def _batches(data: Dataset, rng: np.random.Generator) -> list[tuple[Any, np.ndarray, np.ndarray]]:
    """Batches to learn then unlearn: rows of the data (values already seen) under drawn
    weights; for numeric columns the same rows with one value turned into an outlier; for
    categorical columns a value first seen in the batch (under weight 1, and under weight 0:
    a row of weight 0 is no row, so its value must not stay either)."""
    out = []
    for _ in range(3):
        idx = rng.choice(data.n_rows, size=3, replace=False)
        out.append((data.rows(idx).X, data.y[idx], rng.choice(MAGNITUDES, 3)))
    if data.kind == "real" and isinstance(data.X, np.ndarray):
        for value in OUTLIERS:
            idx = rng.choice(data.n_rows, size=2, replace=False)
            Xb = np.array(data.X[idx], dtype=np.float64)
            Xb[0, int(rng.integers(Xb.shape[1]))] = value
            out.append((Xb, data.y[idx], np.ones(2)))
    if data.kind == "categories" and isinstance(data.X, np.ndarray):  # a value never seen before
        for weights in (np.ones(2), np.array([0.0, 1.0])):
            idx = rng.choice(data.n_rows, size=2, replace=False)
            Xb = np.array(data.X[idx], dtype=object)
            Xb[0, 0] = "a value first seen in this batch"
            out.append((Xb, data.y[idx], weights))
    if data.kind == "frame" and hasattr(data.X, "columns"):  # a data frame of mixed columns
        frame = data.X
        for name in frame.columns:
            col = frame[name]
            if col.dtype == object:  # a categorical column: a value never seen before
                for weights in (np.ones(2), np.array([0.0, 1.0])):
                    idx = rng.choice(data.n_rows, size=2, replace=False)
                    Xb = frame.iloc[idx].copy()
                    Xb.iloc[0, Xb.columns.get_loc(name)] = "a value first seen in this batch"
                    out.append((Xb, data.y[idx], weights))
            elif col.dtype.kind == "f":  # a numeric column (Gaussian or binned): outliers
                for value in OUTLIERS:
                    idx = rng.choice(data.n_rows, size=2, replace=False)
                    Xb = frame.iloc[idx].copy()
                    Xb.iloc[0, Xb.columns.get_loc(name)] = value
                    out.append((Xb, data.y[idx], np.ones(2)))
    return out


def law_unlearn_undoes_learn_under_any_magnitude(estimator: Any, data: Dataset) -> None:
    """fit under drawn weights, partial_fit a batch (drawn weights, or an outlier value), save
    and load, unlearn the batch: the model is bit for bit the one before the batch; a refused
    fit or partial_fit raises an nbayes error and changes nothing; a refused unlearn is a law
    broken (what was learned must be forgettable)."""
    rng = np.random.default_rng(data.seed + 27)
    fitted = 0
    for trial, (Xb, yb, wb) in enumerate(_batches(data, rng)):
        w = rng.choice(MAGNITUDES, data.n_rows) if trial % 2 == 0 else np.ones(data.n_rows)
        model = clone(estimator)
        try:
            model.fit(data.X, data.y, sample_weight=w)
        except NBayesError:
            continue  # a clean refusal (weights whose sums leave the float range)
        fitted += 1
        before, state = snapshot(model), _state(model)
        what = f"weights {np.unique(w).tolist()[:4]}..., batch weights {list(wb)}"
        try:
            model.partial_fit(Xb, yb, sample_weight=wb)
        except NBayesError:
            assert_unchanged(before, model, f"a refused partial_fit ({what})")
            continue
        try:
            load_bytes(saved_bytes(model))
        except NBayesError as exc:
            raise LawError(f"after partial_fit ({what}) the model saves a file that does not load: {exc}") from None
        try:
            model.unlearn(Xb, yb, sample_weight=wb)
        except NBayesError as exc:
            raise LawError(f"unlearn of the batch just learned ({what}) refused: {exc}") from None
        diff = differences(state, _state(model), "state")
        if diff:
            raise LawError(f"learn then unlearn ({what}) is not the model before: {'; '.join(diff[:4])}")
        try:
            load_bytes(saved_bytes(model))
        except NBayesError as exc:
            raise LawError(f"after unlearn ({what}) the model saves a file that does not load: {exc}") from None
    if fitted == 0:
        raise LawError("no drawn weights could be fitted: the law did not run")
