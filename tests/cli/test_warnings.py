"""Warnings (numpy's, nbayes', a library's) never reach stderr as Python's warning lines
(``.../foo.py:12: UserWarning: ...`` and the source line): one ``nbayes: warning:`` line each,
once."""

from __future__ import annotations

import warnings

import numpy as np
import pytest


def plain_lines(stderr: str) -> list[str]:
    lines = [line for line in stderr.splitlines() if line.strip()]
    for line in lines:
        assert line.startswith("nbayes: "), line
        assert ".py:" not in line and "Warning:" not in line, line
    return lines


def test_fold_warning_is_one_line(cli, tmp_path):
    path = tmp_path / "few.csv"
    path.write_text("a,label\n1,x\n2,x\n3,x\n4,x\n5,y\n6,y\n1,x\n2,x\n")
    out = cli.ok("evaluate", str(path), "--target", "label", "--cv", "3", "--json")
    assert plain_lines(out.stderr) == [
        "nbayes: warning: The least populated class in y has only 2 members, which is less than n_splits=3."
    ]


def test_convergence_warning_once_for_every_fold(cli, shared_data, tmp_path):
    out = cli.ok("tune", str(shared_data / "pima_diabetes" / "data.csv.gz"), "--target", "class", "--model", "logistic",
                 "--grid", "max_iter=1", "--cv", "3", "--json")
    lines = plain_lines(out.stderr)
    assert len(lines) == 1 and lines[0].startswith("nbayes: warning: ") and "max_iter=1" in lines[0]


def test_numpy_warnings_become_one_line_in_process():
    """The boundary itself: a numpy RuntimeWarning and a UserWarning, each raised twice."""
    from click.testing import CliRunner
    import click

    from nbayes.cli._errors import run_command

    @click.command()
    def noisy() -> None:
        def body() -> None:
            for _ in range(2):
                np.log(np.zeros(1))
                warnings.warn("something odd", UserWarning)
            click.echo("done")

        run_command(body)

    result = CliRunner().invoke(noisy, [])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "nbayes: warning: numerical problem: divide by zero encountered in log; some results may be inf or NaN",
        "nbayes: warning: something odd",
    ]
    assert result.stdout == "done\n"


@pytest.mark.parametrize("exc, text", [
    (FileNotFoundError(2, "No such file or directory"), "no such file or folder (FileNotFoundError)"),
    (PermissionError(13, "Permission denied", "out/p.csv"), "out/p.csv: Permission denied"),
])
def test_os_errors_never_say_none(exc, text):
    from nbayes.cli._errors import message

    assert message(exc) == text and "None" not in message(exc)
