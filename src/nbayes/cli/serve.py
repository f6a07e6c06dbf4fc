"""``nbayes serve``: the HTTP service of :mod:`nbayes.serve` on uvicorn."""

from __future__ import annotations

import copy
import errno
import json
import os
import socket
import sys
from typing import Any, NoReturn

import click

from ._paths import check_model_file


#: seconds between the GIL's hand-overs in a learning service (Python's default is 0.005)
LEARN_SWITCH_INTERVAL = 0.0005


@click.command()
@click.argument("model_path", metavar="MODEL", type=click.Path())
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0: every interface).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--workers", type=click.IntRange(1, None), default=1, show_default=True,
              help="Worker processes, each with its own copy of the model.")
@click.option("--max-body", type=click.IntRange(1, None), default=1_000_000, show_default=True,
              help="Largest request body in bytes (413 beyond).")
@click.option("--max-batch", type=click.IntRange(1, None), default=1000, show_default=True,
              help="Most texts or rows in one request (413 beyond).")
@click.option("--max-text", type=click.IntRange(1, None), default=100_000, show_default=True,
              help="Most characters in one text (413 beyond).")
@click.option("--access-log/--no-access-log", default=False, show_default=True, help="Log every request.")
@click.option("--learn", is_flag=True, help="Accept POST /v1/learn and /v1/unlearn (needs a token): one process, "
              "updates made durable in MODEL.log before the answer, the file rewritten by snapshots.")
@click.option("--token-file", type=click.Path(dir_okay=False), default=None,
              help="File holding the bearer token (default: the NBAYES_TOKEN environment variable).")
@click.option("--token-required-for-predict", is_flag=True, help="/v1/predict and /v1/explain need the token too.")
@click.option("--allow-new-classes", is_flag=True, help="With --learn: a label outside the model's classes creates "
              "a class (otherwise 422: a typo must not create one).")
@click.option("--snapshot-every", type=click.IntRange(1, None), default=10_000, show_default=True,
              help="With --learn: rewrite the model file and empty the log after this many logged updates.")
@click.option("--snapshot-mb", type=click.IntRange(1, None), default=256, show_default=True,
              help="With --learn: ... or once the log holds this many MB.")
@click.option("--learn-pace", type=click.FloatRange(0, None), default=0.0, show_default=True,
              help="With --learn: after a group of updates that cost t of the writer's CPU, the next starts PACE x t "
                   "later (at most 50 ms), so learning takes at most 1/(1+PACE) of a core from predictions; 0: at once.")
@click.option("--publish-every", type=click.FloatRange(0, 60), default=0.1, show_default=True, metavar="SECONDS",
              help="With --learn: acknowledged (durable) updates become visible to predictions in a new version at "
                   "most once per SECONDS, at once after a quiet spell; ?visible=true waits for it. 0: every group.")
@click.option("--replay", is_flag=True, help="Without --learn: add the updates of MODEL.log (left by a learning service) "
              "that MODEL lacks, at each load (otherwise: a warning in the service's log).")
@click.option("--track-prior", is_flag=True, help="Keep the posteriors of the last --track-window rows predicted and "
              "report their estimated class prior, and whether it drifted from training, in GET /v1/model and on "
              "the page (the model is never adapted by itself).")
@click.option("--track-window", type=click.IntRange(1, None), default=2000, show_default=True,
              help="With --track-prior: how many of the last rows predicted the estimate covers (per worker).")
@click.option("--lease-minutes", type=click.FloatRange(0, None, min_open=True), default=15.0, show_default=True,
              help="With --learn: how long POST /v1/suggest leases an item to its annotator.")
@click.option("--max-pool", type=click.IntRange(1, None), default=100_000, show_default=True,
              help="With --learn: the most items of a pool (POST /v1/pool; --max-body bounds its bytes).")
@click.option("--json", "as_json", is_flag=True, help="Print the service's start (model, URL, workers) as one JSON "
              "line on stdout.")
def serve(model_path: str, host: str, port: int, workers: int, max_body: int, max_batch: int, max_text: int,
          access_log: bool, learn: bool, token_file: str | None, token_required_for_predict: bool,
          allow_new_classes: bool, snapshot_every: int, snapshot_mb: int, learn_pace: float,
          publish_every: float, replay: bool, track_prior: bool, track_window: int, lease_minutes: float,
          max_pool: int, as_json: bool) -> None:
    """Serve MODEL over HTTP: a JSON API and a web page that shows why (needs nbayes[serve]).

    \b
    POST /v1/predict   {"text": ...} / {"texts": [...]}, or {"row": {...}} / {"rows": [...]}
    POST /v1/explain   one text or row: each word's or feature's contribution
    POST /v1/prior     the class prior of a batch (label shift), and whether it moved
    GET  /v1/model     metadata (as nbayes info --json);  GET /healthz;  GET /openapi.json
    GET  /             the web page
    The model file is loaded again when it changes on disk, or on SIGHUP (with --workers N,
    SIGHUP to the parent restarts the workers one by one); a new file that does not load leaves
    the old model serving and is reported by /healthz.

    With --learn (one worker; a token from NBAYES_TOKEN or --token-file):
    POST /v1/learn and /v1/unlearn take the bodies of /v1/predict plus "labels" (optional
    "weights") and answer {"learned": n, "version": v} once the update is on disk (MODEL.log,
    fsync'd); predictions see it within --publish-every (?visible=true: answered once they
    do); the file is not reloaded, and a log that belongs to another file refuses to start.
    One learning service per file (MODEL.lock: a second refuses, naming the first); a clean
    stop (SIGTERM, Ctrl-C) writes every acknowledged update into MODEL; POST /v1/snapshot
    does so at once. Without --learn, a MODEL.log holding updates MODEL lacks is a warning
    (--replay: they are added). With --learn, a pool of unlabelled items (POST /v1/pool, kept
    in memory) is handed out to annotators under leases (POST /v1/suggest), and their labels
    learned (POST /v1/label); the page shows a "label these" queue.

    With --track-prior, GET /v1/model (and the page) reports the class prior of the last
    --track-window rows predicted and whether it drifted; adapt offline (docs/label-shift.md).

    \b
    Examples:
      nbayes serve spam.nbm --port 8000 --workers 2
      NBAYES_TOKEN=... nbayes serve spam.nbm --learn
    """
    try:  # the web stack is an extra
        import uvicorn
        from uvicorn.config import LOGGING_CONFIG

        from ..serve.app import create_app, load_model
    except ImportError as exc:
        click.echo(f"nbayes: error: serve needs the web stack ({exc.name} is missing): pip install 'nbayes[serve]'", err=True)
        sys.exit(2)
    check_model_file(model_path)
    token = read_token(token_file)
    if learn and workers > 1:
        fail("--learn keeps one authoritative model in one process: it cannot run with --workers "
             f"{workers} (drop --workers, or serve copies without --learn)")
    if (learn or token_required_for_predict) and token is None:
        what = "--learn" if learn else "--token-required-for-predict"
        fail(f"{what} needs a token, so that only those allowed change the model: set NBAYES_TOKEN "
             "or give --token-file FILE")
    if allow_new_classes and not learn:
        fail("--allow-new-classes is for --learn")
    if replay and learn:
        fail("--replay is for a service without --learn (a learning service always replays its log)")
    options: dict[str, Any] = {"max_body": max_body, "max_batch": max_batch, "max_text": max_text}
    if replay:
        options["replay"] = True
    if track_prior:
        options.update(track_prior=True, track_window=track_window)
    elif track_window != 2000:
        fail("--track-window is for --track-prior")
    if learn or token_required_for_predict:
        options.update(token=token, token_required_for_predict=token_required_for_predict)
    if learn:
        options.update(learn=True, allow_new_classes=allow_new_classes, snapshot_every=snapshot_every,
                       snapshot_bytes=snapshot_mb << 20, learn_pace=learn_pace, publish_every=publish_every,
                       lease_seconds=60.0 * lease_minutes, max_pool=max_pool)
    check_listen(host, port)  # before the model is loaded or a log replayed
    log_config = copy.deepcopy(LOGGING_CONFIG)
    log_config["loggers"]["nbayes.serve"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    common: dict[str, Any] = dict(host=host, port=port, log_config=log_config, access_log=access_log,
                                  timeout_graceful_shutdown=5)
    if workers == 1:
        app = create_app(model_path, **options, freeze_gc=True)  # a bad model file ends here: one line, exit 2
        loaded = app.state.holder.current
        target: Any = app
    else:
        loaded = load_model(model_path, replay=replay)  # check the file once before the workers start
        if track_prior and (loaded.multilabel or getattr(loaded.model, "prediction_prior", None) is None):
            fail(f"--track-prior: a {type(loaded.model).__name__} has no class prior of its own to track "
                 "(a discriminative or multi-label model)")
        os.environ["NBAYES_SERVE_MODEL"] = os.path.abspath(model_path)
        os.environ["NBAYES_SERVE_LIMITS"] = json.dumps(options)
        target = "nbayes.serve.app:app_from_env"
        common.update(factory=True, workers=workers)
    start = {"model_file": model_path, "model": type(loaded.model).__name__, "classes": len(loaded.classes),
             "url": f"http://{host}:{port}/", "workers": workers}
    if learn:
        start.update(version=loaded.version, replayed=app.state.learner.replayed)
    if as_json:  # one line on stdout, for a script that starts the service
        click.echo(json.dumps(start))
    click.echo(
        f"nbayes serve: {model_path} ({type(loaded.model).__name__}, {len(loaded.classes)} classes) "
        f"on http://{host}:{port}/ with {workers} worker{'s' if workers > 1 else ''}"
        + (f", learning (version {loaded.version}; {app.state.learner.replayed} update(s) replayed from "
           f"{model_path}.log)" if learn else ""), err=True,
    )
    if learn:
        # the writer thread needs the GIL the event loop holds while it answers predictions: at
        # Python's default 5 ms per hand-over a saturated service starved the learners (16
        # documents/s acknowledged against 762 at 0.5 ms; docs/serve.md, "Speed while learning")
        sys.setswitchinterval(LEARN_SWITCH_INTERVAL)
    uvicorn.run(target, **common)


def check_listen(host: str, port: int) -> None:
    """Whether the service can listen on (host, port), tried as uvicorn binds (SO_REUSEADDR):
    a port in use, an address not of this machine or a port below 1024 without the right
    ends here in one line, not in the web server's log of its start and shutdown."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        fail(f"cannot listen on {host}:{port}: the address does not resolve ({exc.strerror})")
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            hint = "; another service listens there: stop it or choose another --port" if exc.errno == errno.EADDRINUSE else ""
            fail(f"cannot listen on http://{host}:{port}/: {reason.lower()}{hint}")


def fail(message: str) -> NoReturn:
    click.echo(f"nbayes: error: {message}", err=True)
    sys.exit(2)


def read_token(token_file: str | None) -> str | None:
    """The bearer token: the contents of ``token_file`` (stripped), else NBAYES_TOKEN."""
    if token_file is not None:
        try:
            with open(token_file, encoding="utf-8") as f:
                token = f.read().strip()
        except OSError as exc:
            fail(f"--token-file {token_file}: cannot read ({exc.strerror or exc})")
        if not token:
            fail(f"--token-file {token_file}: the file is empty")
        return token
    token = os.environ.get("NBAYES_TOKEN", "").strip()
    return token or None
