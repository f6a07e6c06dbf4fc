"""Laws of prediction: probabilities are probabilities, predictions their argmax, inputs
untouched, order and scale of features irrelevant, labels keep their types, files round-trip.

Same contract as :mod:`nbayes.testing.laws_learning`: ``law(estimator, data)``.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..errors import NBayesError, NotFittedError
from ._compare import (
    LawError,
    Tolerance,
    clone,
    differences,
    load_bytes,
    same_array,
    same_log,
    saved_bytes,
    tolerance,
)
from .data import Dataset, complete_rows

__all__ = [
    "law_feature_order",
    "law_input_not_modified",
    "law_labels_keep_their_types",
    "law_missing_is_marginalised",
    "law_not_fitted",
    "law_predict_is_argmax",
    "law_probabilities",
    "law_save_load",
    "law_scale_invariance",
    "law_to_logistic",
]


def law_probabilities(estimator: Any, data: Dataset) -> None:
    """Probabilities in [0, 1], rows summing to 1, ``predict_proba = exp(predict_log_proba)``."""
    model = clone(estimator).fit(data.X, data.y)
    proba = model.predict_proba(data.X)
    if proba.shape != (data.n_rows, len(model.classes_)):
        raise LawError(f"predict_proba has shape {proba.shape}, expected {(data.n_rows, len(model.classes_))}")
    if np.isnan(proba).any() or (proba < 0).any() or (proba > 1).any():
        raise LawError("predict_proba holds values outside [0, 1] (or NaN)")
    if np.abs(proba.sum(axis=1) - 1).max() > 1e-12:
        raise LawError(f"rows of predict_proba sum to up to {np.abs(proba.sum(axis=1) - 1).max():.3g} away from 1")
    log_proba = model.predict_log_proba(data.X)
    if not np.allclose(np.exp(log_proba), proba, rtol=1e-14, atol=0):
        raise LawError("predict_proba differs from exp(predict_log_proba)")


def law_predict_is_argmax(estimator: Any, data: Dataset) -> None:
    """``predict`` is the class of highest probability."""
    model = clone(estimator).fit(data.X, data.y)
    proba = model.predict_proba(data.X)
    pred = model.predict(data.X)
    best = model.classes_[np.argmax(proba, axis=1)]
    top = np.sort(proba, axis=1)
    clear = top[:, -1] - top[:, -2] > 1e-12 if proba.shape[1] > 1 else np.ones(len(pred), bool)
    if not np.array_equal(pred[clear], best[clear]):
        i = int(np.argmax(pred[clear] != best[clear]))
        raise LawError(f"predict differs from the argmax of predict_proba at row {np.flatnonzero(clear)[i]}")


def _copy(X: Any) -> Any:
    return X.copy(deep=True) if hasattr(X, "iloc") else copy.deepcopy(X)


def law_input_not_modified(estimator: Any, data: Dataset) -> None:
    """fit, partial_fit, unlearn, predictions and explanations leave X, y and weights as given."""
    X, y, w = _copy(data.X), data.y.copy(), np.ones(data.n_rows)
    caps = estimator.capabilities
    model = clone(estimator)
    model.fit(X, y, sample_weight=w) if "sample_weight" in caps else model.fit(X, y)
    calls = [model.predict, model.predict_proba, model.predict_log_proba]
    if "joint_log_proba" in caps:
        calls.append(model.predict_joint_log_proba)
    for call in calls:
        call(X)
    if "explain" in caps and "text" not in caps:
        model.explain(X)
    if "partial_fit" in caps:
        model.partial_fit(X, y)
    if "unlearn" in caps:
        model.unlearn(X, y)
    for name, before, now in (("X", data.X, X), ("y", data.y, y), ("sample_weight", np.ones(data.n_rows), w)):
        diff = differences(before, now, name)
        if diff:
            raise LawError(f"the model changed its input: {'; '.join(diff[:3])}")


def law_not_fitted(estimator: Any, data: Dataset) -> None:
    """Every method that needs a fitted model raises NotFittedError before fit."""
    model = clone(estimator)
    caps = estimator.capabilities
    X = data.rows(slice(0, 3)).X
    calls: dict[str, Any] = {
        "predict": lambda: model.predict(X),
        "predict_proba": lambda: model.predict_proba(X),
        "predict_log_proba": lambda: model.predict_log_proba(X),
    }
    if "joint_log_proba" in caps:
        calls["predict_joint_log_proba"] = lambda: model.predict_joint_log_proba(X)
    if "explain" in caps:
        calls["explain"] = lambda: model.explain(X[0] if "text" in caps else X)
    if "with_prior" in caps:
        calls["with_prior"] = lambda: model.with_prior([0.2, 0.3, 0.5])
    if "unlearn" in caps:
        calls["unlearn"] = lambda: model.unlearn(X, data.y[:3])
    if "merge" in caps:
        calls["merge"] = lambda: model.merge(clone(estimator))
    if "to_logistic" in caps:
        calls["to_logistic"] = lambda: model.to_logistic()
    if "save" in caps:
        calls["save"] = lambda: saved_bytes(model)
    for name, call in calls.items():
        try:
            call()
        except NotFittedError:
            continue
        except Exception as exc:
            raise LawError(f"{name} before fit raised {type(exc).__name__} ({exc}), expected NotFittedError") from None
        raise LawError(f"{name} before fit did not raise NotFittedError")


def law_feature_order(estimator: Any, data: Dataset) -> None:
    """Permuting the columns (in fit and predict alike) changes no prediction."""
    order = np.random.default_rng(data.seed).permutation(data.n_features or 0)
    if data.n_features and np.array_equal(order, np.arange(data.n_features)):
        order = order[::-1]
    a = clone(estimator).fit(data.X, data.y)
    moved = data.columns(order)
    b = clone(estimator).fit(moved.X, moved.y)
    tol = tolerance(estimator, data)
    try:
        np.testing.assert_allclose(a.predict_proba(data.X), b.predict_proba(moved.X), rtol=tol.rtol, atol=tol.atol)
    except AssertionError as exc:
        raise LawError(f"columns permuted by {order.tolist()}: probabilities differ\n{exc}") from None


def _numeric_columns(data: Dataset) -> list[int]:
    if hasattr(data.X, "dtypes"):
        return [j for j, t in enumerate(data.X.dtypes) if t.kind == "f"]
    return list(range(data.n_features or 0))


def _transformed(data: Dataset, scale: float, offset: float) -> Any:
    cols = _numeric_columns(data)
    if hasattr(data.X, "iloc"):
        X = data.X.copy()
        for j in cols:
            X.iloc[:, j] = X.iloc[:, j] * scale + offset * (j + 1)
        return X
    X = np.array(data.X, dtype=float)
    X[:, cols] = X[:, cols] * scale + offset * (np.arange(len(cols)) + 1)
    return X


def law_scale_invariance(estimator: Any, data: Dataset) -> None:
    """Every numeric feature times 1e-150 ... 1e150, or shifted by 1e9: the same predictions
    (probabilities to rounding), or a clear error; never NaN or a silently different model."""
    base = clone(estimator).fit(data.X, data.y)
    p0 = base.predict_proba(data.X)
    for scale, offset in ((1e-150, 0.0), (1e-20, 0.0), (1e20, 0.0), (1e150, 0.0), (1.0, 1e9), (1e6, 1e15)):
        X = _transformed(data, scale, offset)
        what = f"numeric features times {scale:g} plus {offset:g} x (column number)"
        try:
            model = clone(estimator).fit(X, data.y)
            p = model.predict_proba(X)
        except NBayesError:
            continue  # a clear error is allowed past float64's range
        except Exception as exc:
            raise LawError(f"{what}: raised {type(exc).__name__} ({exc}), expected the same predictions or an nbayes error") from None
        # an offset of 1e9 keeps about 7 of the 16 digits of data of unit spread
        tol = Tolerance(1e-6, 1e-6) if offset else Tolerance(1e-8, 1e-10)
        if np.isnan(p).any():
            raise LawError(f"{what}: NaN probabilities")
        try:
            np.testing.assert_allclose(p, p0, rtol=tol.rtol, atol=tol.atol)
        except AssertionError as exc:
            raise LawError(f"{what}: probabilities differ\n{exc}") from None


#: label sets of mixed Python types: each must keep its types, or be refused clearly
MIXED_LABELS: tuple[tuple[Any, Any, Any], ...] = ((1, "a", "b"), (1, "1", 2), (True, 2, 3), (False, "x", 0.5))


def _typed(values: Any) -> list[tuple[type, Any]]:
    out = []
    for v in values:
        v = v.item() if isinstance(v, np.generic) else v
        out.append((type(v), v))
    return out


def law_labels_keep_their_types(estimator: Any, data: Dataset) -> None:
    """Labels of mixed Python types are kept with their types (``True`` is not ``1``, ``1`` is
    not ``"1"``) in ``classes_``, predictions and saved files, or refused with a clear error;
    never silently converted."""
    codes = np.array([data.classes.tolist().index(v) for v in data.y.tolist()])
    for labels in MIXED_LABELS:
        y = [labels[c] for c in codes]
        try:
            model = clone(estimator).fit(data.X, y)
        except NBayesError:
            continue  # refused clearly
        except Exception as exc:
            raise LawError(f"labels {labels!r}: raised {type(exc).__name__} ({exc}), expected an nbayes error or kept types") from None
        want = sorted(_typed(labels), key=repr)
        got = sorted(_typed(model.classes_.tolist()), key=repr)
        if got != want:
            raise LawError(f"labels {labels!r} became classes_ {model.classes_.tolist()!r}")
        pred = set(_typed(model.predict(data.X).tolist()))
        if not pred <= set(want):
            raise LawError(f"labels {labels!r}: predict returned {sorted(pred, key=repr)!r}")
        if "save" in estimator.capabilities:
            back = load_bytes(saved_bytes(model))
            if _typed(back.classes_.tolist()) != _typed(model.classes_.tolist()):
                raise LawError(f"labels {labels!r}: a saved and loaded model has classes_ {back.classes_.tolist()!r}")


def law_save_load(estimator: Any, data: Dataset) -> None:
    """save -> load -> save gives the same bytes; the loaded model predicts the same, exactly."""
    model = clone(estimator).fit(data.X, data.y)
    raw = saved_bytes(model)
    back = load_bytes(raw)
    if type(back) is not type(model):
        raise LawError(f"load gave a {type(back).__name__}, saved a {type(model).__name__}")
    for name, value in model.get_params(deep=False).items():
        loaded = back.get_params(deep=False)[name]
        if not _same_param(value, loaded):
            raise LawError(f"parameter {name!r} is {loaded!r} after load, {value!r} before")
    if saved_bytes(back) != raw:
        raise LawError("save -> load -> save wrote different bytes")
    same_array(back.predict_proba(data.X), model.predict_proba(data.X), "predict_proba after load differs")
    same_array(back.predict(data.X), model.predict(data.X), "predict after load differs")
    if "joint_log_proba" in estimator.capabilities:
        same_array(back.predict_joint_log_proba(data.X), model.predict_joint_log_proba(data.X),
                   "predict_joint_log_proba after load differs")


def _same_param(a: Any, b: Any) -> bool:
    """Parameters equal by value (a list and an array of the same numbers are the same)."""
    if hasattr(a, "get_params"):
        return type(a) is type(b) and all(_same_param(v, b.get_params(deep=False)[k]) for k, v in a.get_params(deep=False).items())
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same_param(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple | np.ndarray) or isinstance(b, list | tuple | np.ndarray):
        try:
            return bool(np.array_equal(np.asarray(a), np.asarray(b)))
        except (TypeError, ValueError):
            return False
    return bool(a == b) or (a != a and b != b)


def law_to_logistic(estimator: Any, data: Dataset) -> None:
    """``to_logistic()`` has the model's probabilities on complete rows (or, for parameters
    of -inf, a clear error)."""
    model = clone(estimator).fit(data.X, data.y)
    try:
        lr = model.to_logistic()
    except NBayesError:
        return
    rows = data.rows(complete_rows(data))
    try:
        np.testing.assert_allclose(lr.predict_proba(rows.X), model.predict_proba(rows.X), rtol=1e-9, atol=1e-12)
    except AssertionError as exc:
        raise LawError(f"to_logistic(): probabilities differ\n{exc}") from None


def _blank(data: Dataset, j: int) -> Any:
    """X with column j missing in every row."""
    if hasattr(data.X, "iloc"):
        X = data.X.copy()
        X[X.columns[j]] = None if X.dtypes.iloc[j].kind in "Ob" else np.nan
        return X
    X = np.array(data.X, dtype=object if data.X.dtype == object else float)
    X[:, j] = None if X.dtype == object else np.nan
    return X


def law_missing_is_marginalised(estimator: Any, data: Dataset) -> None:
    """A feature missing at prediction is left out exactly: the joint log-probability is the
    explained one without that feature's term (models without ``explain``: the prediction of
    the model fitted without the feature)."""
    model = clone(estimator).fit(data.X, data.y)
    for j in (0, (data.n_features or 1) - 1):
        X = _blank(data, j)
        what = f"column {j} missing at prediction"
        if "explain" in model.capabilities and "joint_log_proba" in model.capabilities:
            e = model.explain(data.X)
            rest = np.delete(e.contributions, j, axis=2)
            same_log(model.predict_joint_log_proba(X), rest.sum(axis=2) + e.intercept, Tolerance(1e-10, 1e-10),
                     f"{what}: joint log-probability vs the explained terms of the other columns")
            continue
        keep = [k for k in range(data.n_features or 0) if k != j]
        without = clone(estimator).fit(data.columns(keep).X, data.y)
        try:
            np.testing.assert_allclose(model.predict_proba(X), without.predict_proba(data.columns(keep).X),
                                       rtol=1e-7, atol=1e-9)
        except AssertionError as exc:
            raise LawError(f"{what} vs the model fitted without column {j}\n{exc}") from None
