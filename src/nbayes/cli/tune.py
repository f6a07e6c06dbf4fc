"""``nbayes tune``: the grid given on the command line, searched by cross-validation."""

from __future__ import annotations

import re
import time
from typing import Any

import click

from ..errors import InvalidParameterError
from ..model_selection import SearchCV, StratifiedKFold
from ._columns import file_rows, labelled, model_input, model_name
from ._models import choose_columns, make_model
from ._modelfile import save
from ._options import MODELS, columns_option, na_option, overrides, parse_settings, parse_value, settings_option, split
from ._output import chunks, console, emit, plain
from ._paths import check_output
from ._read import DataFile


@click.command()
@click.argument("data", type=click.Path())
@click.option("--target", required=True, metavar="COL", help="The label column.")
@click.option("--grid", "grid_specs", multiple=True, required=True, metavar="NAME=V1,V2,...",
              help="Values to try for one hyperparameter (repeat for more); a:b is a pair, e.g. ngram_range=1:1,1:2.")
@click.option("--model", "model_name_", type=click.Choice(MODELS), default="auto", show_default=True)
@click.option("--cv", type=click.IntRange(2, None), default=5, show_default=True, help="Stratified folds (shuffled).")
@click.option("--seed", type=int, default=0, show_default=True, help="Shuffles the folds.")
@click.option("--scoring", default="accuracy", show_default=True,
              help="accuracy, balanced_accuracy, neg_log_loss, f1_macro, roc_auc, ... (scikit-learn's names).")
@settings_option
@columns_option
@na_option
@click.option("-o", "--output", type=click.Path(), default=None, help="Save the best model (fitted on all rows) here.")
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON on stdout.")
def tune(data: str, target: str, grid_specs: tuple[str, ...], model_name_: str, cv: int, seed: int, scoring: str,
         ignore: tuple[str, ...], numeric_cols: tuple[str, ...], categorical_cols: tuple[str, ...],
         text_cols: tuple[str, ...], boolean_cols: tuple[str, ...], binned_cols: tuple[str, ...], na_values: tuple[str, ...],
         settings: tuple[str, ...], output: str | None, as_json: bool) -> None:
    """Search hyperparameters by cross-validation and print the table, best first.

    \b
    Naive Bayes models count each fold once; every value of a setting that acts at estimation
    (alpha, fit_prior, var_smoothing, norm, min_df, ...) is then estimated from the fold
    statistics without reading the data again.

    \b
    Examples:
      nbayes tune spam.csv --target label --grid alpha=0.01,0.1,1
      nbayes tune spam.csv --target label --grid alpha=0.1,1 --grid ngram_range=1:1,1:2 -o best.nbm
      nbayes tune news.jsonl --target label --set ngram_range=1:2 --grid alpha=0.01,0.1
    """
    grid = parse_grid(grid_specs)
    params = parse_settings(settings)
    for name in grid:
        if name in params:
            raise InvalidParameterError(f"--grid {name} and --set {name}: the parameter {name!r} is given twice")
    if output:
        check_output(output, "the model file", inputs=[data])
    t0 = time.perf_counter()
    na = split(na_values)
    source = DataFile(data, na)
    lab = labelled(chunks(source, "reading", not as_json), target, source)
    y = lab.y
    kinds = choose_columns(lab.X, split(ignore), overrides(numeric_cols, categorical_cols, text_cols, boolean_cols, binned_cols),
                           source.name)
    model = make_model(model_name_, kinds, None, None, source, params)
    Xm = model_input(model, lab.X, kinds, source)
    folds = StratifiedKFold(cv, shuffle=True, random_state=seed)
    with file_rows(source, lab.rows, columns=kinds):
        search = SearchCV(model, grid, cv=folds, scoring=scoring, verbose=True).fit(Xm, y)  # a bar on a terminal
    rows = [{k: plain(v) for k, v in r.items()} for r in search.table()]
    result = {
        "data": str(data), "target": target, "model": type(model).__name__, "rows": int(len(y)),
        "rows_without_label": lab.dropped, "left_out": dict(kinds.left_out), "cv": cv, "seed": seed, "scoring": scoring,
        "best_params": {k: plain(v) for k, v in search.best_params_.items()},
        "best_score": search.best_score_, "table": rows, "seconds": round(time.perf_counter() - t0, 3),
    }
    if output:
        meta: dict[str, Any] = {"target": target, "columns": kinds, "rows": int(len(y))}
        if na:
            meta["na_values"] = na
        save(search.best_estimator_, output, meta)
        result["output"] = str(output)
    if as_json:
        emit(result)
        return
    from rich.table import Table

    con = console()
    table = Table(show_edge=False, title=f"{cv}-fold {scoring} of {model_name(model)} on {len(y):,} rows")
    names = list(grid)
    for name in ["rank", *names, "mean", "std"]:
        table.add_column(name, justify="right" if name not in names else "left")
    for r in rows:
        style = "bold" if r["rank"] == 1 else None
        table.add_row(str(r["rank"]), *[str(r[n]) for n in names], f"{r['mean']:.4f}", f"{r['std']:.4f}", style=style)
    con.print(table)
    for c, why in kinds.left_out.items():
        con.print(f"column {c!r} left out: {why}")
    con.print(f"best: {result['best_params']} ({scoring} {search.best_score_:.4f}) in {result['seconds']:.2f} s"
              + (f" -> [bold]{output}[/]" if output else ""))


def parse_grid(specs: tuple[str, ...]) -> dict[str, list[Any]]:
    """``("alpha=0.01,0.1,1", "fit_prior=true,false", "ngram_range=1:1,1:2")`` as a grid.

    Values: true/false, none, integers, numbers, ``a:b`` pairs (ranges such as n-grams), else
    strings.

    >>> parse_grid(("alpha=0.5,1", "ngram_range=1:2", "fit_prior=false"))
    {'alpha': [0.5, 1], 'ngram_range': [(1, 2)], 'fit_prior': [False]}
    """
    grid: dict[str, list[Any]] = {}
    for spec in specs:
        name, sep, values = spec.partition("=")
        name = name.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or not values.strip():
            raise InvalidParameterError(
                f"--grid {spec!r}: expected NAME=VALUE[,VALUE...], e.g. --grid alpha=0.01,0.1,1"
            )
        if name in grid:
            raise InvalidParameterError(f"--grid: {name!r} is given twice; list its values once")
        grid[name] = [parse_value(v.strip()) for v in values.split(",")]
    if not grid:
        raise InvalidParameterError("nbayes tune needs at least one --grid NAME=VALUES")
    return grid
