"""Learning label sets in ``nbayes serve --learn``: the updates of a multi-label model
(:class:`nbayes.MultiLabel`), their log records and their replay.

A multi-label model's statistics have one class row per label (the sums over the rows carrying
it) and a last row holding all rows (:mod:`nbayes.multilabel._stats`). An update's statistics
(:class:`LabelSetDelta`) have the same layout over the labels the update names: one row per
label, then the update's all-rows row. Adding it places its label rows on the model's (labels
new to the model join them, under ``--allow-new-classes``) and its last row on the model's last
row: :meth:`nbayes.MultiLabel.add_statistics`, what ``partial_fit`` does.

A record body is the codec's (:mod:`._codec`): the update's labels as its classes, its
statistics as the base model writes them in a model file (``stats.to_arrays()``: text
statistics with their own terms, not the log's term numbers), and ``labelsets/empty_rows``
(whether a row of the update had no label: it changes ``empty="auto"``). Unlearning rewrites
the file (a snapshot), as for every model.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import check_sample_weight, encode_labels, label_array, show
from ..errors import ModelFileError
from ..io.info import json_value
from . import _codec
from ._delta import Delta, summed
from ._model import Problem

_EMPTY = "labelsets/empty_rows"


@dataclass
class LabelSetDelta(Delta):
    """An update of a multi-label model: ``stats`` over ``classes`` (its labels) plus a last
    all-rows row; ``empty_rows``: a row had no label; ``sets``: the request's label sets (for
    messages)."""

    empty_rows: bool = False
    sets: list[list[Any]] = field(default_factory=list)


def applies(model: Any) -> bool:
    """Whether ``model`` learns label sets."""
    return "label_sets" in getattr(model, "capabilities", frozenset())


def training_rows(model: Any) -> float:
    """The weight of the rows a model learned (a multi-label model's last row holds all rows)."""
    cc = np.asarray(model.stats_.class_count, dtype=np.float64)
    return float(cc[-1]) if applies(model) else float(cc.sum())


def _check_sets(model: Any, sets: list[list[Any]], *, known: bool, learn: bool) -> None:
    """422 naming the item for an empty set the model does not take, or (``known``) a label
    outside its labels."""
    if not model.allow_empty:
        for i, s in enumerate(sets):
            if not s:
                raise Problem(422, f"labels[{i}] is empty; this model learns every row under at least one label "
                                   "(it was trained without allow_empty=True); nothing was "
                                   f"{'learned' if learn else 'unlearned'}")
    if known:
        unknown_label(model.classes_, sets, learn=learn)


def unknown_label(classes: np.ndarray, sets: list[list[Any]], *, learn: bool) -> None:
    """422 naming the first item holding a label outside ``classes``."""
    allowed = [json_value(c) for c in classes.tolist()]
    for i, s in enumerate(sets):
        if not s:
            continue
        values = np.empty(len(s), dtype=object)
        values[:] = s
        _, unknown = encode_labels(values, classes)
        if unknown.any():
            v = s[int(np.argmax(unknown))]
            if learn:
                raise Problem(422, f"labels[{i}] holds {show(v)}, not a label of this model {allowed}; the service "
                                   "runs without --allow-new-classes, so a typo cannot create a label. Nothing was learned")
            raise Problem(422, f"labels[{i}] holds {show(v)}, a label this model never learned {allowed}; "
                               "nothing was unlearned")


# ---------------------------------------------------------------------------- updates
def count(model: Any, X: Any, sets: list[list[Any]], w: list[float] | None) -> LabelSetDelta:
    """The statistics of a learn request over its own labels (run by the request)."""
    _check_sets(model, sets, known=False, learn=True)
    stats, labels, empty = model.label_statistics(X, sets, w)
    weights = check_sample_weight(w, len(sets))
    n = len(sets)
    return LabelSetDelta(stats, labels, n, float(n if weights is None else weights.sum()), None,
                         empty_rows=empty, sets=sets)


def total(deltas: list[LabelSetDelta]) -> LabelSetDelta:
    """One update holding the sum of ``deltas`` (labels united, all-rows rows added)."""
    if len(deltas) == 1:
        return deltas[0]
    labels, stats = summed(deltas, extra=1)
    return LabelSetDelta(stats, labels, sum(d.rows for d in deltas), sum(d.weight for d in deltas), None,
                         empty_rows=any(d.empty_rows for d in deltas))


def apply_all(model: Any, deltas: list[Delta]) -> tuple[Any, LabelSetDelta]:
    """(the next version: a copy of ``model`` plus every one of ``deltas``, their sum)."""
    d = total([_as_labelset(x) for x in deltas])
    new = copy.copy(model)
    new.add_statistics(d.stats, d.classes, d.empty_rows)
    return new, d


def _as_labelset(d: Delta) -> LabelSetDelta:
    if not isinstance(d, LabelSetDelta):  # pragma: no cover - the service counts with count()
        raise TypeError("a multi-label model takes label-set updates")
    return d


def without_rows(work: Any, X: Any, sets: list[list[Any]], w: list[float] | None) -> tuple[Any, int, float]:
    """(``work`` without the rows (X, sets, w), rows, weight): a new model, equal to
    ``unlearn``; 422 for a label the model never learned, UnlearnError (422) for more weight
    than it learned."""
    _check_sets(work, sets, known=True, learn=False)
    new = copy.copy(work)
    new.unlearn(X, sets, sample_weight=w)
    weights = check_sample_weight(w, len(sets))
    return new, len(sets), float(len(sets) if weights is None else weights.sum())


# ---------------------------------------------------------------------------- the log
def body(d: LabelSetDelta) -> bytes:
    """The record body of ``d``."""
    return _codec.encode(d.classes, {**d.stats.to_arrays(), _EMPTY: np.array([1.0 if d.empty_rows else 0.0])})


def read_deltas(model: Any, bodies: list[Any], where: str = "an update log record") -> list[Delta]:
    """The updates of a log's record bodies, in order."""
    out: list[Delta] = []
    for b in bodies:
        classes, arrays = _codec.decode(b, where)
        empty = bool(np.asarray(arrays.pop(_EMPTY, np.zeros(1))).any())
        labels = label_array(list(classes)) if classes else np.empty(0, dtype=object)
        try:
            stats = type(model.estimator).statistics_from_arrays(arrays, model.n_features_in_)
        except (KeyError, ValueError, TypeError, IndexError, NotImplementedError) as exc:
            raise ModelFileError(f"{where}: the statistics do not fit this model ({type(exc).__name__}: {exc})") from None
        if len(stats.class_count) != len(labels) + 1:
            raise ModelFileError(f"{where}: a multi-label record has {len(stats.class_count)} class rows for "
                                 f"{len(labels)} labels (expected {len(labels) + 1})")
        out.append(LabelSetDelta(stats, labels, 0, 0.0, None, empty_rows=empty))
    return out


def replay(model: Any, bodies: list[Any], skip: int, where: str) -> Any:
    """``model`` plus the updates of the record ``bodies`` but the first ``skip``, summed and
    added once."""
    deltas = read_deltas(model, bodies, where)[skip:]
    if not deltas:
        return model
    return apply_all(model, deltas)[0]
