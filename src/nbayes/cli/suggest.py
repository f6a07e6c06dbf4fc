"""``nbayes suggest``: which rows of a pool of unlabelled data to label next (active learning)."""

from __future__ import annotations

import click
import numpy as np

from ..active import DEFAULT, STRATEGIES, Pool, suggest as choose
from ._modelfile import load
from ._options import na_option
from ._output import console, emit, plain
from .prior import read_rows


@click.command()
@click.argument("model_path", metavar="MODEL", type=click.Path())
@click.argument("pool_path", metavar="POOL", type=click.Path())
@click.option("-k", "k", type=int, default=10, show_default=True, help="How many rows to suggest.")
@click.option("--strategy", type=click.Choice(list(STRATEGIES)), default=DEFAULT, show_default=True,
              help="How to choose (docs/active-learning.md).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the subsamples (expected_error, random).")
@na_option
@click.option("--json", "as_json", is_flag=True, help="Print the suggestions as JSON on stdout.")
def suggest(model_path: str, pool_path: str, k: int, strategy: str, seed: int, na_values: tuple[str, ...],
            as_json: bool) -> None:
    """Which rows of POOL to label next: the k most worth a label, best first.

    \b
    Rows are numbered from 0 in POOL's order (data rows, the header not counted).

    \b
    Examples:
      nbayes suggest spam.nbm unlabelled.jsonl -k 50
      nbayes suggest spam.nbm unlabelled.jsonl -k 20 --strategy entropy --json
    """
    model, _, cli = load(model_path)
    X, source, cols, frame = read_rows(model, cli, pool_path, na_values, not as_json)
    if model.input_kind == "text" and not isinstance(X, list):
        X = [str(t) if t is not None else "" for t in frame.get_column(list(cols)[0]).to_list()]
    pool = Pool(model, X)
    picks = choose(model, pool, k, strategy=strategy, random_state=seed)
    L = pool.log_proba(picks)
    pred = model.classes_[np.argmax(L, axis=1)]
    rows = [{"row": int(i), "predicted": plain(p), "probability": float(np.exp(L[j].max()))}
            for j, (i, p) in enumerate(zip(picks.tolist(), pred))]
    if as_json:
        emit({"model": str(model_path), "pool": str(pool_path), "strategy": strategy, "k": len(rows), "rows": rows})
        return
    con = console()
    con.print(f"[bold]label these {len(rows)} of {pool.n:,} rows[/] (strategy {strategy}), best first")
    for r in rows:
        con.print(f"  row {r['row']:>7}   now predicted {r['predicted']} ({r['probability']:.2f})")
