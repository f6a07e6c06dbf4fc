"""The ASGI app of ``nbayes serve``: a JSON API around one model file, and a web page.

``create_app(path)`` loads the model (a bad file is an error here), and returns a Starlette app:

- ``POST /v1/predict``: ``{"text": ...}`` / ``{"texts": [...]}`` (text models) or ``{"row": {...}}``
  / ``{"rows": [...]}`` (table models): labels and per-class probabilities;
- ``POST /v1/explain``: one text or row: each token's (with its character span) or feature's
  contribution to the log-odds of the predicted class against the runner-up, and the baseline;
  ``baseline + sum(contributions) == log_odds`` (up to float rounding);
- ``GET /v1/model`` (what ``nbayes info --json`` prints), ``GET /healthz``, ``GET /openapi.json``;
- ``GET /``: the page;
- with ``learn=True``: ``POST /v1/learn`` and ``POST /v1/unlearn`` (the bodies of
  ``/v1/predict`` plus ``"labels"``, optional ``"weights"``; ``Authorization: Bearer <token>``),
  answered once the update is durable, and with ``?visible=true`` once predictions see it
  (:mod:`nbayes.serve._learn`); ``POST /v1/snapshot`` writes every acknowledged update into the
  model file now;
- ``POST /v1/prior``: the class prior of a batch (label shift); with ``track_prior=True``,
  ``GET /v1/model`` reports the running estimate over the rows predicted (:mod:`._prior`);
- with ``learn=True``: ``POST /v1/pool``, ``/v1/suggest`` and ``/v1/label``: a pool of
  unlabelled items handed out under leases and labelled (:mod:`._pool`, :mod:`._shift_routes`).

Bad requests get a JSON body ``{"error": message, "status": code}``: 400 for a body that is not
JSON, 413 for a body over ``max_body`` bytes (only that), 422 for JSON that breaks the schema of
``/openapi.json`` (wrong shape or types, over ``max_batch`` items or ``max_text`` characters,
input of the other kind of model). The model file is watched (its
inode, size and mtime, once per ``reload_interval`` seconds) and loaded again when it changes,
or on SIGHUP; a new file that does not load keeps the previous model serving, and ``/healthz``
says so.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import math
import signal
import threading
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

try:
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route
except ImportError as exc:  # pragma: no cover - the extra is missing
    raise ImportError("nbayes serve needs the web stack: pip install 'nbayes[serve]'") from exc

from .._kernels import set_max_threads
from ..errors import InvalidParameterError, NBayesError
from . import _multilabel
from ._learn import PUBLISH_EVERY, WINDOW, Learner
from ._model import Limits, Loaded, ModelHolder, Problem, log
from ._model import load_model as load_model  # public here: the CLI reads a file once before the workers start
from ._json import dumps, loads
from ._openapi_learn import add_learning
from ._openapi_shift import add_pool, add_prior
from ._pool import LEASE_SECONDS, MAX_POOL
from ._query import document as document_query, strict
from ._prior import PriorTracker, refusal as prior_refusal
from ._requests import LEARN, SNAPSHOT, UNLEARN, cannot, labels_of
from ._shift_routes import Context, routes as shift_routes

#: requests smaller than this (characters of text, or rows x 100) run on the event loop; larger
#: ones in a worker thread, so a batch of 1,000 documents does not stall the other connections
INLINE_SIZE = 20_000

PAGE_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'"
)


class JSONResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return dumps(content)


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """The JSON error answer."""
    return JSONResponse({"error": message, "status": status}, status_code=status, headers=headers)


# ---------------------------------------------------------------------------- requests
async def _body(request: Request, limits: Limits) -> dict[str, Any]:
    """The request's JSON object, read up to ``max_body`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            n = int(declared)
        except ValueError:
            raise Problem(400, f"Content-Length {declared!r} is not a number") from None
        if n > limits.max_body:
            raise Problem(413, f"the body is {n:,} bytes; the limit is {limits.max_body:,}")
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limits.max_body:
            raise Problem(413, f"the body is over {limits.max_body:,} bytes, the limit")
    if not raw.strip():
        raise Problem(400, "the body is empty; send a JSON object")
    body = loads(bytes(raw))
    if not isinstance(body, dict):
        kind = "an array" if isinstance(body, list) else type(body).__name__
        raise Problem(422, f"the body must be a JSON object, got {kind}")
    return body


def _call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except NBayesError as exc:  # the model refused the input: the client's to fix
        raise Problem(422, str(exc)) from None


_local = threading.local()


def _one_thread() -> None:
    """Small requests run on the event loop's thread with the compiled kernels on one thread:
    waking a pool of kernel threads for one short document costs more than it saves, and the
    concurrency comes from the connections (and ``--workers``). Batches in worker threads keep
    every kernel thread."""
    if not getattr(_local, "single", False):
        set_max_threads(1)  # OpenMP's setting, for this thread only
        _local.single = True


async def _run(size: int, fn: Any, *args: Any) -> Any:
    if size <= INLINE_SIZE:
        _one_thread()
        return _call(fn, *args)
    return await run_in_threadpool(_call, fn, *args)


def _input(loaded: Loaded, body: dict[str, Any], limits: Limits, batch: bool) -> tuple[Any, bool, int, Any]:
    """(model input, single item?, size for scheduling, the checked items)."""
    if loaded.kind == "text":
        texts, single = loaded.texts(body, limits, batch=batch)
        return texts, single, sum(map(len, texts)), texts
    rows, single = loaded.rows(body, limits, batch=batch)
    return (loaded.matrix(rows) if rows else None), single, 100 * len(rows), rows


_YES, _NO = ("true", "1", "yes"), ("false", "0", "no", "")


def _visible(request: Request) -> bool:
    """The ``visible`` query parameter of a learn / unlearn request: answer once predictions
    see the update (read-your-writes), not only once it is durable."""
    raw = request.query_params.get("visible")
    if raw is None or raw.lower() in _NO:
        return False
    if raw.lower() in _YES:
        return True
    raise Problem(422, f"the query parameter visible must be true or false, got {raw[:40]!r}")


def _authorize(request: Request, token: str | None) -> None:
    """401 without ``Authorization: Bearer <token>``, 403 with another token (compared in
    constant time)."""
    if token is None:
        return
    challenge = {"WWW-Authenticate": 'Bearer realm="nbayes"'}
    given = request.headers.get("authorization")
    if not given:
        raise Problem(401, "this endpoint needs 'Authorization: Bearer <token>'", challenge)
    scheme, _, credential = given.strip().partition(" ")
    if scheme.lower() != "bearer" or not credential.strip():
        raise Problem(401, "the Authorization header must be 'Bearer <token>'", challenge)
    if not hmac.compare_digest(credential.strip().encode("utf-8"), token.encode("utf-8")):
        raise Problem(403, "the token is not the service's")


# ---------------------------------------------------------------------------- the app
def create_app(
    model_path: str,
    *,
    max_body: int = 1_000_000,
    max_batch: int = 1000,
    max_text: int = 100_000,
    reload_interval: float = 1.0,
    freeze_gc: bool = False,
    learn: bool = False,
    token: str | None = None,
    token_required_for_predict: bool = False,
    allow_new_classes: bool = False,
    snapshot_every: int = 10_000,
    snapshot_bytes: int = 256 << 20,
    learn_pace: float = 0.0,
    learn_window: float = WINDOW,
    publish_every: float = PUBLISH_EVERY,
    replay: bool = False,
    track_prior: bool = False,
    track_window: int = 2000,
    track_refresh: float = 5.0,
    lease_seconds: float = LEASE_SECONDS,
    max_pool: int = MAX_POOL,
) -> Starlette:
    """The service for the model file ``model_path`` (loaded now: a bad file raises
    :class:`nbayes.errors.ModelFileError`). ``freeze_gc`` (for a process that only serves, as
    ``nbayes serve``): after each load, :func:`gc.freeze` the objects alive, so that the
    collector's full passes skip the model's vocabulary (about 50 ms for 20 Newsgroups, which
    would otherwise land in a request's latency now and then).

    ``learn=True`` (needs ``token``): ``/v1/learn`` and ``/v1/unlearn`` change the model; the
    file is not watched any more, its update log ``MODEL.log`` is replayed now (a log that
    belongs to another file is a ModelFileError), and a snapshot rewrites the file every
    ``snapshot_every`` updates or ``snapshot_bytes`` of log (and before answering an unlearn).
    ``allow_new_classes``: a label outside ``classes_`` creates a class instead of a 422.
    ``learn_pace``: after a group of updates that cost t of the writer's CPU, the next starts
    ``learn_pace * t`` later (at most 50 ms): learning takes at most ``1 / (1 + learn_pace)``
    of a core from the predictions (0: at once).
    ``learn_window``: a group of updates starts no sooner than this (s) after the last one started
    (fewer, larger groups: fewer fsyncs; 0, the default: as soon as the last one ends).
    ``publish_every``: acknowledged (durable) updates become visible to predictions in a new
    version at most once per this many seconds (0.1), at once after a quiet spell; a learn or
    unlearn with ``?visible=true`` is answered once visible (0: every group before its answers).
    ``token_required_for_predict``: ``/v1/predict`` and ``/v1/explain`` need the token too.
    ``replay`` (without ``learn``): a log beside the file (left by a learning service) holding
    updates the file lacks is replayed at each load, not only logged as a warning.
    ``track_prior``: keep the posteriors of the last ``track_window`` rows predicted and report
    their estimated class prior in ``GET /v1/model`` (computed when asked, at most once per
    ``track_refresh`` seconds; the model is never adapted by itself). ``lease_seconds``: how long
    ``/v1/suggest`` leases an item to its annotator; ``max_pool``: the most items of a pool."""
    for name, v in (("max_body", max_body), ("max_batch", max_batch), ("max_text", max_text),
                    ("snapshot_every", snapshot_every), ("snapshot_bytes", snapshot_bytes),
                    ("track_window", track_window), ("max_pool", max_pool)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if isinstance(learn_pace, bool) or not isinstance(learn_pace, (int, float)) or not learn_pace >= 0:
        raise ValueError(f"learn_pace must be a number >= 0, got {learn_pace!r}")
    if isinstance(learn_window, bool) or not isinstance(learn_window, (int, float)) or not 0 <= learn_window <= 10:
        raise ValueError(f"learn_window must be a number of seconds from 0 to 10, got {learn_window!r}")
    if isinstance(publish_every, bool) or not isinstance(publish_every, (int, float)) or not 0 <= publish_every <= 60:
        raise ValueError(f"publish_every must be a number of seconds from 0 to 60, got {publish_every!r}")
    for name, t in (("track_refresh", track_refresh), ("lease_seconds", lease_seconds)):
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t < math.inf:
            raise ValueError(f"{name} must be a number of seconds >= 0, got {t!r}")
    if not reload_interval > 0:
        raise ValueError(f"reload_interval must be > 0 seconds, got {reload_interval!r}")
    if token is not None and (not isinstance(token, str) or not token.strip()):
        raise ValueError("token must be a non-empty string")
    if (learn or token_required_for_predict) and token is None:
        raise ValueError("learn=True and token_required_for_predict=True need a token: whoever may change the model proves it")
    token = token.strip() if token is not None else None
    limits = Limits(max_body=max_body, max_batch=max_batch, max_text=max_text)
    holder = ModelHolder(model_path, freeze_gc=freeze_gc, replay=None if learn else replay)
    learner = (Learner(holder, allow_new_classes=allow_new_classes, snapshot_every=snapshot_every,
                       snapshot_bytes=snapshot_bytes, freeze_gc=freeze_gc, pace=learn_pace,
                       window=float(learn_window), publish_every=float(publish_every)) if learn else None)
    read_token = token if token_required_for_predict else None
    tracker = PriorTracker(track_window, track_refresh) if track_prior else None
    if tracker is not None and (reason := prior_refusal(holder.current)) is not None:
        raise InvalidParameterError(f"--track-prior: {reason}")
    page = (Path(__file__).parent / "static" / "index.html").read_bytes()

    async def predict(request: Request) -> Response:
        _authorize(request, read_token)
        body = await _body(request, limits)
        loaded = holder.current  # one model for the whole request, even if a reload lands
        X, single, size, items = _input(loaded, body, limits, batch=True)
        version = {"X-Model-Version": str(loaded.version)}
        if not items:
            return JSONResponse({"predictions": []}, headers=version)
        if loaded.multilabel:  # label sets: per label, its probability and the bar it had to pass
            answers = await _run(size, _multilabel.answers, loaded.model, loaded.classes, loaded.class_keys, X)
            return JSONResponse(answers[0] if single else {"predictions": answers}, headers=version)
        best, P = await _run(size, loaded.predict, X)
        if tracker is not None:  # two copies into the window: the estimate is made when /v1/model asks
            tracker.add(loaded, P)
        if single:
            return JSONResponse(loaded.prediction(int(best[0]), P[0]), headers=version)
        return JSONResponse({"predictions": [loaded.prediction(k, p) for k, p in zip(best.tolist(), P)]},
                            headers=version)

    async def update(request: Request, op: str) -> Response:
        if learner is None:
            raise Problem(409, f"this service does not {op}: start it with `nbayes serve MODEL --learn`")
        _authorize(request, token)
        visible = _visible(request)
        body = await _body(request, limits)
        loaded = holder.current
        reason = cannot(loaded.model, op)
        if reason is not None:
            raise Problem(409, reason)
        fields = {k: v for k, v in body.items() if k not in ("label", "labels", "weight", "weights")}
        X, single, size, items = _input(loaded, fields, limits, batch=True)
        y, w = labels_of(body, len(items), single, loaded.multilabel, loaded.model.classes_, limits.max_text)
        if not items:  # nothing to learn: the last durable version (visible: once published)
            answer = {"learned" if op == LEARN else "unlearned": 0, "version": learner.durable_version}
            return JSONResponse(await asyncio.wrap_future(learner.visible(answer)) if visible else answer)
        if op == LEARN:  # tokenise and count here, outside the writer (a worker thread when large)
            X = await _run(size, learner.count, X, y, w)
        return JSONResponse(await asyncio.wrap_future(learner.submit(op, X, y, w, visible=visible)))

    async def learn_endpoint(request: Request) -> Response:
        return await update(request, LEARN)

    async def unlearn_endpoint(request: Request) -> Response:
        return await update(request, UNLEARN)

    async def snapshot_endpoint(request: Request) -> Response:
        if learner is None:
            raise Problem(409, "this service does not learn: its file is all there is (a file and log left by a "
                               "learning service: `nbayes snapshot MODEL`)")
        _authorize(request, token)
        return JSONResponse(await asyncio.wrap_future(learner.submit(SNAPSHOT, None, [], None)))

    async def explain(request: Request) -> Response:
        _authorize(request, read_token)
        body = await _body(request, limits)
        loaded = holder.current
        _, _, size, items = _input(loaded, body, limits, batch=False)
        if loaded.multilabel:  # the most probable label against its absence
            return JSONResponse(await _run(size, _multilabel.explain, loaded, items[0]))
        if loaded.kind == "text":
            return JSONResponse(await _run(size, loaded.explain_text, items[0]))
        return JSONResponse(await _run(size, loaded.explain_row, items[0]))

    async def model_info(request: Request) -> Response:
        cur = holder.current
        out = cur.info()
        out["multilabel"] = _multilabel.about(cur.model) if cur.multilabel else None
        out["limits"] = {"max_body": limits.max_body, "max_batch": limits.max_batch, "max_text": limits.max_text}
        out["version"] = cur.version
        out["learning"] = learner.status() if learner is not None else None
        if learner is not None:
            out["pool"] = shift.pool.status() if shift.pool is not None else None
        if tracker is not None:
            out["prior_tracking"] = await run_in_threadpool(tracker.report, cur)
        return JSONResponse(out)

    async def healthz(request: Request) -> Response:
        return JSONResponse(holder.status())

    async def openapi(request: Request) -> Response:
        from ._openapi import schema

        cur = holder.current
        doc = schema(cur, limits)
        if learner is not None:
            doc = add_learning(doc, cur.classes, learner.allow_new_classes, sets=cur.multilabel,
                               allow_empty=cur.multilabel and bool(cur.model.allow_empty))
            doc = add_pool(doc, cur, limits, max_pool)
        return JSONResponse(document_query(add_prior(doc, cur, tracker is not None)))

    async def index(request: Request) -> Response:
        return Response(
            page, media_type="text/html; charset=utf-8",
            headers={"Content-Security-Policy": PAGE_CSP, "Cache-Control": "no-cache"},
        )

    async def on_problem(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Problem)
        return _error(exc.status, exc.message, exc.headers)

    async def on_http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            return _error(404, f"no such endpoint {request.url.path!r}; see /openapi.json")
        if exc.status_code == 405:
            return _error(405, f"{request.method} is not allowed on {request.url.path}", dict(exc.headers or {}))
        return _error(exc.status_code, str(exc.detail))

    async def on_crash(request: Request, exc: Exception) -> Response:
        log.exception("nbayes serve: internal error on %s %s", request.method, request.url.path)
        return _error(500, "internal error (logged by the server)")

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        # a learning service holds the one authoritative model: the file is its snapshot, not its source
        watcher = asyncio.create_task(_watch(holder, reload_interval)) if learner is None else None
        hup = _on_sighup(loop, holder, reload=learner is None)
        try:
            yield
        finally:
            if watcher is not None:
                watcher.cancel()
            if hup:
                loop.remove_signal_handler(signal.SIGHUP)
            if learner is not None:
                await run_in_threadpool(learner.stop)

    shift = Context(holder, limits, learner, token, read_token, _body, _authorize, _input, _run, _call, _visible,
                    tracker, float(lease_seconds), max_pool)

    app = Starlette(
        routes=[strict(r) for r in [
            Route("/v1/predict", predict, methods=["POST"]),  # the busiest first: routes match in order
            Route("/v1/explain", explain, methods=["POST"]),
            Route("/v1/learn", learn_endpoint, methods=["POST"]),
            Route("/v1/unlearn", unlearn_endpoint, methods=["POST"]),
            Route("/v1/snapshot", snapshot_endpoint, methods=["POST"]),
            *shift_routes(shift),
            Route("/v1/model", model_info, methods=["GET"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/openapi.json", openapi, methods=["GET"]),
            Route("/", index, methods=["GET"]),
        ]],  # each refuses a query parameter it does not take (._query)
        exception_handlers={Problem: on_problem, HTTPException: on_http, Exception: on_crash},
        lifespan=lifespan,
    )
    app.state.holder = holder
    app.state.limits = limits
    app.state.learner = learner
    app.state.shift = shift
    return app


async def _watch(holder: ModelHolder, interval: float) -> None:
    """Look at the file's inode, size and mtime every ``interval`` seconds; load it again
    (in a worker thread) when they change."""
    while True:
        await asyncio.sleep(interval)
        try:
            if holder.changed():
                await run_in_threadpool(holder.reload)
        except Exception:  # noqa: BLE001 - the watcher must outlive any surprise
            log.exception("nbayes serve: the model file watcher failed once; it goes on")


def _on_sighup(loop: asyncio.AbstractEventLoop, holder: ModelHolder, reload: bool = True) -> bool:
    """SIGHUP loads the file again (even unchanged); a learning service (``reload=False``) says
    it does not, and keeps its model. Only the main thread can take signals."""
    sig = getattr(signal, "SIGHUP", None)
    if sig is None:  # pragma: no cover - Windows
        return False

    def hup() -> None:
        if not reload:
            log.warning("nbayes serve: SIGHUP ignored: a learning service keeps its own model (%s is its snapshot)",
                        holder.path)
            return
        log.info("nbayes serve: SIGHUP, loading %s again", holder.path)
        loop.create_task(run_in_threadpool(holder.reload, True))

    try:
        loop.add_signal_handler(sig, hup)
    except (ValueError, RuntimeError, NotImplementedError):  # not the main thread (tests, embedding)
        return False
    return True


def app_from_env() -> Starlette:
    """The app for ``uvicorn --factory`` (how ``nbayes serve --workers N`` starts each worker):
    settings from ``NBAYES_SERVE_MODEL`` and ``NBAYES_SERVE_LIMITS`` (JSON)."""
    import os

    path = os.environ.get("NBAYES_SERVE_MODEL")
    if not path:
        raise RuntimeError("NBAYES_SERVE_MODEL is not set: start the service with `nbayes serve MODEL`")
    options = json.loads(os.environ.get("NBAYES_SERVE_LIMITS") or "{}")
    try:
        return create_app(path, **options, freeze_gc=True)
    except NBayesError as exc:  # a new worker (SIGHUP to the parent) with a bad file: one line
        log.error("nbayes serve: this worker cannot start, the running ones keep serving: %s", exc)
        raise SystemExit(3) from None
