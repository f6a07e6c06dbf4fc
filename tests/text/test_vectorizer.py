"""Vectorizer: scikit-learn's matrices, value for value."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfVectorizer

from nbayes.errors import InvalidParameterError, NotFittedError
from nbayes.text import Vectorizer

DOCS = [
    "The naïve cat sat in Zürich; the CAT sat!",
    "Ελληνικά λόγια και ΟΔΟΣ, русский текст тоже",
    "cheap pills, cheap offers, buy now",
    "meeting at noon about the budget",
    "",
    "the cat and the dog and the cat",
]


@pytest.mark.parametrize(
    "ours,theirs",
    [
        ({}, CountVectorizer()),
        ({"binary": True, "ngram_range": (1, 2)}, CountVectorizer(binary=True, ngram_range=(1, 2))),
        ({"stop_words": "english", "min_df": 2}, CountVectorizer(stop_words="english", min_df=2)),
        ({"max_features": 4}, CountVectorizer(max_features=4)),
        ({"tfidf": True}, TfidfVectorizer()),
        ({"tfidf": True, "sublinear_tf": True, "smooth_idf": False, "ngram_range": (1, 3)},
         TfidfVectorizer(sublinear_tf=True, smooth_idf=False, ngram_range=(1, 3))),
    ],
)
def test_equals_scikit_learn(ours, theirs):
    v = Vectorizer(**ours)
    X = v.fit_transform(DOCS)
    Y = theirs.fit_transform(DOCS)
    assert v.get_feature_names_out().tolist() == theirs.get_feature_names_out().tolist()
    assert X.shape == Y.shape
    assert_allclose(X.toarray(), Y.toarray(), rtol=1e-12, atol=1e-15)
    test = ["a new cat", "cheap cheap budget"]
    assert_allclose(v.transform(test).toarray(), theirs.transform(test).toarray(), rtol=1e-12, atol=1e-15)


def test_hashing_equals_hashing_vectorizer():
    v = Vectorizer(n_features=2**10)
    ref = HashingVectorizer(n_features=2**10, alternate_sign=False, norm=None)
    assert (v.fit_transform(DOCS) != ref.transform(DOCS)).nnz == 0


def test_errors():
    with pytest.raises(NotFittedError):
        Vectorizer().transform(["x y"])
    with pytest.raises(InvalidParameterError, match="ngram_range"):
        Vectorizer(ngram_range=(0, 1)).fit(DOCS)
    with pytest.raises(InvalidParameterError, match="tfidf"):
        Vectorizer(tfidf=True, n_features=64).fit(DOCS)  # (binary tf-idf: test_tfidf_options.py)


@pytest.mark.slow
def test_twenty_newsgroups_tfidf_bigrams_equal(shared_data):
    with gzip.open(shared_data / "20newsgroups" / "train.jsonl.gz", "rt") as f:
        docs = [json.loads(line)["text"] for line in f][:3000]
    v = Vectorizer(tfidf=True, sublinear_tf=True, ngram_range=(1, 2))
    ref = TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2))
    X, Y = v.fit_transform(docs), ref.fit_transform(docs)
    assert v.get_feature_names_out().tolist() == ref.get_feature_names_out().tolist()
    diff = (X - Y).tocsr()
    assert diff.nnz == 0 or np.abs(diff.data).max() < 1e-12
