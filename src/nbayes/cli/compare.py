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


@click.command()
@click.argument("data", type=click.Path())
@click.option("--target", required=True, metavar="COL")
@click.option("-o", "--output", type=click.Path(), default="nbayes-compare", show_default=True,
              help="Folder for compare.png, compare.html and compare.json (made if missing).")
@click.option("--repeats", type=click.IntRange(1, None), default=10, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--ignore", multiple=True, metavar="COL[,COL]")
@na_option
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON on stdout.")
def compare(data: str, target: str, output: str, repeats: int, seed: int, ignore: tuple[str, ...],
            na_values: tuple[str, ...], as_json: bool) -> None:
    """Ng & Jordan's experiment: Naive Bayes against logistic regression as the training set
    grows (test error per size, with the crossover), as PNG, HTML and JSON.

    \b
    Example:
      nbayes compare pima.csv --target class -o report/
    """
    out = check_output_folder(output, "the comparison")
    source = DataFile(data, split(na_values))
    lab = split_target(source.read_all(), target, source)
    drop = [c for c in split(ignore) if c in lab.X.columns]
    X = lab.X.drop(drop)
    with file_rows(source, lab.rows, columns=X.columns):
        result = run_compare(X, lab.y, repeats=repeats, random_state=seed)
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
    con.print(result.to_markdown())
    con.print(f"crossover: {result.crossover}; wrote {', '.join(written)}")
