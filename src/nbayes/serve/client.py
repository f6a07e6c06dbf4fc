"""A client of ``nbayes serve --learn`` (the standard library only: no web stack needed).

>>> from nbayes.serve import learn, unlearn                               # doctest: +SKIP
>>> learn("http://127.0.0.1:8000", ["WIN a prize now"], ["spam"])         # doctest: +SKIP
{'learned': 1, 'version': 7}

Each batch is one request, answered once the service has made it durable; a refused batch
raises :class:`ServiceError` (with the HTTP status) and the batches before it stay learned.
With ``visible=True`` (the default) the last batch asks ``?visible=true``: the call returns
once predictions see every batch (one wait of at most the service's ``--publish-every``).
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import NBayesError

__all__ = ["ServiceError", "learn", "unlearn", "model_info", "request"]


class ServiceError(NBayesError):
    """The service refused a request (``status``: the HTTP status, 0 if it could not be reached)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


def request(url: str, path: str, body: dict[str, Any] | None = None, *, token: str | None = None,
            timeout: float = 60.0) -> dict[str, Any]:
    """One JSON request (GET without ``body``, POST with it) and its JSON answer."""
    data = None if body is None else json.dumps(body, allow_nan=False).encode("utf-8")
    req = urllib.request.Request(url.rstrip("/") + path, data=data, method="GET" if body is None else "POST")
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as answer:
            out: dict[str, Any] = json.loads(answer.read())
            return out
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            message = json.loads(raw)["error"]
        except (ValueError, KeyError, TypeError):
            message = raw.decode("utf-8", "replace")[:300] or exc.reason
        raise ServiceError(f"{url}{path}: {exc.code} {message}", exc.code) from None
    except urllib.error.URLError as exc:
        raise ServiceError(f"{url}{path}: cannot reach the service ({exc.reason})") from None
    except (OSError, ValueError) as exc:  # a timeout, a reset, an answer that is not JSON
        raise ServiceError(f"{url}{path}: {type(exc).__name__}: {exc}") from None


def model_info(url: str, *, token: str | None = None, timeout: float = 60.0) -> dict[str, Any]:
    """``GET /v1/model``: the served model's metadata, version and learning state."""
    return request(url, "/v1/model", token=token, timeout=timeout)


def learn(url: str, X: Any, y: Sequence[Any], *, sample_weight: Sequence[float] | None = None,
          token: str | None = None, batch_size: int = 100, timeout: float = 60.0,
          progress: Callable[[int, int], None] | None = None, visible: bool = True) -> dict[str, Any]:
    """Send (X, y) to ``url``'s ``/v1/learn`` in batches of ``batch_size``: X a list of texts, or
    rows (objects feature -> value, arrays in feature order, or a pandas / polars frame); y one
    label per item, or for a multi-label model one collection of labels per item. The
    token defaults to the NBAYES_TOKEN environment variable. ``progress(done, total)`` is called
    after each batch. ``visible``: return once predictions see the rows (the last batch asks
    ``?visible=true``); False: once they are durable. Returns {"learned": rows, "version": the
    model version after the last}."""
    return _send(url, "learn", X, y, sample_weight, token, batch_size, timeout, progress, visible)


def unlearn(url: str, X: Any, y: Sequence[Any], *, sample_weight: Sequence[float] | None = None,
            token: str | None = None, batch_size: int = 100, timeout: float = 60.0,
            progress: Callable[[int, int], None] | None = None, visible: bool = True) -> dict[str, Any]:
    """As :func:`learn`, through ``/v1/unlearn``: the model forgets the rows exactly (an
    unlearn is visible when answered in any case)."""
    return _send(url, "unlearn", X, y, sample_weight, token, batch_size, timeout, progress, visible)


def _send(url: str, op: str, X: Any, y: Sequence[Any], w: Sequence[float] | None, token: str | None,
          batch_size: int, timeout: float, progress: Callable[[int, int], None] | None,
          visible: bool = True) -> dict[str, Any]:
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ServiceError(f"batch_size must be a positive integer, got {batch_size!r}")
    items, key = _items(X)
    labels = [_label(v) for v in _as_list(y)]
    if len(labels) != len(items):
        raise ServiceError(f"{len(items)} items but {len(labels)} labels")
    weights = None if w is None else [float(v) for v in _as_list(w)]
    if weights is not None and len(weights) != len(items):
        raise ServiceError(f"{len(items)} items but {len(weights)} weights")
    token = token if token is not None else (os.environ.get("NBAYES_TOKEN", "").strip() or None)
    done, version = 0, None
    for start in range(0, len(items), batch_size):
        stop = min(start + batch_size, len(items))
        body: dict[str, Any] = {key: items[start:stop], "labels": labels[start:stop]}
        if weights is not None:
            body["weights"] = weights[start:stop]
        last = visible and stop == len(items)
        answer = request(url, f"/v1/{op}" + ("?visible=true" if last else ""), body, token=token, timeout=timeout)
        done += int(answer.get("learned" if op == "learn" else "unlearned", 0))
        version = answer.get("version")
        if progress is not None:
            progress(stop, len(items))
    return {"learned" if op == "learn" else "unlearned": done, "version": version}


def _items(X: Any) -> tuple[list[Any], str]:
    """(items, "texts" or "rows")."""
    if hasattr(X, "to_dicts"):  # polars
        return [{k: _plain(v) for k, v in r.items()} for r in X.to_dicts()], "rows"
    if hasattr(X, "to_dict") and hasattr(X, "columns"):  # pandas
        return [{str(k): _plain(v) for k, v in r.items()} for r in X.to_dict("records")], "rows"
    items = _as_list(X)
    if all(isinstance(t, str) for t in items):
        return items, "texts"
    return [r if isinstance(r, dict) else [_plain(v) for v in _as_list(r)] for r in items], "rows"


def _as_list(v: Any) -> list[Any]:
    return v.tolist() if hasattr(v, "tolist") else list(v)


def _label(v: Any) -> Any:
    """A label, or a multi-label model's label set (a list, tuple, set or array of labels) as a list."""
    if isinstance(v, list | tuple | set | frozenset) or (hasattr(v, "tolist") and getattr(v, "ndim", 0) >= 1):
        return [_plain(x) for x in (sorted(v, key=str) if isinstance(v, set | frozenset) else _as_list(v))]
    return _plain(v)


def _plain(v: Any) -> Any:
    """A JSON value: numpy scalars unwrapped, NaN (pandas' missing) as null."""
    if hasattr(v, "item") and not isinstance(v, str | bytes):
        v = v.item()
    if isinstance(v, float) and v != v:
        return None
    return v
