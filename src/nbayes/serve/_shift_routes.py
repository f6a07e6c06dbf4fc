"""The endpoints of label shift and active learning (added to the app by :mod:`.app`):

- ``POST /v1/prior``: the class prior of a batch (the body of ``/v1/predict`` plus ``method``,
  ``confidence``, ``n_bootstrap``, ``seed``), as ``model.estimate_prior`` gives it
  (:mod:`._prior`); the served model is not changed;
- with ``learn=True`` (and the token): ``POST /v1/pool`` registers a pool of unlabelled items,
  ``POST /v1/suggest`` hands an annotator the items most worth labelling under leases, and
  ``POST /v1/label`` learns labelled items through the durable learning path of ``/v1/learn``
  (:mod:`._pool`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
from dataclasses import dataclass
from typing import Any, Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..active import DEFAULT, STRATEGIES
from . import _prior
from ._json import dumps
from ._model import Limits, ModelHolder, Problem
from ._pool import MAX_NAME, LeasedPool, clock, name_of, pool_input
from ._prior import MAX_SEED, PriorTracker, integer
from ._requests import LEARN, cannot, labels_of


@dataclass
class Context:
    """What the endpoints share with the app: its model, limits, learner and request helpers."""

    holder: ModelHolder
    limits: Limits
    learner: Any  # a Learner, or None
    token: str | None
    read_token: str | None
    body: Callable[..., Any]  # async (request, limits) -> the JSON object
    authorize: Callable[[Request, str | None], None]
    input: Callable[..., tuple[Any, bool, int, Any]]  # (loaded, body, limits, batch) -> (X, single, size, items)
    run: Callable[..., Any]  # async (size, fn, *args): inline or in a worker thread
    call: Callable[..., Any]  # fn(*args), the model's refusals as 422
    visible: Callable[[Request], bool]
    tracker: PriorTracker | None = None
    lease_seconds: float = 900.0
    max_pool: int = 100_000
    pool: LeasedPool | None = None


def _json(content: Any) -> Response:
    return Response(dumps(content), media_type="application/json")


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def _only(body: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    unknown = [k for k in body if k not in allowed]
    if unknown:
        raise Problem(422, f"unknown field {unknown[0]!r}; {where} takes {', '.join(repr(a) for a in allowed)}")


def _by_id(exc: Problem, field: str, ids: list[str]) -> Problem:
    """A refusal naming ``field[i]`` renamed by the item's id."""
    message = re.sub(rf"\b{field}\[(\d+)\]", lambda m: f"{field}[{ids[int(m.group(1))]!r}]", exc.message)
    return Problem(exc.status, message, exc.headers)


def routes(ctx: Context) -> list[Route]:
    """The routes of this module's endpoints over the app's ``ctx``."""

    async def prior(request: Request) -> Response:
        ctx.authorize(request, ctx.read_token)
        body = await ctx.body(request, ctx.limits)
        loaded = ctx.holder.current
        fields, opts = _prior.options(body, ("em",))
        X, _, _, items = ctx.input(loaded, fields, ctx.limits, True)
        reason = _prior.refusal(loaded)
        if reason is not None:
            raise Problem(409, reason)
        if not items:
            name = "texts" if loaded.kind == "text" else "rows"
            raise Problem(422, f"'{name}' is empty: the prior of no rows cannot be estimated")
        # (EM and its bootstrap: a worker thread, whatever the size)
        return _json(await run_in_threadpool(ctx.call, _prior.estimate, loaded, X, opts))

    def learning(what: str) -> Any:
        if ctx.learner is None:
            raise Problem(409, f"this service does not {what}: labels are learned, so a pool needs a learning "
                               "service (`nbayes serve MODEL --learn`)")
        return ctx.learner

    def registered() -> LeasedPool:
        if ctx.pool is None:
            raise Problem(409, "no pool is registered: POST /v1/pool {\"texts\": [...]} (or \"rows\") first "
                               "(a pool lives in memory: a restart forgets it)")
        return ctx.pool

    async def register(request: Request) -> Response:
        learning("keep a pool")
        ctx.authorize(request, ctx.token)
        body = await ctx.body(request, ctx.limits)
        loaded = ctx.holder.current
        name, raw, ids = pool_input(body, loaded.kind)
        if loaded.multilabel:
            raise Problem(409, f"a {type(loaded.model).__name__} predicts label sets: the service's pools are for "
                               "single-label models (nbayes.active works on each label's model offline)")
        if not raw:
            raise Problem(422, f"'{name}' is empty: a pool needs at least one item")
        if len(raw) > ctx.max_pool:
            raise Problem(422, f"'{name}' holds {len(raw):,} items; the limit is {ctx.max_pool:,} per pool")
        try:
            X, _, _, items = ctx.input(loaded, {name: raw}, dataclasses.replace(ctx.limits, max_batch=ctx.max_pool), True)
        except Problem as exc:
            raise _by_id(exc, name, ids) if isinstance(body[name], dict) else exc from None
        pool = await run_in_threadpool(ctx.call, LeasedPool, loaded.model, X, items, ids, ctx.lease_seconds)
        ctx.pool = pool  # replaces the previous pool and its leases
        return _json({"registered": len(ids), "pool": pool.status()})

    async def suggest(request: Request) -> Response:
        learning("suggest")
        ctx.authorize(request, ctx.token)
        body = await ctx.body(request, ctx.limits)
        _only(body, ("annotator", "k", "strategy", "seed"), "/v1/suggest")
        annotator = name_of(body, "annotator", True)
        assert annotator is not None
        k = integer(body.get("k", min(10, ctx.limits.max_batch)))
        if k is None or not 1 <= k <= ctx.limits.max_batch:
            raise Problem(422, f"'k' must be an integer from 1 to {ctx.limits.max_batch}, got {repr(body.get('k'))[:40]}")
        strategy = body.get("strategy", DEFAULT)
        if strategy not in STRATEGIES:
            raise Problem(422, f"'strategy' must be one of {list(STRATEGIES)}, got {repr(strategy)[:60]}")
        seed = integer(body["seed"]) if "seed" in body else None
        if "seed" in body and (seed is None or not 0 <= seed <= MAX_SEED):
            raise Problem(422, f"'seed' must be an integer from 0 to 2**63 - 1, got {repr(body['seed'])[:40]}")
        pool = registered()
        loaded = ctx.holder.current
        rows, L, until = await run_in_threadpool(ctx.call, pool.suggest, loaded.model, annotator, k, strategy, seed)
        items = pool.answer(rows, L, loaded.class_keys, loaded.classes, loaded.kind, loaded.input_feature_names)
        return _json({"annotator": annotator, "strategy": strategy, "items": items,
                      "lease_expires": _iso(time.time() + max(until - clock(), 0.0)), "pool": pool.status()})

    async def label(request: Request) -> Response:
        learner = learning("label")
        ctx.authorize(request, ctx.token)
        visible = ctx.visible(request)
        body = await ctx.body(request, ctx.limits)
        _only(body, ("labels", "annotator"), "/v1/label")
        annotator = name_of(body, "annotator", False)
        if "labels" not in body:
            raise Problem(422, "missing field 'labels': an object id -> label of the pool's items labelled")
        given = body["labels"]
        if not isinstance(given, dict) or not given:
            raise Problem(422, "'labels' must be a non-empty object id -> label (ids as registered, or positions '0', ...)")
        if len(given) > ctx.limits.max_batch:
            raise Problem(422, f"'labels' holds {len(given)} items; the limit is {ctx.limits.max_batch} per request")
        ids = list(given)
        long = [k for k in ids if len(k) > MAX_NAME]
        if long:
            raise Problem(422, f"'labels': an id is at most {MAX_NAME} characters, got {long[0][:40]!r}...")
        pool = registered()
        loaded = ctx.holder.current
        reason = cannot(loaded.model, LEARN)
        if reason is not None:
            raise Problem(409, reason)
        try:
            y, w = labels_of({"labels": list(given.values())}, len(ids), False, False, loaded.model.classes_,
                             ctx.limits.max_text)
        except Problem as exc:
            raise _by_id(exc, "labels", ids) from None
        rows = pool.claim(ids, annotator)
        try:
            items = [pool.items[i] for i in rows]
            X = items if loaded.kind == "text" else loaded.matrix(items)
            size = sum(map(len, items)) if loaded.kind == "text" else 100 * len(items)
            X = await ctx.run(size, learner.count, X, y, w)
            future = learner.submit(LEARN, X, y, w, visible=visible)
        except BaseException as exc:
            pool.done(rows, False)
            raise _by_id(exc, "labels", ids) if isinstance(exc, Problem) else exc from None
        # the items leave the pool when the update is learned, even if this request is gone by then
        future.add_done_callback(lambda f: pool.done(rows, not f.cancelled() and f.exception() is None))
        try:
            answer = await asyncio.wrap_future(future)
        except Problem as exc:  # (a label refused by the model: named by its id)
            raise _by_id(exc, "labels", ids) from None
        return _json({"labelled": int(answer["learned"]), "version": answer["version"], "pool": pool.status()})

    return [
        Route("/v1/prior", prior, methods=["POST"]),
        Route("/v1/pool", register, methods=["POST"]),
        Route("/v1/suggest", suggest, methods=["POST"]),
        Route("/v1/label", label, methods=["POST"]),
    ]
