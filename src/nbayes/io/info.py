"""What a model file holds, as ``nbayes info`` prints it and ``GET /v1/model`` answers it: one
function, so both say the same values of the same types (an integer count stays an integer).

>>> import nbayes
>>> from nbayes.io.info import model_info
>>> m = nbayes.MultinomialNB().fit([[1, 2], [2, 0], [0, 3]], ["a", "b", "a"])
>>> info = model_info(m, m.to_state(), "m.nbm")
>>> info["classes"], info["training_rows"], info["n_features"]
(['a', 'b'], 3, 2)
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from ..calibration import describe

__all__ = ["model_info", "json_value"]

#: a mapping, list or array longer than this is shown by its size (a frozen idf of 100,000 terms)
MAX_SHOWN = 20


def json_value(v: Any) -> Any:
    """A JSON-ready Python value: numpy scalars unwrapped; inf and NaN as the strings
    ``"Infinity"``, ``"-Infinity"`` and ``"NaN"`` (JSON has no such numbers)."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")
    return v


def count(v: Any) -> Any:
    """A count as a number: an integer when it is whole (``120.0`` is ``120``; weighted rows
    may give ``120.5``), None when unknown."""
    if isinstance(v, dict) and "value" in v:  # a scalar wrapped by the model file's codec
        v = v["value"]
    v = json_value(v)
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return int(v) if isinstance(v, int) or float(v).is_integer() else v


def param_value(v: Any) -> Any:
    """A hyperparameter as shown: containers walked, long ones by their size, other objects by
    their text."""
    if isinstance(v, np.ndarray):
        v = v.tolist() if v.size <= MAX_SHOWN else f"<array of shape {v.shape}>"
    if isinstance(v, dict | list | tuple) and len(v) > MAX_SHOWN:
        return f"<{type(v).__name__} of {len(v):,} entries>"
    if isinstance(v, dict):
        return {str(k): param_value(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [param_value(x) for x in v]
    v = json_value(v)
    if v is None or isinstance(v, bool | int | float | str):
        return v
    return str(v)


def model_info(model: Any, state: dict[str, Any], path: str | os.PathLike[str]) -> dict[str, Any]:
    """The model file ``path``: format, writer, kind, hyperparameters, classes, features,
    training rows and target (as ``nbayes train`` recorded them), and a calibrated model's map
    (:func:`nbayes.calibration.describe`).
    ``state`` is what :func:`nbayes.io.load.load_with_state` returned with ``model``."""
    meta = state.get("meta") or {}
    cli = meta.get("cli") or {}
    names = getattr(model, "feature_names_in_", None)
    out: dict[str, Any] = {
        "file": os.fspath(path),
        "format_version": state.get("format_version"),
        "written_by": state.get("nbayes_version"),
        "checksum": "verified (SHA-256)",
        "model": state.get("kind"),
        "params": {k: param_value(v) for k, v in model.get_params().items() if not hasattr(v, "get_params")},
        "classes": [json_value(c) for c in np.asarray(model.classes_).tolist()],
        "n_features": int(getattr(model, "n_features_in_", 0) or 0),
        "features": [str(c) for c in (cli.get("columns") or (list(names) if names is not None else []))],
        "training_rows": count(cli["rows"] if "rows" in cli else meta.get("n_samples_seen")),
        "target": cli.get("target"),
    }
    if hasattr(model, "base_estimator_"):
        out["calibration"] = describe(model)
    decisions = getattr(getattr(model, "base_estimator_", model), "column_decisions_", None)
    if decisions:  # how numeric="auto" modelled the numeric columns a Gaussian fits badly
        out["column_decisions"] = [
            f"{d['column']}: {d['kind']}" + (f" ({d['bins']} bins)" if "bins" in d else "") + f": {d['reason']}"
            for d in decisions
        ]
    if getattr(model, "n_iter_", None) is not None:  # fitted by EM (the model or nbayes.EM)
        trace = np.asarray(getattr(model, "em_log_likelihood_", []), dtype=float).ravel()
        out["semi_supervised"] = {
            "method": "EM",
            "unlabeled_rows": count(getattr(model, "n_unlabeled_", None)),
            "unlabeled_weight": json_value(getattr(model, "unlabeled_weight_", None)),
            "iterations": count(model.n_iter_),
            "converged": bool(getattr(model, "em_converged_", False)),
            "final_log_likelihood": json_value(float(trace[-1])) if trace.size else None,
        }
    return out

