"""Word n-grams looked up by the ids of their parts (nbayes._kernels.text_parts): a fitted
table's lookups confirm an n-gram by its prefix's and last word's ids when the table knows them,
by its code points otherwise, and find exactly the terms a dictionary lookup finds, whatever the
vocabulary (learned, pruned, given with odd strings, read from a file, grown online)."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

import nbayes
import nbayes.text.vectorizer
from nbayes._kernels import text_twin
from nbayes._kernels.text import _gram_find_ids, _gram_key
from nbayes._kernels.text_parts import NO_PARTS, gram_parts
from nbayes._validation import encode_labels, sorted_unique
from nbayes.text._buffer import to_buffer
from nbayes.text.online import add_counts, online_ready
from nbayes.text.vocab import TermTable, Tokens, learn_terms

# long and non-Latin-1 words: their n-grams' keys are hashes, confirmed by parts or code points
_WORDS = ["cheapest", "pills", "the", "of", "naïveté", "ΟΔΟΣ", "東京", "zürichsee", "ab", "x", "İstanbul",
          "straße", "ab cd", "straßenbahn"]
_DOCS = st.lists(st.lists(st.sampled_from(_WORDS), max_size=12).map(" ".join), min_size=1, max_size=8)
_MODES = [((1, 2), ()), ((1, 3), ()), ((1, 3), ("the", "pills")), ((2, 3), ()), ((1, 1), ())]
#: strings a user's vocabulary may hold that are no n-gram of tokens, or whose parts are odd
_ODD = ["cheapest  pills", " pills", "pills ", "ab cd", "x pills", "cheapest x", "the", "of the", ""]


def _oracle(docs: list[str], how: Tokens, vocab: list[str]) -> np.ndarray:
    return text_twin.term_ids([d.lower() for d in docs], (how.lo, how.hi), how.stop_words,
                              {t: i for i, t in enumerate(vocab)}, 0)


@pytest.mark.parametrize("ngram_range, stop", _MODES)
@settings(max_examples=40, deadline=None)
@given(docs=_DOCS, probe=_DOCS, data=st.data())
def test_lookups_equal_a_dictionary_on_learned_pruned_and_given_vocabularies(ngram_range, stop, docs, probe, data):
    how = Tokens(ngram_range, list(stop))
    buf, bounds, table = to_buffer(docs)
    codes = np.zeros(len(docs), dtype=np.int64)
    terms, _, _, _, _, learned = learn_terms(buf, bounds, table, codes, None, 1, how)
    terms = terms.tolist()
    pbuf, pbounds, ptable = to_buffer(probe)
    # the fitted table, its parts passed by the learner: those a lookup would build
    if learned.grams_by_ids():
        assert learned._parts is not None
        built = np.empty((len(terms), 2), dtype=np.int32)
        assert gram_parts(learned.slots, learned.start, learned.length, learned.cps, built) == 0
        assert_array_equal(learned._parts, built)
        assert learned._loose == 0  # every n-gram's parts known: lookups skip those of unknown parts
    else:
        assert learned.parts() is NO_PARTS
    assert_array_equal(learned.tokens(pbuf, pbounds, ptable), _oracle(probe, how, terms))
    # pruned (prefixes or last words of kept n-grams dropped) and given vocabularies, odd strings too
    keep = data.draw(st.lists(st.booleans(), min_size=len(terms), max_size=len(terms)))
    extra = data.draw(st.lists(st.sampled_from(_ODD), max_size=4))
    vocab = sorted({t for t, k in zip(terms, keep) if k} | set(extra))
    pruned = TermTable(vocab, how)
    assert pruned._parts is None
    assert_array_equal(pruned.tokens(pbuf, pbounds, ptable), _oracle(probe, how, vocab))
    assert_array_equal(pruned.tokens(buf, bounds, table), _oracle(docs, how, vocab))
    if pruned.grams_by_ids():  # a part is known only when the term is "prefix word", both terms
        index = {t: i for i, t in enumerate(vocab)}
        loose = 0
        for t, (a, w) in zip(vocab, pruned._parts.tolist()):
            pre, _, word = t.rpartition(" ")
            want = (index[pre], index[word]) if pre and word and pre in index and word in index else (-1, -1)
            assert (a, w) == want, t
            loose += " " in t and a < 0
        assert pruned._loose == loose


def test_a_key_collision_is_confirmed_by_the_parts_or_the_code_points():
    """Two different n-grams with the same key (forced here: a table whose one term holds the
    query's key): the parts tell them apart, as do the code points of a term without parts."""
    buf, _, _ = to_buffer(["cheapest pills"])
    ring = np.array([[0, 8], [9, 14]], dtype=np.int64)
    key, exact, total = _gram_key(buf, ring, 2, 1, 2)
    assert not exact and total == 14
    mask = 7
    slots = np.full(2 * (mask + 1), -1, dtype=np.int64)
    other = np.frombuffer("pills cheapest".encode("utf-32-le"), dtype=np.uint32).copy()  # same length
    same = np.frombuffer("cheapest pills".encode("utf-32-le"), dtype=np.uint32).copy()
    start, length = np.zeros(3, dtype=np.int64), np.array([14, 8, 5], dtype=np.int64)
    # term 0 at the query's home slot, with the query's key: (pre, word) of the query = (1, 2)
    home = int(_gram_find_ids(buf, ring, 2, 1, 2, key, exact, total, 1, 2, slots, start, length, same,
                              np.full((3, 2), -1, dtype=np.int32)))
    slots[2 * home], slots[2 * home + 1] = np.int64(key), 0
    for cps, parts, found in [
        (other, [[2, 1], [-1, -1], [-1, -1]], False),  # parts differ: another n-gram
        (same, [[1, 2], [-1, -1], [-1, -1]], True),  # parts equal
        (other, [[-1, -1]] * 3, False),  # no parts: code points differ
        (same, [[-1, -1]] * 3, True),  # no parts: code points equal
    ]:
        slot = _gram_find_ids(buf, ring, 2, 1, 2, key, exact, total, 1, 2, slots, start, length, cps,
                              np.array(parts, dtype=np.int32))
        assert (slots[2 * slot + 1] == 0) == found
    # a query whose prefix is no term (-1) never matches a term whose parts are known
    slot = _gram_find_ids(buf, ring, 2, 1, 2, key, exact, total, -1, 2, slots, start, length, same,
                          np.array([[1, 2], [-1, -1], [-1, -1]], dtype=np.int32))
    assert slots[2 * slot + 1] < 0


_TRAIN = ["cheapest pills online cheapest pills", "straßenbahn zürichsee naïveté", "the pills of the city",
          "ΟΔΟΣ 東京 straßenbahn zürichsee", "cheapest straßenbahn naïveté online"] * 3
_Y = ["a", "b", "a", "b", "c"] * 3
_PROBE = ["cheapest pills naïveté", "zürichsee straßenbahn the pills", "unknown words only", "ΟΔΟΣ 東京"]


@pytest.mark.parametrize("params", [dict(ngram_range=(1, 2)), dict(ngram_range=(1, 3), min_df=2),
                                    dict(ngram_range=(1, 2), stop_words=["pills"], max_features=9),
                                    dict(ngram_range=(1, 2), max_df=0.5)])
def test_models_predict_as_scikit_learn_and_files_do_not_change(params, tmp_path):
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    model = nbayes.TextClassifier(alpha=0.1, **params).fit(_TRAIN, _Y)
    sk = MultinomialNB(alpha=0.1).fit(CountVectorizer(**params).fit(_TRAIN).transform(_TRAIN), _Y)
    vec = CountVectorizer(**params).fit(_TRAIN)
    np.testing.assert_allclose(model.predict_proba(_PROBE), sk.predict_proba(vec.transform(_PROBE)),
                               rtol=1e-12, atol=1e-12)
    # the file holds no parts: the same bytes before and after predictions built or used them
    path = tmp_path / "m.nbm"
    model.save(path)
    before = path.read_bytes()
    model.save(path)
    assert path.read_bytes() == before
    loaded = nbayes.load(path)
    assert loaded._table._parts is None  # built on its first lookup
    np.testing.assert_array_equal(loaded.predict_proba(_PROBE), model.predict_proba(_PROBE))
    if model._table.grams_by_ids():
        assert_array_equal(loaded._table._parts, model._table.parts())
    loaded.save(path)
    assert path.read_bytes() == before
    buf = io.BytesIO()  # pickles hold no parts either
    pickle.dump(model, buf)
    assert pickle.loads(buf.getvalue())._table._parts is None


def test_a_pruned_vectorizer_equals_scikit_learn():
    from sklearn.feature_extraction.text import CountVectorizer

    for params in (dict(ngram_range=(1, 2), min_df=2), dict(ngram_range=(1, 3), max_df=0.4, binary=True)):
        got = nbayes.text.vectorizer.Vectorizer(**params).fit(_TRAIN).transform(_PROBE + _TRAIN)
        want = CountVectorizer(**params).fit(_TRAIN).transform(_PROBE + _TRAIN)
        assert_array_equal(got.toarray(), want.toarray())


def test_unigram_tables_keep_no_parts():
    model = nbayes.TextClassifier().fit(_TRAIN, _Y)
    model.predict(_PROBE)
    assert model._table.parts() is NO_PARTS and model._table._parts is None


def test_an_online_update_carries_the_parts_over_soundly():
    """After online updates (new terms) the parts are those a rebuild finds, and lookups equal a
    dictionary's."""

    model = nbayes.TextClassifier(ngram_range=(1, 2)).fit(_TRAIN, _Y)
    updates = [["brandnewword straßenbahn cheapest", "pills brandnewword"], ["zürichsee anotherlongword the"]]
    for docs in updates:
        Xv, _ = model.prepare_input(docs, fitting=False)
        y = np.array(["a"] * len(docs), dtype=object)
        classes = sorted_unique(y)
        codes, _ = encode_labels(y, classes)
        assert online_ready(model)
        model = add_counts(model, model.count_statistics(Xv, codes, len(classes), None), classes)
        table = model._table
        assert table._parts is not None
        rebuilt = np.empty_like(table._parts)
        assert gram_parts(table.slots, table.start, table.length, table.cps, rebuilt) == table._loose == 0
        assert_array_equal(table._parts, rebuilt)
        vocab = model._terms.tolist()
        pbuf, pbounds, ptable = to_buffer(_PROBE + docs)
        assert_array_equal(table.tokens(pbuf, pbounds, ptable), _oracle(_PROBE + docs, table.how, vocab))


def test_parts_built_on_threads_equal_one_thread():
    from nbayes._kernels.text_parts import build_parts

    words = [f"w{i}" for i in range(400)]
    rng = np.random.default_rng(0)
    grams = {f"{words[a]} {words[b]}" for a, b in rng.integers(0, 400, (150_000, 2))}
    vocab = sorted(set(words[::3]) | grams)  # some last words and prefixes pruned: loose terms
    table = TermTable(vocab, Tokens((1, 2)))
    one, loose1 = build_parts(table.slots, table.start, table.length, table.cps, 1)
    two, loose2 = build_parts(table.slots, table.start, table.length, table.cps, 2)
    assert_array_equal(one, two)
    assert loose1 == loose2 == int(((one[:, 0] < 0) & np.array([" " in t for t in vocab])).sum()) > 0


@pytest.mark.parametrize("params", [dict(min_df=2), dict(max_df=0.3), dict(max_features=25), dict(min_df=2, max_df=0.5)])
def test_a_pruned_fit_hands_its_parts_over(params):
    """Pruned at estimation, the kept terms' parts come from counting's (a part dropped: the
    n-gram loose), as a rebuild finds them; predictions as scikit-learn's."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    train = _TRAIN[:5] * 2 + ["rare words here once", "cheapest pills again and again", "zürichsee naïveté x"]
    y = _Y[:5] * 2 + ["a", "b", "c"]
    model = nbayes.TextClassifier(alpha=0.1, ngram_range=(1, 2), **params).fit(train, y)
    table = model._table
    assert table._parts is not None and len(table) < model.stats_.n_terms
    rebuilt = np.empty_like(table._parts)
    assert gram_parts(table.slots, table.start, table.length, table.cps, rebuilt) == table._loose
    assert_array_equal(table._parts, rebuilt)
    vec = CountVectorizer(ngram_range=(1, 2), **params).fit(train)
    sk = MultinomialNB(alpha=0.1).fit(vec.transform(train), y)
    np.testing.assert_allclose(model.predict_proba(_PROBE), sk.predict_proba(vec.transform(_PROBE)),
                               rtol=1e-12, atol=1e-12)
