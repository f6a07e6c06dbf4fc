"""``nbayes.load``: read a model file back into the estimator it was saved from.

Model kinds are found through a registry (kind name -> the module that defines it, imported only
when a file of that kind is loaded), so this module imports no estimator, and a model written
outside nbayes plugs in with :func:`register_kind`. Likewise the reader of the update log that a
learning service keeps beside a model file (:data:`UPDATE_LOG`) is imported only when there is one.
"""

from __future__ import annotations

import os
from importlib import import_module
from typing import Any

from ..errors import ModelFileError
from .model_file import load_state

__all__ = ["load", "load_with_state", "register_kind", "model_class", "from_state"]

#: what reads the update log ``MODEL.log`` beside a model file (``nbayes serve --learn`` writes
#: it): called as ``f(path, model, state, replay)``, it warns of the updates the file lacks or
#: replays them; imported only when such a log exists
UPDATE_LOG = "nbayes.serve.updates:with_updates"

#: the kind written in a model file -> "module:Class" that reads it back (``Class.from_state``),
#: or the class itself when registered as one
KINDS: dict[str, str | type] = {
    "BernoulliNB": "nbayes.naive_bayes.bernoulli:BernoulliNB",
    "CategoricalNB": "nbayes.naive_bayes.categorical:CategoricalNB",
    "ComplementNB": "nbayes.naive_bayes.complement:ComplementNB",
    "GaussianNB": "nbayes.naive_bayes.gaussian:GaussianNB",
    "MultinomialNB": "nbayes.naive_bayes.multinomial:MultinomialNB",
    "NaiveBayes": "nbayes.naive_bayes.mixed:NaiveBayes",
    "GaussianBayes": "nbayes.gaussian_bayes:GaussianBayes",
    "LogisticRegression": "nbayes.linear.logistic:LogisticRegression",
    "TextClassifier": "nbayes.text.classifier:TextClassifier",
    "CalibratedClassifier": "nbayes.calibration:CalibratedClassifier",
    "EM": "nbayes.semi_supervised:EM",
    "MultiLabel": "nbayes.multilabel:MultiLabel",
}


def register_kind(kind: str, where: str | type) -> None:
    """Make files of ``kind`` loadable: ``where`` is the class (with a ``_from_state(state)``
    class method) or its "module:Class" path, imported on first use."""
    if not isinstance(kind, str) or not kind:
        raise ModelFileError(f"register_kind: the kind must be a non-empty string, got {kind!r}")
    if not isinstance(where, type | str):
        raise ModelFileError(f"register_kind: expected a class or 'module:Class', got {where!r}")
    KINDS[kind] = where


def model_class(kind: Any) -> type[Any]:
    """The class that reads files of ``kind``; ModelFileError for a kind nobody registered."""
    where = KINDS.get(kind) if isinstance(kind, str) else None
    if where is None:
        raise ModelFileError(f"unknown model kind {kind!r}")
    if isinstance(where, type):
        return where
    module, _, name = where.partition(":")
    cls = getattr(import_module(module), name)
    if not isinstance(cls, type):
        raise ModelFileError(f"model kind {kind!r} is registered as {where!r}, which names no class")
    return cls


def from_state(state: dict[str, Any]) -> Any:
    """The model of a verified state (kind, params, meta, arrays). A kind whose state nests
    other models' states (``_state_nests_models``: a calibrated model) is handed this function
    to build them, so it needs no import of this module."""
    cls = model_class(state.get("kind"))
    if getattr(cls, "_state_nests_models", False):
        return cls.from_state(state, from_state)
    return cls.from_state(state)


def _registry() -> dict[str, type[Any]]:
    """Every registered kind and its class (imports them all: for listings, not for loading)."""
    return {kind: model_class(kind) for kind in KINDS}


def load(path: str | os.PathLike[str], *, replay: bool = False) -> Any:
    """Load a model written by ``model.save(path)``.

    The file's magic, format version and checksum are verified before anything is built, then
    its numbers (statistics that no data could produce are refused); the file holds only JSON
    and raw numeric arrays, so loading never runs code from it.

    When the update log beside it (``path + ".log"``, kept by ``nbayes serve --learn``) holds
    acknowledged updates the file lacks, a :class:`~nbayes.errors.StaleModelWarning` says so;
    ``replay=True`` adds them, as the service does at its start (a damaged log is then a
    :class:`~nbayes.errors.ModelFileError` naming the byte offset; ``nbayes repair``).

    >>> import os, tempfile, nbayes
    >>> model = nbayes.MultinomialNB().fit([[2, 0], [0, 3]], ["ham", "spam"])
    >>> path = os.path.join(tempfile.mkdtemp(), "spam.nbm")
    >>> model.save(path)
    >>> nbayes.load(path).predict([[1, 0]]).tolist()
    ['ham']
    """
    return load_with_state(path, replay=replay)[0]


def load_with_state(path: str | os.PathLike[str], *, replay: bool | None = False) -> tuple[Any, dict[str, Any]]:
    """The model and the verified state it was built from (header metadata included).
    ``replay``: the update log beside the file, as :func:`load` (None: the file alone, the log
    not even looked at: a learning service replays it itself)."""
    model, state = _from_file(path)
    if replay is not None and os.path.exists(os.fspath(path) + ".log"):
        module, _, name = UPDATE_LOG.partition(":")
        model = getattr(import_module(module), name)(os.fspath(path), model, state, replay)
    return model, state


def _from_file(path: str | os.PathLike[str]) -> tuple[Any, dict[str, Any]]:
    state = load_state(path)
    kind = state.get("kind")
    try:
        model_class(kind)
    except ModelFileError:
        raise ModelFileError(f"{os.fspath(path)}: unknown model kind {kind!r}") from None
    try:
        return from_state(state), state
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise ModelFileError(
            f"{os.fspath(path)}: the file passed its checksum but does not describe a valid "
            f"{kind} ({type(exc).__name__}: {exc})"
        ) from None
