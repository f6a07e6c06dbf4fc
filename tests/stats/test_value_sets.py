"""Issue #27: the value set of a categorical feature after unlearn (CORRECTNESS: a forgotten
value is gone, the value-set twin of "a forgotten term is gone"). A value no remaining row
holds leaves the statistics, so learn-then-unlearn is the model that never learned; values
declared with ``categories=`` and the bins of a binned column stay; merge equals training on
the union."""

from __future__ import annotations

import numpy as np
import pandas as pd

import nbayes
from nbayes.stats import BinnedStats, CategoricalStats


def _arrays_equal(a, b) -> None:
    ka, kb = a.stats_.to_arrays(), b.stats_.to_arrays()
    assert sorted(ka) == sorted(kb)
    for k in ka:
        assert np.asarray(ka[k]).tobytes() == np.asarray(kb[k]).tobytes(), k


X = np.array([["a", "x"], ["b", "y"], ["a", "y"], ["b", "x"]], dtype=object)
y = np.array([0, 1, 0, 1])


def test_a_value_first_seen_in_a_batch_leaves_with_it():
    model = nbayes.CategoricalNB().fit(X, y)
    never = nbayes.CategoricalNB().fit(X, y)
    model.partial_fit([["c", "x"]], [0]).unlearn([["c", "x"]], [0])
    assert model.categories_[0].tolist() == ["a", "b"]
    assert model.n_categories_.tolist() == [2, 2]
    _arrays_equal(model, never)
    np.testing.assert_array_equal(model.predict_proba(X), never.predict_proba(X))


def test_a_value_of_a_forgotten_class_leaves_with_the_class():
    model = nbayes.CategoricalNB().fit(X, y).partial_fit([["c", "z"]], [2])
    model.unlearn([["c", "z"]], [2])
    assert model.categories_[0].tolist() == ["a", "b"] and model.categories_[1].tolist() == ["x", "y"]


def test_a_value_reached_only_by_rows_of_weight_zero_is_not_held():
    Xz = np.vstack([X, [["c", "z"]]])
    yz = np.append(y, 0)
    weighted = nbayes.CategoricalNB().fit(Xz, yz, sample_weight=[1, 1, 1, 1, 0])
    _arrays_equal(weighted, nbayes.CategoricalNB().fit(X, y))
    model = nbayes.CategoricalNB().fit(X, y).partial_fit([["c", "z"]], [0], sample_weight=[0.0])
    assert model.categories_[0].tolist() == ["a", "b"]


def test_declared_values_stay_declared():
    declared = [["a", "b", "c", "d"], None]
    model = nbayes.CategoricalNB(categories=declared).fit(X, y)
    never = nbayes.CategoricalNB(categories=declared).fit(X, y)
    model.partial_fit([["c", "x"]], [0]).unlearn([["c", "x"]], [0])
    assert model.categories_[0].tolist() == ["a", "b", "c", "d"]  # J = 4 whatever the counts
    assert model.n_categories_.tolist() == [4, 2]
    _arrays_equal(model, never)
    np.testing.assert_array_equal(model.predict_log_proba([["d", "x"]]), never.predict_log_proba([["d", "x"]]))


def test_a_bin_emptied_by_unlearn_stays():
    stats = BinnedStats.of(np.array([[0.0], [5.0]]), [np.array([1.0, 3.0])], np.array([0, 1]), 2, None)
    batch = BinnedStats.of(np.array([[2.0]]), [np.array([1.0, 3.0])], np.array([0]), 2, None)
    back = (stats + batch).subtract(batch, np.array([0, 1]))
    assert back.n_bins() == [3]
    np.testing.assert_array_equal(back.counts[0], stats.counts[0])


def test_mixed_and_binned_columns_forget_a_value():
    frame = pd.DataFrame({"c": pd.Series(["p", "q", "p", "q"], dtype=object), "x": [0.1, 2.0, 0.4, 1.7]})
    labels = np.array(["n", "y", "n", "y"])
    kw = {"column_types": {"x": "binned"}, "bin_edges": {"x": [0.5, 1.0, 1.5]}}
    model = nbayes.NaiveBayes(**kw).fit(frame, labels)
    never = nbayes.NaiveBayes(**kw).fit(frame, labels)
    batch = pd.DataFrame({"c": pd.Series(["r"], dtype=object), "x": [0.7]})
    model.partial_fit(batch, ["n"]).unlearn(batch, ["n"])
    assert model.to_state()["arrays"].keys() == never.to_state()["arrays"].keys()
    for k, v in never.to_state()["arrays"].items():
        assert np.asarray(model.to_state()["arrays"][k]).tobytes() == np.asarray(v).tobytes(), k


def test_merge_after_unlearn_equals_training_on_the_union():
    a = nbayes.CategoricalNB().fit(X[:2], y[:2]).partial_fit([["c", "z"]], [0]).unlearn([["c", "z"]], [0])
    b = nbayes.CategoricalNB().fit(X[2:], y[2:])
    union = nbayes.CategoricalNB().fit(X, y)
    merged = a.merge(b)
    assert [c.tolist() for c in merged.categories_] == [["a", "b"], ["x", "y"]]
    np.testing.assert_allclose(merged.predict_proba(X), union.predict_proba(X), rtol=1e-12)


def test_statistics_drop_only_values_no_class_holds():
    s = CategoricalStats(np.array([1.0, 1.0]), [np.array(["a", "b", "c"], dtype=object)],
                         [np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])])
    s.drop_unheld()
    assert s.categories[0].tolist() == ["a", "c"] and s.counts[0].shape == (2, 2)
