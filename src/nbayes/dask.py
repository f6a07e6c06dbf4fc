"""Training and prediction on Dask: statistics per partition, a tree of merges, one model.

Every Naive Bayes model here is a sum of statistics, so training splits exactly: each partition
is counted by a worker (``partial_fit`` on a fresh model), and the partial models are merged in a
tree (``merge``), which gives the model trained on all rows at once (to rounding, 1e-9 in the
tests). Prediction ships the fitted model to each worker once and maps over the partitions.
Logistic regression, which is not a sum of statistics, is fitted by L-BFGS on the driver with
the objective and gradient summed over the partitions on the workers (``fit_logistic``): it
reaches the optimum to the solver's tolerance, not bit for bit (CORRECTNESS.md).

Needs the optional extra: ``pip install 'nbayes[dask]'``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import DataError, InvalidParameterError, NBayesError
from .linear import LogisticRegression
from .linear.loss import Design, LogLoss

__all__ = ["fit", "predict", "predict_proba", "fit_logistic"]


def _dask() -> Any:
    try:
        import dask
        import dask.dataframe  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("nbayes.dask needs dask: pip install 'nbayes[dask]'") from None
    return dask


# ---------------------------------------------------------------------------- per partition
def _features(part: Any, target: str | None, text: str | None, model: Any, weight: str | None = None) -> tuple[Any, Any]:
    """(X, y) of one partition: a pandas frame (features + target column) or a list of
    (text, label) pairs from a bag."""
    if isinstance(part, list):
        texts = [t for t, _ in part]
        return texts, np.asarray([y for _, y in part], dtype=object)
    y = part[target].to_numpy()
    if model.input_kind == "text":
        col = text if text is not None else next(c for c in part.columns if c not in (target, weight))
        return part[col].fillna("").astype(str).tolist(), y
    return _table_input(part.drop(columns=[c for c in (target, weight) if c]), model), y


def _table_input(frame: Any, model: Any) -> Any:
    """A partition's feature columns as the model reads them (``input_kind``): the frame for a
    table model, floats for a matrix model."""
    return frame if model.input_kind == "table" else frame.to_numpy(dtype=float)


def _count_partition(params: dict[str, Any], kind: type, part: Any, target: str | None, text: str | None,
                     weight: str | None) -> Any:
    """A model of one partition's rows (None for an empty partition)."""
    model = kind(**params)
    X, y = _features(part, target, text, model, weight)
    if len(y) == 0:
        return None
    w = None if weight is None else part[weight].to_numpy(dtype=float)
    step = 20_000  # a partition of hundreds of MB is counted in slices: memory stays flat
    for i in range(0, len(y), step):
        Xi = X.iloc[i : i + step] if hasattr(X, "iloc") else X[i : i + step]
        model.partial_fit(Xi, y[i : i + step], sample_weight=None if w is None else w[i : i + step])
    return model


def _merge(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return a.merge(b)


def _tree(items: list[Any], split_every: int) -> Any:
    """Delayed pairwise-then-grouped reduction of partial models with ``merge``."""
    from dask.delayed import delayed

    level = list(items)
    while len(level) > 1:
        nxt = []
        for i in range(0, len(level), split_every):
            group = level[i : i + split_every]
            acc = group[0]
            for other in group[1:]:
                acc = delayed(_merge)(acc, other)
            nxt.append(acc)
        level = nxt
    return level[0]


# ---------------------------------------------------------------------------- public API
def fit(model: Any, data: Any, *, target: str | None = None, text: str | None = None,
        sample_weight: str | None = None, split_every: int = 8) -> Any:
    """Train a Naive Bayes model (or ``TextClassifier``) on a Dask collection.

    ``data``: a ``dask.dataframe.DataFrame`` with a ``target`` column (and, for a text model,
    the ``text`` column; default: the first other column), or a ``dask.bag.Bag`` of
    ``(text, label)`` pairs for a ``TextClassifier``. ``sample_weight`` names a weight column.
    Returns a new fitted model with ``model``'s hyperparameters, equal to fitting it on all rows.
    Runs on the current Dask scheduler (a ``distributed.Client`` if one is active).
    """
    dask = _dask()
    caps: frozenset[str] = getattr(model, "capabilities", frozenset())
    if not {"partial_fit", "merge"} <= caps:
        hint = "use nbayes.dask.fit_logistic" if "logistic" in caps else "its capabilities lack 'partial_fit' or 'merge'"
        raise InvalidParameterError(
            f"nbayes.dask.fit trains models that learn from chunks and merge (Naive Bayes, TextClassifier); for "
            f"{type(model).__name__} {hint}"
        )
    params = model.get_params()
    parts = _partitions(data, target, sample_weight)
    if "columns" in caps and params.get("column_types") is None and target is not None:
        # every partition must type its columns alike: decide once, from the first rows
        head = data.head(1000, npartitions=-1).drop(columns=[c for c in (target, sample_weight) if c])
        kinds = type(model)().infer_column_kinds(head)
        params["column_types"] = dict(zip(map(str, head.columns), kinds))
    from dask.delayed import delayed

    counted = [delayed(_count_partition)(params, type(model), p, target, text, sample_weight) for p in parts]
    try:
        (result,) = dask.compute(_tree(counted, max(2, int(split_every))))
    except NBayesError:
        raise
    except Exception as exc:  # a worker lost for good, a task that failed: no partial model
        raise DataError(f"nbayes.dask.fit failed, no model was returned ({type(exc).__name__}: {exc})") from exc
    if result is None:
        raise DataError("nbayes.dask.fit: every partition is empty; nothing to learn")
    return result


def _partitions(data: Any, target: str | None, weight: str | None) -> list[Any]:
    kind = type(data).__module__.split(".")[0]
    if hasattr(data, "to_delayed") and hasattr(data, "columns"):
        if target is None or target not in data.columns:
            raise DataError(f"nbayes.dask: target column {target!r} not among {list(data.columns)}")
        if weight is not None and weight not in data.columns:
            raise DataError(f"nbayes.dask: weight column {weight!r} not among {list(data.columns)}")
        return list(data.to_delayed())
    if hasattr(data, "to_delayed"):  # a bag of (text, label) pairs
        return list(data.to_delayed())
    raise DataError(f"nbayes.dask: expected a dask DataFrame or Bag, got {kind}.{type(data).__name__}")


def _predict_part(part: Any, model: Any, target: str | None, text: str | None, proba: bool) -> Any:
    import pandas as pd

    if isinstance(part, pd.DataFrame):
        frame = part.drop(columns=[target]) if target is not None and target in part.columns else part
        if model.input_kind == "text":
            col = text if text is not None else frame.columns[0]
            X: Any = frame[col].fillna("").astype(str).tolist()
        else:
            X = _table_input(frame, model)
        index = part.index
    else:
        X, index = list(part), None
    if len(X) == 0:
        if proba:
            return pd.DataFrame({str(c): pd.Series(dtype=float) for c in model.classes_}, index=index)
        return pd.Series([], dtype=object, index=index, name="prediction")
    if proba:
        return pd.DataFrame(model.predict_proba(X), columns=[str(c) for c in model.classes_], index=index)
    return pd.Series(model.predict(X), index=index, name="prediction", dtype=object)


def predict(model: Any, data: Any, *, target: str | None = None, text: str | None = None) -> Any:
    """Predicted classes per partition (a lazy dask Series), the model sent to workers once.
    ``target``, if given, is dropped from the features."""
    return _map(model, data, target, text, proba=False)


def predict_proba(model: Any, data: Any, *, target: str | None = None, text: str | None = None) -> Any:
    """Class probabilities per partition (a lazy dask DataFrame, one column per class)."""
    return _map(model, data, target, text, proba=True)


def _map(model: Any, data: Any, target: str | None, text: str | None, proba: bool) -> Any:
    _dask()
    import pandas as pd
    from dask.delayed import delayed

    model.check_fitted()
    shared = delayed(model, pure=True)  # one key: shipped once per worker, not once per task
    if hasattr(data, "map_partitions") and hasattr(data, "columns"):
        if proba:
            meta = pd.DataFrame({str(c): pd.Series(dtype=float) for c in model.classes_})
        else:
            meta = pd.Series([], dtype=object, name="prediction")
        return data.map_partitions(_predict_part, shared, target, text, proba, meta=meta)
    if hasattr(data, "map_partitions"):  # a bag of texts
        return data.map_partitions(_predict_part, shared, None, None, proba)
    raise DataError(f"nbayes.dask: expected a dask DataFrame or Bag, got {type(data).__name__}")


# ---------------------------------------------------------------------------- logistic regression
def _lr_part(part: Any, target: str, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    X = part.drop(columns=[target]).to_numpy(dtype=float)
    y = part[target].to_numpy()
    codes = np.searchsorted(classes, y)
    return X, codes


def _lr_value_grad(part: tuple[np.ndarray, np.ndarray], theta: np.ndarray, K: int,
                   fit_intercept: bool) -> tuple[float, np.ndarray]:
    X, codes = part
    if len(codes) == 0:
        return 0.0, np.zeros_like(theta)
    loss = LogLoss(Design(X), codes, K, np.ones(len(codes)), np.inf, fit_intercept)
    return loss.value_grad(theta)


def fit_logistic(model: Any, data: Any, *, target: str, tol: float | None = None, max_iter: int | None = None) -> Any:
    """Fit a ``LogisticRegression`` on a dask DataFrame by L-BFGS: each iteration sums the
    partitions' log-loss and gradient on the workers (the data stays there, persisted), the
    driver adds the penalty and steps. Same objective as ``LogisticRegression.fit``; the optimum
    to the solver's tolerance."""
    dask = _dask()
    from scipy.optimize import minimize

    if "logistic" not in getattr(model, "capabilities", frozenset()):
        raise InvalidParameterError("nbayes.dask.fit_logistic takes a logistic regression (capability "
                                    f"'logistic': nbayes.LogisticRegression), got {type(model).__name__}")
    model.check_params()
    if target not in data.columns:
        raise DataError(f"nbayes.dask: target column {target!r} not among {list(data.columns)}")
    labels = data[target].unique().compute()
    classes = np.sort(np.asarray(labels))
    if len(classes) < 2:
        raise DataError(f"nbayes.dask.fit_logistic: the target has {len(classes)} class; needs at least 2")
    from dask.delayed import delayed

    parts = dask.persist(*[delayed(_lr_part)(p, target, classes) for p in data.to_delayed()])
    d = len(data.columns) - 1
    K = len(classes)
    k = 1 if K == 2 else K
    size = d * k + (k if model.fit_intercept else 0)
    lam = 1.0 / float(model.C)

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        pieces = dask.compute(*[delayed(_lr_value_grad)(p, theta, K, model.fit_intercept) for p in parts])
        f = float(sum(v for v, _ in pieces))
        g = np.sum([gr for _, gr in pieces], axis=0)
        W = theta[: d * k]
        f += 0.5 * lam * float(W @ W)
        g[: d * k] += lam * W
        return f, g

    f0, g0 = fun(np.zeros(size))
    gtol = (tol if tol is not None else model.tol) * max(float(np.max(np.abs(g0))), 1e-300)
    res = minimize(fun, np.zeros(size), jac=True, method="L-BFGS-B",
                   options={"maxiter": max_iter or max(model.max_iter, 200), "gtol": gtol, "ftol": 64 * np.finfo(float).eps})
    out = LogisticRegression(**model.get_params())
    W = res.x[: d * k].reshape(d, k)
    b = res.x[d * k :] if model.fit_intercept else np.zeros(k)
    out.set_coefficients(W, b, classes, d, [str(c) for c in data.columns if c != target])
    out.n_iter_ = np.array([int(res.nit)])
    out.objective_ = float(res.fun)
    return out
