"""The features of a served table model as the web page and the OpenAPI schema show them: name,
kind (number, category, boolean, text), the categories, and the bounds a value must keep for
the model's arithmetic. Read from the model's public attributes and declared capabilities
(``columns``, ``categories``, ``counts``, ``logistic``), never its class."""

from __future__ import annotations

import math
import sys
from decimal import Decimal
from typing import Any

import numpy as np

from ..io.info import json_value as plain

#: the kinds of a table feature, as the web page and the OpenAPI schema name them
KIND_NAMES = {"gaussian": "number", "categorical": "category", "bernoulli": "boolean", "text": "text"}
#: at most this many categories of a feature are listed in the metadata (the page's choices)
MAX_CATEGORIES = 1000
#: the largest JSON number a value may be (the schema's maximum; an integer literal beyond it is refused)
FLOAT_MAX = sys.float_info.max
#: the schema's bound as JSON writes it (repr: 1.7976931348623157e+308), exactly: an integer
#: beyond this decimal breaks the declared minimum / maximum even where it rounds to FLOAT_MAX
INT_MAX = int(Decimal(repr(FLOAT_MAX)))


def table_features(model: Any, cli: dict[str, Any]) -> list[dict[str, Any]]:
    """[{"name", "kind" (number, category, boolean, text), "categories"?}] in the model's order."""
    caps = model.capabilities
    display = model.display_feature_names() if hasattr(model, "display_feature_names") else None
    if display is None:
        names = getattr(model, "feature_names_in_", None)
        n = int(getattr(model, "n_features_in_", 0))
        display = [str(x) for x in names] if names is not None else [f"x{j}" for j in range(n)]
    if "columns" in caps:
        kinds = [KIND_NAMES.get(k, "category") for k in model.column_kinds_]
    elif "categories" in caps:
        kinds = ["category"] * len(display)
    else:
        kinds = ["number"] * len(display)
    cols = cli.get("columns") or {}
    if list(cols) == display and "columns" in caps:
        kinds = [KIND_NAMES.get(cols[c], k) for c, k in zip(display, kinds)]
    out: list[dict[str, Any]] = [{"name": n, "kind": k} for n, k in zip(display, kinds)]
    weights = None
    if "counts" in caps:  # counts: never negative; scores x . feature_log_prob_
        for f in out:
            f["minimum"] = 0
        weights = [np.asarray(getattr(model, "feature_log_prob_", 0.0))]
    elif "logistic" in caps:  # scores x . coef_ + intercept_
        weights = [model.coef_, model.intercept_]
    if weights is not None and len(out):
        # scores linear in x must stay finite: |x| up to a power of ten that keeps every
        # weight * x and their sum far from the float limit (the schema's maximum says it)
        big = max([1.0] + [float(np.max(np.abs(w[np.isfinite(w)]))) for w in weights if np.isfinite(w).any()])
        bound = 10.0 ** math.floor(math.log10(FLOAT_MAX / (4.0 * len(out) * big)))
        for f in out:
            if f["kind"] == "number":
                f["max_abs"] = bound
    cats = _categories(model)
    for f, values in zip([f for f in out if f["kind"] == "category"], cats):
        shown = [plain(v) for v in values.tolist()]
        if len(shown) <= MAX_CATEGORIES:
            f["categories"] = shown
    return out


def _categories(model: Any) -> list[np.ndarray]:
    if "columns" in model.capabilities:
        comp = getattr(model, "components_", {}).get("categorical")
        return list(getattr(comp, "categories_", []) or []) if comp is not None else []
    if "categories" in model.capabilities:
        return list(getattr(model, "categories_", []))
    return []
