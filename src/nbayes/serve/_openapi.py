"""The OpenAPI 3.1 schema of the service, generated from the model being served, as strict as
the service itself: a schema-valid request is answered (2xx), a schema-invalid one refused
(400 or 422), so that a fuzzing client (schemathesis, run in the tests with all checks) finds
nothing.

A table model's row is an object (feature -> value) or an array (values in feature order:
``prefixItems`` typed per position); each feature's JSON type follows its kind (``number``,
``boolean``: true / false / 0 / 1, ``text``: a string, ``category``: the values seen in
training as an ``enum``, or another scalar, which the model scores as an unseen value), and is
nullable (null or absent: missing) when the model leaves missing values out of its product;
otherwise every feature is required and non-null. Strings are at most ``--max-text`` characters,
batches at most ``--max-batch`` items: over a limit is a schema violation (422); 413 is only a
body over ``--max-body`` bytes.
"""

from __future__ import annotations

from typing import Any, Callable

from ._model import FLOAT_MAX, Limits, Loaded

_SCALAR: dict[str, Any] = {"type": ["string", "number", "boolean", "null"]}


def value_schema(feature: dict[str, Any], limits: Limits, nullable: bool) -> dict[str, Any]:
    """The JSON Schema of one feature's value (see the module's docstring)."""
    kind = feature["kind"]
    null = ["null"] if nullable else []
    s: dict[str, Any]
    if kind == "number":
        top = feature.get("max_abs", FLOAT_MAX)  # a linear model's bound (its scores stay finite)
        s = {"type": ["number", *null], "minimum": feature.get("minimum", -top), "maximum": top}
    elif kind == "boolean":
        s = {"oneOf": [{"type": ["boolean", *null]}, {"enum": [0, 1]}]}
    elif kind == "text":
        s = {"type": ["string", *null], "maxLength": limits.max_text}
    else:  # a category: any JSON scalar; the ones seen in training listed
        other = {"type": ["string", "number", "boolean", *null], "maxLength": limits.max_text,
                 "minimum": -FLOAT_MAX, "maximum": FLOAT_MAX}
        known = feature.get("categories")
        if known:
            other["description"] = "a value not seen in training: scored as an unseen category"
            s = {"anyOf": [{"enum": list(known)}, other]}
        else:
            s = other
    s["description"] = f"{kind} feature {feature['name']!r}" + (" (null or absent: missing)" if nullable else "")
    return s


def row_schema(loaded: Loaded, limits: Limits) -> dict[str, Any]:
    """One row: an object (feature -> value) or an array (values in feature order)."""
    nullable = "missing_values" in loaded.base.capabilities
    values = [value_schema(f, limits, nullable) for f in loaded.features]
    names = [f["name"] for f in loaded.features]
    as_object: dict[str, Any] = {"type": "object", "properties": dict(zip(names, values)), "additionalProperties": False}
    if not nullable:
        as_object["required"] = names
    as_array = {"type": "array", "prefixItems": values, "items": False, "minItems": len(values),
                "maxItems": len(values), "description": f"values in feature order {names}"}
    return {"oneOf": [as_object, as_array]}


def label_set_schemas(loaded: Loaded) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A multi-label model's (prediction, explained label, runner-up) schemas: the predicted
    label set, each label's probability (they need not sum to 1) and the probability it had to
    exceed for this item (``thresholds``; under ``top_k``, ``top_k`` instead)."""
    labels = loaded.class_keys
    per_label: Callable[[str], dict[str, Any]] = lambda what: {  # noqa: E731
        "type": "object", "description": what, "additionalProperties": False, "required": labels,
        "properties": {c: {"type": "number", "minimum": 0, "maximum": 1} for c in labels}}
    prediction = {
        "type": "object", "required": ["labels", "probabilities"], "additionalProperties": False,
        "properties": {
            "labels": {"type": "array", "uniqueItems": True, "maxItems": len(labels), "items": {"enum": loaded.classes},
                       "description": "the predicted label set, in the model's label order (may be empty)"},
            "probabilities": per_label("P(label | input) per label (labels as strings); labels are not exclusive: "
                                       "they need not sum to 1"),
            "thresholds": per_label("per label, the probability it had to exceed for this input (per-term "
                                    "thresholds of text models make it depend on the input's length)"),
            "top_k": {"type": "integer", "minimum": 1, "description": "the k most probable labels are predicted"},
        },
    }
    label = {"description": "the most probable label, explained against its absence", "enum": loaded.classes}
    return prediction, label, {"type": "null", "description": "null: the label is explained against its absence"}


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def schema(loaded: Loaded, limits: Limits) -> dict[str, Any]:
    from .. import __version__

    text = loaded.kind == "text"
    classes = loaded.class_keys
    probs = {
        "type": "object",
        "description": "P(class | input) per class label (labels as strings); they sum to 1",
        "properties": {c: {"type": "number", "minimum": 0, "maximum": 1} for c in classes},
        "required": classes,
        "additionalProperties": False,
    }
    label = {"description": "the predicted class label", "enum": loaded.classes}
    contribution = {
        "oneOf": [{"type": "number"}, {"enum": ["Infinity", "-Infinity"]}],
        "description": "to the log-odds of the predicted class against the runner-up (inf with unsmoothed models)",
    }
    if text:
        one = {
            "type": "object", "required": ["text"], "additionalProperties": False,
            "properties": {"text": {"type": "string", "maxLength": limits.max_text}},
        }
        many = {
            "type": "object", "required": ["texts"], "additionalProperties": False,
            "properties": {"texts": {"type": "array", "maxItems": limits.max_batch,
                                     "items": {"type": "string", "maxLength": limits.max_text}}},
        }
        item = {
            "type": "object", "required": ["token", "start", "end", "contribution"],
            "properties": {
                "token": {"type": "string", "description": "the term as the model sees it (lower-cased)"},
                "start": {"type": "integer", "description": "character offset in the text sent"},
                "end": {"type": "integer", "description": "end offset (exclusive)"},
                "contribution": contribution,
            },
        }
        parts = {"tokens": {"type": "array", "items": item}}
    else:
        row = row_schema(loaded, limits)
        one = {"type": "object", "required": ["row"], "additionalProperties": False, "properties": {"row": row}}
        many = {
            "type": "object", "required": ["rows"], "additionalProperties": False,
            "properties": {"rows": {"type": "array", "maxItems": limits.max_batch, "items": row}},
        }
        item = {
            "type": "object", "required": ["feature", "value", "contribution"],
            "properties": {"feature": {"type": "string"}, "value": _SCALAR, "contribution": contribution},
        }
        parts = {"features": {"type": "array", "items": item}}
    prediction = {"type": "object", "required": ["label", "probabilities"],
                  "properties": {"label": label, "probabilities": probs}}
    runner_up: dict[str, Any] = {"enum": loaded.classes}
    if loaded.multilabel:
        prediction, label, runner_up = label_set_schemas(loaded)
    explanation = {
        "type": "object",
        "required": ["label", "runner_up", "log_odds", "baseline", *parts],
        "properties": {
            "label": label,
            "runner_up": runner_up,
            "log_odds": {"type": "number", "description": "log P(x, label) - log P(x, runner_up) = baseline + sum of contributions"},
            "baseline": {"type": "number", "description": "the prior difference (and Bernoulli's absent-feature total)"},
            **parts,
        },
    }
    errors = {
        "400": _error("the body is not JSON (or empty)"),
        "413": _error(f"the body is over {limits.max_body:,} bytes (--max-body)"),
        "422": _error("JSON of the wrong shape or types (over --max-batch items or --max-text characters too), "
                      "or input for the other kind of model"),
    }
    json_of: Callable[[dict[str, Any]], dict[str, Any]] = lambda s: {"application/json": {"schema": s}}  # noqa: E731
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "nbayes serve",
            "version": __version__,
            "description": f"Predictions and exact explanations of the {type(loaded.model).__name__} in {loaded.path} "
                           f"({'text' if text else 'table'} input; classes {loaded.classes}).",
        },
        "paths": {
            "/v1/predict": {"post": {
                "summary": "Labels and probabilities for one item or a batch",
                "requestBody": {"required": True, "content": json_of({"oneOf": [{"$ref": "#/components/schemas/One"}, {"$ref": "#/components/schemas/Batch"}]})},
                "responses": {
                    "200": {"description": "one prediction (for text/row) or {predictions: [...]} (for texts/rows)",
                            "content": json_of({"oneOf": [{"$ref": "#/components/schemas/Prediction"}, {
                                "type": "object", "required": ["predictions"],
                                "properties": {"predictions": {"type": "array", "items": {"$ref": "#/components/schemas/Prediction"}}}}]})},
                    **errors,
                },
            }},
            "/v1/explain": {"post": {
                "summary": "Each token's or feature's contribution to the log-odds of the prediction against the runner-up",
                "requestBody": {"required": True, "content": json_of({"$ref": "#/components/schemas/One"})},
                "responses": {"200": {"description": "the explanation", "content": json_of({"$ref": "#/components/schemas/Explanation"})}, **errors},
            }},
            "/v1/model": {"get": {
                "summary": "The model's metadata (as `nbayes info --json`), its input and the limits",
                "responses": {"200": {"description": "metadata", "content": json_of({"type": "object"})}},
            }},
            "/healthz": {"get": {
                "summary": "Liveness, the model served and the last reload error (status 'stale': the file on disk did not load)",
                "responses": {"200": {"description": "health", "content": json_of({
                    "type": "object", "required": ["status", "model", "reload_error"],
                    "properties": {"status": {"enum": ["ok", "stale"]}, "model": {"type": "object"},
                                   "reloads": {"type": "integer"}, "reload_error": {"type": ["object", "null"]}}})}},
            }},
            "/": {"get": {"summary": "The web page", "responses": {"200": {"description": "HTML", "content": {"text/html": {}}}}}},
        },
        "components": {"schemas": {
            "One": one,
            "Batch": many,
            "Prediction": prediction,
            "Explanation": explanation,
            "Error": {"type": "object", "required": ["error", "status"],
                      "properties": {"error": {"type": "string"}, "status": {"type": "integer"}}},
        }},
    }
