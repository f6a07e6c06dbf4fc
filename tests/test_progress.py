"""Progress of long jobs (#29): a bar on a terminal, nothing when piped; SearchCV, the
cross-validation functions and compare take ``verbose=``; compare plans its draws by a time
budget."""

from __future__ import annotations

import io
import sys
import time

import numpy as np
import pytest

import nbayes
from nbayes._progress import progress, shows_progress
from nbayes.evaluate.learning_curves import _within_budget
from nbayes.model_selection import SearchCV, cross_val_predict, cross_validate


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_decision_bar_or_nothing(monkeypatch):
    monkeypatch.delenv("TERM", raising=False)
    assert shows_progress(True, _Terminal()) is True
    assert shows_progress(True, io.StringIO()) is False  # a pipe or a file
    assert shows_progress(False, _Terminal()) is False
    assert shows_progress(0, _Terminal()) is False
    monkeypatch.setenv("TERM", "dumb")
    assert shows_progress(True, _Terminal()) is False


def test_a_bar_is_drawn_on_a_terminal_and_nothing_through_a_pipe(monkeypatch):
    X, y = [[3, 0], [2, 1], [4, 0], [0, 3], [1, 2], [0, 4]] * 3, list("aaabbb") * 3
    grid = {"alpha": [0.1, 1.0]}
    monkeypatch.delenv("TERM", raising=False)
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    quiet = SearchCV(nbayes.MultinomialNB(), grid, cv=3, verbose=True).fit(X, y)
    assert piped.getvalue() == ""
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    loud = SearchCV(nbayes.MultinomialNB(), grid, cv=3, verbose=True).fit(X, y)
    assert "SearchCV: 2 candidates x 3 folds" in terminal.getvalue()
    np.testing.assert_array_equal(loud.cv_results_["mean_test_score"], quiet.cv_results_["mean_test_score"])
    terminal.seek(0), terminal.truncate()
    cross_validate(nbayes.MultinomialNB(), X, y, cv=3, verbose=True)
    cross_val_predict(nbayes.MultinomialNB(), X, y, cv=3, verbose=True)
    assert terminal.getvalue().count("cross-validation") >= 2
    terminal.seek(0), terminal.truncate()
    SearchCV(nbayes.MultinomialNB(), grid, cv=3).fit(X, y)  # verbose=False by default
    assert terminal.getvalue() == ""


def test_advance_without_a_bar_does_nothing():
    with progress(None, "x", verbose=False) as advance:
        advance()
        advance(3, total=10, what="y")


def test_the_budget_keeps_the_sizes_that_fit_and_repeats_while_it_lasts():
    grid = np.array([10, 20, 40, 80, 160, 320])
    cost = {10: 0.01, 20: 0.01, 40: 0.02, 80: 0.04, 160: 0.08, 320: 0.5}
    made = []

    def draw(i, r):
        made.append((i, r))
        time.sleep(cost[int(grid[i])])

    t0 = time.perf_counter()
    kept, repeats = _within_budget(draw, grid, 50, 0.6, False)
    spent = time.perf_counter() - t0
    assert kept == 5  # 320 rows would take 0.5 s (guessed 0.16), not within half the budget
    assert (5, 0) not in made and all(r < repeats for _, r in made)
    assert 2 <= repeats < 50
    assert sorted(made) == [(i, r) for i in range(kept) for r in range(repeats)]
    assert spent < 0.6 * 1.5  # the plan ends near the budget (slack for a loaded machine)
    made.clear()
    assert _within_budget(draw, grid[:2], 3, 100.0, False) == (2, 3)  # repeats at most as asked


def test_compare_within_a_budget_says_what_it_chose():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    fixed = nbayes.compare(X, y, repeats=2, random_state=0)
    assert fixed.info["repeats"] == 2 and "budget" not in fixed.info
    planned = nbayes.compare(X, y, repeats=4, budget=30, random_state=0)
    assert planned.info["budget"] == 30 and 1 <= planned.info["repeats"] <= 4
    assert planned.nb_error.shape == (len(planned.sizes), planned.info["repeats"])
    assert planned.info["sizes_left_out"] == [] and planned.sizes[-1] == fixed.sizes[-1]
    with pytest.raises(nbayes.errors.InvalidParameterError, match="budget"):
        nbayes.compare(X, y, budget=0)
