"""The ``nbayes`` command line. Imports of numpy and the models happen inside commands, so
``nbayes --help`` starts fast."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="nbayes")
def main() -> None:
    """nbayes: exact, fast, mergeable Naive Bayes classifiers.

    \b
    Examples:
      nbayes demo               the worked examples on data shipped with nbayes
      nbayes demo --json        the same, as JSON
    """


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON on stdout.")
def demo(as_json: bool) -> None:
    """Run the worked examples on data shipped inside the package (offline).

    \b
    PlayTennis (slides 000): MLE joint scores .0053 vs .0206, prediction No.
    House votes 1984 (UCI): missing votes left out exactly, 10-fold CV accuracy,
    an explained prediction, merge of two shards, unlearn, save and load.

    \b
    Example:
      nbayes demo
    """
    from .demo import run

    run(as_json=as_json)


if __name__ == "__main__":  # pragma: no cover
    main()
