"""The OpenAPI paths of label shift (``/v1/prior``, always) and of active learning (``/v1/pool``,
``/v1/suggest``, ``/v1/label``: a learning service), added to the schema of :mod:`._openapi`
as exactly as the service checks them (:mod:`._prior`, :mod:`._pool`, :mod:`._shift_routes`)."""

from __future__ import annotations

import copy
from typing import Any

from ..active import DEFAULT, STRATEGIES
from ._model import Limits, Loaded
from ._pool import MAX_NAME
from ._prior import MAX_BOOTSTRAP, MAX_SEED

_SEED = {"type": "integer", "minimum": 0, "maximum": MAX_SEED}


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def _per_class(keys: list[str], value: dict[str, Any], what: str) -> dict[str, Any]:
    return {"type": "object", "description": what, "required": keys, "additionalProperties": False,
            "properties": {k: copy.deepcopy(value) for k in keys}}


def add_prior(doc: dict[str, Any], loaded: Loaded, tracking: bool) -> dict[str, Any]:
    """``doc`` with ``POST /v1/prior``: the bodies of ``/v1/predict`` (a batch of at least one
    item) plus the estimator's options; with ``tracking``, ``/v1/model``'s ``prior_tracking``
    described."""
    schemas = doc["components"]["schemas"]
    options = {
        "method": {"enum": ["em"], "default": "em",
                   "description": "em: Saerens et al.'s EM (2002) on the model's posteriors ('bbse' needs a "
                                  "calibration on held-out training rows, which the service does not have: "
                                  "`nbayes prior MODEL DATA --train ... --method bbse`)"},
        "confidence": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "default": 0.95,
                       "description": "the level of the bootstrap interval (and 1 - the test's level)"},
        "n_bootstrap": {"type": "integer", "minimum": 0, "maximum": MAX_BOOTSTRAP, "default": 100,
                        "description": "bootstrap resamples of the interval (0: none)"},
        "seed": {**_SEED, "default": 0, "description": "the bootstrap's seed (the same seed, the same interval)"},
    }
    one, many = copy.deepcopy(schemas["One"]), copy.deepcopy(schemas["Batch"])
    one["properties"].update(copy.deepcopy(options))
    items = next(iter(many["properties"].values()))
    items["minItems"] = 1
    many["properties"].update(copy.deepcopy(options))
    schemas["PriorOne"], schemas["PriorBatch"] = one, many
    keys = loaded.class_keys
    share = {"type": "number", "minimum": 0, "maximum": 1}
    estimate = {
        "type": "object", "additionalProperties": False,
        "required": ["method", "calibrated", "n_samples", "prior", "source_prior", "interval", "confidence", "test"],
        "properties": {
            "method": {"enum": ["em", "bbse"]},
            "calibrated": {"type": "boolean", "description": "posteriors recalibrated before estimation"},
            "n_samples": {"type": "integer", "minimum": 1},
            "prior": _per_class(keys, share, "the estimated prior per class label (they sum to 1)"),
            "source_prior": _per_class(keys, share, "the training prior the model's posteriors assume"),
            "interval": _per_class(keys, {"type": "array", "items": share, "minItems": 2, "maxItems": 2},
                                   "per class, the bootstrap interval [lower, upper] at level confidence"),
            "confidence": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "test": {"type": "object", "additionalProperties": False,
                     "required": ["statistic", "df", "p_value", "shifted"],
                     "description": "Saerens et al.'s likelihood-ratio test of 'the prior did not change'",
                     "properties": {"statistic": {"type": "number", "minimum": 0}, "df": {"type": "integer", "minimum": 0},
                                    "p_value": share, "shifted": {"type": "boolean",
                                                                  "description": "p_value < 1 - confidence"}}},
        },
    }
    schemas["PriorEstimate"] = estimate
    doc["paths"]["/v1/prior"] = {"post": {
        "summary": "The class prior of a batch of unlabelled items (label shift), and whether it moved from training; "
                   "the served model is not changed",
        "requestBody": {"required": True, "content": _json(
            {"oneOf": [{"$ref": "#/components/schemas/PriorOne"}, {"$ref": "#/components/schemas/PriorBatch"}]})},
        "responses": {
            "200": {"description": "the estimate (model.estimate_prior's, as JSON)",
                    "content": _json({"$ref": "#/components/schemas/PriorEstimate"})},
            "400": _error("the body is not JSON (or empty)"),
            "409": _error("the model has no class prior of its own (a discriminative model) or predicts label sets"),
            "413": _error("the body is over --max-body bytes"),
            "422": _error("JSON of the wrong shape or types, an empty batch, or method 'bbse' (no calibration)"),
        },
    }}
    if tracking:
        model = doc["paths"].get("/v1/model", {}).get("get", {}).get("responses", {}).get("200", {})
        schema = model.get("content", {}).get("application/json", {}).get("schema", {})
        if "properties" in schema:  # (a described /v1/model: its tracking part too)
            count = {"type": "integer", "minimum": 0}
            schema["properties"]["prior_tracking"] = {
                "type": "object", "additionalProperties": False,
                "description": "--track-prior: the estimated class prior of the last rows predicted",
                "required": ["window", "rows", "rows_seen", "refresh", "computed_at", "estimate", "training_prior",
                             "drift", "message"],
                "properties": {
                    "window": count, "rows": count, "rows_seen": count, "refresh": {"type": "number", "minimum": 0},
                    "computed_at": {"type": "string"},
                    "estimate": {"oneOf": [{"$ref": "#/components/schemas/PriorEstimate"}, {"type": "null"}]},
                    "training_prior": {"oneOf": [_per_class(keys, share, "the model's training prior"), {"type": "null"}]},
                    "drift": {"type": "boolean", "description": "the test rejects 'no change' at level 0.05"},
                    "message": {"type": "string"}}}
    return doc


def add_pool(doc: dict[str, Any], loaded: Loaded, limits: Limits, max_pool: int) -> dict[str, Any]:
    """``doc`` with the pool endpoints of a learning service (after :func:`add_learning`, whose
    label schema they take)."""
    schemas = doc["components"]["schemas"]
    text = loaded.kind == "text"
    name = "texts" if text else "rows"
    item = ({"type": "string", "maxLength": limits.max_text} if text
            else copy.deepcopy(schemas["One"]["properties"]["row"]))
    ident = {"type": "string", "minLength": 1, "maxLength": MAX_NAME}
    schemas["PoolItems"] = {
        "type": "object", "required": [name], "additionalProperties": False,
        "properties": {name: {"oneOf": [
            {"type": "array", "minItems": 1, "maxItems": max_pool, "items": item,
             "description": "the items; their ids are their positions '0', '1', ..."},
            {"type": "object", "minProperties": 1, "maxProperties": max_pool, "propertyNames": ident,
             "additionalProperties": item, "description": "id -> item"},
        ]}},
    }
    count = {"type": "integer", "minimum": 0}
    schemas["PoolStatus"] = {
        "type": "object", "additionalProperties": False,
        "required": ["size", "labelled", "leased", "available", "leases", "lease_seconds", "registered_at"],
        "properties": {"size": count, "labelled": count, "leased": count, "available": count,
                       "leases": {"type": "object", "additionalProperties": count,
                                  "description": "annotator -> items leased now"},
                       "lease_seconds": {"type": "number", "minimum": 0}, "registered_at": {"type": "string"}},
    }
    probs = copy.deepcopy(schemas["Prediction"]["properties"]["probabilities"])
    # a row as stored: every feature named (null: missing, where the model allows it)
    shown = {"type": "string"} if text else copy.deepcopy(schemas["One"]["properties"]["row"]["oneOf"][0])
    if not text:
        shown["required"] = list(shown["properties"])
    suggestion = {
        "type": "object", "additionalProperties": False, "required": ["id", "text" if text else "row", "label", "probabilities"],
        "properties": {"id": {"type": "string"}, ("text" if text else "row"): shown,
                       "label": {"enum": loaded.classes, "description": "the label predicted now"},
                       "probabilities": probs},
    }
    label = copy.deepcopy(schemas["LearnOne"]["properties"]["label"])
    secured: list[dict[str, list[str]]] = [{"bearer": []}]
    status = {"$ref": "#/components/schemas/PoolStatus"}
    common = {"400": _error("the body is not JSON (or empty)"), "401": _error("no bearer token"),
              "403": _error("another token"), "413": _error("the body is over --max-body bytes")}
    model = doc["paths"].get("/v1/model", {}).get("get", {}).get("responses", {}).get("200", {})
    described = model.get("content", {}).get("application/json", {}).get("schema", {})
    if "properties" in described:  # (a described /v1/model: its pool part too)
        described["properties"]["pool"] = {"oneOf": [status, {"type": "null"}]}
    doc["paths"]["/v1/pool"] = {"post": {
        "summary": "Register the pool of unlabelled items to suggest from (replaces the previous one and its leases; "
                   "held in memory: a restart forgets it)",
        "security": secured,
        "requestBody": {"required": True, "content": _json({"$ref": "#/components/schemas/PoolItems"})},
        "responses": {"200": {"description": "registered", "content": _json({
            "type": "object", "required": ["registered", "pool"], "additionalProperties": False,
            "properties": {"registered": count, "pool": status}})},
            **common, "409": _error("a multi-label model"),
            "422": _error("JSON of the wrong shape or types, an empty pool, or over --max-pool items")},
    }}
    doc["paths"]["/v1/suggest"] = {"post": {
        "summary": "The k items most worth labelling that no other annotator holds, leased to this annotator",
        "security": secured,
        "requestBody": {"required": True, "content": _json({
            "type": "object", "required": ["annotator"], "additionalProperties": False,
            "properties": {"annotator": {**ident, "description": "who labels them (their leases)"},
                           "k": {"type": "integer", "minimum": 1, "maximum": limits.max_batch,
                                 "default": min(10, limits.max_batch)},
                           "strategy": {"enum": list(STRATEGIES), "default": DEFAULT},
                           "seed": {**_SEED, "description": "the seed of random choices (random, expected_error)"}}})},
        "responses": {"200": {"description": "the items, best first (none when every item is labelled or leased)",
                              "content": _json({
                                  "type": "object", "additionalProperties": False,
                                  "required": ["annotator", "strategy", "items", "lease_expires", "pool"],
                                  "properties": {"annotator": {"type": "string"}, "strategy": {"enum": list(STRATEGIES)},
                                                 "items": {"type": "array", "items": suggestion},
                                                 "lease_expires": {"type": "string"}, "pool": status}})},
                      **common, "409": _error("no pool registered, or a strategy the model cannot use"),
                      "422": _error("JSON of the wrong shape or types")},
    }}
    doc["paths"]["/v1/label"] = {"post": {
        "summary": "Learn labelled pool items (as /v1/learn: durable before the answer); they leave the pool",
        "security": secured,
        "parameters": [{"name": "visible", "in": "query", "required": False,
                        "schema": {"type": "boolean", "default": False},
                        "description": "true: answer once predictions see the labels (as /v1/learn)"}],
        "requestBody": {"required": True, "content": _json({
            "type": "object", "required": ["labels"], "additionalProperties": False,
            "properties": {"labels": {"type": "object", "minProperties": 1, "maxProperties": limits.max_batch,
                                      "propertyNames": {"type": "string", "maxLength": MAX_NAME},
                                      "additionalProperties": label, "description": "id -> label"},
                           "annotator": {**ident, "description": "given: an item leased to another annotator is refused"}}})},
        "responses": {"200": {"description": "learned and durable", "content": _json({
            "type": "object", "required": ["labelled", "version", "pool"], "additionalProperties": False,
            "properties": {"labelled": count, "version": {"type": "integer"}, "pool": status}})},
            **common, "404": _error("an id not in the pool"),
            "409": _error("no pool, an item labelled already or leased to another annotator, or a model that cannot learn"),
            "422": _error("JSON of the wrong shape or types, or a label outside the classes"),
            "503": _error("the update could not be written to disk; nothing was learned")},
    }}
    return doc

