"""The served model: loading (and reloading) a model file, turning JSON into the model's input,
and predictions and explanations back into JSON. Nothing here imports the web framework.

Every problem with a request raises :class:`Problem` (an HTTP status and a message); the app
turns it into a JSON error. Input is checked here, field by field, before the model sees it, so
messages name the field, the row and what was expected.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
import warnings
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from ..errors import NBayesError, StaleModelWarning
from ..io.info import json_value, model_info
from ..io.load import load_with_state
from ..text.online import built
from ._features import FLOAT_MAX, INT_MAX, KIND_NAMES, MAX_CATEGORIES, table_features

__all__ = ["FLOAT_MAX", "INT_MAX", "KIND_NAMES", "MAX_CATEGORIES", "Limits", "Loaded", "ModelHolder", "Problem",
           "load_model", "table_features"]

log = logging.getLogger("nbayes.serve")


class Problem(Exception):
    """A request the service cannot answer: an HTTP status and a message for the client."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers


@dataclass(frozen=True)
class Limits:
    max_body: int = 1_000_000
    max_batch: int = 1000
    max_text: int = 100_000


# ---------------------------------------------------------------------------- plain values
#: a JSON-ready Python value: numpy scalars unwrapped; inf and NaN as the strings ``"Infinity"``,
#: ``"-Infinity"`` and ``"NaN"`` (JavaScript's ``Number()`` reads them)
plain = json_value


def plain_floats(a: np.ndarray) -> list[Any]:
    values = a.tolist()
    if np.isfinite(a).all():
        result: list[Any] = values
        return result
    return [plain(v) for v in values]


# ---------------------------------------------------------------------------- the loaded model
@dataclass
class Loaded:
    """One loaded model file and what the service derives from it once."""

    path: str
    model: Any
    cli: dict[str, Any]
    state_meta: dict[str, Any]
    header: dict[str, Any]
    signature: tuple[int, int, int] | None
    loaded_at: float
    about: dict[str, Any] = field(default_factory=dict)  # nbayes.io.info.model_info of the file
    kind: str = ""  # "text" or "table"
    classes: list[Any] = field(default_factory=list)
    class_keys: list[str] = field(default_factory=list)
    features: list[dict[str, Any]] = field(default_factory=list)
    version: int = 0  # the model's version under ``--learn`` (0: the file as written)
    multilabel: bool = False  # a MultiLabel: label sets (:mod:`._multilabel` answers it)

    def __post_init__(self) -> None:
        m = self.model
        # a calibrated model: its base model decides the input and explains; the map predicts.
        # A multi-label table model: its base model over the label rows describes the input (a
        # text one reads documents: no need to estimate that model for every learned version)
        self.multilabel = "label_sets" in m.capabilities
        if self.multilabel:
            self.base = m if m.input_kind == "text" else m.base_model_
        else:
            self.base = getattr(m, "base_estimator_", m)
        #: what a request holds: documents, or rows of named values (a table or a matrix model)
        self.input_kind = m.input_kind
        self.kind = "text" if self.input_kind == "text" else "table"
        self.classes = [plain(c) for c in m.classes_.tolist()]
        self.class_keys = [str(c) for c in self.classes]
        if self.kind == "table":
            self.features = table_features(self.base, self.cli)
        self.input_feature_names = [f["name"] for f in self.features]
        self._index = {n: j for j, n in enumerate(self.input_feature_names)}

    # ------------------------------------------------------------------ metadata
    def info(self) -> dict[str, Any]:
        """What ``nbayes info --json`` prints (the same function), plus the input the service
        takes."""
        out = {**self.about, "input": self.kind, "loaded_at": _iso(self.loaded_at)}
        if self.kind == "table":
            out["feature_schema"] = self.features
        return out

    # ------------------------------------------------------------------ requests
    def texts(self, body: dict[str, Any], limits: Limits, *, batch: bool) -> tuple[list[str], bool]:
        """The documents of a text request and whether it was a single one."""
        _only(body, ("text", "texts") if batch else ("text",), self, batch)
        if "text" in body:
            return [_text("text", body["text"], limits)], True
        items = body["texts"]
        if not isinstance(items, list):
            raise Problem(422, f"'texts' must be an array of strings, got {_what(items)}")
        _batch_size("texts", len(items), limits)
        return [_text(f"texts[{i}]", t, limits) for i, t in enumerate(items)], False

    def rows(self, body: dict[str, Any], limits: Limits, *, batch: bool) -> tuple[list[list[Any]], bool]:
        """The rows of a table request (values in feature order) and whether it was one row."""
        _only(body, ("row", "rows") if batch else ("row",), self, batch)
        if "row" in body:
            return [self._row("row", body["row"], limits)], True
        items = body["rows"]
        if not isinstance(items, list):
            raise Problem(422, f"'rows' must be an array of objects (feature -> value), got {_what(items)}")
        _batch_size("rows", len(items), limits)
        return [self._row(f"rows[{i}]", r, limits) for i, r in enumerate(items)], False

    def _row(self, where: str, row: Any, limits: Limits) -> list[Any]:
        d = len(self.features)
        if isinstance(row, list):
            if len(row) != d:
                raise Problem(422, f"{where}: an array row needs {d} values, in feature order {self.input_feature_names}; got {len(row)}")
            values = list(row)
        elif isinstance(row, dict):
            unknown = [k for k in row if k not in self._index]
            if unknown:
                raise Problem(422, f"{where}: unknown feature {unknown[0]!r}; the model's features are {self.input_feature_names}")
            values = [row.get(n) for n in self.input_feature_names]
        else:
            raise Problem(422, f"{where} must be an object (feature -> value), got {_what(row)}")
        for f, v in zip(self.features, values):
            _check_value(f"{where}.{f['name']}", f, v, limits)
        if "missing_values" not in self.base.capabilities:
            absent = [f["name"] for f, v in zip(self.features, values) if v is None]
            if absent:
                raise Problem(
                    422,
                    f"{where}: no value for feature {absent[0]!r}; a {type(self.base).__name__} needs "
                    "every feature (only Naive Bayes models leave missing ones out)",
                )
        return values

    def matrix(self, rows: list[list[Any]]) -> Any:
        """The model's input for checked rows."""
        if self.input_kind == "table":
            X = np.empty((len(rows), len(self.features)), dtype=object)
            for i, r in enumerate(rows):
                X[i, :] = r
            return X
        return np.array(
            [[np.nan if v is None else float(v) for v in r] for r in rows], dtype=np.float64
        ).reshape(len(rows), len(self.features))

    # ------------------------------------------------------------------ answers
    def predict(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """(indices of the predicted classes, probabilities) with one pass over the input; an
        item whose values overflow the model's arithmetic (|x| near the float limit in a linear
        model) is refused (422), never answered with NaN."""
        with np.errstate(over="ignore", invalid="ignore"):
            # the public path a Python user takes: predict's choice and predict_proba, from one
            # pass over the input where the model can (a generative model: one compiled pass)
            best, P = self.model.predict_index_proba(X)
        if not np.isfinite(P).all():
            finite = np.isfinite(P).all(axis=1)
            raise Problem(422, f"item {int(np.argmin(finite))}: its values are too large for the model's "
                               "arithmetic (the probabilities overflow)")
        return best, P

    def prediction(self, k: int, p: np.ndarray) -> dict[str, Any]:
        return {"label": self.classes[k], "probabilities": dict(zip(self.class_keys, plain_floats(p)))}

    def explain_text(self, text: str) -> dict[str, Any]:
        m = self.base  # a calibrated model is explained by its base model (uncalibrated log-odds)
        e = m.explain(text)
        contrib = np.asarray(e.contributions, dtype=np.float64)
        jll = m.predict_joint_log_proba([text])[0]
        a, b = self.classes.index(plain(e.predicted)), self.classes.index(plain(e.runner_up))
        return {
            "label": plain(e.predicted),
            "runner_up": plain(e.runner_up),
            "log_odds": plain(_difference(jll[a], jll[b])),
            "baseline": plain(float(e.baseline)),
            "tokens": [
                {"token": t, "start": int(s), "end": int(end), "contribution": plain(float(c))}
                for t, (s, end), c in zip(e.tokens, e.spans, contrib.tolist())
            ],
        }

    def explain_row(self, values: list[Any]) -> dict[str, Any]:
        m = self.base  # a calibrated model is explained by its base model (uncalibrated log-odds)
        if "explain" not in m.capabilities:
            raise Problem(422, f"a {type(m).__name__} has no additive explanation; /v1/predict answers it")
        X = self.matrix([values])
        with np.errstate(over="ignore", invalid="ignore"):
            ex = m.explain(X)
            if overflowed(ex, "joint_log_proba" in m.capabilities):
                raise Problem(422, "the row's values are too large for the model's arithmetic (the log-odds overflow)")
            pred, runner, terms, base = ex.log_odds(0)
            joint = ex.joint()[0]
        a, b = self.classes.index(plain(pred)), self.classes.index(plain(runner))
        log_odds = _difference(joint[a], joint[b])
        names = list(ex.feature_names) if m.input_feature_names() is not None else list(self.input_feature_names)
        bins = ex.bins[0] if getattr(ex, "bins", None) else [None] * len(names)
        return {
            "label": plain(pred),
            "runner_up": plain(runner),
            "log_odds": plain(log_odds),
            "baseline": plain(float(base)),
            "features": [
                {"feature": str(n), "value": v, **({"bin": b} if b is not None else {}), "contribution": plain(float(t))}
                for n, v, t, b in zip(names, values, np.asarray(terms, dtype=float).tolist(), bins)
            ],
        }


def load_model(path: str, signature: tuple[int, int, int] | None = None, replay: bool | None = False) -> Loaded:
    """Read, verify and build the model in ``path`` (a :class:`ModelFileError` if it is bad).
    ``replay``: the updates of a log beside the file that it lacks are a warning in the log
    (False), added (True) or not looked for (None: a learning service replays them itself)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", StaleModelWarning)
        model, state = load_with_state(path, replay=replay)
    for w in caught:
        log.warning("nbayes serve: %s", w.message)
    built(model)  # what its first prediction would build (frequent terms' rows, n-grams' parts), now
    header = {"format_version": state.get("format_version"), "nbayes_version": state.get("nbayes_version"), "kind": state.get("kind")}
    meta = state.get("meta") or {}
    return Loaded(os.fspath(path), model, dict(meta.get("cli") or {}), meta, header, signature, time.time(),
                  model_info(model, state, path))


def file_signature(path: str) -> tuple[int, int, int]:
    st = os.stat(path)
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class ModelHolder:
    """The model being served, swapped whole when the file changes (or on demand). A file that
    fails to load (missing, truncated, corrupted) keeps the previous model serving; the failure
    is logged once per version of the file and reported by :attr:`status`."""

    def __init__(self, path: str, freeze_gc: bool = False, replay: bool | None = False) -> None:
        self.path = os.fspath(path)
        self.freeze_gc = freeze_gc
        self.replay = replay  # the log beside the file (:func:`load_model`)
        sig = _signature_or_none(self.path)
        self.current: Loaded = load_model(self.path, sig, replay)  # a bad file at start is an error
        if freeze_gc:
            _settle()
        self.error: dict[str, Any] | None = None
        self.reloads = 0
        self.failures = 0
        self._failed: tuple[int, int, int] | None = None
        self._lock = threading.Lock()

    def changed(self) -> bool:
        """Whether the file on disk differs from the one served (and from the last bad one)."""
        try:
            sig = file_signature(self.path)
        except OSError:
            return self._failed != (0, 0, 0)
        return sig != self.current.signature and sig != self._failed

    def reload(self, force: bool = False) -> bool:
        """Load the file again if it changed (always with ``force``); True if a new model now
        serves. Thread-safe; loads outside the event loop when called from a thread."""
        with self._lock:
            try:
                sig = file_signature(self.path)
            except OSError as exc:
                self._fail((0, 0, 0), f"{self.path}: cannot read ({exc.strerror or exc})")
                return False
            if not force and (sig == self.current.signature or sig == self._failed):
                return False
            try:
                new = load_model(self.path, sig, self.replay)
            except (NBayesError, OSError, MemoryError) as exc:
                self._fail(sig, str(exc))
                return False
            except Exception as exc:  # noqa: BLE001 - a bad file must never stop the service
                self._fail(sig, f"{type(exc).__name__}: {exc}")
                return False
            self.current = new
            self.error = None
            self._failed = None
            self.reloads += 1
            log.info("nbayes serve: reloaded %s (%s, %d classes)", self.path, type(new.model).__name__, len(new.classes))
            del new
            if self.freeze_gc:
                _settle()
            return True

    def _fail(self, sig: tuple[int, int, int], message: str) -> None:
        if sig != self._failed or self.error is None:
            log.error("nbayes serve: the new model file cannot be loaded; still serving the previous model: %s", message)
            self.failures += 1
        self._failed = sig
        self.error = {"message": message, "at": _iso(time.time())}

    def status(self) -> dict[str, Any]:
        cur = self.current
        return {
            "status": "ok" if self.error is None else "stale",
            "model": {
                "file": cur.path,
                "kind": type(cur.model).__name__,
                "classes": len(cur.classes),
                "loaded_at": _iso(cur.loaded_at),
            },
            "reloads": self.reloads,
            "reload_failures": self.failures,
            "reload_error": self.error,
        }


def _settle() -> None:
    """Collect once, then move every object alive now (the model: its vocabulary is ~10^5
    strings) out of the collector's sight. A full collection over them takes about 50 ms for
    the 20 Newsgroups model: without this, one would land in some request's latency now and
    then. Frozen objects are still freed when their last reference goes (the model replaced)."""
    gc.collect()
    gc.freeze()


def _signature_or_none(path: str) -> tuple[int, int, int] | None:
    try:
        return file_signature(path)
    except OSError:
        return None


# ---------------------------------------------------------------------------- checks
def _what(v: Any) -> str:
    if v is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array", dict: "an object"}.get(
        type(v), type(v).__name__
    )


def _only(body: dict[str, Any], allowed: tuple[str, ...], loaded: Loaded, batch: bool) -> None:
    other = ("row", "rows") if loaded.kind == "text" else ("text", "texts")
    wrong = [k for k in body if k in other]
    if wrong:
        if loaded.kind == "text":
            want = "{\"text\": \"...\"}" + (" or {\"texts\": [...]}" if batch else "")
            raise Problem(422, f"this is a text model ({type(loaded.model).__name__}): send {want}, not {wrong[0]!r}")
        want = "{\"row\": {feature: value}}" + (" or {\"rows\": [...]}" if batch else "")
        raise Problem(
            422,
            f"this is a table model ({type(loaded.model).__name__}, features {loaded.input_feature_names}): send {want}, not {wrong[0]!r}",
        )
    if not batch and allowed[0] + "s" in body:
        raise Problem(422, f"/v1/explain explains one item: send {allowed[0]!r}, not {allowed[0] + 's'!r} (use /v1/predict for batches)")
    unknown = [k for k in body if k not in allowed]
    if unknown:
        raise Problem(422, f"unknown field {unknown[0]!r}; expected {' or '.join(repr(a) for a in allowed)}")
    given = [k for k in allowed if k in body]
    if len(given) != 1:
        raise Problem(422, f"send exactly one of {' or '.join(repr(a) for a in allowed)}")


def _batch_size(name: str, n: int, limits: Limits) -> None:
    if n > limits.max_batch:
        raise Problem(422, f"'{name}' holds {n} items; the limit is {limits.max_batch} per request")


def _text(where: str, t: Any, limits: Limits) -> str:
    if not isinstance(t, str):
        raise Problem(422, f"'{where}' must be a string, got {_what(t)}")
    if len(t) > limits.max_text:
        raise Problem(422, f"'{where}' is {len(t):,} characters long; the limit is {limits.max_text:,}")
    return t


def _below(v: int | float, bound: float) -> bool:
    """``v < bound`` as the schema states it: a bound is written as its repr, so an integer is
    compared exactly with that decimal (it may round to the bound as a float)."""
    if isinstance(v, int):
        return Decimal(v) < Decimal(repr(float(bound)))
    return v < bound


def _check_value(where: str, f: dict[str, Any], v: Any, limits: Limits) -> None:
    if v is None:
        return
    kind = f["kind"]
    if isinstance(v, int) and not isinstance(v, bool) and not -INT_MAX <= v <= INT_MAX:  # exact comparison
        raise Problem(422, f"{where}: {str(v)[:24]}... is beyond the largest float")
    if kind == "number":
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise Problem(422, f"{where} must be a number (or null), got {_what(v)}")
        if "minimum" in f and _below(v, f["minimum"]):
            raise Problem(422, f"{where} is {v:.4g}; this model counts, and takes values >= {f['minimum']}")
        if "max_abs" in f and (_below(v, -f["max_abs"]) or _below(-v, -f["max_abs"])):
            raise Problem(422, f"{where} is {v:.4g}; this model takes values up to {f['max_abs']:g} in size "
                               "(beyond, its scores overflow)")
    elif kind == "boolean":
        if not (isinstance(v, bool) or (isinstance(v, int | float) and v in (0, 1))):
            raise Problem(422, f"{where} must be true, false, 0 or 1 (or null), got {_what(v)} {v!r}"[:300])
    elif kind == "text":
        if not isinstance(v, str):
            raise Problem(422, f"{where} must be a string (or null), got {_what(v)}")
        if len(v) > limits.max_text:
            raise Problem(422, f"{where} is {len(v):,} characters long; the limit is {limits.max_text:,}")
    else:  # a category: any JSON scalar
        if not isinstance(v, str | int | float | bool):
            raise Problem(422, f"{where} must be a string, number or boolean (or null), got {_what(v)}")
        if isinstance(v, str) and len(v) > limits.max_text:
            raise Problem(422, f"{where} is {len(v):,} characters long; the limit is {limits.max_text:,}")


def overflowed(ex: Any, log_probabilities: bool) -> bool:
    """Whether an explanation's terms overflowed the model's arithmetic: a NaN or +inf term,
    or, for scores that are not log-probabilities (a logistic regression), any infinite one
    (-inf is an impossible value only in a joint log-probability)."""
    terms = np.concatenate([np.ravel(ex.contributions), np.ravel(ex.intercept)])
    if log_probabilities:
        return bool(np.isnan(terms).any() or np.isposinf(terms).any())
    return not bool(np.isfinite(terms).all())


def _difference(a: float, b: float) -> float:
    """a - b, and 0 for the same infinite value (-inf - -inf: both classes impossible alike)."""
    return 0.0 if a == b else float(a) - float(b)


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
