"""What a learn or unlearn request of ``nbayes serve --learn`` becomes before the writer
(:mod:`._learn`) adds it, and why one is refused: whether a model can learn online
(:func:`cannot`), its labels and weights checked against its items (:func:`labels_of`), a
learn request's statistics (:func:`counted`, run by the request), a model
without an unlearn's rows (:func:`without_rows`), and the 422 answers.

Whatever a client sends must stay servable by every later request, saved in the model file and
replayed from the log: every string of a body is valid Unicode (:func:`bad_string`: a lone
surrogate from a ``\\ud800`` escape is refused, as neither UTF-8 nor the JSON of answers can
hold it), and a label keeps the type of the model's classes (:func:`check_label`: an
integer-labelled model takes integers that its class array holds, never ``"3"`` nor ``true``;
a string label holds no NUL, which numpy's strings drop at the end)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from .._validation import check_sample_weight, check_y, encode_labels, show
from ..errors import NBayesError, UnlearnError
from ..io.info import json_value
from ..text.online import built
from . import _delta
from . import _labelsets as labelsets
from ._delta import Delta
from ._model import Problem

LEARN, UNLEARN = "learn", "unlearn"
#: a request for a snapshot now (``POST /v1/snapshot``), queued to the writer like an update
SNAPSHOT = "snapshot"


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
    elif "nb_logistic" in caps:
        extra = " (an NB-weighted logistic regression, nblr: weights fitted over all documents at once)"
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
    except UnlearnError as exc:  # the model names its columns (the statistics name words and values)
        raise (work.located(exc) if hasattr(work, "located") else exc) from None
    new = copy.copy(work)
    new.set_statistics(stats, work.classes_, work.n_features_in_, work.input_feature_names())
    return built(new), n, float(n if weights is None else weights.sum())


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


def labels_of(body: dict[str, Any], n: int, single: bool, sets: bool = False, classes: np.ndarray | None = None,
              max_text: int = 100_000) -> tuple[list[Any], list[float] | None]:
    """The labels (and weights) of a learn / unlearn request, checked against its items;
    ``sets``: a multi-label model's, one list of labels per item. With ``classes`` (the
    model's), each label is checked by :func:`check_label`."""
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
    if classes is not None:
        types = label_types(classes)
        for i, v in enumerate(raw):
            where = lk if single else f"{lk}[{i}]"
            for j, x in enumerate(v if sets else [v]):
                check_label(x, classes, f"{where}[{j}]" if sets else where, max_text, types)
    if wk not in body:
        return raw, None
    wraw = _per_item(body[wk], "weights", wk, single, n, "one number per item", "numbers",
                     lambda v: not isinstance(v, bool) and isinstance(v, int | float) and v >= 0, "a number >= 0")
    return raw, [float(v) for v in wraw]


# ---------------------------------------------------------------------------- what a model can hold
#: the types a label may take, by the kind of the model's class array
_KIND_TYPES: dict[str, tuple[type, ...]] = {"U": (str,), "S": (str,), "b": (bool,), "i": (int,), "u": (int,),
                                            "f": (int, float)}
_NAMES = {str: "strings", int: "integers", float: "numbers", bool: "booleans"}
#: the range of an integer label of a model whose classes are Python objects (what every reader
#: of the model file and of its answers holds: int64)
_INT64 = (-(2**63), 2**63 - 1)


def label_types(classes: np.ndarray) -> tuple[type, ...]:
    """The JSON types (as Python's) a label of a model with ``classes`` may take: the types of
    its classes (booleans are not integers, integers not strings)."""
    kind = classes.dtype.kind
    if kind in _KIND_TYPES:
        return _KIND_TYPES[kind]
    found: list[type] = []
    for c in classes.tolist():
        t = bool if isinstance(c, bool | np.bool_) else int if isinstance(c, int | np.integer) else \
            float if isinstance(c, float | np.floating) else str
        if t not in found:
            found.append(t)
    return tuple(found) or (str,)


def check_label(v: Any, classes: np.ndarray, where: str, max_text: int, types: tuple[type, ...] = ()) -> None:
    """422 unless the label ``v`` (parsed JSON) can join the model whose classes are ``classes``:
    one of its classes' types (:func:`label_types`), an integer within their integer type, a
    string of valid Unicode within ``max_text`` characters."""
    types = types or label_types(classes)
    t = type(v)
    if t not in types:
        kinds = " or ".join(_NAMES[x] for x in types)
        shown = [json_value(c) for c in classes.tolist()[:5]] + (["..."] if len(classes) > 5 else [])
        what = f"a number with a fraction or a decimal point ({v!r})" if t is float else \
            "an integer" if t is int else _kind(v)
        raise Problem(422, f"{where} is {what}, but the classes of this model are {kinds} {shown}: a label "
                           f"keeps the type of the model's classes")
    if t is int:
        lo, hi = (int(np.iinfo(classes.dtype).min), int(np.iinfo(classes.dtype).max)) \
            if classes.dtype.kind in "iu" else _INT64
        if not lo <= v <= hi:
            raise Problem(422, f"{where} is {str(v)[:30]}, beyond the integers this model's classes hold "
                               f"({lo} to {hi})")
    elif t is float and v != round(v):
        raise Problem(422, f"{where} is {v!r}: a class label is discrete (an integer value or a string)")
    elif t is str:
        bad = bad_string(v)
        if bad is not None:
            raise Problem(422, f"{where} {bad}")
        if "\x00" in v:
            raise Problem(422, f"{where} holds a NUL character (\\u0000) at character {v.index(chr(0))}: not allowed "
                               "in a label (numpy's strings drop a trailing NUL, so 'a\\u0000' would be class 'a')")
        if len(v) > max_text:
            raise Problem(422, f"{where} is {len(v):,} characters long; the limit is {max_text:,}")


def bad_string(s: str) -> str | None:
    """Why ``s`` cannot be a string of a request (a lone surrogate), or None."""
    if s.isascii():
        return None
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (f"holds a lone surrogate {s[exc.start]!a} at character {exc.start}: not a Unicode character "
                "(a \\ud800-\\udfff escape must be half of a pair), so no model file or answer can hold it")
    return None


def _clean(obj: Any) -> bool:
    """Whether every string of ``obj`` (parsed JSON, keys included) passes :func:`bad_string`
    (one walk without paths: the common case)."""
    todo = [obj]
    while todo:
        x = todo.pop()
        t = type(x)
        if t is str:
            if not (x.isascii() or _utf8(x)):
                return False
        elif t is dict:
            todo.extend(x.keys())
            todo.extend(x.values())
        elif t is list:
            todo.extend(x)
    return True


def _utf8(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def bad_strings(obj: Any) -> str | None:
    """The first string of ``obj`` (parsed JSON: keys and values) that :func:`bad_string`
    refuses, named by its path (``texts[3]``, ``rows[0].f``), with the reason; None if none."""
    if _clean(obj):
        return None
    todo: list[tuple[Any, str]] = [(obj, "the body")]
    while todo:
        x, path = todo.pop()
        if type(x) is str:
            bad = bad_string(x)
            if bad is not None:
                return f"{path} {bad}"
        elif type(x) is dict:
            for k, v in x.items():
                bad = bad_string(k)
                if bad is not None:
                    return f"the key {k!a} of {path} {bad}"
                todo.append((v, k if path == "the body" else f"{path}.{k}"))
        elif type(x) is list:
            todo.extend(reversed([(v, f"{path}[{i}]") for i, v in enumerate(x)]))
    return None


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
