"""Laws of the kinds of input: every entry point that takes X refuses every kind of input the
model does not take, with a clear error, and reads the kinds it takes as the canonical one.

A text model takes documents (a 1-D sequence of str); every other model a table (rows x
features). :func:`wrong_kinds` lists, for a dataset, the inputs of other kinds: frames (pandas,
polars; of several columns, and of one where documents are expected), 2-D arrays and nested
lists where documents are expected, documents or a 1-D Series where a table is expected,
mappings, records, sets, lone values (a string, bytes, a number, None), generators of the
wrong things and ragged rows. :func:`same_kinds` lists the other spellings of the canonical
input (a tuple, an array, a Series with another index, an Arrow-backed column, a generator of
documents; a list of rows, a polars frame) that must give the same answers.

>>> import nbayes
>>> from nbayes.testing.data import make_text
>>> from nbayes.testing.laws_kinds import law_wrong_input_kinds
>>> law_wrong_input_kinds(nbayes.TextClassifier(), make_text(seed=0, n_rows=12))
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Callable, Iterator

import numpy as np

from ..errors import NBayesError
from ._compare import LawError, clone
from .data import Dataset

#: the public methods that take X (``explain`` of a text model takes one document)
#: (``partial_fit+``: a later chunk, without ``classes``, to a fitted model)
ENTRY_POINTS = ("fit", "partial_fit", "partial_fit+", "unlearn", "predict", "predict_proba", "predict_log_proba",
                "predict_joint_log_proba", "decision_function", "explain", "score", "estimate_prior")
#: words a refusal must hold: what was expected
_EXPECTED = re.compile(r"expect|takes|must be|pass ", re.IGNORECASE)

#: (name, a maker of the input from the dataset, a pattern the message must match: what was given)
Kind = tuple[str, Callable[[Dataset], Any], str]


def _optional(module: str) -> Any:
    try:
        return __import__(module)
    except ImportError:  # pragma: no cover - pandas and polars are in the test extra
        return None


def _docs(data: Dataset) -> list[str]:
    return list(data.X)


def _array(data: Dataset) -> np.ndarray:
    X = data.X
    return np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=object)


def _common() -> list[Kind]:
    return [
        ("dict of columns", lambda d: {"a": list(range(d.n_rows))}, r"dict|mapping"),
        ("list of records", lambda d: [{"a": i} for i in range(d.n_rows)], r"dict|record|mapping"),
        ("generator of records", lambda d: ({"a": i} for i in range(d.n_rows)), r"dict|generator|iterator"),
        ("single str", lambda d: "cheap pills now", r"\bstr|string"),
        ("single bytes", lambda d: b"cheap pills now", r"bytes"),
        ("single number", lambda d: 3.5, r"float|number"),
        ("None", lambda d: None, r"None"),
    ]


def wrong_kinds(data: Dataset) -> list[Kind]:
    """The inputs of kinds a model of ``data``'s kind does not take (those of the installed
    frame libraries)."""
    pd, pl = _optional("pandas"), _optional("polars")
    kinds = _common()
    if data.kind == "text":
        kinds += [
            ("2-D array of documents", lambda d: np.array(_docs(d), dtype=object).reshape(-1, 1), r"2-D"),
            ("list of one-document lists", lambda d: [[t] for t in _docs(d)], r"list|2-D"),
            ("ragged nested lists", lambda d: [[t] * (1 + i % 2) for i, t in enumerate(_docs(d))], r"list|2-D"),
            ("array of numbers", lambda d: np.arange(d.n_rows, dtype=float), r"float|number"),
            ("generator of numbers", lambda d: (float(i) for i in range(d.n_rows)), r"float|number|generator"),
            ("set of documents", lambda d: set(_docs(d)), r"\bset\b"),
        ]
        if pd is not None:
            kinds += [
                ("pandas frame of two columns", lambda d: pd.DataFrame({"text": _docs(d), "other": _docs(d)}),
                 r"DataFrame"),
                ("pandas frame of one column", lambda d: pd.DataFrame({"text": _docs(d)}), r"DataFrame"),
            ]
        if pl is not None:
            kinds += [
                ("polars frame of two columns", lambda d: pl.DataFrame({"text": _docs(d), "other": _docs(d)}),
                 r"DataFrame"),
                ("polars frame of one column", lambda d: pl.DataFrame({"text": _docs(d)}), r"DataFrame"),
            ]
        return kinds
    kinds += [
        ("documents", lambda d: ["cheap pills now"] * d.n_rows, r"\bstr|string|1-D"),
        ("generator of rows", lambda d: (list(r) for r in _array(d)), r"generator|iterator"),
        ("set of rows", lambda d: {tuple(r) for r in _array(d).tolist()}, r"\bset\b"),
        ("ragged rows", lambda d: [list(r)[: len(r) - i % 2] for i, r in enumerate(_array(d).tolist())],
         r"row|ragged|inhomogeneous"),
        ("3-D array", lambda d: np.zeros((d.n_rows, 2, 2)), r"3-D"),
        ("1-D array", lambda d: np.arange(d.n_rows, dtype=float), r"1-D"),
        ("one column as a flat list", lambda d: _array(d)[:, 0].tolist(), r"1-D|row 0"),
    ]
    if pd is not None:
        kinds.append(("pandas Series", lambda d: pd.Series(_array(d)[:, 0].tolist()), r"Series|1-D"))
    if pl is not None:
        kinds.append(("polars Series", lambda d: pl.Series("a", [str(v) for v in _array(d)[:, 0]]),
                      r"Series|1-D"))
    return kinds


def same_kinds(data: Dataset) -> list[tuple[str, Callable[[Dataset], Any]]]:
    """Other spellings of ``data.X`` that a model of its kind takes as ``data.X`` itself."""
    pd, pl = _optional("pandas"), _optional("polars")
    if data.kind == "text":
        out: list[tuple[str, Callable[[Dataset], Any]]] = [
            ("tuple", lambda d: tuple(_docs(d))),
            ("object array", lambda d: np.array(_docs(d), dtype=object)),
            ("str array", lambda d: np.array(_docs(d), dtype=str)),
            ("generator of documents", lambda d: (t for t in _docs(d))),
        ]
        if pd is not None:  # documents are read in order, whatever the index says
            out.append(("pandas Series, index reversed",
                        lambda d: pd.Series(_docs(d), index=np.arange(d.n_rows)[::-1])))
        if pl is not None:
            out.append(("polars Series", lambda d: pl.Series("text", _docs(d))))
        return out
    if hasattr(data.X, "iloc"):
        return [("polars frame", lambda d: pl.from_pandas(d.X))] if pl is not None else []
    return [("list of rows", lambda d: np.asarray(d.X).tolist())]


def _labels(estimator: Any, data: Dataset) -> Any:
    """``data.y``, as label sets for a multi-label model."""
    if "label_sets" in getattr(estimator, "capabilities", frozenset()):
        return [[v] for v in data.y.tolist()]
    return data.y


def _call(model: Any, entry: str, X: Any, y: Any, data: Dataset) -> Any:
    if entry == "fit":
        return model.fit(X, y)
    if entry == "partial_fit":
        return model.partial_fit(X, y, classes=data.classes) if "label_sets" not in model.capabilities \
            else model.partial_fit(X, y)
    if entry == "partial_fit+":
        return model.partial_fit(X, y)
    if entry in ("unlearn", "score"):
        return getattr(model, entry)(X, y)
    return getattr(model, entry)(X)


def _canonical(entry: str, data: Dataset) -> Any:
    """The canonical X of ``entry``: a text model's explain takes one document."""
    if entry == "explain" and data.kind == "text":
        return _docs(data)[2]
    return data.X


def _answers(estimator: Any, data: Dataset) -> Iterator[tuple[str, Any, Any]]:
    """``(entry, fitted model, canonical answer)`` for each entry point the estimator has and
    takes the canonical input at (one its settings refuse, such as ``partial_fit`` of a
    multi-pass model, is left out)."""
    y = _labels(estimator, data)
    fitted = clone(estimator).fit(data.X, y)
    for entry in ENTRY_POINTS:
        if not callable(getattr(estimator, entry.rstrip("+"), None)):
            continue
        model = clone(estimator) if entry in ("fit", "partial_fit") else fitted
        if entry in ("unlearn", "partial_fit+"):
            model = clone(estimator).fit(data.X, y)
        try:
            answer = _call(model, entry, _canonical(entry, data), y, data)
        except NBayesError:
            continue
        yield entry, (fitted if entry not in ("unlearn", "partial_fit+") else clone(estimator).fit(data.X, y)), answer


def law_wrong_input_kinds(estimator: Any, data: Dataset) -> None:
    """Every entry point refuses every input of a kind the model does not take with an
    :class:`~nbayes.errors.NBayesError` (a ``ValueError``) whose message says what was
    expected and names what was given: never an answer, never another exception; the fitted
    model it was given to is unchanged."""
    y = _labels(estimator, data)
    kinds = wrong_kinds(data)
    if data.kind == "text":
        explain_kinds = [("list of documents", _docs, r"list"), *[k for k in kinds if k[0] in (
            "dict of columns", "single number", "None", "set of documents", "pandas frame of one column")]]
    for entry, fitted, _ in _answers(estimator, data):
        before = fitted.predict_proba(data.X)
        for name, make, given in (explain_kinds if entry == "explain" and data.kind == "text" else kinds):
            model = clone(estimator) if entry in ("fit", "partial_fit") else fitted
            try:
                _call(model, entry, make(data), y, data)
            except NBayesError as exc:
                message = str(exc)
                if not _EXPECTED.search(message) or not re.search(given, message):
                    raise LawError(f"{entry}({name}): the refusal does not say what was expected and what was "
                                   f"given (/{given}/): {message!r}") from None
                continue
            except Exception as exc:
                raise LawError(f"{entry}({name}) raised {type(exc).__name__}: {exc}; expected an nbayes "
                               "DataError saying what the model takes") from None
            raise LawError(f"{entry}({name}) was accepted: a {data.kind} model read an input of another kind")
        if not np.array_equal(fitted.predict_proba(data.X), before):
            raise LawError(f"{entry}: a refused input of another kind changed the fitted model")


def _numbers(answer: Any) -> np.ndarray:
    """What an answer says, as an array: labels, probabilities, a score, an estimated prior (a
    mapping), an explanation's contributions."""
    if isinstance(answer, Mapping):  # an estimated prior; a multi-label model's explanations
        parts = [_numbers(v).ravel() for v in answer.values()]
        return np.concatenate(parts) if parts else np.zeros(0)
    if hasattr(answer, "explanation"):
        return _numbers(answer.explanation)
    if hasattr(answer, "contributions"):
        return np.asarray(answer.contributions)
    return np.asarray(answer)


def law_accepted_input_kinds(estimator: Any, data: Dataset) -> None:
    """The other spellings of the canonical input give the canonical answer at every entry
    point (fit: the same probabilities after), bit for bit."""
    y = _labels(estimator, data)
    for entry, fitted, answer in _answers(estimator, data):
        if entry == "explain" and data.kind == "text":
            continue  # one document: no other spelling
        for name, make in same_kinds(data):
            model = clone(estimator) if entry in ("fit", "partial_fit") else fitted
            if entry in ("unlearn", "partial_fit+"):
                model = clone(estimator).fit(data.X, y)
            try:
                got = _call(model, entry, make(data), y, data)
            except NBayesError as exc:  # a model that reads X more than once (folds) cannot take a generator
                if "generator" in name and re.search(r"generator|iterator", str(exc)) and _EXPECTED.search(str(exc)):
                    continue
                raise LawError(f"{entry}({name}) refused an input of the kind the model takes: {exc}") from None
            if entry in ("fit", "partial_fit", "partial_fit+", "unlearn"):
                start = clone(estimator) if entry in ("fit", "partial_fit") else clone(estimator).fit(data.X, y)
                ref = _call(start, entry, data.X, y, data)
                got, answer = got.predict_proba(data.X), ref.predict_proba(data.X)
            if not np.array_equal(_numbers(answer), _numbers(got)):
                raise LawError(f"{entry}({name}) answers otherwise than {entry} of the canonical input")
