"""``nbayes learn`` / ``nbayes unlearn``: send a data file to a service started with
``nbayes serve MODEL --learn``, in batches (each answered once durable)."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

import click
import polars as pl

from ..errors import DataError
from ..serve.client import ServiceError, model_info, request
from ._multilabel import label_sets
from ._options import na_option, split
from ._output import emit
from ._read import DataFile


def _options(f: Any) -> Any:
    options: list[Callable[[Any], Any]] = [
        click.argument("url"),
        click.argument("data", type=click.Path()),
        click.option("--target", required=True, help="The column holding the labels."),
        click.option("--text", "text_column", default=None,
                     help="Text models: the column holding the documents (default: the model's, else 'text', "
                          "else the only other column)."),
        click.option("--weight", "weight_column", default=None, help="A column of row weights (>= 0)."),
        click.option("--batch-size", type=click.IntRange(1, None), default=None,
                     help="Rows per request (default 100, or the service's --max-batch if smaller)."),
        click.option("--token-file", type=click.Path(dir_okay=False), default=None,
                     help="File holding the bearer token (default: the NBAYES_TOKEN environment variable)."),
        click.option("--timeout", type=click.FloatRange(0, None, min_open=True), default=60.0, show_default=True,
                     help="Seconds to wait for each answer."),
        click.option("--multilabel", is_flag=True,
                     help="A multi-label model: each row's labels are a set (a JSON list in JSON Lines or Parquet, "
                          "or a field split by --labels-sep), as in nbayes train --multilabel."),
        click.option("--labels-sep", "labels_sep", default=None, metavar="SEP",
                     help="With --multilabel: the separator of labels in a CSV / TSV field (such as ';')."),
        na_option,
        click.option("--json", "as_json", is_flag=True,
                     help="Print the outcome (rows, the model's version, the file) as JSON on stdout."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


@click.command()
@_options
def learn(url: str, data: str, target: str, text_column: str | None, weight_column: str | None, batch_size: int | None,
          token_file: str | None, timeout: float, multilabel: bool, labels_sep: str | None, na_values: tuple[str, ...],
          as_json: bool) -> None:
    """Send the rows of DATA to a learning service at URL (nbayes serve MODEL --learn).

    \b
    Each batch is acknowledged once the service has it on disk; a refused batch stops here
    (the batches before it stay learned). The token comes from NBAYES_TOKEN or --token-file.

    \b
    Examples:
      NBAYES_TOKEN=... nbayes learn http://127.0.0.1:8000 clicks.csv --target label
      NBAYES_TOKEN=... nbayes learn http://127.0.0.1:8000 news.csv --target tags --multilabel --labels-sep ";"
    """
    done = send("learn", url, data, target, text_column, weight_column, batch_size, token_file, timeout, na_values,
                multilabel, labels_sep, quiet=as_json)
    if as_json:
        emit(done)


@click.command()
@_options
def unlearn(url: str, data: str, target: str, text_column: str | None, weight_column: str | None, batch_size: int | None,
            token_file: str | None, timeout: float, multilabel: bool, labels_sep: str | None,
            na_values: tuple[str, ...], as_json: bool) -> None:
    """Make a learning service at URL forget the rows of DATA exactly (nbayes serve MODEL --learn).

    \b
    The rows must be ones the model learned, with the same labels: unlearning removes their
    counts; a batch that would make a count negative is refused and changes nothing.

    \b
    Example:
      NBAYES_TOKEN=... nbayes unlearn http://127.0.0.1:8000 deletion-request.csv --target label
    """
    done = send("unlearn", url, data, target, text_column, weight_column, batch_size, token_file, timeout, na_values,
                multilabel, labels_sep, quiet=as_json)
    if as_json:
        emit(done)


def send(op: str, url: str, data: str, target: str, text_column: str | None, weight_column: str | None,
         batch_size: int | None, token_file: str | None, timeout: float, na_values: tuple[str, ...],
         multilabel: bool = False, labels_sep: str | None = None, quiet: bool = False) -> dict[str, Any]:
    """Send the rows in batches; returns what was done (``learned`` / ``unlearned`` rows, the
    model's ``version``, the ``data`` file and the ``url``). ``quiet``: no summary line."""
    if labels_sep is not None and not multilabel:
        raise click.UsageError("--labels-sep splits label sets: give it with --multilabel")
    token = _token(token_file)
    source = DataFile(data, split(na_values))
    info = model_info(url, token=token, timeout=timeout)
    learning = info.get("learning")
    if not learning:
        raise ServiceError(f"{url}: this service does not learn (start it with `nbayes serve MODEL --learn`)", 409)
    served_sets = bool(info.get("multilabel"))
    if served_sets != multilabel:
        raise click.UsageError(
            f"{url} serves a multi-label model: give --multilabel (and --labels-sep for a CSV / TSV field)" if served_sets
            else f"{url} serves a single-label model ({info.get('model')}): --multilabel is for multi-label models")
    limit = int((info.get("limits") or {}).get("max_batch", 100))
    if batch_size is None:
        batch_size = min(100, limit)
    elif batch_size > limit:
        raise DataError(f"--batch-size {batch_size}: the service takes at most {limit} items per request")
    done, version = 0, info.get("version")
    key = "learned" if op == "learn" else "unlearned"
    items_key = "texts"
    show = sys.stderr.isatty()
    for chunk in source.chunks(chunk_rows=max(batch_size, 10_000)):
        frame = chunk.frame
        body_items, labels, weights = _batch_parts(info, frame, source, target, text_column, weight_column)
        if multilabel:  # label sets, as nbayes train --multilabel reads them
            labels = label_sets(labels, labels_sep, source)
        for start in range(0, len(labels), batch_size):
            stop = min(start + batch_size, len(labels))
            items_key = body_items[0]
            body: dict[str, Any] = {items_key: body_items[1][start:stop], "labels": labels[start:stop]}
            if weights is not None:
                body["weights"] = weights[start:stop]
            try:
                answer = request(url, f"/v1/{op}", body, token=token, timeout=timeout)
            except ServiceError as exc:
                raise ServiceError(f"{exc} (rows {chunk.start + start + 1}..{chunk.start + stop} of {data}; "
                                   f"{done:,} rows before them were {key})", exc.status) from None
            done += int(answer.get(key, 0))
            version = answer.get("version")
            if show:
                click.echo(f"\r{op}: {done:,} rows, version {version}", err=True, nl=False)
    if done:  # an empty request asking for visibility: answered once predictions see every batch
        version = request(url, f"/v1/{op}?visible=true", {items_key: [], "labels": []}, token=token,
                          timeout=timeout).get("version", version)
    if show:
        click.echo("", err=True)
    if not quiet:
        click.echo(f"{key} {done:,} rows from {data}; the model is at version {version}", err=True)
    return {key: done, "version": version, "data": data, "url": url}


def _batch_parts(info: dict[str, Any], frame: pl.DataFrame, source: DataFile, target: str, text_column: str | None,
                 weight_column: str | None) -> tuple[tuple[str, list[Any]], list[Any], list[float] | None]:
    if target not in frame.columns:
        raise DataError(f"{source}: no column {target!r} (--target); columns are {frame.columns}")
    labels = frame.get_column(target).to_list()
    missing = [i for i, v in enumerate(labels) if v is None]
    if missing:
        raise DataError(f"{source}: row {missing[0] + 1} has no label in column {target!r}")
    weights = None
    if weight_column is not None:
        if weight_column not in frame.columns:
            raise DataError(f"{source}: no column {weight_column!r} (--weight); columns are {frame.columns}")
        weights = [float(v) for v in frame.get_column(weight_column).cast(pl.Float64).to_list()]
    others = [c for c in frame.columns if c not in (target, weight_column)]
    if info.get("input") == "text":
        col = text_column or next((c for c in (info.get("features") or [])[:1] if c in frame.columns), None)
        col = col or ("text" if "text" in others else (others[0] if len(others) == 1 else None))
        if col is None or col not in frame.columns:
            raise DataError(f"{source}: which column holds the documents? give --text (columns are {frame.columns})")
        return ("texts", ["" if t is None else str(t) for t in frame.get_column(col).to_list()]), labels, weights
    names = [f["name"] for f in info.get("feature_schema") or []]
    absent = [n for n in names if n not in frame.columns]
    if absent:
        raise DataError(f"{source}: no column {absent[0]!r}, which the model reads; columns are {frame.columns}")
    rows = frame.select(names).to_dicts()
    return ("rows", rows), labels, weights


def _token(token_file: str | None) -> str | None:
    if token_file is None:
        return os.environ.get("NBAYES_TOKEN", "").strip() or None
    try:
        with open(token_file, encoding="utf-8") as f:
            return f.read().strip() or None
    except OSError as exc:
        raise DataError(f"--token-file {token_file}: cannot read ({exc.strerror or exc})") from None
