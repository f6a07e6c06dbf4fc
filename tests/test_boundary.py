"""Every boundary validated once, completely: probability vectors, weights, labels, column
names, nested columns, model files whose checksum holds but whose numbers are impossible, and
save paths. Each class of failure is tried on several members and several models."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from numpy.testing import assert_allclose

import nbayes
from nbayes.errors import DataError, InvalidParameterError, ModelFileError
from nbayes.io.model_file import load_state, save_state

X_COUNTS = np.array([[3, 0, 1], [0, 3, 1], [2, 1, 0], [0, 2, 2]])
Y = np.array(["ham", "spam", "ham", "spam"])


def _prior_models():
    return [
        nbayes.MultinomialNB(),
        nbayes.BernoulliNB(),
        nbayes.CategoricalNB(),
        nbayes.GaussianNB(),
        nbayes.NaiveBayes(),
    ]


# ---------------------------------------------------------------------------- probability vectors
@pytest.mark.parametrize("model", _prior_models(), ids=lambda m: type(m).__name__)
def test_with_prior_mapping_equals_sequence_and_bayes_rule(model):
    m = model.fit(X_COUNTS, Y)
    by_map = m.with_prior({"spam": 0.1, "ham": 0.9})
    by_seq = m.with_prior([0.9, 0.1])
    assert_allclose(by_map.predict_proba(X_COUNTS), by_seq.predict_proba(X_COUNTS), rtol=0, atol=1e-15)
    # Bayes' rule: posterior proportional to likelihood x new prior
    log_prior = m.class_log_prior_ if hasattr(m, "class_log_prior_") else np.log(m.class_prior_)
    lik = m.predict_joint_log_proba(X_COUNTS) - log_prior
    post = lik + np.log([0.9, 0.1])
    post = np.exp(post - np.logaddexp.reduce(post, axis=1, keepdims=True))
    assert_allclose(by_map.predict_proba(X_COUNTS), post, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("model", _prior_models(), ids=lambda m: type(m).__name__)
@pytest.mark.parametrize(
    "prior, match",
    [
        ([0, 0], "positive, finite sum"),
        ([0.5, -0.1], "class 'spam' has -0.1"),
        ([np.nan, 1.0], "class 'ham' has nan"),
        ([np.inf, 1.0], "class 'ham' has inf"),
        ([0.5, 0.3, 0.2], "3 entries for 2 classes"),
        ({"ham": 1.0}, r"no probability for the classes \['spam'\]"),
        ({"ham": 0.5, "spam": 0.4, "eggs": 0.1}, "names class 'eggs'"),
        (["a", "b"], "class 'ham' has 'a'"),
        ("0.5,0.5", "sequence of 2 probabilities"),
        ({"ham": 0.0, "spam": 0.0}, "positive, finite sum"),
    ],
)
def test_bad_priors_are_clear_errors(model, prior, match):
    m = model.fit(X_COUNTS, Y)
    before = m.predict_proba(X_COUNTS)
    with pytest.raises(InvalidParameterError, match=match):
        m.with_prior(prior)
    assert_allclose(m.predict_proba(X_COUNTS), before, rtol=0, atol=0)
    name = "priors" if "priors" in m.get_params() else "class_prior"
    with pytest.raises(InvalidParameterError, match=match):
        type(model)(**{name: prior}).fit(X_COUNTS, Y)


def test_class_prior_as_mapping_at_construction():
    a = nbayes.MultinomialNB(class_prior={"spam": 0.8, "ham": 0.2}).fit(X_COUNTS, Y)
    b = nbayes.MultinomialNB(class_prior=[0.2, 0.8]).fit(X_COUNTS, Y)
    assert_allclose(a.class_log_prior_, np.log([0.2, 0.8]))
    assert_allclose(a.predict_proba(X_COUNTS), b.predict_proba(X_COUNTS), rtol=0, atol=0)
    g = nbayes.GaussianBayes(priors={"spam": 0.25, "ham": 0.75}, covariance="shared", reg_param=0.1).fit(X_COUNTS, Y)
    assert_allclose(g.priors_, [0.75, 0.25])


def test_complement_refuses_with_prior_by_capability():
    m = nbayes.ComplementNB().fit(X_COUNTS, Y)
    assert "with_prior" not in m.capabilities
    with pytest.raises(InvalidParameterError, match="does not use a class prior"):
        m.with_prior([0.5, 0.5])


# ---------------------------------------------------------------------------- weights
@pytest.mark.parametrize(
    "weights, match",
    [
        (["a", 1, 1, 1], "expected numbers"),
        ([1j, 1, 1, 1], "expected numbers"),
        ([1, np.nan, 1, 1], "entry 1 is nan"),
        ([1, 1, -1, 1], "entry 2 is -1.0"),
        ([1, 1, np.inf, 1], "entry 2 is inf"),
        ([1, 1, 1], "expected a 1-D array of 4 weights"),
        ([None, 1, 1, 1], "entry 0 is nan"),
        ({"a": 1}, "expected a 1-D array of 4 weights"),
    ],
)
@pytest.mark.parametrize("model", [nbayes.MultinomialNB(), nbayes.GaussianNB(), nbayes.CategoricalNB()],
                         ids=lambda m: type(m).__name__)
def test_bad_weights_are_clear_errors(model, weights, match):
    with pytest.raises(DataError, match=f"sample_weight: .*{match}" if not match.startswith("expected a 1-D") else match):
        model.fit(X_COUNTS, Y, sample_weight=weights)


# ---------------------------------------------------------------------------- labels keep their types
@pytest.mark.parametrize(
    "y, classes",
    [
        ([1, "a", 1, "a"], [1, "a"]),
        ([True, 1, True, 1], [True, 1]),
        ([0, False, 0, False], [False, 0]),
        (["1", 1, "1", 1], [1, "1"]),
    ],
)
@pytest.mark.parametrize("model", [nbayes.MultinomialNB(), nbayes.CategoricalNB(), nbayes.GaussianNB()],
                         ids=lambda m: type(m).__name__)
def test_mixed_label_types_are_kept(model, y, classes):
    m = model.fit(X_COUNTS, y)
    assert m.classes_.tolist() == classes
    assert [type(c) for c in m.classes_.tolist()] == [type(c) for c in classes]
    assert [type(v) for v in m.predict(X_COUNTS).tolist()] == [type(v) for v in y]


# ---------------------------------------------------------------------------- frames
def _dup_frames():
    yield pd.DataFrame([[1.0, 2.0], [3.0, 4.0], [1.5, 2.5]], columns=["a", "a"])
    yield pa.table([pa.array([1.0, 3.0, 1.5]), pa.array([2.0, 4.0, 2.5])], names=["a", "a"])


@pytest.mark.parametrize("frame", list(_dup_frames()), ids=["pandas", "pyarrow"])
@pytest.mark.parametrize("model", [nbayes.NaiveBayes(), nbayes.GaussianNB()], ids=lambda m: type(m).__name__)
def test_duplicate_column_names_are_refused(frame, model):
    with pytest.raises(DataError, match="two columns are named 'a'"):
        model.fit(frame, [0, 1, 0])


@pytest.mark.parametrize(
    "frame",
    [
        pl.DataFrame({"a": [[1], [2], [3]], "b": [1.0, 2.0, 3.0]}),
        pd.DataFrame({"a": [[1], [2], [3]], "b": [1.0, 2.0, 3.0]}),
        pd.DataFrame({"a": [{"x": 1}, {"x": 2}, {"x": 3}], "b": [1.0, 2.0, 3.0]}),
        pa.table({"a": [{"x": 1}, {"x": 2}, {"x": 3}], "b": [1.0, 2.0, 3.0]}),
        pl.DataFrame({"a": [{"x": 1}, {"x": 2}, {"x": 3}], "b": [1.0, 2.0, 3.0]}),
    ],
    ids=["polars-list", "pandas-list", "pandas-dict", "arrow-struct", "polars-struct"],
)
def test_nested_columns_are_refused_by_name(frame):
    with pytest.raises(DataError, match="column 'a'"):
        nbayes.NaiveBayes().fit(frame, [0, 1, 0])


def test_merge_of_differently_typed_shards_is_a_merge_error():
    a = nbayes.NaiveBayes().fit(pd.DataFrame({"x": [1.0, 2, 3, 4], "c": list("abab")}), [0, 1, 0, 1])
    b = nbayes.NaiveBayes().fit(pd.DataFrame({"x": list("uvuv"), "c": list("abab")}), [0, 1, 0, 1])
    c = nbayes.NaiveBayes().fit(pd.DataFrame({"x": [True, False, True, False], "c": list("abab")}), [0, 1, 0, 1])
    for p, q in [(a, b), (b, a), (a, c), (c, b)]:
        with pytest.raises(nbayes.errors.MergeError, match="column types differ"):
            p.merge(q)


# ---------------------------------------------------------------------------- model files
def _fitted_models():
    rng = np.random.default_rng(0)
    Xc = rng.integers(0, 3, (30, 4))
    y = np.arange(30) % 3
    frame = pd.DataFrame({"n": rng.normal(size=30), "c": rng.choice(list("xyz"), 30), "b": rng.random(30) > 0.5})
    return [
        nbayes.MultinomialNB().fit(Xc, y),
        nbayes.BernoulliNB().fit(Xc, y),
        nbayes.CategoricalNB().fit(Xc, y),
        nbayes.ComplementNB().fit(Xc, y),
        nbayes.GaussianNB().fit(Xc.astype(float), y),
        nbayes.NaiveBayes().fit(frame, y),
        nbayes.TextClassifier().fit(["cheap pills now", "meeting at noon", "cheap offer now"] * 10, y),
    ]


@pytest.mark.parametrize("bad", [-1.0, np.nan, np.inf])
@pytest.mark.parametrize("model", _fitted_models(), ids=lambda m: type(m).__name__)
def test_valid_checksum_impossible_numbers_do_not_load(tmp_path, model, bad):
    path = tmp_path / "m.nbm"
    model.save(path)
    state = load_state(path)
    counts = [k for k, v in state["arrays"].items()
              if v.dtype.kind == "f" and v.size and not k.endswith(("/mean", "stats/idf"))
              and ("count" in k or k.endswith(("/m2", "/weight", "/df", "/tf")))]
    assert counts, sorted(state["arrays"])
    for key in counts:
        arrays = dict(state["arrays"])
        arr = arrays[key].copy()
        arr.flat[0] = bad
        arrays[key] = arr
        save_state(path, {**state, "arrays": arrays})  # a fresh, valid checksum
        with pytest.raises(ModelFileError, match=f"{path}: .*(statistics|n_samples_seen)"):
            nbayes.load(path)


def test_class_weights_must_equal_what_they_summarise(tmp_path):
    path = tmp_path / "m.nbm"
    nbayes.GaussianNB().fit([[1.0], [2.0], [3.0], [4.0]], [0, 0, 1, 1]).save(path)
    state = load_state(path)
    arrays = dict(state["arrays"])
    arrays["stats/weight"] = arrays["stats/weight"] * 10  # more observed weight than the class has
    save_state(path, {**state, "arrays": arrays})
    with pytest.raises(ModelFileError, match="more than its class's weight"):
        nbayes.load(path)
    arrays = dict(state["arrays"])
    arrays["classes"] = np.array([0, 0])
    save_state(path, {**state, "arrays": arrays})
    with pytest.raises(ModelFileError, match="distinct labels"):
        nbayes.load(path)


def test_save_paths_are_named_in_errors(tmp_path):
    m = nbayes.MultinomialNB().fit(X_COUNTS, Y)
    (tmp_path / "afile").write_text("x")
    cases = [
        (tmp_path, "it is a folder"),
        (f"{tmp_path}{os.sep}", "it is a folder"),
        (tmp_path / "nodir" / "m.nbm", "does not exist"),
        (tmp_path / "afile" / "m.nbm", "is a file, not a folder"),
        ("", "the path is empty"),
    ]
    for path, match in cases:
        with pytest.raises(ModelFileError, match=match):
            m.save(path)
    assert sorted(os.listdir(tmp_path)) == ["afile"]  # nothing half-written anywhere
