"""nbayes.compare (home: nbayes.evaluate.learning_curves and nbayes.evaluate.comparison): Ng &
Jordan's learning-curve experiment (Naive Bayes vs logistic regression)."""

from __future__ import annotations

import importlib
import json
import os
import sys
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import nbayes
from nbayes.errors import MissingDependencyError
from nbayes.evaluate import Comparison, Row, crossover_size
from nbayes.evaluate._lr_input import LRInput
from nbayes.evaluate._sampling import default_sizes
from nbayes.errors import DataError, InvalidParameterError, NBayesError


class SkLogReg:
    """scikit-learn's LogisticRegression(max_iter=1000) standing in for nbayes.LogisticRegression
    (same API, C=1.0); a ConvergenceWarning on a tiny draw is not a test failure."""

    def __init__(self) -> None:
        from sklearn.linear_model import LogisticRegression

        self.model = LogisticRegression(max_iter=1000)

    def fit(self, X, y):
        from sklearn.exceptions import ConvergenceWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            self.model.fit(X, y)
        self.classes_ = self.model.classes_
        return self

    def predict(self, X):
        return self.model.predict(X)

    def predict_proba(self, X):
        return self.model.predict_proba(X)

    def __repr__(self) -> str:
        return "sklearn.LogisticRegression(max_iter=1000)"


@pytest.fixture
def lr() -> SkLogReg:
    pytest.importorskip("sklearn")
    return SkLogReg()


@pytest.fixture
def gaussian_data(rng):
    n, d = 300, 8
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, d)) + 0.6 * (2 * y[:, None] - 1)
    return X, np.where(y == 1, "pos", "neg")


@pytest.fixture
def mixed_frame(rng):
    n = 240
    y = rng.integers(0, 2, n)
    df = pd.DataFrame(
        {
            "size": rng.normal(10 + 2 * y, 2.0),
            "colour": np.array(["red", "green", "blue"])[(y + rng.integers(0, 2, n)) % 3],
            "count": rng.poisson(2 + y),
        }
    )
    df.loc[rng.random(n) < 0.1, "size"] = np.nan
    df["colour"] = df["colour"].astype(object)
    df.loc[rng.random(n) < 0.1, "colour"] = None
    return df, np.array(["a", "b"])[y]


# ----------------------------------------------------------------------------- behaviour
def test_same_seed_same_table(gaussian_data, lr):
    X, y = gaussian_data
    a = nbayes.compare(X, y, lr=lr, sizes=[4, 210], repeats=2, random_state=7)
    b = nbayes.compare(X, y, lr=lr, sizes=[4, 210], repeats=2, random_state=np.random.default_rng(7))
    c = nbayes.compare(X, y, lr=lr, sizes=[4, 210], repeats=2, random_state=8)
    assert a.table == b.table
    assert a.to_dict()["draws"] == b.to_dict()["draws"]
    assert a.to_dict()["draws"] != c.to_dict()["draws"]
    assert a.table[-1].nb_error_std == 0.0  # the whole pool: every draw is the same rows


def test_table_shape_and_default_sizes(gaussian_data, lr):
    X, y = gaussian_data
    result = nbayes.compare(X, y, lr=lr, repeats=1)
    n_pool, n_test = result.info["n_pool"], result.info["n_test"]
    assert n_pool + n_test == len(y) and n_test == 90  # ceil(0.3 * 300)
    sizes = [r.size for r in result.table]
    assert sizes == default_sizes(n_pool, 2).tolist()
    assert sizes[0] == 4 and sizes[-1] == n_pool and len(sizes) <= 12  # 2 per class .. pool
    assert np.all(np.diff(np.log(sizes)) > 0)  # geometric, increasing
    assert result.nb_error.shape == result.lr_error.shape == (len(sizes), 1)
    for row in result.table:
        assert isinstance(row, Row)
        assert set(row._fields) >= {"size", "nb_error_mean", "nb_error_std", "lr_error_mean", "lr_error_std", "n_repeats"}
        assert row.n_repeats == 1 and row.skipped == 0 and row.nb_error_std == 0.0
        assert 0 <= row.nb_error_mean <= 1 and 0 <= row.lr_error_mean <= 1
        assert row.nb_log_loss_mean > 0 and row.lr_log_loss_mean > 0


def test_default_sizes_grid():
    assert default_sizes(3, 2).tolist() == [3]
    grid = default_sizes(10_000, 10)
    assert grid[0] == 20 and grid[-1] == 10_000 and len(grid) == 12


def test_stratified_draws_hold_every_class(rng, lr):
    y = np.array(["a"] * 270 + ["b"] * 30)
    X = rng.normal(size=(300, 3)) + (y == "b")[:, None]
    result = nbayes.compare(X, y, lr=lr, sizes=[2, 3], repeats=3)
    assert [r.skipped for r in result.table] == [0, 0]  # the rare class is always drawn
    # without stratification small draws miss the rare class: skipped for both, and counted
    result = nbayes.compare(X, y, lr=lr, sizes=[1, 2], repeats=4, stratify=False)
    assert result.table[0].skipped == 4 and np.isnan(result.table[0].nb_error_mean)
    assert result.table[1].skipped >= 1
    assert result.table[1].n_repeats + result.table[1].skipped == 4
    assert "4 skipped" in result.to_markdown()


def test_nb_wins_small_samples_when_its_assumptions_hold(lr):
    """Binary features independent given the class (the Bernoulli Naive Bayes model, exactly):
    Naive Bayes' error is lower than logistic regression's on small training sets."""
    rng = np.random.default_rng(5)
    n, d = 600, 40
    y = (rng.random(n) < 0.75).astype(int)
    X = rng.random((n, d)) < np.where(y[:, None] == 1, 0.7, 0.3)  # booleans: Bernoulli NB
    result = nbayes.compare(X, y, lr=lr, sizes=[6, 10], repeats=8, random_state=1)
    # measured: NB 4.9 and 2.4 %, LR 9.0 and 4.8 % (other seeds: NB about half of LR's error)
    for row in result.table:
        assert row.nb_error_mean < row.lr_error_mean, row
    gap = np.mean([r.lr_error_mean - r.nb_error_mean for r in result.table])
    assert gap > 0.01, result.table


def test_crossover_on_hand_made_tables():
    sizes = [10, 20, 40, 80, 160]
    nb = [0.20, 0.15, 0.12, 0.11, 0.11]
    cases = [
        ([0.30, 0.20, 0.11, 0.09, 0.08], 40),  # crosses once, stays below
        ([0.10, 0.20, 0.11, 0.12, 0.10], 160),  # below, above, below, above, below: last stretch
        ([0.30, 0.20, 0.13, 0.12, 0.11], None),  # a tie at the end is not below
        ([0.10, 0.10, 0.10, 0.10, 0.10], 10),  # below everywhere
        ([0.30, 0.10, 0.10, 0.12, 0.12], None),  # below in the middle only
    ]
    for lr, expected in cases:
        assert crossover_size(sizes, nb, lr) == expected, lr
        result = Comparison(sizes, np.array(nb)[:, None], np.array(lr)[:, None])
        assert result.crossover == expected
    # sizes where a mean is missing (every draw skipped) are left out
    lr = [np.nan, 0.20, 0.11, 0.09, 0.08]
    assert Comparison(sizes, np.array(nb)[:, None], np.array(lr)[:, None]).crossover == 40
    # the table's means over several draws decide, not single draws
    nb_draws = np.array([[0.2, 0.2], [0.1, 0.1]])
    lr_draws = np.array([[0.1, 0.4], [0.0, 0.1]])  # mean 0.25 > 0.2 at 10, 0.05 < 0.1 at 20
    assert Comparison([10, 20], nb_draws, lr_draws).crossover == 20


def test_mixed_frames_pandas_and_polars(mixed_frame, lr):
    X, y = mixed_frame
    a = nbayes.compare(X, y, lr=lr, sizes=[4, 100], repeats=1)
    assert a.info["lr_input"].startswith("2 numeric column(s) and 1 one-hot")
    assert all(r.n_repeats == 1 for r in a.table)
    assert np.isfinite(a.lr_error).all() and np.isfinite(a.nb_error).all()
    for other in (pl.from_pandas(X), pa.Table.from_pandas(X), X.to_numpy(dtype=object)):
        b = nbayes.compare(other, y, lr=lr, sizes=[4, 100], repeats=1)
        np.testing.assert_allclose(b.nb_error, a.nb_error)
        np.testing.assert_allclose(b.lr_error, a.lr_error)


def test_lr_encoding_is_fitted_on_the_training_draw_only():
    X = pd.DataFrame({"x": [1.0, 3.0, np.nan, 100.0, 7.0], "c": ["u", "v", None, "w", "u"]})
    enc = LRInput(X, "auto")
    assert enc.kind == "encode"
    train, test = np.array([0, 1, 2]), np.array([3, 4, 2])
    A, B = enc.train_test(train, test, None)
    assert A.shape == (3, 3) and B.shape == (3, 3)  # x, then one-hot u, v ("w" not in the draw)
    np.testing.assert_allclose(A.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(A.std(axis=0), 1.0)
    # x: the draw's mean 2 (NaN imputed to it) and sd sqrt(2/3); 100 does not leak in
    np.testing.assert_allclose(B[:, 0], (np.array([100.0, 7.0, 2.0]) - 2.0) / np.sqrt(2 / 3))
    # c: "w" was never seen: both indicators 0 before standardising; "u" is (1, 0)
    mean_u, sd_u = 0.5, np.sqrt(1 / 6)  # u, v, missing -> 1, 0, imputed 0.5
    np.testing.assert_allclose(B[0, 1], (0 - mean_u) / sd_u)
    np.testing.assert_allclose(B[1, 1], (1 - mean_u) / sd_u)
    # complete numeric input is used as it is unless asked otherwise
    num = np.arange(12.0).reshape(6, 2)
    assert LRInput(num, "auto").kind == "matrix"
    assert LRInput(num, "always").kind == "encode"
    assert LRInput(num, "never").kind == "raw"
    assert LRInput(np.where(num > 10, np.nan, num), "auto").kind == "encode"


def test_models_are_not_modified(gaussian_data, lr):
    X, y = gaussian_data
    nb = nbayes.GaussianNB()
    nbayes.compare(X, y, nb=nb, lr=lr, sizes=[10], repeats=2)
    assert not hasattr(nb, "classes_") and not hasattr(lr, "classes_")


def test_json_round_trip(rng, lr):
    y = np.array(["a"] * 40 + ["b"] * 40)
    X = rng.normal(size=(80, 2)) + (y == "b")[:, None]
    result = nbayes.compare(X, y, lr=lr, sizes=[1, 8, 30], repeats=2)
    d = json.loads(result.to_json())
    assert d["table"][0]["nb_error_mean"] is None  # one row cannot hold both classes: skipped
    assert d["sizes"] == [1, 8, 30] and d["crossover"] == result.crossover
    again = Comparison.from_dict(d)
    assert again.to_dict() == result.to_dict()
    assert str(again.table) == str(result.table)  # NaN == NaN as text


def test_to_markdown(gaussian_data, lr):
    X, y = gaussian_data
    text = nbayes.compare(X, y, lr=lr, sizes=[4, 50], repeats=2).to_markdown()
    lines = text.splitlines()
    assert lines[0].startswith("| training rows m | NB error % | LR error %")
    assert lines[2].startswith("| 4 | ") and lines[3].startswith("| 50 | ") and " ± " in lines[2]
    assert "Crossover" in text


def test_one_draw_shows_no_spread(gaussian_data, lr):
    """With one draw per size (a short --budget) the table gives the error alone: "± 0.0" would
    claim a spread nobody measured (issue #29: every figure one a careful user would trust)."""
    X, y = gaussian_data
    text = nbayes.compare(X, y, lr=lr, sizes=[4, 50], repeats=1).to_markdown()
    rows = [line for line in text.splitlines() if line.startswith("| 4 |") or line.startswith("| 50 |")]
    assert len(rows) == 2 and all(" ± " not in r and r.endswith("| 1 |") for r in rows)


# ----------------------------------------------------------------------------- files
def _need_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        msg = "matplotlib is not installed (pip install 'nbayes[plot]'); PNG output not tested"
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)


def _hand_made() -> Comparison:
    nb = np.array([[0.30, 0.28], [0.2, 0.22], [0.15, 0.15], [0.14, 0.14]])
    lr = np.array([[0.40, 0.35], [0.25, 0.2], [0.12, 0.13], [0.10, 0.10]])
    return Comparison([4, 16, 64, 256], nb, lr, info={"n_test": 100, "note": "<b>&</b>"})


def test_plot_writes_a_png(tmp_path):
    _need_matplotlib()
    path = _hand_made().plot(tmp_path / "curves.png", title="hand-made")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5_000


def test_html_is_self_contained(tmp_path):
    result = _hand_made()
    page = result.to_html(tmp_path / "curves.html", figure=False).read_text()
    assert page.startswith("<!DOCTYPE html>") and "<table>" in page
    assert "<td>64</td>" in page and "&lt;b&gt;&amp;&lt;/b&gt;" in page  # values escaped
    for external in ("http://", "https://", "<script", "<link", "@import", "url("):
        assert external not in page
    page = result.to_html(tmp_path / "curves.html").read_text()  # inline SVG, drawn without matplotlib
    assert page.count("<svg ") == 2 and "<img" not in page
    for external in ("http://", "https://", "<script", "<link", "@import", "url("):
        assert external not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_missing_matplotlib_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # import now fails
    with pytest.raises(MissingDependencyError, match=r"pip install 'nbayes\[plot\]'") as info:
        _hand_made().plot(tmp_path / "x.png")
    assert isinstance(info.value, NBayesError) and isinstance(info.value, ImportError)
    page = _hand_made().to_html(tmp_path / "x.html", figure=True).read_text()  # the HTML page needs no matplotlib
    assert "<svg " in page and "nbayes[plot]" not in page


# ----------------------------------------------------------------------------- bad input
def test_bad_inputs(gaussian_data, lr):
    X, y = gaussian_data
    with pytest.raises(DataError, match="at least 2 classes"):
        nbayes.compare(X, np.zeros(len(y)), lr=lr)
    with pytest.raises(DataError, match="299 labels but X has 300 rows"):
        nbayes.compare(X, y[:-1], lr=lr)
    with pytest.raises(InvalidParameterError, match="larger than the training pool of 210 rows"):
        nbayes.compare(X, y, lr=lr, sizes=[10, 211])
    for bad in (0, 0.0, 1, 1.0, 1.5, -0.1, float("nan"), "0.3"):
        with pytest.raises(InvalidParameterError, match="test_size"):
            nbayes.compare(X, y, lr=lr, test_size=bad)
    for bad in ([], [0], [2.5], "10", 10, [True]):
        with pytest.raises(InvalidParameterError, match="sizes"):
            nbayes.compare(X, y, lr=lr, sizes=bad)
    with pytest.raises(InvalidParameterError, match="repeats"):
        nbayes.compare(X, y, lr=lr, repeats=0)
    with pytest.raises(InvalidParameterError, match="random_state"):
        nbayes.compare(X, y, lr=lr, random_state="seed")
    with pytest.raises(InvalidParameterError, match="'lr' must be a classifier"):
        nbayes.compare(X, y, lr=object())
    with pytest.raises(InvalidParameterError, match="lr_preprocess"):
        nbayes.compare(X, y, lr=lr, lr_preprocess="scale")
    with pytest.raises(DataError, match="leaves 3 test row.* and 0 training row"):
        nbayes.compare(X[:3], y[:3], lr=lr, test_size=0.99, stratify=False)
    with pytest.raises(DataError, match="leaves 0 test row"):  # one row per class: all to train
        nbayes.compare(X[:2], ["a", "b"], lr=lr, test_size=0.5)
    with pytest.raises(ValueError):  # every nbayes error is a ValueError too
        nbayes.compare(X, y[:10], lr=lr)


# ----------------------------------------------------------------------------- exports
def test_lazy_exports_and_callable_module(gaussian_data, lr):
    assert nbayes.Comparison is Comparison
    import nbayes.compare as old  # the public path of before: the same objects

    assert old.Comparison is Comparison and old.default_sizes is default_sizes and old.LRInput is LRInput
    assert nbayes.evaluate.compare is old.compare
    module = importlib.import_module("nbayes.compare")
    X, y = gaussian_data
    # `import nbayes.compare` may bind the module on the package: calling it calls compare
    for fn in (nbayes.compare, module, module.compare):
        assert isinstance(fn(X, y, lr=lr, sizes=[8], repeats=1), Comparison)
    assert {"compare", "Comparison"} <= set(dir(nbayes))


def test_default_logistic_regression(gaussian_data):
    try:
        from nbayes.linear import LogisticRegression  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"nbayes.LogisticRegression not available yet ({exc})")
    X, y = gaussian_data
    result = nbayes.compare(X, y, sizes=[8, 64], repeats=1)
    assert "LogisticRegression" in result.info["lr"]
    assert np.isfinite(result.lr_error).all()
