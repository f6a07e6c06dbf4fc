"""What a learn or unlearn request of ``nbayes serve --learn`` becomes before the writer
(:mod:`._learn`) adds it, and why one is refused: whether a model can learn online
(:func:`cannot`), its labels and weights checked against its items (:func:`labels_of`), a
learn request's statistics (:func:`counted`, run by the request), a model
without an unlearn's rows (:func:`without_rows`), and the 422 answers."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from .._validation import check_sample_weight, check_y, encode_labels, show
from ..errors import NBayesError, UnlearnError
from ..io.info import json_value
from ..stats.terms import union_terms
from ..text.online import built
from . import _delta
from . import _labelsets as labelsets
from ._delta import Delta
from ._model import Problem

LEARN, UNLEARN = "learn", "unlearn"


def cannot(model: Any, op: str) -> str | None:
    """Why ``model`` cannot ``op`` online (None if it can)."""
    caps = model.capabilities
    need = ("partial_fit", "statistics") if op == LEARN else ("partial_fit", "statistics", "unlearn")
    missing = [c for c in need if c not in caps]
    if not missing:
        return None
    kind = type(model).__name__
    extra = ""
    if hasattr(model, "base_estimator_"):
        extra = " (a calibrated model: its map was fitted on out-of-fold predictions of all rows)"
    elif getattr(model, "model", None) == "nblr":
        extra = " (model='nblr': weights fitted by logistic regression over all documents)"
    elif getattr(model, "tfidf", False) and getattr(model, "idf", None) is None:
        extra = " (tfidf=True with an idf learned from all training documents; a frozen idf= learns)"
    elif "mixture" in caps and "partial_fit" not in caps:
        extra = " (fitted by EM with mixture components over all rows)"
    return (f"this {kind} cannot {op}{extra}: its capabilities lack {', '.join(repr(m) for m in missing)}; "
            f"it has {sorted(caps)}")


def counted(model: Any, X: Any, y: list[Any], w: list[float] | None) -> Delta:
    """The statistics of a learn request (run by the request, outside the writer): 422 for
    rows the model refuses or numbers that overflow."""
    try:
        with np.errstate(over="raise", invalid="raise"):
            return (labelsets.count if labelsets.applies(model) else _delta.count)(model, X, y, w)
    except (NBayesError, FloatingPointError) as exc:
        raise refused(exc, LEARN) from None


def without_rows(work: Any, X: Any, y: list[Any], w: list[float] | None) -> tuple[Any, int, float]:
    """(``work`` without the rows (X, y, w), rows, weight): a new model; UnlearnError (422) if a
    count would go below zero."""
    if labelsets.applies(work):
        return labelsets.without_rows(work, X, y, w)
    Xv, _ = work.prepare_input(X, fitting=False)
    n = int(Xv.shape[0])
    labels = check_y(_delta.as_labels(y), n)
    weights = check_sample_weight(w, n)
    codes, unknown = encode_labels(labels, work.classes_)
    if unknown.any():
        raise Problem(422, unknown_label(labels, work.classes_, learn=False))
    part = work.count_statistics(Xv, codes, len(work.classes_), weights)
    try:
        stats = work.stats_.subtract(part, work.classes_)
    except UnlearnError as exc:
        raise UnlearnError(named_term(str(exc), work.stats_, part)) from None
    new = copy.copy(work)
    new.set_statistics(stats, work.classes_, work.n_features_in_, work.input_feature_names())
    return built(new), n, float(n if weights is None else weights.sum())


#: how the statistics name a term of a text model's vocabulary in an unlearn refusal
_COLUMN = re.compile(r"\(column (\d+)\)")


def named_term(message: str, have: Any, remove: Any) -> str:
    """An unlearn refusal of a text model's statistics with the word in place of its column
    (``(column 8714)`` -> ``(the term 'prize')``; hashing: ``(hash bucket 8714)``): the column
    indexes the two vocabularies' union, as the subtraction aligned them. Other messages are
    returned as they are."""
    m = _COLUMN.search(message)
    if m is None or not hasattr(have, "has_vocabulary"):
        return message
    if not have.has_vocabulary:  # hashing: a column is a bucket, which many words share
        return f"{message[:m.start()]}(hash bucket {m.group(1)}){message[m.end():]}"
    terms = union_terms(have.terms, remove.terms)
    j = int(m.group(1))
    if j >= len(terms):
        return message
    return f"{message[:m.start()]}(the term {show(terms[j])}){message[m.end():]}"


def unknown_label(labels: np.ndarray, classes: np.ndarray, *, learn: bool) -> str:
    _, unknown = encode_labels(labels, classes)
    i = int(np.argmax(unknown))
    known = [json_value(c) for c in classes.tolist()]
    if learn:
        return (f"labels[{i}] is {show(labels[i])}, not a class of this model {known}; the service runs "
                "without --allow-new-classes, so a typo cannot create a class. Nothing was learned")
    return f"labels[{i}] is {show(labels[i])}, a class this model never learned {known}; nothing was unlearned"


def refused(exc: Exception, op: str) -> Problem:
    nothing = f"nothing was {'learned' if op == LEARN else 'unlearned'}"
    if isinstance(exc, FloatingPointError):
        return Problem(422, f"the update would make the model's numbers overflow or undefined ({exc}); {nothing}")
    return Problem(422, f"{exc}; {nothing}")


def labels_of(body: dict[str, Any], n: int, single: bool, sets: bool = False) -> tuple[list[Any], list[float] | None]:
    """The labels (and weights) of a learn / unlearn request, checked against its items;
    ``sets``: a multi-label model's, one list of labels per item."""
    lk, wk = ("label", "weight") if single else ("labels", "weights")
    other = ("labels", "weights") if single else ("label", "weight")
    wrong = [k for k in other if k in body]
    if wrong:
        raise Problem(422, f"{'one item' if single else 'a batch'} takes {lk!r} and {wk!r}, not {wrong[0]!r}")
    if lk not in body:
        raise Problem(422, f"missing field {lk!r}: the class of {'the item' if single else 'each item'}")
    if sets:  # a multi-label model: a list of labels per item ([] for none, if the model allows it)
        raw = _per_item(body[lk], "labels", lk, single, n, "one list of labels per item", "label sets", _label_set,
                        "a list of labels (this model is multi-label: such as [\"a\", \"b\"], or [])")
    else:
        raw = _per_item(body[lk], "labels", lk, single, n, "one label per item", "labels",
                        lambda v: isinstance(v, str | int | float | bool), "a string, integer or boolean")
    if wk not in body:
        return raw, None
    wraw = _per_item(body[wk], "weights", wk, single, n, "one number per item", "numbers",
                     lambda v: not isinstance(v, bool) and isinstance(v, int | float) and v >= 0, "a number >= 0")
    return raw, [float(v) for v in wraw]


def _label_set(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str | int | float | bool) for x in v)


def _per_item(value: Any, field: str, key: str, single: bool, n: int, shape: str, unit: str,
              ok: Callable[[Any], bool], want: str) -> list[Any]:
    """The ``n`` values of a learning body's ``field`` (one ``key`` when ``single``), each
    ``ok``; else 422 naming the item."""
    raw = [value] if single else value
    if not isinstance(raw, list):
        raise Problem(422, f"{field!r} must be an array ({shape}), got {_kind(raw)}")
    if len(raw) != n:
        raise Problem(422, f"{field!r} holds {len(raw)} {unit} for {n} items")
    for i, v in enumerate(raw):
        if not ok(v):
            got = f"{_kind(v)}" if field == "labels" else f"{_kind(v)} {v!r}"
            raise Problem(422, f"{key}{'' if single else f'[{i}]'} must be {want}, got {got}"[:200])
    return raw


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array",
            dict: "an object"}.get(type(v), type(v).__name__)
