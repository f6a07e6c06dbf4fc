"""Messages name what the user knows (issue #29 item 4): the column's name when the input had
names, the word for text models, the category value; never a position the user never saw."""

from __future__ import annotations

import re

import numpy as np
import pytest

import nbayes
from nbayes.errors import DataError, UnlearnError

pd = pytest.importorskip("pandas")


def test_gaussian_inf_names_the_column_at_fit_predict_and_explain():
    X = pd.DataFrame({"age": [1.0, 2.0, 3.0, 4.0], "income": [1.0, np.inf, 3.0, 4.0]})
    y = list("abab")
    with pytest.raises(DataError, match=r"row 1, column 'income' holds inf"):
        nbayes.GaussianNB().fit(X, y)
    m = nbayes.GaussianNB().fit(X.replace(np.inf, 2.0), y)
    for method in (m.predict, m.predict_proba, m.explain):
        with pytest.raises(DataError, match=r"row 1, column 'income' holds inf"):
            method(X)
    with pytest.raises(DataError, match=r"row 1, column 1 holds inf"):  # no names: the position
        nbayes.GaussianNB().fit(X.to_numpy(), y)


def test_gaussian_zero_variance_names_the_column():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "flat": [1.0, 1.0, 1.0, 1.0]})
    with pytest.raises(DataError, match=r"column 'flat' has zero variance"):
        nbayes.GaussianNB(var_smoothing=0).fit(X, list("abab"))


def test_bernoulli_non_binary_names_the_column():
    X = pd.DataFrame({"spam": [1.0, 0.0, 1.0, 0.0], "ham": [0.0, 2.0, 1.0, 0.0]})
    with pytest.raises(DataError, match=r"row 1, column 'ham' holds 2.0"):
        nbayes.BernoulliNB(binarize=None).fit(X, list("abab"))


FRAME = {"age": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "colour": ["red", "blue", "red", "green", "red", "blue"],
         "shape": ["a", "b", "a", "b", "a", "b"]}
Y = list("ababab")


@pytest.mark.parametrize("model, columns", [
    (nbayes.CategoricalNB(), ["colour", "shape"]),
    (nbayes.NaiveBayes(), ["age", "colour", "shape"]),  # the categorical part's first column is the frame's second
])
def test_categorical_unlearn_names_the_column_and_the_value(model, columns):
    X = pd.DataFrame(FRAME)[columns]
    model.fit(X, Y)
    with pytest.raises(UnlearnError, match=r"class 'a' than the model learned \(column 'colour', value 'blue'\)"):
        model.unlearn(X.iloc[[1]], ["a"])


@pytest.mark.parametrize("columns", [["gain"], ["gain", "shape"]])
def test_binned_unlearn_names_the_column_and_the_bin(columns):
    X = pd.DataFrame({"gain": [0.0, 0.0, 10.0, 20.0, 0.0, 30.0], "shape": ["a", "b", "a", "b", "a", "b"]})[columns]
    model = nbayes.NaiveBayes(column_types={"gain": "binned"}).fit(X, Y)
    row = pd.DataFrame({"gain": [30.0], "shape": ["a"]})[columns]  # class 'a' never held a gain of 30
    with pytest.raises(UnlearnError, match=r"\(column 'gain', bin >= 30\)") as caught:
        model.unlearn(row, ["a"])
    assert not re.search(r"value \d", str(caught.value))  # the bin, not its number


def test_categorical_unlearn_without_names_gives_the_position_and_the_value():
    X = pd.DataFrame(FRAME)[["shape", "colour"]].to_numpy()
    m = nbayes.CategoricalNB().fit(X, Y)
    with pytest.raises(UnlearnError, match=r"\(column 0, value 'b'\)"):
        m.unlearn(X[[1]], ["a"])


def test_text_unlearn_names_the_word():
    m = nbayes.TextClassifier().fit(["free prize now", "hello friend", "win prize", "see you"], list("shsh"))
    with pytest.raises(UnlearnError, match=r"\(the term 'prize'\)"):
        m.unlearn(["prize prize prize"], ["s"])
    with pytest.raises(UnlearnError, match=r"\(the term 'zebra'\)"):
        m.unlearn(["zebra"], ["s"])


def test_declared_categories_show_plain_values():
    with pytest.raises(DataError, match=r"column 'c' holds value 'z', which is not among the declared categories \['x', 'y'\]"):
        nbayes.CategoricalNB(categories=[["x", "y"]]).fit(pd.DataFrame({"c": ["x", "z"]}), list("ab"))


def test_the_service_unlearn_names_the_column_and_the_value(tmp_path):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from nbayes.serve import create_app

    path = tmp_path / "table.nbm"
    nbayes.NaiveBayes().fit(pd.DataFrame(FRAME), Y).save(path)
    token = "t" * 32
    with TestClient(create_app(str(path), learn=True, token=token)) as c:
        r = c.post("/v1/unlearn", json={"row": {"age": 2.0, "colour": "blue", "shape": "b"}, "label": "a"},
                   headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 422, r.text
    assert "(column 'colour', value 'blue')" in r.json()["error"]
