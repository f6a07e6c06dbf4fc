"""The command line's shape: one module per command, none over ~500 lines, no dispatch on class
names in the CLI or the service, the listing of ``nbayes --help`` equal to the commands' own help."""

from __future__ import annotations

import re
from pathlib import Path

import click

import nbayes.cli as cli

SRC = Path(cli.__file__).parent


def test_one_module_per_command_and_short_modules():
    for name in cli.COMMANDS:
        assert (SRC / f"{name}.py").is_file(), name
    for path in SRC.glob("*.py"):
        n = len(path.read_text().splitlines())
        assert n <= 500, (path.name, n)
    assert not (SRC.parent / "_cli").exists() and not (SRC.parent / "cli.py").exists()


def test_no_dispatch_on_class_names():
    pattern = re.compile(r"__name__\s*(==|!=|in\b|not in\b)|(==|!=|in)\s*\(?\s*[\"'][A-Z][A-Za-z]+(NB|Classifier|Regression|Bayes)[\"']")
    for folder in (SRC, SRC.parent / "serve"):
        for path in folder.glob("*.py"):
            for i, line in enumerate(path.read_text().splitlines(), 1):
                if "__main__" in line:
                    continue
                assert not pattern.search(line), f"{path.name}:{i}: {line.strip()}"


def test_listing_matches_each_commands_help():
    for name, short in cli.COMMANDS.items():
        command = cli.main.get_command(click.Context(cli.main), name)
        assert command is not None
        first = " ".join((command.help or "").split("\n\n")[0].split())
        assert first.startswith(short.rstrip(".")), (name, first, short)
