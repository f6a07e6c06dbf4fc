"""``nbayes demo``: the worked examples of :mod:`nbayes.demo` on bundled data."""

from __future__ import annotations

import click

from ..demo import run
from ._paths import check_output


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON on stdout.")
@click.option("--report", default="nbayes-demo-report.html", show_default=True, type=click.Path(),
              help="Where to write the HTML report ('' for none).")
def demo(as_json: bool, report: str) -> None:
    """Run the worked examples on data shipped inside the package (offline).

    \b
    PlayTennis (slides 000): MLE joint scores .0053 vs .0206, prediction No.
    House votes 1984 (UCI): missing votes left out exactly, 10-fold CV accuracy,
    an explained prediction, merge of two shards, unlearn, save and load.
    SMS spam (UCI): a text model trained, evaluated and explained word by word.
    Learning curves: Naive Bayes vs logistic regression (Ng & Jordan).
    Raw against calibrated probabilities (log-loss, Brier, ECE).
    An HTML report (inline SVG figures): confusion matrix, coloured words,
    learning curves, reliability diagrams.

    \b
    Example:
      nbayes demo
    """
    if report:
        check_output(report, "the report")
    run(as_json=as_json, report=report or None)
