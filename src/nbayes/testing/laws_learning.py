"""Laws of learning: fit = chunked partial_fit = merge of shards; unlearn = fit on the rest;
duplicated rows = integer weights; a failed call changes nothing.

Each law is ``law(estimator, data)``: ``estimator`` is a template (cloned, never fitted
itself), ``data`` a :class:`~nbayes.testing.data.Dataset` of three classes; it raises
:class:`~nbayes.testing.LawError` (an ``AssertionError``) when the law does not hold.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import NBayesError
from ._compare import (
    LawError,
    assert_unchanged,
    clone,
    same_log,
    same_predictions,
    snapshot,
    tolerance,
)
from .data import Dataset

__all__ = [
    "chunk_schedule",
    "law_duplicated_rows_are_weights",
    "law_failed_fit_changes_nothing",
    "law_failed_merge_changes_nothing",
    "law_failed_partial_fit_changes_nothing",
    "law_empty_chunk_changes_nothing",
    "law_failed_unlearn_changes_nothing",
    "law_fit_equals_chunked_partial_fit",
    "law_fit_equals_merge_of_shards",
    "law_sparse_equals_dense",
    "law_unit_weights",
    "law_unlearn_class",
    "law_unlearn_subset",
]


def chunk_schedule(y: np.ndarray) -> list[np.ndarray]:
    """Row indices of the chunks of a stream that tries what a stream may bring: a first
    chunk of one class (the second class, so the first class arrives later; for the text
    generator, documents without a term), two classes, a chunk that brings the last class,
    and the rest. (Empty chunks: :func:`law_empty_chunk_changes_nothing`.)"""
    classes = sorted(set(y.tolist()))
    by = {c: [i for i, v in enumerate(y.tolist()) if v == c] for c in classes}
    first = by[classes[1]][:2] if len(classes) > 1 else by[classes[0]][:2]
    used = set(first)
    two = [i for c in classes[:2] for i in by[c][2:6] if i not in used]
    used |= set(two)
    rest_last = by[classes[-1]]
    new = rest_last[:1] + [i for i in by[classes[0]][6:9] if i not in used]
    used |= set(new)
    rest = [i for i in range(len(y)) if i not in used]
    return [np.array(c, dtype=np.intp) for c in (first, two, new, rest)]


def _run_chunks(model: Any, data: Dataset, chunks: list[np.ndarray], declare: bool) -> Any:
    for i, idx in enumerate(chunks):
        part = data.rows(idx)
        if declare and i == 0:
            model.partial_fit(part.X, part.y, classes=data.classes)
        else:
            model.partial_fit(part.X, part.y)
    return model


def law_fit_equals_chunked_partial_fit(estimator: Any, data: Dataset, chunks: list[np.ndarray] | None = None) -> None:
    """partial_fit over chunks (empty, of one class, bringing a new class) equals fit on all
    rows, with the classes declared on the first call and without."""
    full = clone(estimator).fit(data.X, data.y)
    chunks = chunk_schedule(data.y) if chunks is None else chunks
    tol = tolerance(estimator, data)
    for declare in (True, False):
        what = f"fit vs partial_fit over chunks of sizes {[len(c) for c in chunks]} (classes declared: {declare})"
        try:
            chunked = _run_chunks(clone(estimator), data, chunks, declare)
        except NBayesError as exc:
            raise LawError(f"{what}: partial_fit refused a valid chunk: {type(exc).__name__}: {exc}") from None
        same_predictions(full, chunked, data.X, tol, what)


def law_empty_chunk_changes_nothing(estimator: Any, data: Dataset) -> None:
    """An empty chunk is a valid chunk of a stream: partial_fit on it changes nothing (first
    chunk with declared classes: the model of no rows knows its classes, or a clear error)."""
    model = clone(estimator).fit(data.X, data.y)
    probe = data.rows(slice(0, 20)).X
    model.predict_proba(probe)
    before = snapshot(model)
    empty = data.rows(np.array([], dtype=np.intp))
    try:
        model.partial_fit(empty.X, empty.y)
    except NBayesError as exc:
        raise LawError(f"partial_fit refused an empty chunk: {type(exc).__name__}: {exc}") from None
    model.predict_proba(probe)
    assert_unchanged(before, model, "partial_fit of an empty chunk")


def shards(y: np.ndarray) -> list[np.ndarray]:
    """Three shards: one class alone, then two halves of the other rows."""
    classes = sorted(set(y.tolist()))
    alone = np.flatnonzero(np.array([v == classes[0] for v in y.tolist()]))
    others = np.setdiff1d(np.arange(len(y)), alone)
    return [alone, others[: len(others) // 2], others[len(others) // 2 :]]


def law_fit_equals_merge_of_shards(estimator: Any, data: Dataset) -> None:
    """Models of shards merged in any order equal the model of all rows."""
    full = clone(estimator).fit(data.X, data.y)
    parts = shards(data.y)
    tol = tolerance(estimator, data)

    def model(i: int) -> Any:
        part = data.rows(parts[i])
        return clone(estimator).fit(part.X, part.y)

    for order in ((0, 1, 2), (2, 1, 0), (1, 2, 0)):
        merged = model(order[0])
        for i in order[1:]:
            merged = merged.merge(model(i))
        same_predictions(full, merged, data.X, tol, f"fit vs merge of shards in the order {order}")
    a, b = model(1), model(2)
    same_predictions(a.merge(b), b.merge(a), data.X, tol, "a.merge(b) vs b.merge(a)")


def _mask(y: np.ndarray, label: Any) -> np.ndarray:
    """Rows whose label is ``label`` (of the same Python type: ``True`` is not ``1``)."""
    label = label.item() if isinstance(label, np.generic) else label
    return np.array([type(v) is type(label) and v == label for v in np.asarray(y).tolist()], dtype=bool)


def law_unlearn_class(estimator: Any, data: Dataset) -> None:
    """Unlearning every row of a class: the class gets probability 0, is never predicted, and
    the other classes' predictions equal those of the model never trained on it."""
    tol = tolerance(estimator, data, subtracting=True)
    for label in (data.classes.tolist()[1], data.classes.tolist()[-1]):
        gone = _mask(data.y, label)
        model = clone(estimator).fit(data.X, data.y)
        model.unlearn(data.rows(gone).X, data.y[gone])
        rest = clone(estimator).fit(data.rows(~gone).X, data.y[~gone])
        what = f"unlearn every row of class {label!r}"
        k = model.classes_.tolist().index(label)
        keep = [i for i in range(len(model.classes_)) if i != k]
        proba = model.predict_proba(data.X)
        if np.any(proba[:, k] != 0):
            raise LawError(f"{what}: the forgotten class still has probability up to {proba[:, k].max():.3g}")
        if np.any(_mask(model.predict(data.X), label)):
            raise LawError(f"{what}: the forgotten class is still predicted")
        if "joint_log_proba" in model.capabilities:
            joint = model.predict_joint_log_proba(data.X)
            if not np.all(np.isneginf(joint[:, k])):
                raise LawError(f"{what}: its joint log-probability is not -inf")
            same_log(joint[:, keep], rest.predict_joint_log_proba(data.X), tol, f"{what}: joint log-probabilities")
        try:
            np.testing.assert_allclose(proba[:, keep], rest.predict_proba(data.X), rtol=tol.rtol, atol=tol.atol)
        except AssertionError as exc:
            raise LawError(f"{what}: probabilities differ from the model never trained on it\n{exc}") from None


def law_unlearn_subset(estimator: Any, data: Dataset) -> None:
    """Unlearning any subset of the rows equals fitting on the rest (also in two steps)."""
    tol = tolerance(estimator, data, subtracting=True)
    rng = np.random.default_rng(data.seed)
    drop = rng.random(data.n_rows) < 0.35
    drop[:12] = False  # every class keeps rows
    drop[-1] = True  # at least one row to forget
    model = clone(estimator).fit(data.X, data.y)
    model.unlearn(data.rows(drop).X, data.y[drop])
    rest = clone(estimator).fit(data.rows(~drop).X, data.y[~drop])
    same_predictions(rest, model, data.X, tol, f"unlearn {int(drop.sum())} rows vs fit on the other {int((~drop).sum())}")
    if "partial_fit" in estimator.capabilities:
        grown = clone(estimator).fit(data.rows(~drop).X, data.y[~drop])
        grown.partial_fit(data.rows(drop).X, data.y[drop])
        grown.unlearn(data.rows(drop).X, data.y[drop])
        same_predictions(rest, grown, data.X, tol, "partial_fit then unlearn of the same rows")


def law_duplicated_rows_are_weights(estimator: Any, data: Dataset) -> None:
    """Integer sample weights equal rows repeated that many times (weight 0: the row left out)."""
    rng = np.random.default_rng(data.seed + 1)
    w = rng.integers(0, 4, data.n_rows).astype(float)
    w[:12] = np.maximum(w[:12], 1)  # every class keeps rows
    weighted = clone(estimator).fit(data.X, data.y, sample_weight=w)
    idx = np.repeat(np.arange(data.n_rows), w.astype(int))
    repeated = clone(estimator).fit(data.rows(idx).X, data.y[idx])
    same_predictions(repeated, weighted, data.X, tolerance(estimator, data), "integer weights vs repeated rows")


def law_unit_weights(estimator: Any, data: Dataset) -> None:
    """sample_weight of ones is the same model as no weights."""
    a = clone(estimator).fit(data.X, data.y)
    b = clone(estimator).fit(data.X, data.y, sample_weight=np.ones(data.n_rows))
    same_predictions(a, b, data.X, tolerance(estimator, data), "sample_weight=ones vs no weights")


def law_sparse_equals_dense(estimator: Any, data: Dataset) -> None:
    """A scipy.sparse X gives the model and the predictions of the same dense X."""
    import scipy.sparse as sp

    X = np.asarray(data.X, dtype=float)
    if np.isnan(X).any():
        return
    dense = clone(estimator).fit(X, data.y)
    sparse = clone(estimator).fit(sp.csr_matrix(X), data.y)
    tol = tolerance(estimator, data)
    same_predictions(dense, sparse, X, tol, "fit on sparse vs dense X")
    same_predictions(dense, sparse, sp.csr_matrix(X), tol, "fit on sparse vs dense X, predicting sparse X")


# ----------------------------------------------------------------------------- failed calls
def _must_fail(model: Any, probe: Any, call: Callable[[], Any], what: str, error: type[Exception]) -> None:
    """``call`` must raise ``error`` and leave ``model`` bit for bit as it was (``probe``: rows
    predicted before and after, so that parameters estimated on use are in both snapshots)."""
    model.predict_proba(probe)
    before = snapshot(model)
    try:
        call()
    except error:
        pass
    except Exception as exc:
        raise LawError(f"{what}: raised {type(exc).__name__} ({exc}), expected {error.__name__}") from None
    else:
        raise LawError(f"{what}: was accepted, expected {error.__name__}")
    model.predict_proba(probe)
    assert_unchanged(before, model, f"{what} failed")


def _bad_weights(n: int) -> list[tuple[str, np.ndarray]]:
    nan, neg = np.ones(n), np.ones(n)
    nan[n // 2] = np.nan
    neg[n // 2] = -1.0
    return [("a NaN weight", nan), ("a negative weight", neg)]


def _bad_value(data: Dataset) -> Any:
    """X with one impossible cell (an infinite number) for numeric kinds, else None."""
    if data.kind not in ("counts", "real"):
        return None
    X = np.array(data.X, dtype=float)
    X[3, 1] = np.inf
    return X


def _fitted(estimator: Any, data: Dataset, **kw: Any) -> Any:
    model = clone(estimator)
    if kw:
        model.partial_fit(data.X, data.y, **kw)
    else:
        model.fit(data.X, data.y)
    return model


def law_failed_fit_changes_nothing(estimator: Any, data: Dataset, error: type[Exception] = NBayesError) -> None:
    """A refit that fails (y of another length, a bad weight, an impossible value) leaves the
    fitted model bit for bit as it was."""
    model = _fitted(estimator, data)
    probe = data.rows(slice(0, 20)).X
    _must_fail(model, probe, lambda: model.fit(data.X, data.y[:-1]), "fit with y one row short", error)
    if "sample_weight" in estimator.capabilities:
        for name, w in _bad_weights(data.n_rows):
            _must_fail(model, probe, lambda: model.fit(data.X, data.y, sample_weight=w), f"fit with {name}", error)
    bad = _bad_value(data)
    if bad is not None:
        _must_fail(model, probe, lambda: model.fit(bad, data.y), "fit with an impossible value at row 3, column 1", error)


def law_failed_partial_fit_changes_nothing(
    estimator: Any, data: Dataset, error: type[Exception] = NBayesError
) -> None:
    """A partial_fit that fails (a column short, a label outside the declared classes, a bad
    weight or value) leaves the model bit for bit as it was."""
    declared = data.classes.tolist()[:2]
    two = _mask(data.y, declared[0]) | _mask(data.y, declared[1])
    model = _fitted(estimator, data.rows(two), classes=declared)
    probe = data.rows(slice(0, 20)).X
    if data.n_features is not None:
        short = data.columns(list(range(data.n_features - 1)))
        _must_fail(model, probe, lambda: model.partial_fit(short.X, short.y), "partial_fit with a column short", error)
    sub = data.rows(two)
    for name, w in (_bad_weights(sub.n_rows) if "sample_weight" in estimator.capabilities else []):
        _must_fail(model, probe, lambda: model.partial_fit(sub.X, sub.y, sample_weight=w), f"partial_fit with {name}", error)
    bad = _bad_value(data)
    if bad is not None:
        _must_fail(model, probe, lambda: model.partial_fit(bad[two], sub.y), "partial_fit with an impossible value", error)
    _must_fail(model, probe, lambda: model.partial_fit(data.X, data.y),
               f"partial_fit with label {data.classes.tolist()[-1]!r} outside the classes declared on the first call", error)


def law_failed_unlearn_changes_nothing(estimator: Any, data: Dataset, error: type[Exception] = NBayesError) -> None:
    """An unlearn that fails (rows unlearned twice, a label never learned, a bad weight) leaves
    the model bit for bit as it was, even when part of the rows could be removed."""
    model = _fitted(estimator, data)
    probe = data.rows(slice(0, 20)).X
    twice = np.concatenate([np.arange(data.n_rows)] * 2)
    _must_fail(model, probe, lambda: model.unlearn(data.rows(twice).X, data.y[twice]), "unlearn of every row twice", error)
    some = data.rows(slice(0, 6))
    odd = np.array(some.y, dtype=object)
    odd[-1] = "never-seen-label"
    _must_fail(model, probe, lambda: model.unlearn(some.X, odd), "unlearn of a label never learned", error)
    heavy = np.ones(some.n_rows)
    heavy[0] = 1e6
    _must_fail(model, probe, lambda: model.unlearn(some.X, some.y, sample_weight=heavy),
               "unlearn of more weight than was learned", error)


def law_failed_merge_changes_nothing(estimator: Any, data: Dataset, error: type[Exception] = NBayesError) -> None:
    """A merge that fails (an unfitted model, other columns) leaves both models unchanged."""
    model = _fitted(estimator, data)
    probe = data.rows(slice(0, 20)).X
    _must_fail(model, probe, lambda: model.merge(clone(estimator)), "merge with an unfitted model", error)
    if data.n_features is not None:
        other = _fitted(estimator, data.columns(list(range(data.n_features - 1))))
        before = snapshot(other)
        _must_fail(model, probe, lambda: model.merge(other), "merge with a model of one column fewer", error)
        assert_unchanged(before, other, "the other model of a failed merge")
