"""The ``nbayes`` command line: one module per command (``train``, ``predict``, ``evaluate``,
``tune``, ``explain``, ``info``, ``compare``, ``serve``, ``learn``, ``unlearn``, ``snapshot``, ``repair``,
``demo``), loaded when that command
runs, so that ``nbayes --help`` starts fast; shared modules read and type data files
(``_read``, ``_columns``), check and write paths (``_paths``, ``_modelfile``), print
(``_output``) and turn failures into one line (``_errors``).

Bad input (a missing or unreadable file, a column that does not exist, a corrupted model file,
an output folder that does not exist) ends with one line on stderr naming the file, and exit
status 2; no traceback, and no partial output file (outputs are written to a temporary name and
renamed). Warnings are one line each on stderr.
"""

from __future__ import annotations

import os
from importlib import import_module
from typing import Any

import click

# polars' allocator (jemalloc, its variables prefixed _RJEM_) keeps freed pages for 10 s by
# default: a stream of chunks then holds the memory of the last ones at its peak (measured:
# 1.5 GB through `nbayes train`, 506 MB -> 470 MB, as fast). Freed pages go back at once
# instead; it must be set before polars is loaded, and a setting of the user's wins.
os.environ.setdefault("_RJEM_MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0")

from ._errors import run_command

#: the commands, in the order ``nbayes --help`` lists them, with their one-line help (the
#: first line of each command's docstring; tests/cli check that they agree)
COMMANDS: dict[str, str] = {
    "train": "Train a model on DATA (CSV, TSV, Parquet, JSON Lines, or a folder per class) and save it.",
    "predict": "Predict the class of every row of DATA with the model in MODEL.",
    "evaluate": "Accuracy, macro-F1, log-loss, per-class precision/recall and the confusion matrix.",
    "tune": "Search hyperparameters by cross-validation and print the table, best first.",
    "explain": "Why the model predicts what it does: each word's or feature's contribution.",
    "info": "Format version, model type, classes, features, training size, checksum state.",
    "compare": "Ng & Jordan's experiment: Naive Bayes against logistic regression as the training set grows.",
    "serve": "Serve MODEL over HTTP: a JSON API and a web page that shows why (needs nbayes[serve]).",
    "prior": "Estimate the class prior of the unlabelled rows of DATA (label shift) and test for a change.",
    "suggest": "Which rows of POOL to label next: the k most worth a label, best first.",
    "learn": "Send the rows of DATA to a learning service at URL (nbayes serve MODEL --learn).",
    "unlearn": "Make a learning service at URL forget the rows of DATA exactly (nbayes serve MODEL --learn).",
    "snapshot": "Write the updates of MODEL.log (left by nbayes serve MODEL --learn) into MODEL now.",
    "repair": "Recover what is valid of a damaged MODEL.log: copy it aside, keep the records before the damage.",
    "demo": "Run the worked examples on data shipped inside the package (offline).",
}


class _Group(click.Group):
    """Loads a command's module when it runs; turns every expected failure into one line on
    stderr and exit status 2 (:mod:`nbayes.cli._errors`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        command = getattr(import_module(f"{__name__}.{cmd_name}"), cmd_name)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The list of commands without importing them (their modules load numpy and the models)."""
        with formatter.section("Commands"):
            formatter.write_dl([(name, help) for name, help in COMMANDS.items()])

    def invoke(self, ctx: click.Context) -> Any:
        return run_command(lambda: super(_Group, self).invoke(ctx))


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="nbayes")
def main() -> None:
    """nbayes: exact, fast, mergeable Naive Bayes classifiers (and logistic regression).

    \b
    Examples:
      nbayes demo                                      worked examples on bundled data
      nbayes train spam.csv --target label -o spam.nbm
      nbayes predict spam.nbm new.csv -o predictions.csv --proba
      nbayes evaluate spam.nbm test.csv --target label
      nbayes evaluate spam.csv --target label --cv 10  cross-validation from a file alone
      nbayes explain spam.nbm "WIN a FREE prize now"
      nbayes info spam.nbm
      nbayes serve spam.nbm --port 8000                HTTP API and a web page that shows why
      nbayes compare pima.csv --target class -o report/
    """
