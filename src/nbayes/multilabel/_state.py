"""A multi-label model in a model file: the base model over L + 1 classes (row l: the rows
carrying label l, row L: all rows) nested under ``base/`` as a calibrated model nests its base;
the labels, the thresholds and NBLR's per-label weights beside it. Reading builds the nested
model with the loader's ``build`` (no import of ``nbayes.io.load``: no cycle)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..stats.checks import check_shapes
from ._stats import check_label_rows, rows

if TYPE_CHECKING:  # pragma: no cover
    from ._model import MultiLabel


def to_state(model: "MultiLabel") -> dict[str, Any]:
    L = len(model.classes_)
    base = model._clone()
    base.set_statistics(model.stats_, np.arange(L + 1), model.n_features_in_, model.input_feature_names())
    inner = base.to_state()
    arrays = {f"base/{k}": v for k, v in inner["arrays"].items()}
    arrays["classes"] = model.classes_
    arrays["thresholds"] = model.thresholds_
    if "_nblr_weights" in model.__dict__:
        W, b = model.__dict__["_nblr_weights"]
        arrays["nblr/weights"], arrays["nblr/intercept"] = W, b
    th = model.threshold
    params = {
        "threshold": th if isinstance(th, str) else float(th),
        "top_k": None if model.top_k is None else int(model.top_k),
        "cv": int(model.cv) if isinstance(model.cv, int | np.integer) and not isinstance(model.cv, bool) else None,
        "empty": model.empty,
        "allow_empty": bool(model.allow_empty),
        "normalize": model.normalize,
    }
    meta = {
        "base": {"kind": inner["kind"], "params": inner["params"], "meta": inner["meta"]},
        "n_labels": L,
        "empty_rows": bool(model.__dict__["_empty_rows"]),
        "n_features_in": int(model.n_features_in_),
        "feature_names": model.input_feature_names(),
        "n_samples_seen": float(np.asarray(model.stats_.class_count)[-1]),
    }
    return {"kind": type(model).__name__, "params": params, "meta": meta, "arrays": arrays}


def from_state(cls: type["MultiLabel"], state: dict[str, Any], build: Callable[[dict[str, Any]], Any]) -> "MultiLabel":
    """The model of a verified state; ValueError / KeyError for a state that does not describe
    one (``nbayes.load`` turns them into a ModelFileError naming the file)."""
    params, meta, arrays = state["params"], state["meta"], state["arrays"]
    inner = meta["base"]
    base = build({"kind": inner["kind"], "params": inner["params"], "meta": inner["meta"],
                  "arrays": {k[5:]: v for k, v in arrays.items() if k.startswith("base/")}})
    classes = np.asarray(arrays["classes"])
    L = len(classes)
    S = base.stats_
    if len(S.class_count) != L + 1:
        raise ValueError(f"the base statistics have {len(S.class_count)} rows for {L} labels (expected {L + 1})")
    names = np.array(classes.tolist() + ["(all rows)"], dtype=object)
    check_label_rows(S, names)
    check_shapes(arrays, {"thresholds": (L,)})
    thresholds = np.asarray(arrays["thresholds"], dtype=np.float64)
    model = cls(type(base)(**base.get_params()), **{k: params[k] for k in
                ("threshold", "top_k", "empty", "allow_empty", "normalize")}, cv=5 if params.get("cv") is None else params["cv"])
    model._check_params()
    model.__dict__["_template"] = base  # its layout (a NaiveBayes' column kinds) for the per-label models
    d = int(meta["n_features_in"])
    names_in = meta.get("feature_names")
    empty_rows = bool(meta.get("empty_rows", False))
    if "nblr/weights" in arrays:
        vocab = type(base)(**base.get_params())
        vocab.set_statistics(rows(S, np.array([L])), np.array([0]), d, names_in)
        # one weight per term of the vocabulary (the columns of its transform) and label
        check_shapes(arrays, {"nblr/weights": (len(vocab.vocabulary_), L), "nblr/intercept": (L,)})
        W, b = np.asarray(arrays["nblr/weights"], dtype=np.float64), np.asarray(arrays["nblr/intercept"], dtype=np.float64)
        model.__dict__.update({"stats_": S, "classes_": classes, "n_features_in_": d, "thresholds_": thresholds,
                               "_predictor": vocab, "_nblr_weights": (W, b), "_empty_rows": empty_rows})
        return model
    model._commit(S, classes, d, names_in, thresholds, empty_rows)
    return model
