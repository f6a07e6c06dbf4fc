"""Semi-supervised EM and within-class mixtures for any Naive Bayes model (Nigam, McCallum,
Thrun & Mitchell 2000, "Text classification from labeled and unlabeled documents using EM",
Machine Learning 39), written once against the models' statistics protocol.

:func:`fit_em` fits a model in place from labelled rows, unlabelled rows (``X_unlabeled``, and
rows of ``y`` equal to ``unlabeled_label``) and :class:`EMSettings`; it returns an
:class:`EMReport`. Two callers: ``model.fit(X, y, X_unlabeled=U)`` (the default settings) and the
wrapper :class:`nbayes.EM` (its own parameters), which lives in the bridge layer
(:mod:`nbayes.semi_supervised`) and is built on this module. The iterations are
:mod:`nbayes.naive_bayes._em_steps`.

Start from the model of the labelled rows and alternate

* E-step: the posterior of every unlabelled row, R[i, k] = P(k | u_i; theta), from the model's
  own joint log-likelihood normalised by log-sum-exp;
* M-step: statistics = labelled counts + lambda x expected counts (the unlabelled rows counted
  with weight lambda R[i, k] in class k; one sparse product R^T U for the count models), then
  the model's usual estimate of those statistics;

until the relative change of the MAP objective is at most ``tol`` (or ``max_iter`` M-steps).
With several components per class EM always runs (the components are fitted within each class
even without unlabelled rows), from a random start drawn from ``random_state``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import check_number, check_sample_weight, label_array, missing_mask, n_rows, show, take_rows
from ..errors import DataError, InvalidParameterError, ModelFileError, NBayesError
from ._chunks import is_chunk_stream, stream_chunks
from ._components import Components, check_components, is_mixture
from ._em_steps import CV_FOLDS, WEIGHT_GRID, choose_weight, label_codes, prepare_views, run_em, run_mixture_em

__all__ = ["OFF", "WEIGHT_GRID", "CV_FOLDS", "EM_ATTRS", "EMSettings", "EMReport", "fit_em", "is_off", "report_meta", "report_from_meta",
           "unlabeled_mask"]

#: the default ``unlabeled_label``: no row of ``y`` is unlabelled. It is never compared with the
#: labels, so a class named "off" is an ordinary class.
OFF = "off"
#: what an EM fit reports (on the model after ``model.fit(X, y, X_unlabeled=...)``, on the
#: wrapper after ``nbayes.EM(...).fit``); a plain ``fit`` removes them from the model
EM_ATTRS = ("n_iter_", "em_log_likelihood_", "em_converged_", "unlabeled_weight_", "em_cv_scores_",
            "n_unlabeled_")


def is_off(label: Any) -> bool:
    """Whether ``label`` is the ``OFF`` marker (a string, so a label 0 or False is never taken for it)."""
    return isinstance(label, str) and label == OFF


@dataclass(frozen=True)
class EMSettings:
    """EM's settings (the parameters of :class:`nbayes.EM`; the defaults are what
    ``model.fit(X, y, X_unlabeled=U)`` runs with)."""

    unlabeled_label: Any = OFF
    unlabeled_weight: float | str = "auto"
    max_iter: int = 100
    tol: float = 1e-4
    n_components: Any = 1
    n_init: int = 1
    random_state: int | None = 0

    def check(self) -> None:
        """Raise :class:`~nbayes.errors.InvalidParameterError` for a setting out of range."""
        lam = self.unlabeled_weight
        if not (isinstance(lam, str) and lam in ("cv", "auto")):
            if isinstance(lam, str):
                raise InvalidParameterError(
                    f"parameter 'unlabeled_weight' must be a number >= 0, 'auto' or 'cv', got {lam!r}"
                )
            check_number("unlabeled_weight", lam, low=0.0)
            if not np.isfinite(lam):
                raise InvalidParameterError(f"parameter 'unlabeled_weight' must be finite, got {lam!r}")
        check_number("max_iter", self.max_iter, low=0, integer=True)
        check_number("tol", self.tol, low=0.0)
        check_components(self.n_components, self.n_init, self.random_state)

    @property
    def mixture(self) -> bool:
        """Whether several mixture components are fitted per class (``n_components``)."""
        return is_mixture(self.n_components)


@dataclass
class EMReport:
    """What a run of EM reports (:data:`EM_ATTRS`)."""

    n_iter: int = 0
    log_likelihood: np.ndarray = field(default_factory=lambda: np.zeros(0))
    converged: bool = True
    unlabeled_weight: float = 0.0
    cv_scores: dict[float, float] | None = None
    n_unlabeled: int = 0

    def attributes(self) -> dict[str, Any]:
        """The report as the fitted attributes of :data:`EM_ATTRS`."""
        return dict(zip(EM_ATTRS, (self.n_iter, self.log_likelihood, self.converged, self.unlabeled_weight,
                                   self.cv_scores, self.n_unlabeled)))


def report_meta(model: Any) -> dict[str, Any] | None:
    """The EM report on ``model`` (:data:`EM_ATTRS`) as JSON for a model file's meta, or None
    when the model was not fitted by EM."""
    d = model.__dict__
    if "n_iter_" not in d:
        return None
    scores = d.get("em_cv_scores_")
    return {
        "n_iter": int(d["n_iter_"]),
        "converged": bool(d["em_converged_"]),
        "unlabeled_weight": float(d["unlabeled_weight_"]),
        "n_unlabeled": int(d["n_unlabeled_"]),
        "log_likelihood": [float(v) for v in np.asarray(d["em_log_likelihood_"], dtype=float).ravel()],
        "cv_scores": None if scores is None else [[float(w), float(v)] for w, v in scores.items()],
    }


def report_from_meta(meta: Any) -> dict[str, Any]:
    """The fitted attributes of :data:`EM_ATTRS` from :func:`report_meta`'s JSON, checked (a
    model file's numbers are data: ModelFileError names the bad field)."""
    def bad(field: str, want: str) -> ModelFileError:
        return ModelFileError(f"meta 'em': field {field!r} must be {want}, got {meta.get(field)!r}")

    if not isinstance(meta, dict):
        raise ModelFileError(f"meta 'em' must be an object, got {meta!r}")
    n_iter: Any = meta.get("n_iter")
    n_unl: Any = meta.get("n_unlabeled")
    for field, v in (("n_iter", n_iter), ("n_unlabeled", n_unl)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise bad(field, "an integer >= 0")
    if not isinstance(meta.get("converged"), bool):
        raise bad("converged", "true or false")
    weight = meta.get("unlabeled_weight")
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not 0 <= weight < float("inf"):
        raise bad("unlabeled_weight", "a finite number >= 0")
    trace = meta.get("log_likelihood")
    if not isinstance(trace, list) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) and np.isfinite(v) for v in trace
    ):
        raise bad("log_likelihood", "a list of finite numbers")
    scores = meta.get("cv_scores")
    if scores is not None and not (
        isinstance(scores, list)
        and all(isinstance(p, list) and len(p) == 2 and all(isinstance(v, int | float) for v in p) for p in scores)
    ):
        raise bad("cv_scores", "null or a list of [weight, score] pairs")
    report = EMReport(int(n_iter), np.asarray(trace, dtype=float), meta["converged"], float(weight),
                      None if scores is None else {float(w): float(v) for w, v in scores}, int(n_unl))
    return report.attributes()


# ---------------------------------------------------------------------------- the entry point
def fit_em(model: Any, X: Any, y: Any, sample_weight: Any, X_unlabeled: Any, settings: EMSettings) -> EMReport:
    """Fit ``model`` by EM on (X, y[, sample_weight]) and ``X_unlabeled`` with ``settings``; the
    model becomes the EM-completed model. It is changed only when everything succeeded (the
    caller holds the transaction)."""
    name = type(model).__name__
    model.check_params()
    settings.check()
    caps: frozenset[str] = getattr(model, "capabilities", frozenset())
    mixture = settings.mixture
    if mixture and "mixture" not in caps:
        raise InvalidParameterError(
            f"n_components={settings.n_components!r} (several mixture components per class) needs a "
            f"model whose capabilities hold 'mixture' (MultinomialNB, BernoulliNB, TextClassifier "
            f"with model='multinomial' or 'bernoulli' without tfidf); {model!r} has none"
        )
    getattr(model, "_check_em", lambda: None)()
    if "unlabeled" not in caps:
        raise InvalidParameterError(
            f"{name} does not learn from unlabelled rows (X_unlabeled): semi-supervised EM needs a "
            "model whose capabilities hold 'unlabeled' (MultinomialNB, BernoulliNB, CategoricalNB, "
            "NaiveBayes, TextClassifier with model='multinomial' or 'bernoulli')"
        )
    # the labelled start is the ordinary model (its classes, vocabulary, corpus statistics); the
    # components are laid out when EM starts
    work = type(model)(**model.get_params())
    label = settings.unlabeled_label
    raw_unlabeled: list[tuple[Any, np.ndarray | None, str]] = []
    raw_labelled: list[tuple[Any, Any, np.ndarray | None]] = []
    streamed = y is None and is_chunk_stream(X)
    lam: Any = settings.unlabeled_weight
    if isinstance(lam, str) and lam == "auto":  # cross-validated when the labelled rows are at hand
        lam = 1.0 if streamed else "cv"
    if streamed:
        if isinstance(lam, str):
            raise InvalidParameterError(
                "unlabeled_weight='cv' needs the labelled rows in memory to cross-validate: pass X "
                "and y as arrays (a stream of chunks is read once)"
            )
        _read_stream(work, X, label, raw_labelled, raw_unlabeled)
    else:
        Xl, yl, wl, unl = _split(X, y, sample_weight, label, "text" in model.capabilities)
        if unl is not None:
            raw_unlabeled.append((unl[0], unl[1], "X"))
        work._fit_supervised(Xl, yl, wl)
        raw_labelled.append((Xl, yl, wl))
    if X_unlabeled is not None:
        raw_unlabeled.extend(_unlabeled_parts(X_unlabeled))
    parts = []
    for raw, wu, who in raw_unlabeled:
        if n_rows(raw) == 0:
            continue
        try:
            Xv, _ = work.prepare_input(raw, fitting=False)
        except NBayesError as exc:
            raise _renamed(exc, who) from None
        parts.append((Xv, wu))
    n_unlabeled = sum(int(Xv.shape[0]) for Xv, _ in parts)
    cv_scores = None
    spec = settings.n_components if mixture else 1
    max_iter, tol, n_init = int(settings.max_iter), float(settings.tol), int(settings.n_init)
    if mixture:
        Components.of(spec, n_classes=len(work.classes_))  # one entry per class
    if isinstance(lam, str):
        lam, cv_scores = (choose_weight(work, raw_labelled[0], parts, spec, settings.random_state, max_iter, tol,
                                        n_init) if parts else (0.0, None))
    lam = float(lam)
    trace: list[float] = []
    n_iter, converged = 0, True
    if mixture or (parts and lam > 0):
        labelled = [(work.prepare_input(Xl, fitting=False)[0], label_codes(work, yl), wl) for Xl, yl, wl in raw_labelled]
        lab, unl, _ = prepare_views(work, labelled, parts if lam > 0 else [])
        if mixture:
            n_iter, converged, trace = run_mixture_em(work, spec, settings.random_state, lab, unl, lam, max_iter,
                                                      tol, n_init)
        else:
            n_iter, converged, trace = run_em(work, work.stats_, lab, unl, lam, max_iter, tol)
    model.__dict__.clear()
    model.__dict__.update(work.__dict__)
    return EMReport(n_iter, np.asarray(trace, dtype=np.float64), converged, lam, cv_scores, n_unlabeled)


# ---------------------------------------------------------------------------- input
def unlabeled_mask(y: Any, label: Any) -> np.ndarray:
    """Rows of ``y`` equal to ``label`` (``None``: the missing labels, None / NaN / NA)."""
    arr = label_array(y)
    if label is None:
        return missing_mask(arr)
    if arr.dtype.kind == "O":
        return np.fromiter((_same(v, label) for v in arr.tolist()), dtype=bool, count=len(arr))
    numeric_label = isinstance(label, int | float | np.integer | np.floating) and not isinstance(label, bool)
    if arr.dtype.kind in "iuf" and numeric_label:
        return np.asarray(arr == label, dtype=bool)
    if arr.dtype.kind in "US" and isinstance(label, str):
        return np.asarray(arr == label, dtype=bool)
    if arr.dtype.kind == "b" and isinstance(label, bool | np.bool_):
        return np.asarray(arr == label, dtype=bool)
    return np.zeros(len(arr), dtype=bool)


def _same(v: Any, label: Any) -> bool:
    if isinstance(v, bool | np.bool_) != isinstance(label, bool | np.bool_):
        return False  # True is not the label 1
    try:
        return bool(v == label)
    except (TypeError, ValueError):
        return False


def _split(X: Any, y: Any, sample_weight: Any, label: Any, text: bool = True) -> tuple[Any, Any, Any, Any]:
    """(labelled X, y, w, (unlabelled X, w) or None): the rows whose label is ``label`` apart
    (``text``: X may be an iterator of documents; a table model's reader refuses one)."""
    if isinstance(X, Iterator) and text:
        X = list(X)  # a one-shot iterable of documents: read it once (EM reads X more than once)
    if is_off(label):
        return X, y, sample_weight, None
    arr = label_array(y)
    n = n_rows(X)
    if len(arr) != n:
        raise DataError(f"y has {len(arr)} labels but X has {n} rows; they must match")
    mask = unlabeled_mask(arr, label)
    if not mask.any():
        return X, y, sample_weight, None
    if mask.all():
        raise DataError(
            f"y: every row has the unlabeled_label {show(label)}; EM needs labelled rows (at least "
            "one per class to learn) to start from"
        )
    w = check_sample_weight(sample_weight, n)
    lab, unl = np.flatnonzero(~mask), np.flatnonzero(mask)
    wl = None if w is None else w[lab]
    wu = None if w is None else w[unl]
    return take_rows(X, lab), arr[lab], wl, (take_rows(X, unl), wu)


def _read_stream(
    work: Any,
    chunks: Any,
    label: Any,
    labelled: list[tuple[Any, Any, np.ndarray | None]],
    unlabeled: list[tuple[Any, np.ndarray | None, str]],
) -> None:
    """A stream of (X_i, y_i[, w_i]) chunks, read once: labelled rows counted as they come (and
    kept for the objective), unlabelled rows kept for EM."""
    for i, X, y, w in stream_chunks(chunks):
        try:
            Xl, yl, wl, unl = _split(X, y, w, label, "text" in work.capabilities)
        except DataError as exc:
            if "every row has the unlabeled_label" not in str(exc):
                raise type(exc)(f"chunk {i} of the stream: {exc}") from None
            Xl, yl, wl, unl = None, None, None, (X, None if w is None else check_sample_weight(w, n_rows(X)))
        if unl is not None:
            unlabeled.append((unl[0], unl[1], f"chunk {i} of the stream: X"))
        if Xl is None:
            continue
        try:
            work.partial_fit(Xl, yl, sample_weight=wl)
        except NBayesError as exc:
            raise type(exc)(f"chunk {i} of the stream: {exc}") from None
        labelled.append((Xl, yl, wl))
    if not labelled:
        raise DataError(
            f"every row of the stream has the unlabeled_label {show(label)}; EM needs labelled "
            "rows to start from"
        )


def _unlabeled_parts(X_unlabeled: Any) -> list[tuple[Any, None, str]]:
    """X_unlabeled: one batch of rows, or an iterator of batches (read once, held in memory)."""
    if not is_chunk_stream(X_unlabeled):
        return [(X_unlabeled, None, "X_unlabeled")]
    out = []
    for i, chunk in enumerate(X_unlabeled):
        if isinstance(chunk, str | bytes | tuple):
            raise DataError(
                f"X_unlabeled: chunk {i} is a {type(chunk).__name__}; an iterator passed as "
                "X_unlabeled yields batches of rows (arrays, frames, lists of documents), not "
                "single documents or (X, y) pairs; pass a list for one batch"
            )
        out.append((chunk, None, f"X_unlabeled: chunk {i}: X"))
    return out


def _renamed(exc: NBayesError, who: str) -> NBayesError:
    """An error about prepared rows, naming where they came from (X_unlabeled, a chunk)."""
    msg = str(exc)
    if who == "X":
        return exc
    if msg.startswith("X:") or msg.startswith("X "):
        msg = who + msg[1:]
    else:
        msg = f"{who}: {msg}"
    return type(exc)(msg)
