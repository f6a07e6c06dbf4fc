"""``nbayes.load``: read a model file back into the estimator it was saved from."""

from __future__ import annotations

import os
from typing import Any

from ..errors import ModelFileError


def _registry() -> dict[str, type]:
    from ..calibration import CalibratedClassifier
    from ..gaussian_bayes import GaussianBayes
    from ..naive_bayes import BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB
    from ..naive_bayes.mixed import NaiveBayes
    from ..linear import LogisticRegression
    from ..text import TextClassifier

    return {
        cls.__name__: cls
        for cls in (BernoulliNB, CategoricalNB, ComplementNB, GaussianBayes, GaussianNB, MultinomialNB, NaiveBayes, TextClassifier, LogisticRegression, CalibratedClassifier)
    }


def build(state: dict[str, Any]) -> Any:
    """The model of a verified state (kind, params, meta, arrays). A kind whose state nests
    other models' states (``_state_nests_models``: a calibrated model) is handed this function
    to build them, so it needs no import of this module."""
    kind = state.get("kind")
    cls = _registry().get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(f"unknown model kind {kind!r}")
    if getattr(cls, "_state_nests_models", False):
        return cls._from_state(state, build)
    return cls._from_state(state)


def load(path: str | os.PathLike[str]) -> Any:
    """Load a model written by ``model.save(path)``.

    The file's magic, format version and checksum are verified before anything is built; the
    file holds only JSON and raw numeric arrays, so loading never runs code from it.
    """
    return load_with_state(path)[0]


def load_with_state(path: str | os.PathLike[str]) -> tuple[Any, dict[str, Any]]:
    """The model and the verified state it was built from (header metadata included)."""
    from .model_file import load_state

    state = load_state(path)
    kind = state.get("kind")
    cls = _registry().get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise ModelFileError(f"{os.fspath(path)}: unknown model kind {kind!r}")
    try:
        return build(state), state
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ModelFileError(
            f"{os.fspath(path)}: the file passed its checksum but does not describe a valid "
            f"{kind} ({type(exc).__name__}: {exc})"
        ) from None
