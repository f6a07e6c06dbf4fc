"""Query parameters: each endpoint takes the ones it lists here and refuses any other (422,
naming it and the accepted ones), so that a misspelt option (``?visable=true``) is never
silently ignored. The OpenAPI schema states each operation's parameters and the refusal
(:func:`document`); ``tests/test_serve_openapi.py`` holds the two together."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ._model import Problem

#: the query parameters of each endpoint (path -> names); an endpoint not listed takes none
QUERY: dict[str, tuple[str, ...]] = {"/v1/learn": ("visible",), "/v1/unlearn": ("visible",), "/v1/label": ("visible",)}


def refusal(path: str, names: Any) -> Problem | None:
    """The 422 for the query parameters ``names`` of a request to ``path``, or None if it takes
    each of them."""
    allowed = QUERY.get(path, ())
    unknown = list(dict.fromkeys(n for n in names if n not in allowed))
    if not unknown:
        return None
    took = f"its query parameters are: {', '.join(allowed)}" if allowed else "it takes no query parameters"
    which = ", ".join(repr(n[:40]) for n in unknown[:5])
    return Problem(422, f"{path}: unknown query parameter{'s' if len(unknown) > 1 else ''} {which}; {took}")


def strict(route: Route) -> Route:
    """``route`` refusing the query parameters its endpoint does not take (a request without a
    query string, every predict of a client that sends none, pays one test of its scope)."""
    endpoint, path = route.endpoint, route.path

    async def checked(request: Request) -> Response:
        if request.scope["query_string"]:
            problem = refusal(path, request.query_params.keys())
            if problem is not None:
                raise problem
        response: Response = await endpoint(request)
        return response

    return Route(path, checked, methods=list(route.methods or ()), name=route.name)


def document(doc: dict[str, Any]) -> dict[str, Any]:
    """The schema ``doc`` saying, for each operation, that a query parameter it does not list
    is refused with 422 (the schema's parameters are the ones :data:`QUERY` accepts)."""
    for path, ops in doc.get("paths", {}).items():
        allowed = QUERY.get(path, ())
        took = f"the query parameters {', '.join(allowed)}" if allowed else "no query parameters"
        note = f"Takes {took}: any other query parameter is refused with 422, naming it and the accepted ones."
        for op in ops.values():
            op["description"] = (op["description"] + " " + note) if op.get("description") else note
            responses = op.setdefault("responses", {})
            if "422" in responses:
                described = responses["422"]  # (a copy: operations share their error answers)
                responses["422"] = {**described,
                                    "description": described["description"].rstrip(".") + "; or an unknown query parameter"}
            else:
                responses["422"] = {"description": "an unknown query parameter (the error names it and the accepted ones)",
                                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    return doc
