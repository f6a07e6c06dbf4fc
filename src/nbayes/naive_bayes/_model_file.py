"""The model-file path of every Naive Bayes model: a file stores the statistics (never the
parameters), and reading it back estimates the parameters from them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ..io.model_file import decode_params, encode_params
from ._em import report_from_meta, report_meta
from ._files import _layout_of, _legacy_em_params, check_state

if TYPE_CHECKING:  # pragma: no cover
    from ._base import BaseNB

__all__ = ["model_from_state", "model_state", "restore_em_report"]

_NB = TypeVar("_NB", bound="BaseNB")


def model_state(model: BaseNB) -> dict[str, Any]:
    """The model as the state of a model file (kind, parameters, meta data, the statistics' arrays)."""
    params, arrays = encode_params(model.get_params())
    arrays["classes"] = model.classes_
    arrays.update(model.stats_.to_arrays())
    meta: dict[str, Any] = {
        "n_features_in": int(model.n_features_in_),
        "feature_names": model.input_feature_names(),
        "n_samples_seen": float(np.sum(model.stats_.class_count)),
    }
    if model._has_components():  # fitted state: the statistics have one row per component
        meta["n_components"] = model.__dict__["_layout"].sizes.tolist()
    em = report_meta(model)
    if em is not None:
        meta["em"] = em
    return {"kind": type(model).__name__, "params": params, "meta": meta, "arrays": arrays}


def model_from_state(cls: type[_NB], state: dict[str, Any]) -> _NB:
    """The model of a model-file state (the inverse of :func:`model_state`): the statistics
    are checked, then the parameters estimated from them."""
    arrays = state["arrays"]
    params = decode_params(state["params"], arrays)
    meta = state["meta"]
    layout = meta.get("n_components", _legacy_em_params(params))
    model = cls(**params)
    if layout is not None:
        model.__dict__["_layout"] = _layout_of(layout, len(arrays["classes"]))
    n_features = int(meta["n_features_in"])
    stats = cls.statistics_from_arrays(arrays, n_features)
    mix = model.__dict__.get("_layout")
    check_state(stats, arrays["classes"], n_features, meta, None if mix is None else int(mix.total))
    model.set_statistics(stats, arrays["classes"], n_features, meta.get("feature_names"))
    restore_em_report(model, meta)
    return model


def restore_em_report(model: Any, meta: dict[str, Any]) -> None:
    """The EM report a model file's meta holds (``meta["em"]``), as the fitted attributes
    ``EM_ATTRS`` (``nbayes info`` and ``GET /v1/model`` show it)."""
    if meta.get("em") is not None:
        model.__dict__.update(report_from_meta(meta["em"]))
