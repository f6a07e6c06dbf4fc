"""``nbayes predict``: the class (and probabilities) of every row of a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import click
import numpy as np
import polars as pl

from ..errors import DataError
from ._columns import columns_of, file_rows, model_input
from ._inline import InlineRows, inputs_options, read_inputs
from ._modelfile import load
from ._multilabel import joined
from ._options import na_option, replay_option, split
from ._output import chunks, json_default, plain
from ._paths import check_output, write_atomic
from ._read import DataFile

#: output kinds by extension
WRITERS = {".parquet": "parquet", ".jsonl": "ndjson", ".ndjson": "ndjson", ".csv": "csv", ".tsv": "tsv"}


@click.command()
@click.argument("model_path", metavar="MODEL", type=click.Path())
@inputs_options
@click.option("-o", "--output", type=click.Path(), default=None,
              help="Write predictions here (.csv, .tsv, .jsonl, .parquet); default stdout as CSV.")
@click.option("--proba", is_flag=True, help="Add one probability column per class.")
@na_option
@click.option("--json", "as_json", is_flag=True, help="Print predictions as JSON on stdout.")
@replay_option
def predict(model_path: str, data: str | None, texts: tuple[str, ...], rows: tuple[str, ...], output: str | None,
            proba: bool, na_values: tuple[str, ...], as_json: bool, replay: bool) -> None:
    """Predict the class of every row of DATA with the model in MODEL.

    \b
    DATA is a file; or give the rows on the command line: --text TEXT (a text model; a TEXT
    argument in place of DATA too) or --row JSON (a table model), each repeatable, as explain.
    Markers of missing values are those the model was trained with (train --na-values) unless
    --na-values is given.

    \b
    Examples:
      nbayes predict spam.nbm new.csv                    CSV on stdout
      nbayes predict spam.nbm new.csv -o out.parquet --proba
      nbayes predict spam.nbm "WIN a FREE prize now" --proba
      nbayes predict adult.nbm --row '{"age": 40, "education": "Masters"}'

    \b
    A multi-label model (train --multilabel) predicts a list of labels per row: a list in JSON,
    JSON Lines and Parquet, joined by its --labels-sep (default ';') in CSV and TSV.
    """
    if output is not None:
        check_output(output, "the predictions", inputs=[model_path, *([data] if data else [])])
        kind = WRITERS.get(Path(output).suffix.lower())
        if kind is None:
            raise DataError(f"{output}: unknown output kind; use .csv, .tsv, .jsonl or .parquet")
    model, _, cli = load(model_path, replay)
    source = read_inputs(model, cli, model_path, data, texts, rows, split(na_values) or cli.get("na_values") or ())
    parts = []
    multi = "label_sets" in model.capabilities
    flat = not as_json and (output is None or WRITERS[Path(output).suffix.lower()] in ("csv", "tsv"))
    for pred, P in predictions(model, cli, source, None, proba):
        if multi:  # label sets: lists (JSON, JSON Lines, Parquet), or joined in a CSV / TSV field
            sets = [[plain(c) for c in model.classes_[np.flatnonzero(row)]] for row in pred]
            cols: dict[str, Any] = {"prediction": joined(sets, cli.get("labels_sep") or ";") if flat else sets}
        else:
            cols = {"prediction": [plain(p) for p in pred]}
        if P is not None:
            for j, c in enumerate(model.classes_):
                cols[f"p_{c}"] = P[:, j]
        parts.append(pl.DataFrame(cols))
    out = pl.concat(parts, how="vertical_relaxed")
    if as_json:
        click.echo(json.dumps(out.to_dicts(), default=json_default))
    elif output is None:
        click.echo(out.write_csv(), nl=False)
    else:
        write_atomic(output, lambda tmp: _write(out, tmp, WRITERS[Path(output).suffix.lower()]), "the predictions")
        click.echo(f"wrote {out.height:,} predictions to {output}", err=True)


def predictions(model: Any, cli: dict[str, Any], source: DataFile | InlineRows, target: str | None,
                proba: bool) -> Iterator[tuple[np.ndarray, np.ndarray | None]]:
    """(predictions, probabilities or None) per chunk of ``source``."""
    cols = None
    if isinstance(source, InlineRows):
        source.complete(columns_of(model, cli, source.frame, target), model)
    for chunk in chunks(source, "predicting"):
        if cols is None:
            cols = columns_of(model, cli, chunk.frame, target)
        X = model_input(model, chunk.frame, cols, source, column=True)
        with file_rows(source, chunk.start + np.arange(chunk.frame.height), columns=cols):
            P = model.predict_proba(X) if proba else None
            pred = model.predict(X)  # the model's own rule (ties, impossible rows)
        yield pred, P


def _write(frame: pl.DataFrame, path: Path, kind: str) -> None:
    if kind == "parquet":
        frame.write_parquet(path)
    elif kind == "ndjson":
        frame.write_ndjson(path)
    else:
        frame.write_csv(path, separator="\t" if kind == "tsv" else ",")
