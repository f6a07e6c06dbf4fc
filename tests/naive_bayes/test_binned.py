"""Binned numeric columns of NaiveBayes: edges fixed at the first fit and part of the statistics,
exact arithmetic, the numeric="auto" choice, and model files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import nbayes
from nbayes.errors import InvalidParameterError, MergeError
from nbayes.naive_bayes.binned import quantile_edges
from nbayes.naive_bayes._numeric import diagnose


def _frame(rng: np.random.Generator, n: int = 600) -> tuple[pd.DataFrame, np.ndarray]:
    """A mostly-zero column whose non-zeros say the class, a Gaussian one, a category."""
    y = rng.integers(0, 2, n)
    gain = np.where(rng.random(n) < 0.1 + 0.4 * y, rng.exponential(1000, n) * (1 + 5 * y), 0.0).round()
    df = pd.DataFrame({"gain": gain, "height": rng.normal(170 + 4 * y, 8),
                       "colour": np.array(["red", "blue"], dtype=object)[(y + (rng.random(n) < 0.3)) % 2]})
    return df, np.array(["no", "yes"], dtype=object)[y]


def test_quantile_edges_give_a_spike_its_own_bin_and_no_empty_bin():
    x = np.r_[np.zeros(80), np.arange(1.0, 21.0)]
    e = quantile_edges(x, bins=4)
    codes = np.searchsorted(e, x, side="right")
    assert set(codes[:80]) == {0} and 0 not in set(codes[80:])  # the zeros alone in bin 0
    assert np.all(np.bincount(codes, minlength=len(e) + 1) > 0)
    assert_array_equal(quantile_edges(np.array([3.0, 1, 2, 2, np.nan]), bins=20), [2.0, 3.0])  # one bin per value


def test_diagnose_names_the_three_bad_fits():
    rng = np.random.default_rng(0)
    assert diagnose(rng.integers(0, 5, 500).astype(float)) == "5 distinct values"
    assert "mostly one value (0" in diagnose(np.r_[np.zeros(400), rng.normal(5, 1, 100)])
    assert "skewed" in diagnose(rng.lognormal(0, 1, 500))
    assert diagnose(rng.normal(0, 1, 500)) is None
    assert diagnose(np.zeros(50)) is None  # too few rows to judge


def test_binned_column_is_the_categorical_model_of_its_bins(rng):
    X, y = _frame(rng)
    edges = [0.5, 500.0, 2000.0]
    m = nbayes.NaiveBayes(column_types={"gain": "binned"}, bin_edges={"gain": edges}, alpha=0.7).fit(X, y)
    bins = np.searchsorted(edges, X["gain"].to_numpy(), side="right")
    ref = nbayes.CategoricalNB(alpha=0.7, categories=[np.arange(4)]).fit(bins[:, None], y)
    part = m.explain(X).contributions[:, :, 0]
    assert_allclose(part, ref.explain(bins[:, None]).contributions[:, :, 0], rtol=1e-12)
    assert m.column_kinds_ == ["binned", "gaussian", "categorical"]
    assert "gain in < 0.5" in [n for n, _ in m.top_features(20)["no"]]


def test_edges_are_fixed_at_the_first_fit_and_partial_fit_unlearn_merge_stay_exact(rng):
    X, y = _frame(rng)
    a, b = slice(0, 300), slice(300, 600)
    first = nbayes.NaiveBayes(column_types={"gain": "binned"}).partial_fit(X[a], y[a])
    edges = first.stats_.parts["binned"].edges[0].copy()
    assert_array_equal(edges, quantile_edges(X["gain"].to_numpy()[a]))
    both = first.partial_fit(X[b], y[b])
    assert_array_equal(both.stats_.parts["binned"].edges[0], edges)  # later data binned alike
    fixed = nbayes.NaiveBayes(column_types={"gain": "binned"}, bin_edges={"gain": edges})
    whole = fixed.fit(X, y)
    assert_allclose(both.predict_joint_log_proba(X), whole.predict_joint_log_proba(X), rtol=1e-12)
    back = nbayes.NaiveBayes(column_types={"gain": "binned"}, bin_edges={"gain": edges}).fit(X, y).unlearn(X[b], y[b])
    assert_allclose(back.predict_joint_log_proba(X),
                    nbayes.NaiveBayes(column_types={"gain": "binned"}, bin_edges={"gain": edges}).fit(X[a], y[a])
                    .predict_joint_log_proba(X), rtol=1e-10)
    shard = nbayes.NaiveBayes(column_types={"gain": "binned"}, bin_edges={"gain": edges})
    merged = shard.fit(X[a], y[a]).merge(nbayes.NaiveBayes(**shard.get_params()).fit(X[b], y[b]))
    assert_allclose(merged.predict_joint_log_proba(X), whole.predict_joint_log_proba(X), rtol=1e-12)


def test_merge_of_models_binned_at_other_edges_is_an_error_naming_the_column(rng):
    X, y = _frame(rng)
    a = nbayes.NaiveBayes(column_types={"gain": "binned"}).fit(X[:300], y[:300])
    b = nbayes.NaiveBayes(column_types={"gain": "binned"}).fit(X[300:], y[300:])
    with pytest.raises(MergeError, match="column 'gain' was binned at other edges"):
        a.merge(b)
    with pytest.raises(MergeError, match="other edges"):  # the statistics refuse too
        a.stats_.parts["binned"] + b.stats_.parts["binned"]


def test_bad_bin_edges_are_clear_errors(rng):
    X, y = _frame(rng)
    with pytest.raises(InvalidParameterError, match="column 'gain' has edges .*increasing"):
        nbayes.NaiveBayes(column_types={"gain": "binned"}, bin_edges={"gain": [3, 1]}).fit(X, y)
    with pytest.raises(InvalidParameterError, match="names column 'nope'"):
        nbayes.NaiveBayes(bin_edges={"nope": [1.0]}).fit(X, y)
    with pytest.raises(InvalidParameterError, match="numeric"):
        nbayes.NaiveBayes(numeric="bins").fit(X, y)


def test_auto_bins_a_flagged_column_when_it_wins_held_out_and_says_why(rng):
    X, y = _frame(rng, 2000)
    m = nbayes.NaiveBayes(numeric="auto").fit(X, y)
    assert m.column_kinds_ == ["binned", "gaussian", "categorical"]
    (d,) = m.column_decisions_
    assert d["column"] == "gain" and d["kind"] == "binned" and "mostly one value (0" in d["reason"]
    assert "5-fold accuracy" in d["reason"]
    gauss = nbayes.NaiveBayes().fit(X, y)
    assert (m.predict(X) == y).mean() > (gauss.predict(X) == y).mean()


def test_auto_keeps_a_gaussian_column_and_without_labels_decides_nothing(rng):
    n = 1000
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({"h": rng.normal(3 * y, 1.0), "c": rng.integers(0, 3, n).astype(float)})
    m = nbayes.NaiveBayes(numeric="auto").fit(X, y)
    assert m.column_kinds_[0] == "gaussian"
    assert [d["column"] for d in m.column_decisions_] == ["c"]  # 3 distinct values: judged


def test_binned_model_file_round_trips_and_old_kinds_load(tmp_path, rng):
    X, y = _frame(rng, 1500)
    m = nbayes.NaiveBayes(numeric="auto").fit(X, y)
    m.save(tmp_path / "m.nbm")
    back = nbayes.load(tmp_path / "m.nbm")
    assert back.column_kinds_ == m.column_kinds_ and back.column_decisions_ == m.column_decisions_
    assert_array_equal(back.stats_.parts["binned"].edges[0], m.stats_.parts["binned"].edges[0])
    assert_allclose(back.predict_joint_log_proba(X), m.predict_joint_log_proba(X), rtol=1e-12)
    back.partial_fit(X[:100], y[:100])  # keeps learning with the stored edges
    assert_array_equal(back.stats_.parts["binned"].edges[0], m.stats_.parts["binned"].edges[0])


def test_only_files_with_binned_columns_take_format_3(tmp_path, rng):
    from nbayes.io.model_file import read_header

    X, y = _frame(rng)
    nbayes.NaiveBayes(column_types={"gain": "binned"}).fit(X, y).save(tmp_path / "b.nbm")
    nbayes.NaiveBayes().fit(X, y).save(tmp_path / "g.nbm")
    assert read_header(tmp_path / "b.nbm")["format_version"] == 3  # a format-2 reader would drop the column
    assert read_header(tmp_path / "g.nbm")["format_version"] == 2


def test_learn_then_unlearn_of_fractional_weights_gives_the_bin_counts_back_bit_for_bit(rng, tmp_path):
    """Binned counts are categorical counts over bin numbers: the same exact sums (stats.exact),
    so weights that do not sum exactly in binary (0.1, 1e-7, 1e12) come back bit for bit, and the
    exact tails survive a save and load."""
    X, y = _frame(rng)
    w = np.resize([0.1, 0.3, 1e-7, 1e12, 0.7], len(y))
    a, b = slice(0, 400), slice(400, 600)
    m = nbayes.NaiveBayes(column_types={"gain": "binned"}).fit(X[a], y[a], sample_weight=w[a])
    before = m.stats_.parts["binned"]
    cc, counts = before.class_count.copy(), [c.copy() for c in before.counts]
    m.partial_fit(X[b], y[b], sample_weight=w[b])
    m.save(tmp_path / "m.nbm")
    m = nbayes.load(tmp_path / "m.nbm").unlearn(X[b], y[b], sample_weight=w[b])
    after = m.stats_.parts["binned"]
    assert_array_equal(after.class_count, cc)
    for got, want in zip(after.counts, counts):
        assert_array_equal(got, want)


def test_an_explanation_shows_the_bin_each_binned_value_fell_in(tmp_path):
    """explain, to_frame, the CLI and the service say which bin a binned column's value fell in
    (issue #29): the raw value alone hides what the model read."""
    X = pd.DataFrame({"gain": [0.0] * 8 + [500.0, 9000.0, 12000.0, 30000.0], "age": np.arange(12.0) + 30})
    y = np.array(list("abab" * 3))
    edges = [100.0, 10000.0]
    m = nbayes.NaiveBayes(column_types={"gain": "binned"}, bin_edges={"gain": edges}).fit(X, y)
    e = m.explain(X.iloc[[0, 9, 11]])
    assert e.bins == [["< 100", None], ["[100, 10000)", None], [">= 10000", None]]
    assert_allclose(e.joint(), m.predict_joint_log_proba(X.iloc[[0, 9, 11]]))
    f = e.to_frame("pandas")
    assert f["bin"][0] == "< 100" and pd.isna(f["bin"][1])
    pytest.importorskip("polars")
    assert e.to_frame("polars")["bin"].to_list() == ["< 100", None, "[100, 10000)", None, ">= 10000", None]
    assert nbayes.GaussianNB().fit(X, y).explain(X.iloc[:1]).bins is None  # no binned column: no bins
    path = tmp_path / "m.nbm"
    m.save(path)
    import json
    import subprocess

    out = subprocess.run(["nbayes", "explain", str(path), "--row", '{"gain": 12000, "age": 31}', "--json"],
                         capture_output=True, text=True, check=True).stdout
    feats = {f["feature"]: f for f in json.loads(out)["features"]}
    assert feats["gain"]["value"] == 12000 and feats["gain"]["bin"] == ">= 10000" and "bin" not in feats["age"]
    shown = subprocess.run(["nbayes", "explain", str(path), "--row", '{"gain": 12000, "age": 31}'],
                           capture_output=True, text=True, check=True).stdout
    assert "gain = 12000 in >= 10000" in shown
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from nbayes.serve import create_app

    with TestClient(create_app(str(path))) as c:
        r = c.post("/v1/explain", json={"row": {"gain": 500, "age": 31}})
    assert r.status_code == 200, r.text
    got = {f["feature"]: f for f in r.json()["features"]}
    assert got["gain"]["bin"] == "[100, 10000)" and got["gain"]["value"] == 500 and "bin" not in got["age"]
