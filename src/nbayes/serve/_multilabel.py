"""Serving a multi-label model (:class:`nbayes.MultiLabel`): per item, the predicted label set,
each label's probability and the probability it had to exceed; the explanation of the most
probable label (its log-odds against "not this label"). Nothing here imports the web framework.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..io.info import json_value
from ._model import Problem, plain_floats


def about(model: Any) -> dict[str, Any]:
    """What ``GET /v1/model`` adds for a multi-label model: its labels and decision rule."""
    th = model.threshold
    return {
        "labels": [json_value(c) for c in model.classes_.tolist()],
        "threshold": th if isinstance(th, str) else float(th),
        "top_k": None if model.top_k is None else int(model.top_k),
        "empty": model.empty,
        "allow_empty": bool(model.allow_empty),
    }


def answers(model: Any, classes: list[Any], keys: list[str], X: Any) -> list[dict[str, Any]]:
    """Per item: ``labels`` (the predicted set, in the model's label order), ``probabilities``
    (P(label | x) per label; they need not sum to 1) and ``thresholds`` (the probability each
    label had to exceed for this item; absent under ``top_k``, which predicts the k most
    probable labels). An item whose numbers overflow is refused (422), never answered NaN."""
    with np.errstate(over="ignore", invalid="ignore"):
        D, P, bar = model.predict_with_thresholds(X)
    bad = ~np.isfinite(P).all(axis=1)
    if bad.any():
        raise Problem(422, f"item {int(np.argmax(bad))}: its values are too large for the model's arithmetic "
                           "(the probabilities overflow)")
    out = []
    for i in range(P.shape[0]):
        one: dict[str, Any] = {"labels": [classes[j] for j in np.flatnonzero(D[i]).tolist()],
                               "probabilities": dict(zip(keys, plain_floats(P[i])))}
        if bar is not None:
            one["thresholds"] = dict(zip(keys, plain_floats(bar[i])))
        else:
            one["top_k"] = int(model.top_k)
        out.append(one)
    return out


def explain(loaded: Any, item: Any) -> dict[str, Any]:
    """The explanation of the item's most probable label: each token's (or feature's)
    contribution to that label's log-odds against "not this label" (its binary model's),
    ``baseline + sum(contributions) == log_odds``; ``runner_up`` is null."""
    model = loaded.model
    if "explain" not in model.capabilities:
        raise Problem(422, f"a multi-label model over {type(model.estimator).__name__} has no additive explanation; "
                           "/v1/predict answers it")
    X = [item] if loaded.kind == "text" else loaded.matrix([item])
    with np.errstate(over="ignore", invalid="ignore"):
        s = model.decision_function(X)[0]
    if not len(s):
        raise Problem(422, "this multi-label model has no label to explain")
    j = int(np.argmax(s))
    binary = model.estimators_[j]
    out: dict[str, Any] = {"label": loaded.classes[j], "runner_up": None}
    if loaded.kind == "text":
        e = binary.explain(item)
        sign = 1.0 if e.predicted == 1 else -1.0  # towards the label (class 1) against its absence
        jll = binary.predict_joint_log_proba([item])[0]
        contrib = sign * np.asarray(e.contributions, dtype=np.float64)
        parts: dict[str, Any] = {"tokens": [
            {"token": t, "start": int(a), "end": int(b), "contribution": json_value(float(c))}
            for t, (a, b), c in zip(e.tokens, e.spans, contrib.tolist())]}
        baseline = sign * float(e.baseline)
    else:
        ex = binary.explain(X)
        pred, _, terms, base = ex.log_odds(0)
        sign = 1.0 if pred == 1 else -1.0
        jll = ex.joint()[0]
        names = list(getattr(ex, "feature_names", loaded.input_feature_names))
        parts = {"features": [
            {"feature": str(n), "value": v, "contribution": json_value(float(sign * t))}
            for n, v, t in zip(names, item, np.asarray(terms, dtype=float).tolist())]}
        baseline = sign * float(base)
    log_odds = 0.0 if jll[1] == jll[0] else float(jll[1]) - float(jll[0])
    out.update(log_odds=json_value(log_odds), baseline=json_value(baseline), **parts)
    return out
