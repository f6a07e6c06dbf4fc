"""``nbayes compare`` plans its draws by a time budget by default; --repeats alone keeps the
old fixed number of draws (#29). Through a pipe no progress bar is drawn."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

from nbayes.cli import main


def _data(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    path = tmp_path / "d.csv"
    path.write_text("a,b,c,label\n" + "".join(f"{r[0]},{r[1]},{r[2]},{t}\n" for r, t in zip(X, y)))
    return str(path)


def test_repeats_alone_is_a_fixed_number_of_draws(tmp_path):
    r = CliRunner().invoke(main, ["compare", _data(tmp_path), "--target", "label", "-o", str(tmp_path / "o"),
                                  "--repeats", "2", "--json"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)["table"]["info"]
    assert info["repeats"] == 2 and "budget" not in info
    assert r.stderr == ""  # no bar through a pipe


def test_a_budget_chooses_the_draws_and_says_so(tmp_path):
    r = CliRunner().invoke(main, ["compare", _data(tmp_path), "--target", "label", "-o", str(tmp_path / "o"),
                                  "--budget", "20", "--repeats", "3"])
    assert r.exit_code == 0, r.output
    assert "within the budget of 20 s:" in r.stdout and "draw(s) per size" in r.stdout
    info = json.loads((tmp_path / "o" / "compare.json").read_text())["info"]
    assert info["budget"] == 20 and 1 <= info["repeats"] <= 3


def test_the_default_is_a_budget_of_a_minute():
    from nbayes.cli.compare import DEFAULT_BUDGET, compare

    assert DEFAULT_BUDGET == 60.0
    budget = next(p for p in compare.params if p.name == "budget")
    assert "default 60" in (budget.help or "")
