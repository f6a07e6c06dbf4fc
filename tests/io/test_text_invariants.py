"""Issue #27 item 4, text models: a model file whose checksum holds (rewritten after an edit) but
whose text statistics no corpus could produce is refused at load, with a StatisticsError naming
the array and what was expected; every text kind saves a file that loads."""

from __future__ import annotations

import numpy as np
import pytest

import nbayes
from nbayes.errors import ModelFileError, StatisticsError
from nbayes.io.model_file import load_state, save_state

DOCS = ["cheap pills now", "meeting at noon", "cheap offer now now", "lunch meeting today", "offer ends now",
        "noon agenda"] * 3
Y = np.arange(len(DOCS)) % 3
W = np.linspace(0.1, 2.0, len(DOCS)) / 3  # fractional: tails in the file
FROZEN = {t: 1.0 + 0.5 * (i % 3) for i, t in enumerate(sorted(set(" ".join(DOCS).split())))}
KINDS = {
    "vocabulary": dict(),
    "presence": dict(binary=True),
    "bernoulli": dict(model="bernoulli"),
    "hashing": dict(n_features=32),
    "bigrams": dict(ngram_range=(1, 2)),
    "char": dict(analyzer="char_wb", ngram_range=(2, 3)),
    "tfidf": dict(tfidf=True),
    "tfidf-frozen": dict(tfidf=True, idf=FROZEN),
    "nblr": dict(model="nblr"),
}


def _saved(tmp_path, kind, weighted=True):
    model = nbayes.TextClassifier(**KINDS[kind]).fit(DOCS, Y, sample_weight=W if weighted else None)
    path = tmp_path / "m.nbm"
    model.save(path)
    return path, load_state(path)


def _refused(path, state, edits, *words):
    save_state(path, {**state, "arrays": {**state["arrays"], **edits}})  # a fresh, valid checksum
    with pytest.raises((ModelFileError, StatisticsError)) as err:  # (the load names the file)
        nbayes.load(path)
    for w in words:
        assert w in str(err.value), str(err.value)


@pytest.mark.parametrize("kind", KINDS)
def test_every_text_kind_saves_a_file_that_loads_and_predicts_alike(tmp_path, kind):
    path, state = _saved(tmp_path, kind)
    if kind not in ("tfidf", "nblr"):
        assert any(k.startswith("stats/exact/") for k in state["arrays"])  # fractional weights: tails
    model = nbayes.load(path)
    np.testing.assert_array_equal(model.predict_proba(DOCS), nbayes.TextClassifier(**KINDS[kind]).fit(
        DOCS, Y, sample_weight=W).predict_proba(DOCS))


@pytest.mark.parametrize("kind", ["vocabulary", "hashing", "bigrams", "presence"])
def test_counts_that_no_corpus_produces_are_refused(tmp_path, kind):
    path, state = _saved(tmp_path, kind)
    a = state["arrays"]
    tc, dc = a["stats/pairs/term_count"].astype(float), a["stats/pairs/doc_count"].astype(float)
    i = int(np.argmax(dc))
    more = dc.copy()
    more[i] = tc[i] * 2 + 1  # more documents holding the term than the class's weight
    _refused(path, state, {"stats/pairs/doc_count": more}, "doc_count", "more than", "class_count")
    less = tc.copy()
    less[i] = dc[i] / 2  # fewer occurrences than documents holding the term
    _refused(path, state, {"stats/pairs/term_count": less}, "doc_count", "term_count")
    df, tf = a["stats/df"].astype(float), a["stats/tf"].astype(float)
    j = int(np.flatnonzero(df)[0])
    over = df.copy()
    over[j] = tf[j] + 1
    _refused(path, state, {"stats/df": over}, "'df'")
    half = df.copy()
    half[j] = 0.5
    _refused(path, state, {"stats/df": half}, "'df'", "whole number")
    gone = df.copy()
    gone[j] = 0
    _refused(path, state, {"stats/df": gone}, "'df'", "held by a document")
    _refused(path, state, {"stats/n_docs": np.array(float(df.max()) - 1)}, "'df'", "n_docs")
    _refused(path, state, {"stats/class_count": a["stats/class_count"][:-1]}, "class_count")
    cc = a["stats/class_count"].copy()
    cc[int(np.argmax(cc))] = 0.0  # a class weighing nothing holding documents
    _refused(path, state, {"stats/class_count": cc}, "doc_count", "class")


@pytest.mark.parametrize("kind", ["vocabulary", "bigrams"])
def test_pairs_and_vocabulary_out_of_order_are_refused(tmp_path, kind):
    path, state = _saved(tmp_path, kind)
    a = state["arrays"]
    terms = a["stats/pairs/terms"].copy()
    lo, hi = int(a["stats/pairs/indptr"][0]), int(a["stats/pairs/indptr"][1])
    assert hi - lo >= 2
    terms[lo], terms[lo + 1] = terms[lo + 1], terms[lo]
    _refused(path, state, {"stats/pairs/terms": terms}, "pairs/terms", "term order")
    ptr = a["stats/pairs/indptr"].copy()
    ptr[1] = ptr[2] + 1
    _refused(path, state, {"stats/pairs/indptr": ptr}, "pairs")
    utf8 = a["stats/terms_utf8"].copy()
    n0 = int(a["stats/terms_len"][0])
    if n0 >= 2:  # the first term's letters swapped: the vocabulary is no longer sorted (or repeats)
        utf8[0], utf8[1] = utf8[1], utf8[0]
        if bytes(utf8[:n0]) != bytes(a["stats/terms_utf8"][:n0]):
            save_state(path, {**state, "arrays": {**a, "stats/terms_utf8": utf8}})
            try:
                nbayes.load(path)
            except (ModelFileError, StatisticsError) as err:
                assert "'terms'" in str(err)


def test_a_tail_that_is_not_a_tail_is_refused(tmp_path):
    path, state = _saved(tmp_path, "vocabulary")
    a = state["arrays"]
    key = next(k for k in a if k.startswith("stats/exact/pairs/"))
    t = a[key].copy()
    t[0, int(np.argmax(np.abs(t[0])))] = 1.0  # as large as a count: not below its last place
    _refused(path, state, {key: t}, "exact/", "last place")


@pytest.mark.parametrize("kind", ["tfidf", "tfidf-frozen"])
def test_tfidf_arrays_are_checked(tmp_path, kind):
    path, state = _saved(tmp_path, kind)
    a = state["arrays"]
    _refused(path, state, {"stats/tfidf_keep": a["stats/tfidf_keep"][:-1]}, "tfidf_keep")
    _refused(path, state, {"stats/idf": a["stats/idf"][:-1]}, "'idf'")
    _refused(path, state, {"stats/tfidf_sums": a["stats/tfidf_sums"][:, :-1]}, "tfidf_sums")
    s = a["stats/tfidf_sums"].copy()
    s[0, 0] = float(np.max(a["stats/class_count"])) * 10  # beyond unit vectors of the documents
    _refused(path, state, {"stats/tfidf_sums": s}, "tfidf_sums", "doc_count")
    neg = a["stats/idf"].copy()
    neg[0] = -np.inf
    _refused(path, state, {"stats/idf": neg}, "'idf'")
