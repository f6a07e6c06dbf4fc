"""``nbayes compare``: Naive Bayes against logistic regression as the training set grows."""

from __future__ import annotations

import json

import click

from ..compare import compare as run_compare
from ._columns import file_rows, split_target
from ._options import na_option, split
from ._output import console, emit
from ._paths import check_output_folder, write_atomic
from ._read import DataFile


#: seconds ``nbayes compare`` plans for when neither --budget nor --repeats is given
DEFAULT_BUDGET = 60.0


@click.command()
@click.argument("data", type=click.Path())
@click.option("--target", required=True, metavar="COL")
@click.option("-o", "--output", type=click.Path(), default="nbayes-compare", show_default=True,
              help="Folder for compare.png, compare.html and compare.json (made if missing).")
@click.option("--budget", type=click.FloatRange(0, None, min_open=True), default=None, metavar="SECONDS",
              help="About how long to run (default 60): the repeats per size (at most --repeats) and the largest "
                   "training sizes are chosen to fit, with a progress bar and the time left on a terminal.")
@click.option("--repeats", type=click.IntRange(1, None), default=None,
              help="Draws per training size (default 10). Alone, exactly this many, without a time budget.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--ignore", multiple=True, metavar="COL[,COL]")
@na_option
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON on stdout.")
def compare(data: str, target: str, output: str, budget: float | None, repeats: int | None, seed: int,
            ignore: tuple[str, ...], na_values: tuple[str, ...], as_json: bool) -> None:
    """Ng & Jordan's experiment: Naive Bayes against logistic regression as the training set
    grows (test error per size, with the crossover), as PNG, HTML and JSON.

    \b
    By default the run is planned to take about a minute (--budget 60): a first draw at each
    size measures the cost, sizes too large for the budget are left out, and as many repeats
    as fit are made (at most 10). --repeats N alone makes exactly N draws per size.

    \b
    Examples:
      nbayes compare pima.csv --target class -o report/
      nbayes compare adult.csv --target class --budget 300
      nbayes compare pima.csv --target class --repeats 20
    """
    out = check_output_folder(output, "the comparison")
    source = DataFile(data, split(na_values))
    lab = split_target(source.read_all(), target, source)
    drop = [c for c in split(ignore) if c in lab.X.columns]
    X = lab.X.drop(drop)
    with file_rows(source, lab.rows, columns=X.columns):
        if budget is None and repeats is None:
            budget = DEFAULT_BUDGET
        result = run_compare(X, lab.y, repeats=repeats or 10, random_state=seed, budget=budget, verbose=True)
    out.mkdir(exist_ok=True)
    what = "the comparison"
    write_atomic(out / "compare.json", lambda tmp: tmp.write_text(result.to_json()), what)
    written = [str(out / "compare.json")]
    try:
        write_atomic(out / "compare.png", result.plot, what)
        written.append(str(out / "compare.png"))
    except ImportError:
        pass
    write_atomic(out / "compare.html", result.to_html, what)
    written.append(str(out / "compare.html"))
    if as_json:
        emit({"crossover": result.crossover, "files": written, "table": json.loads(result.to_json())})
        return
    con = console()
    if budget is not None:
        left_out = result.info.get("sizes_left_out") or []
        con.print(f"within the budget of {budget:g} s: {result.info['repeats']} draw(s) per size"
                  + (f"; sizes {', '.join(f'{m:,}' for m in left_out)} left out (too slow for it: raise --budget)"
                     if left_out else ""))
    con.print(result.to_markdown())
    con.print(f"crossover: {result.crossover}; wrote {', '.join(written)}")
