"""``nbayes serve``: the HTTP service of :mod:`nbayes.serve` on uvicorn."""

from __future__ import annotations

import copy
import json
import os
import sys
from typing import Any

import click

from ._paths import check_model_file


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
def serve(model_path: str, host: str, port: int, workers: int, max_body: int, max_batch: int, max_text: int,
          access_log: bool) -> None:
    """Serve MODEL over HTTP: a JSON API and a web page that shows why (needs nbayes[serve]).

    \b
    POST /v1/predict   {"text": ...} / {"texts": [...]}, or {"row": {...}} / {"rows": [...]}
    POST /v1/explain   one text or row: each word's or feature's contribution
    GET  /v1/model     metadata (as nbayes info --json);  GET /healthz;  GET /openapi.json
    GET  /             the web page
    The model file is loaded again when it changes on disk, or on SIGHUP (with --workers N,
    SIGHUP to the parent restarts the workers one by one); a new file that does not load leaves
    the old model serving and is reported by /healthz.

    \b
    Example:
      nbayes serve spam.nbm --port 8000 --workers 2
    """
    try:  # the web stack is an extra
        import uvicorn
        from uvicorn.config import LOGGING_CONFIG

        from ..serve._model import load_model
        from ..serve.app import create_app
    except ImportError as exc:
        click.echo(f"nbayes: error: serve needs the web stack ({exc.name} is missing): pip install 'nbayes[serve]'", err=True)
        sys.exit(2)
    check_model_file(model_path)
    options = {"max_body": max_body, "max_batch": max_batch, "max_text": max_text}
    log_config = copy.deepcopy(LOGGING_CONFIG)
    log_config["loggers"]["nbayes.serve"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    common: dict[str, Any] = dict(host=host, port=port, log_config=log_config, access_log=access_log,
                                  timeout_graceful_shutdown=5)
    if workers == 1:
        app = create_app(model_path, **options, freeze_gc=True)  # a bad model file ends here: one line, exit 2
        loaded = app.state.holder.current
        target: Any = app
    else:
        loaded = load_model(model_path)  # check the file once before the workers start
        os.environ["NBAYES_SERVE_MODEL"] = os.path.abspath(model_path)
        os.environ["NBAYES_SERVE_LIMITS"] = json.dumps(options)
        target = "nbayes.serve.app:app_from_env"
        common.update(factory=True, workers=workers)
    click.echo(
        f"nbayes serve: {model_path} ({type(loaded.model).__name__}, {len(loaded.classes)} classes) "
        f"on http://{host}:{port}/ with {workers} worker{'s' if workers > 1 else ''}", err=True,
    )
    uvicorn.run(target, **common)
