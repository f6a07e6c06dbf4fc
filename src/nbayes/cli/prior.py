"""``nbayes prior``: the class prior of a file of unlabelled rows (label shift), and whether it moved."""

from __future__ import annotations

from typing import Any

import click
import numpy as np
import polars as pl

from .._validation import n_rows
from ..shift import ShiftCalibration
from ._columns import columns_of, file_rows, labelled, model_input
from ._modelfile import load
from ._options import na_option, split
from ._output import chunks, console, emit
from ._read import DataFile


def read_rows(model: Any, cli: dict[str, Any], path: str, na: tuple[str, ...], show: bool) -> tuple[Any, DataFile, dict[str, str], pl.DataFrame]:
    """(the model's input of every row of ``path``, the file, its columns, the data rows)."""
    source = DataFile(path, split(na) or cli.get("na_values") or ())
    frames = [c.frame for c in chunks(source, "reading", show)]
    frame = pl.concat(frames, how="vertical_relaxed") if len(frames) > 1 else frames[0]
    cols = columns_of(model, cli, frame, None)
    return model_input(model, frame, cols, source), source, cols, frame


@click.command()
@click.argument("model_path", metavar="MODEL", type=click.Path())
@click.argument("data", type=click.Path())
@click.option("--train", "train_path", type=click.Path(), default=None,
              help="The training file: calibrates the posteriors on held-out folds first (the accurate way).")
@click.option("--target", metavar="COL", default=None, help="The label column of --train.")
@click.option("--method", type=click.Choice(["em", "bbse"]), default="em", show_default=True,
              help="EM of Saerens et al. (2002) or BBSE of Lipton et al. (2018, needs --train).")
@click.option("--cv", type=int, default=5, show_default=True, help="Folds of the calibration (with --train).")
@click.option("--bootstrap", type=int, default=100, show_default=True, help="Bootstrap resamples of the interval (0: none).")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Level of the interval.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@na_option
@click.option("--json", "as_json", is_flag=True, help="Print the estimate as JSON on stdout.")
def prior(model_path: str, data: str, train_path: str | None, target: str | None, method: str, cv: int,
          bootstrap: int, confidence: float, seed: int, na_values: tuple[str, ...], as_json: bool) -> None:
    """Estimate the class prior of the unlabelled rows of DATA (label shift) and test for a change.

    \b
    The model's prior is what it was trained with; the estimate is what DATA's rows look like.
    Adapt with Python's model.with_prior(estimate); a model never changes its prior by itself.

    \b
    Examples:
      nbayes prior spam.nbm this_week.jsonl
      nbayes prior spam.nbm this_week.jsonl --train train.jsonl --target label --json
    """
    if (train_path is None) != (target is None):
        raise click.UsageError("--train and --target go together")
    model, _, cli = load(model_path)
    cal = None
    if train_path is not None:
        assert target is not None
        tsource = DataFile(train_path, split(na_values) or cli.get("na_values") or ())
        lab = labelled(chunks(tsource, "reading", not as_json), target, tsource)
        cols = columns_of(model, cli, lab.X, target)
        Xt = model_input(model, lab.X, cols, tsource)
        with file_rows(tsource, lab.rows, columns=cols):
            cal = ShiftCalibration(cv=cv).fit(model, Xt, lab.y)
    X, source, cols, _ = read_rows(model, cli, data, na_values, not as_json)
    with file_rows(source, np.arange(n_rows(X)), columns=cols):
        est = model.estimate_prior(X, calibration=cal, method=method, confidence=confidence,
                                   n_bootstrap=bootstrap, random_state=seed)
    out = est.to_dict()
    out.update(model=str(model_path), data=str(data))
    if as_json:
        emit(out)
        return
    con = console()
    con.print(f"[bold]{len(est)} classes, {est.n_samples:,} rows[/]; method {est.method}"
              f"{' on calibrated posteriors' if est.calibrated else ''}")
    con.print(f"{'class':>20}  {'trained':>8}  {'estimate':>8}  {int(confidence * 100)}% interval")
    for c, s, p, lo, hi in zip(est.classes.tolist(), est.source_prior, est.prior, est.lower, est.upper):
        con.print(f"{str(c):>20}  {s:8.3f}  {p:8.3f}  [{lo:.3f}, {hi:.3f}]")
    verdict = "changed" if est.shifted else "no evidence of a change"
    con.print(f"likelihood-ratio test: statistic {est.statistic:.2f} on {est.df} df, p = {est.p_value:.3g}: {verdict}")
