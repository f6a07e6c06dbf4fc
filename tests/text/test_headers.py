"""E-mail / news headers (``headers=[...]``): the header section read as Python's ``email`` parser
reads it, the kept fields' values and the body counted as scikit-learn counts them, in place
(explanations' spans), through files, merges and searches."""

from __future__ import annotations

import email
import gzip
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import ComplementNB

import nbayes
from nbayes.errors import DataError, InvalidParameterError, MergeError
from nbayes.text import Vectorizer
from nbayes.text._headers import blank_headers, header_fields

MAIL = (
    "From: al@example.org (Al)\r\n"
    "Subject: Re: cheap\r\n"
    "\tpills today\r\n"
    "Organization: Example\r\n"
    "Lines: 3\r\n"
    "\r\n"
    "Body text here.\r\n"
    "Note: not a header any more\r\n"
)


@pytest.fixture(scope="module")
def news(shared_data):
    """300 20 Newsgroups posts, every 37th of the training part (all 20 groups)."""
    with gzip.open(shared_data / "20newsgroups" / "train.jsonl.gz", "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f][::37][:300]
    return [r["text"] for r in rows], np.array([r["label"] for r in rows])


def _reference(doc: str, keep: list[str]) -> str:
    """The kept fields' values (in the message's order) and the body, by Python's e-mail parser."""
    msg = email.message_from_string(doc)
    values = [v for name, v in msg.items() if name.lower() in keep]
    return "\n".join([*values, msg.get_payload()])


@pytest.mark.parametrize("keep", [["subject"], [], ["Subject", "keywords", "summary"]])
def test_counts_equal_count_vectorizer_on_parsed_messages(news, keep):
    docs, _ = news
    ours = Vectorizer(headers=keep, ngram_range=(1, 2))
    X = ours.fit_transform(docs)
    ref = CountVectorizer(ngram_range=(1, 2))
    R = ref.fit_transform([_reference(d, [k.lower() for k in keep]) for d in docs])
    assert_array_equal(ours.get_feature_names_out(), ref.get_feature_names_out())
    assert (X != R).nnz == 0
    # the routing fields are gone ("organization" is in every post's header, seldom in a body)
    assert X[:, ours.vocabulary_["organization"]].sum() < 0.2 * len(docs)


def test_blanking_keeps_the_rest_in_place():
    out = blank_headers(MAIL, header_fields(["subject"]))
    assert len(out) == len(MAIL)
    assert out.split() == ["Re:", "cheap", "pills", "today", "Body", "text", "here.", "Note:", "not", "a",
                           "header", "any", "more"]
    assert out[MAIL.index("Re:")] == "R" and out[MAIL.index("\r\n\r\n"):] == MAIL[MAIL.index("\r\n\r\n"):]
    assert blank_headers(MAIL, header_fields([])).split()[:3] == ["Body", "text", "here."]
    clipped = " host!host!user\nSubject: hi\nLines: 2\n\nbody"  # a field cut off at the start
    assert blank_headers(clipped, header_fields(["subject"])).split() == ["hi", "body"]
    assert blank_headers("Dear: Sir\nthis is a letter\n\nbye", header_fields([])).startswith("Dear: Sir")
    only = "Subject: hello\nFrom: me"  # a header section alone (no empty line, no body)
    assert blank_headers(only, header_fields(["subject"])).split() == ["hello"]


@given(st.text(alphabet=st.sampled_from(list("ab :\n\t\r-")), max_size=40))
def test_documents_without_a_header_section_are_read_as_given(text):
    """A first line that is no ``Name:`` field, or a section with a line that is neither a field nor a
    continuation, leaves the document as given; blanking never moves a character."""
    out = blank_headers(text, header_fields(["a"]))
    assert len(out) == len(text)
    assert [i for i, c in enumerate(out) if c != " " and c != text[i]] == []
    first = text.split("\n", 1)[0]
    name = first.split(":", 1)[0]
    if not first.startswith((" ", "\t")) and (":" not in first or name == "" or any(c in name for c in " \t\r")):
        assert out == text


def test_classifier_equals_one_fitted_on_parsed_messages(news):
    docs, y = news
    keep = ["subject"]
    ours = nbayes.TextClassifier(model="complement", alpha=0.1, headers=keep).fit(docs, y)
    vec = CountVectorizer()
    ref = ComplementNB(alpha=0.1).fit(vec.fit_transform([_reference(d, keep) for d in docs]), y)
    test = docs[::3]
    R = vec.transform([_reference(d, keep) for d in test])
    assert_array_equal(ours.predict(test), ref.predict(R))
    assert_allclose(ours.predict_proba(test), ref.predict_proba(R), rtol=1e-9, atol=1e-12)


def test_saved_merged_and_searched(news, tmp_path):
    docs, y = news
    a = nbayes.TextClassifier(headers=["subject"]).fit(docs[:150], y[:150])
    path = tmp_path / "m.nbm"
    a.save(path)
    back = nbayes.load(path)
    assert header_fields(back.headers) == frozenset({"subject"})
    assert_allclose(back.predict_proba(docs), a.predict_proba(docs), rtol=1e-12)
    empty = nbayes.TextClassifier(headers=[]).fit(docs, y)
    empty.save(path)
    assert header_fields(nbayes.load(path).headers) == frozenset()
    b = nbayes.TextClassifier(headers=["subject"]).fit(docs[150:], y[150:])
    whole = nbayes.TextClassifier(headers=["subject"]).fit(docs, y)
    assert_allclose(back.merge(b).predict_proba(docs), whole.predict_proba(docs), rtol=1e-9)
    with pytest.raises(MergeError, match="headers"):
        nbayes.TextClassifier().fit(docs[:150], y[:150]).merge(b)
    # a search counts once per headers value: each score is that of its own cross-validation
    from nbayes.model_selection import SearchCV, StratifiedKFold, cross_val_score

    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    grid = {"headers": [None, ["subject"], []], "alpha": [0.1]}
    search = SearchCV(nbayes.TextClassifier(), grid, cv=cv, scoring="accuracy").fit(docs, y)
    for params, score in zip(search.cv_results_["params"], search.cv_results_["mean_test_score"]):
        alone = cross_val_score(nbayes.TextClassifier(**params), docs, y, cv=cv, scoring="accuracy")
        assert score == pytest.approx(float(np.mean(alone)), abs=1e-12)


def test_explanation_spans_point_into_the_message():
    docs = [MAIL, "From: x\nSubject: meeting at noon\n\nlunch", "Subject: cheap offer\n\nbuy now"]
    clf = nbayes.TextClassifier(headers=["subject"]).fit(docs, ["spam", "ham", "spam"])
    text = "From: İZMİR\nSubject: CHEAP Pills\n\nBuy NOW"
    e = clf.explain(text)
    assert e.tokens == ["cheap", "pills", "buy", "now"]
    assert [text[s:t] for s, t in e.spans] == ["CHEAP", "Pills", "Buy", "NOW"]


@pytest.mark.parametrize("bad", ["subject", 3, [1], ["two words"], ["subject:"], [""]])
def test_bad_values_are_refused(bad):
    with pytest.raises(InvalidParameterError, match="headers"):
        nbayes.TextClassifier(headers=bad).fit(["Subject: a\n\nb", "c d"], [0, 1])


def test_bad_documents_are_named():
    with pytest.raises(DataError, match="item 1"):
        nbayes.TextClassifier(headers=["subject"]).fit(["Subject: a\n\nb", None], [0, 1])
    with pytest.raises(DataError, match="single string"):
        Vectorizer(headers=[]).fit("Subject: a\n\nb")
