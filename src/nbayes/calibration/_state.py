"""A calibrated model in a model file: the base model's state nested under ``base/``, the
map's arrays under ``calibrator/``; an ensemble adds its fold models under ``fold/<i>/`` and its
maps under ``calibrator/<i>/``.

Reading builds the nested models with a ``build`` function the loader hands over
(:func:`nbayes.load` passes its registry's builder), so this package never imports
``nbayes.io.load``, which imports it: no import cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..errors import InvalidParameterError
from ._base import Calibrator, check_classes

if TYPE_CHECKING:  # pragma: no cover
    from .classifier import CalibratedClassifier

Build = Callable[[dict[str, Any]], Any]


def state_of(model: Any) -> dict[str, Any]:
    """A model's file state (kind, params, meta, arrays); an error naming it if it has none."""
    if not hasattr(model, "to_state"):
        raise InvalidParameterError(f"a {type(model).__name__} cannot be written to a model file")
    result: dict[str, Any] = model.to_state()
    return result


def to_state(model: "CalibratedClassifier") -> dict[str, Any]:
    base = state_of(model.base_estimator_)
    arrays = {f"base/{k}": v for k, v in base["arrays"].items()}
    cv = model.cv
    params: dict[str, Any] = {
        "method": model.calibrators_[0].method,
        "cv": int(cv) if isinstance(cv, int | np.integer) and not isinstance(cv, bool) else None,
    }
    meta: dict[str, Any] = {
        "base": {"kind": base["kind"], "params": base["params"], "meta": base["meta"]},
        "n_classes": len(model.classes_),
        "n_features_in": getattr(model, "n_features_in_", None),
        "feature_names": model.input_feature_names(),
        "n_samples_seen": base["meta"].get("n_samples_seen"),
    }
    if model.calibrator_ is not None:
        arrays.update({f"calibrator/{k}": v for k, v in model.calibrator_.to_arrays().items()})
    else:
        params["ensemble"] = True
        meta["folds"] = []
        for i, (m, c) in enumerate(zip(model.estimators_, model.calibrators_)):
            fold = state_of(m)
            arrays.update({f"fold/{i}/{k}": v for k, v in fold["arrays"].items()})
            arrays.update({f"calibrator/{i}/{k}": v for k, v in c.to_arrays().items()})
            meta["folds"].append({"kind": fold["kind"], "params": fold["params"], "meta": fold["meta"]})
    return {"kind": type(model).__name__, "params": params, "meta": meta, "arrays": arrays}


def from_state(
    cls: type["CalibratedClassifier"], state: dict[str, Any], build: Build, calibrators: dict[str, type[Calibrator]]
) -> "CalibratedClassifier":
    """The model of a verified state; ValueError / KeyError for a state that does not describe
    one (``nbayes.load`` turns them into a ModelFileError naming the file)."""
    params, meta, arrays = state["params"], state["meta"], state["arrays"]
    method = params["method"]
    if method not in calibrators:
        raise ValueError(f"unknown calibration method {method!r}")

    def nested(inner: dict[str, Any], prefix: str) -> Any:
        model = build({
            "kind": inner["kind"], "params": inner["params"], "meta": inner["meta"],
            "arrays": {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)},
        })
        if isinstance(model, cls):
            raise ValueError(f"a calibrated model nests another calibrated model under {prefix!r}")
        return model

    base = nested(meta["base"], "base/")
    K = len(base.classes_)

    def calibrator(prefix: str) -> Calibrator:
        return calibrators[method].from_arrays({k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}, K)

    ensemble = bool(params.get("ensemble", False))
    model = cls(type(base)(**base.get_params()), method=method, cv=5 if params.get("cv") is None else int(params["cv"]),
                ensemble=ensemble)
    if not ensemble:
        model._set(base, calibrator("calibrator/"))
        return model
    folds = meta["folds"]
    if not isinstance(folds, list) or not folds:
        raise ValueError("an ensemble file lists no fold models")
    models = [nested(f, f"fold/{i}/") for i, f in enumerate(folds)]
    for i, m in enumerate(models):
        check_classes(m, np.asarray(base.classes_), f"fold model {i}")
    model._set(base, None, models, [calibrator(f"calibrator/{i}/") for i in range(len(models))])
    return model
