"""NaiveBayes over mixed columns: typing, composition, frames, missing values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from numpy.testing import assert_allclose

import nbayes
from nbayes.errors import DataError, FeatureMismatchError, InvalidParameterError


@pytest.fixture
def frame(rng) -> pd.DataFrame:
    n = 300
    y = rng.integers(0, 3, n)
    df = pd.DataFrame(
        {
            "height": rng.normal(170 + 5 * y, 8),
            "colour": np.array(["red", "green", "blue"])[(y + rng.integers(0, 2, n)) % 3],
            "member": (rng.random(n) < 0.3 + 0.2 * y),
            "visits": rng.poisson(2 + y),
        }
    )
    df.loc[rng.random(n) < 0.1, "height"] = np.nan
    df["colour"] = df["colour"].astype(object)
    df.loc[rng.random(n) < 0.1, "colour"] = None
    df["label"] = np.array(["a", "b", "c"])[y]
    return df


def split(df):
    return df.drop(columns="label"), df["label"].to_numpy()


def test_kinds_follow_dtypes(frame):
    X, y = split(frame)
    model = nbayes.NaiveBayes().fit(X, y)
    assert model.column_kinds_ == ["gaussian", "categorical", "bernoulli", "gaussian"]
    assert list(model.feature_names_in_) == ["height", "colour", "member", "visits"]


def test_log_likelihoods_add(frame):
    """The mixed model's joint equals the prior plus each component model's log-likelihood."""
    X, y = split(frame)
    model = nbayes.NaiveBayes().fit(X, y)
    g = nbayes.GaussianNB().fit(X[["height", "visits"]].to_numpy(float), y)
    c = nbayes.CategoricalNB().fit(X[["colour"]].to_numpy(object), y)
    b = nbayes.BernoulliNB(binarize=None).fit(X[["member"]].to_numpy(float), y)
    expected = (
        g.predict_joint_log_proba(X[["height", "visits"]].to_numpy(float))
        - np.log(g.class_prior_)
        + c.predict_joint_log_proba(X[["colour"]].to_numpy(object))
        - c.class_log_prior_
        + b.predict_joint_log_proba(X[["member"]].to_numpy(float))
        - b.class_log_prior_
        + model.class_log_prior_
    )
    assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-10)


def test_override_column_type(frame):
    X, y = split(frame)
    model = nbayes.NaiveBayes(column_types={"visits": "categorical"}).fit(X, y)
    assert model.column_kinds_[3] == "categorical"
    with pytest.raises(InvalidParameterError, match="'nope'"):
        nbayes.NaiveBayes(column_types={"nope": "gaussian"}).fit(X, y)
    with pytest.raises(InvalidParameterError, match="expected one of"):
        nbayes.NaiveBayes(column_types={"visits": "poisson"}).fit(X, y)


@pytest.mark.parametrize("convert", [pl.from_pandas, pa.Table.from_pandas], ids=["polars", "pyarrow"])
def test_polars_and_arrow_give_the_same_model(frame, convert):
    X, y = split(frame)
    ref = nbayes.NaiveBayes().fit(X, y)
    other = nbayes.NaiveBayes().fit(convert(X), y)
    assert other.column_kinds_ == ref.column_kinds_
    assert_allclose(other.predict_proba(convert(X)), ref.predict_proba(X), rtol=1e-12)


def test_all_missing_row_gets_prior(frame):
    X, y = split(frame)
    model = nbayes.NaiveBayes().fit(X, y)
    row = pd.DataFrame({"height": [np.nan], "colour": [None], "member": [None], "visits": [np.nan]})
    row["member"] = row["member"].astype(object)
    prior = np.exp(model.class_log_prior_)
    assert_allclose(model.predict_proba(row)[0], prior / prior.sum(), rtol=1e-12)


def test_unseen_category_is_smoothed_not_an_error(frame):
    X, y = split(frame)
    model = nbayes.NaiveBayes().fit(X, y)
    row = X.iloc[:1].copy()
    row["colour"] = "ultraviolet"
    proba = model.predict_proba(row)
    assert np.all(np.isfinite(proba)) and abs(proba.sum() - 1) < 1e-12


def test_bad_values_name_row_and_column(frame):
    X, y = split(frame)
    model = nbayes.NaiveBayes().fit(X, y)
    bad = X.iloc[:3].copy()
    bad["height"] = bad["height"].astype(object)
    bad.iloc[1, 0] = "tall"
    with pytest.raises(DataError, match=r"row 1, column 'height' holds 'tall'"):
        model.predict(bad)
    with pytest.raises(FeatureMismatchError):
        model.predict(X.iloc[:3, :2])


def test_numpy_object_array_typed_per_column():
    X = np.array([[1.5, "a", True], [2.5, "b", False], [0.5, None, None]], dtype=object)
    model = nbayes.NaiveBayes().fit(X, [0, 1, 0])
    assert model.column_kinds_ == ["gaussian", "categorical", "bernoulli"]


def test_merge_and_unlearn(frame):
    X, y = split(frame)
    full = nbayes.NaiveBayes().fit(X, y)
    a = nbayes.NaiveBayes().fit(X.iloc[:120], y[:120])
    b = nbayes.NaiveBayes().fit(X.iloc[120:], y[120:])
    assert_allclose(a.merge(b).predict_joint_log_proba(X), full.predict_joint_log_proba(X), rtol=1e-9)
    forgot = nbayes.NaiveBayes().fit(X, y).unlearn(X.iloc[120:], y[120:])
    assert_allclose(forgot.predict_joint_log_proba(X), a.predict_joint_log_proba(X), rtol=1e-8)


def test_text_column_is_a_bag_of_words(rng, tmp_path):
    n = 200
    y = rng.integers(0, 2, n)
    words = [["cheap offer win prize now", "click here for free money"], ["meeting agenda for monday", "lunch with the team at noon"]]
    df = pd.DataFrame(
        {
            "body": [words[c][rng.integers(0, 2)] + f" ref {i}" for i, c in enumerate(y)],
            "size": rng.normal(y, 1.0),
        }
    )
    df.loc[3, "body"] = None  # a missing text is an empty document
    labels = np.array(["ham", "spam"])[1 - y]
    model = nbayes.NaiveBayes().fit(df, labels)
    assert model.column_kinds_ == ["text", "gaussian"]
    text_only = nbayes.TextClassifier().fit(df["body"].fillna("").tolist(), labels)
    gauss = nbayes.GaussianNB().fit(df[["size"]].to_numpy(), labels)
    expected = (
        text_only.predict_joint_log_proba(df["body"].fillna("").tolist())
        - text_only.class_log_prior_
        + gauss.predict_joint_log_proba(df[["size"]].to_numpy())
        - np.log(gauss.class_prior_)
        + model.class_log_prior_
    )
    assert_allclose(model.predict_joint_log_proba(df), expected, rtol=1e-10)
    assert model.predict(pd.DataFrame({"body": ["free prize money"], "size": [0.0]}))[0] == "spam"
    e = model.explain(df.iloc[:5])
    assert_allclose(e.joint(), model.predict_joint_log_proba(df.iloc[:5]), rtol=1e-10)
    a = nbayes.NaiveBayes().fit(df.iloc[:90], labels[:90])
    b = nbayes.NaiveBayes().fit(df.iloc[90:], labels[90:])
    assert_allclose(a.merge(b).predict_joint_log_proba(df), model.predict_joint_log_proba(df), rtol=1e-10)
    top = model.top_features(2)
    assert all(name.split(":")[0] in ("body", "size") for entries in top.values() for name, _ in entries)
    model.save(tmp_path / "m.nbm")
    back = nbayes.load(tmp_path / "m.nbm")
    np.testing.assert_array_equal(back.predict_proba(df), model.predict_proba(df))
    forgot = nbayes.NaiveBayes().fit(df, labels).unlearn(df.iloc[90:], labels[90:])
    assert_allclose(forgot.predict_joint_log_proba(df), a.predict_joint_log_proba(df), rtol=1e-9)
