"""The OpenAPI paths of ``nbayes serve --learn`` (``/v1/learn``, ``/v1/unlearn``), added to the
schema of :mod:`._openapi` when the service learns."""

from __future__ import annotations

import copy
from typing import Any


def add_learning(doc: dict[str, Any], classes: list[Any], allow_new_classes: bool, *, sets: bool = False,
                 allow_empty: bool = False) -> dict[str, Any]:
    """``doc`` (the service's OpenAPI schema) with the learning endpoints and their bodies: the
    bodies of ``/v1/predict`` plus labels (and optional weights). ``sets``: a multi-label
    model, whose item's label is a list of labels (empty only if ``allow_empty``)."""
    schemas = doc["components"]["schemas"]
    label: dict[str, Any] = ({"type": _types(classes), "description": "a class label of the type of the model's classes "
                              "(new ones create a class; a string holds no NUL)"}
                             if allow_new_classes else {"enum": classes, "description": "one of the model's classes"})
    if sets:
        label = {"type": "array", "items": label, "minItems": 0 if allow_empty else 1,
                 "description": "the item's label set (a label named twice counts once)"
                                + ("" if allow_empty else "; the model takes no empty set")}
    if allow_new_classes:
        open_classes(schemas, {"type": _types(classes)})
    weight = {"type": "number", "minimum": 0}
    one, many = copy.deepcopy(schemas["One"]), copy.deepcopy(schemas["Batch"])
    one["properties"].update(label=label, weight=weight)
    one["required"] = [*one["required"], "label"]
    items = next(iter(many["properties"].values()))
    key = next(iter(many["properties"]))
    # one label (and weight) per item: JSON Schema cannot tie two arrays' lengths (short of one
    # branch per length, --max-batch of them), so it is said here; another number is a 422
    one_each = f"one per item of {key!r}, as many as it holds (another number is refused: 422)"
    many["properties"].update(labels={"type": "array", "items": label, "maxItems": items.get("maxItems"),
                                      "description": f"the labels, {one_each}"},
                              weights={"type": "array", "items": weight, "maxItems": items.get("maxItems"),
                                       "description": f"the weights (optional), {one_each}"})
    many["required"] = [*many["required"], "labels"]
    schemas["LearnOne"], schemas["LearnBatch"] = one, many

    def error(description: str) -> dict[str, Any]:
        return {"description": description, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}

    def path(op: str, key: str, what: str) -> dict[str, Any]:
        return {"post": {
            "summary": what,
            "security": [{"bearer": []}],
            "parameters": [{
                "name": "visible", "in": "query", "required": False, "schema": {"type": "boolean", "default": False},
                "description": "true: answer once predictions see the update (the version answered, or a later one, "
                               "is published), not only once it is durable; at most the service's publish interval "
                               "(--publish-every, 0.1 s) later. An unlearn is visible when answered in any case."}],
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "oneOf": [{"$ref": "#/components/schemas/LearnOne"}, {"$ref": "#/components/schemas/LearnBatch"}]}}}},
            "responses": {
                "200": {"description": "durable: on disk before this answer (visible to predictions within the "
                                       "publish interval; with visible=true, before this answer); version: the "
                                       "model version that holds the update", "content": {"application/json": {"schema": {
                    "type": "object", "required": [key, "version"],
                    "properties": {key: {"type": "integer"}, "version": {"type": "integer"}}}}}},
                "400": error("the body is not JSON (or empty)"),
                "401": error("no bearer token"),
                "403": error("another token"),
                "409": error(f"this model cannot {op}"),
                "413": error("over a limit"),
                "422": error("bad rows, a label outside the classes, or counts that would go negative; nothing changed"),
                "503": error("the update could not be written to disk; nothing changed"),
            },
        }}

    doc["paths"]["/v1/learn"] = path("learn", "learned", "Learn rows (texts or table rows) under their labels")
    doc["paths"]["/v1/unlearn"] = path("unlearn", "unlearned", "Forget rows learned before, exactly")
    doc["paths"]["/v1/snapshot"] = {"post": {
        "summary": "Write every acknowledged update into the model file now (and start a new, empty log)",
        "security": [{"bearer": []}],
        "responses": {
            "200": {"description": "snapshot: whether a file was written (false: it held every update already); "
                                   "version: the model version the file holds", "content": {"application/json": {
                "schema": {"type": "object", "required": ["snapshot", "version", "file_version"], "properties": {
                    "snapshot": {"type": "boolean"}, "version": {"type": "integer"},
                    "file_version": {"type": "integer"}}}}}},
            "401": error("no bearer token"),
            "403": error("another token"),
            "503": error("the file could not be written; the log keeps every acknowledged update"),
        }}}
    doc["components"].setdefault("securitySchemes", {})["bearer"] = {"type": "http", "scheme": "bearer"}
    return doc


def open_classes(schemas: dict[str, Any], label: dict[str, Any]) -> None:
    """The answers' schemas of a service whose classes grow (``--allow-new-classes``): a
    label is any value of the classes' JSON types, not one of those at start, and per-class
    maps (probabilities, thresholds) may hold more classes than the model had (the schema is
    read once by a client; the classes change with every update that brings one)."""
    for name in ("Prediction", "Explanation"):
        props = schemas[name]["properties"]
        for key in ("label", "runner_up"):
            if "enum" in props.get(key, {}):
                props[key] = {**{k: v for k, v in props[key].items() if k != "enum"}, **label}
        if "items" in props.get("labels", {}):  # a multi-label prediction: its label set
            props["labels"] = {**props["labels"], "items": label}
            props["labels"].pop("maxItems", None)
        for key in ("probabilities", "thresholds"):
            if key in props:
                props[key] = {**props[key], "additionalProperties": {"type": "number", "minimum": 0, "maximum": 1}}


def _types(classes: list[Any]) -> list[str]:
    """The JSON types of ``classes`` (plain values): what a new label must be."""
    names = {bool: "boolean", int: "integer", float: "number", str: "string"}
    out = [names[t] for t in names if any(type(c) is t for c in classes)]
    return out or ["string"]
