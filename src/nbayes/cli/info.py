"""``nbayes info``: what a model file holds (the values ``GET /v1/model`` gives too)."""

from __future__ import annotations

import click

from ..io.info import model_info
from ._modelfile import load
from ._options import replay_option
from ._output import console, emit


@click.command()
@click.argument("model_path", metavar="MODEL", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print the information as JSON on stdout.")
@replay_option
def info(model_path: str, as_json: bool, replay: bool) -> None:
    """Format version, model type, classes, features, training size, checksum state.

    \b
    Example:
      nbayes info spam.nbm
    """
    model, state, _ = load(model_path, replay)
    out = model_info(model, state, model_path)
    if as_json:
        emit(out)
        return
    con = console()
    for k, v in out.items():
        if k == "features" and len(v) > 12:
            v = v[:12] + [f"... ({len(v)} in all)"]
        con.print(f"[bold]{k:>15}[/]  {v}")
