"""Streams of chunks: ``partial_fit`` (final after each call: new statistics and parameters,
swapped together, nothing estimated when read) and ``model.stream()`` (chunks counted into one
open term table the stream owns, estimated once at ``finish``); and documents read from Arrow
buffers: all must give what fitting the lists of strings gives."""

from __future__ import annotations

import threading
import time

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes import TextClassifier, load
from nbayes.errors import DataError

WORDS = ["spam", "Ham", "eggs", "naïve", "Ünïcode", "a", "b1", "x_y", "déjà", "ok", "OK", "日本語", "42"]
SETTINGS = [
    {},
    {"ngram_range": (1, 2)},
    {"ngram_range": (1, 3), "stop_words": ["eggs"]},
    {"analyzer": "char_wb", "ngram_range": (2, 4)},
    {"binary": True, "min_df": 2},
    {"model": "complement", "max_features": 5},
    {"n_features": 64, "ngram_range": (1, 2)},
]

docs_st = st.lists(st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join), min_size=3, max_size=40)


def _same_stats(a: TextClassifier, b: TextClassifier) -> None:
    sa, sb = a.stats_, b.stats_
    assert sa.terms.tolist() == sb.terms.tolist()
    for x, y in ((sa.term_count, sb.term_count), (sa.doc_count, sb.doc_count)):
        x = x.toarray() if hasattr(x, "toarray") else x
        y = y.toarray() if hasattr(y, "toarray") else y
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(sa.df, sb.df)
    np.testing.assert_array_equal(sa.tf, sb.tf)
    np.testing.assert_allclose(sa.class_count, sb.class_count, rtol=1e-12)
    assert sa.n_docs == sb.n_docs


@settings(max_examples=40, deadline=None)
@given(docs=docs_st, data=st.data(), kw=st.sampled_from(SETTINGS), weighted=st.booleans(), arrow=st.booleans())
def test_chunks_counted_into_one_table_equal_one_fit(docs, data, kw, weighted, arrow):
    n = len(docs)
    y = data.draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    w = np.asarray(data.draw(st.lists(st.floats(0.5, 3.0), min_size=n, max_size=n))) if weighted else None
    cuts = sorted(data.draw(st.lists(st.integers(1, n - 1), max_size=4, unique=True)))
    whole = TextClassifier(**kw).fit(docs, y, sample_weight=w)
    parts = TextClassifier(**kw)
    stream = TextClassifier(**kw).stream()
    classes = sorted(set(y))
    for k, (lo, hi) in enumerate(zip([0, *cuts], [*cuts, n])):
        chunk = pl.Series(docs[lo:hi], dtype=pl.String) if arrow else docs[lo:hi]
        for learn in (parts.partial_fit, stream.add):
            learn(chunk, y[lo:hi], classes=classes if k == 0 else None, sample_weight=None if w is None else w[lo:hi])
        assert parts.params_.stats is parts.stats_  # final after each call
    streamed = stream.finish()
    for m in (parts, streamed):
        _same_stats(whole, m)
        np.testing.assert_allclose(m.predict_log_proba(docs), whole.predict_log_proba(docs), rtol=1e-12, atol=1e-12)


READS = [
    lambda m: m.predict(["cheap pills", "lunch"]),
    lambda m: m.predict_log_proba(["cheap pills"]),
    lambda m: m.stats_,
    lambda m: m.params_,
    lambda m: m.class_log_prior_,
    lambda m: m.classes_,
    lambda m: getattr(m, "base_estimator_", None),
    lambda m: getattr(m, "no_such_thing", 7),
    lambda m: m.vocabulary_,
    lambda m: m.top_features(2),
]


@pytest.mark.parametrize("kw", [{}, {"n_features": 2**10}, {"model": "complement"}, {"model": "bernoulli"},
                                {"min_df": 2}])
def test_state_is_final_after_each_call_and_reads_estimate_nothing(monkeypatch, kw):
    """After partial_fit returns, stats_ and params_ are the final pair (params_.stats is
    stats_, the counts of every chunk so far); no read estimates, counts or changes the model."""
    from nbayes.text import _estimate, online

    docs = ["cheap pills now", "meeting at noon", "cheap offer", "lunch meeting"] * 50
    y = ["spam", "ham"] * 100
    m = TextClassifier(**kw)
    for lo in range(0, 200, 50):
        m.partial_fit(docs[lo:lo + 50], y[lo:lo + 50])
        assert m.params_.stats is m.stats_ and m.stats_.n_docs == lo + 50
    _same_stats(TextClassifier(**kw).fit(docs, y), m)
    calls = []
    for owner, name in ((type(m), "estimate_parameters"), (type(m), "_pair_parameters"),
                        (type(m), "_dense_parameters"), (type(m), "count_statistics"), (_estimate, "estimate"),
                        (online, "plus")):
        monkeypatch.setattr(owner, name, lambda *a, _n=name, **k: calls.append(_n))
    state = dict(m.__dict__)
    for read in READS:
        read(m)
    assert calls == []
    assert m.__dict__.keys() == state.keys() and all(m.__dict__[k] is v for k, v in state.items())


def test_partial_fit_never_writes_what_it_published():
    """A version read before a partial_fit keeps its numbers (copy-on-write, in both modes)."""
    for kw in ({}, {"n_features": 64}):
        m = TextClassifier(**kw).fit(["cheap pills", "noon meeting"], ["spam", "ham"])
        old = m.params_
        arrays = {k: np.array(v.toarray() if hasattr(v, "toarray") else v, copy=True)
                  for k, v in old.stats.to_arrays().items() if np.asarray(v).dtype.kind == "f"}
        m.partial_fit(["cheap offer pills", "lunch"], ["spam", "ham"])
        assert m.params_ is not old and m.params_.stats is m.stats_ is not old.stats
        for k, v in arrays.items():
            got = old.stats.to_arrays()[k]
            np.testing.assert_array_equal(got.toarray() if hasattr(got, "toarray") else got, v)


@pytest.mark.parametrize("kw", [{}, {"n_features": 2**10}, {"model": "bernoulli"}])
def test_predictions_racing_a_partial_fit_see_the_old_or_the_new_model(kw):
    """Threads predict while another thread learns chunk after chunk: every answer is that of
    one of the versions (never a mix of one version's statistics and another's parameters), and
    every (stats_, params_) pair a reader holds belongs together."""
    docs = ["cheap pills now", "meeting at noon", "cheap offer", "lunch meeting", "pills at noon"] * 4
    y = ["spam", "ham", "spam", "ham", "spam"] * 4
    chunks = [(docs[i:i + 4], y[i:i + 4]) for i in range(0, len(docs), 4)]
    versions, m = [], TextClassifier(**kw).fit(*chunks[0])
    ref = TextClassifier(**kw).fit(*chunks[0])
    versions.append(ref.predict_log_proba(docs))
    for X, yy in chunks[1:]:
        versions.append(ref.partial_fit(X, yy).predict_log_proba(docs))
    seen: list = []
    stop = threading.Event()

    def read():
        while not stop.is_set():
            p = m.params_
            seen.append((m.predict_log_proba(docs), p.stats.n_docs, float(np.exp(p.class_log_prior).sum())))

    readers = [threading.Thread(target=read) for _ in range(3)]
    for t in readers:
        t.start()
    for X, yy in chunks[1:]:
        time.sleep(0.01)
        m.partial_fit(X, yy)
    time.sleep(0.01)
    stop.set()
    for t in readers:
        t.join()
    assert len(seen) > 10
    for got, n_docs, total in seen:
        assert any(np.allclose(got, v, rtol=1e-12, atol=1e-12) for v in versions)
        assert n_docs in (4.0, 8.0, 12.0, 16.0, 20.0) and abs(total - 1) < 1e-12


def test_a_stream_leaves_the_model_alone_until_it_finishes():
    """The model is untouched while a stream counts; finish gives it the result in one step
    (equal to partial_fit over the chunks), and a finished stream takes no more chunks."""
    from nbayes.errors import NBayesError

    docs = ["cheap pills now", "meeting at noon", "cheap offer", "lunch meeting"] * 10
    y = ["spam", "ham"] * 20
    m = TextClassifier().fit(docs[:8], y[:8])
    before = m.params_
    s = m.stream()
    s.add(docs[8:20], y[8:20]).add(docs[20:], y[20:])
    assert m.params_ is before and m.stats_.n_docs == 8
    assert s.finish() is m and m.stats_.n_docs == 40 and m.params_.stats is m.stats_
    _same_stats(TextClassifier().fit(docs, y), m)
    with pytest.raises(NBayesError, match="finished"):
        s.add(docs, y)
    # a chunk bringing a new class closes the open table and takes the general path
    s = m.stream()
    s.add(["a brand new class"], ["other"]).add(["more of it"], ["other"]).add(docs[:4], y[:4])
    ref = TextClassifier().fit(docs + ["a brand new class", "more of it"] + docs[:4], y + ["other", "other"] + y[:4])
    _same_stats(ref, s.finish())


ASCII = ["Cheap PILLS now!", "", "meeting at NOON", "a\tb\nc  dd", "x" * 300, "ZZ top 2024"]
UNICODE = ASCII + ["Größe ÜBER alles", "日本語 テキスト", "déjà VU"]


# (repeated: a column of fewer than 64 documents is read as Python strings, not from its buffers)
@pytest.mark.parametrize("texts", [ASCII * 11, UNICODE * 8], ids=["ascii", "unicode"])
@pytest.mark.parametrize("kw", [{}, {"ngram_range": (1, 2)}, {"analyzer": "char", "ngram_range": (1, 3)},
                                {"lowercase": False}, {"n_features": 32}])
def test_arrow_columns_read_as_the_lists_of_strings(texts, kw):
    y = [i % 2 for i in range(len(texts))]
    ref = TextClassifier(**kw).fit(texts, y)
    sliced = pa.chunked_array([pa.array(["pad", *texts[:3]]), pa.array(texts[3:])])[1:]
    views = pa.chunked_array([pa.array(["pad", *texts[:4]], type=pa.string_view())[1:],
                              pa.array(texts[4:], type=pa.string_view())])
    for column in (pl.Series(texts), pa.array(texts), pa.array(texts, type=pa.string_view()), sliced, views,
                   pa.array(texts, type=pa.large_string())):
        m = TextClassifier(**kw).fit(column, y)
        _same_stats(ref, m)
        np.testing.assert_array_equal(m.predict_log_proba(column), ref.predict_log_proba(texts))


def test_a_long_polars_column_is_read_across_its_data_buffers():
    """polars holds strings longer than 12 bytes in several data buffers, a string view
    naming its buffer and offset: every document comes out whole and in order."""
    from nbayes.text._buffer import _ascii_column

    texts = [f"Word{i:07d} AND {'x' * (i % 40)} Tail" for i in range(300_000)]
    column = pl.Series(texts)
    assert len(column.to_arrow(compat_level=pl.CompatLevel.newest()).buffers()) > 3  # views and several data buffers
    buf, bounds = _ascii_column(column, lowercase=True)
    assert bytes(buf) == "".join(texts).lower().encode()
    np.testing.assert_array_equal(np.diff(bounds), [len(t) for t in texts])


def test_a_missing_document_in_a_column_is_named():
    with pytest.raises(DataError, match="item 1"):
        TextClassifier().fit(pl.Series(["a b", None, "c d"]), [0, 1, 0])


def test_a_stream_whose_pairs_outgrow_their_table_turns_to_rows():
    """Forty classes over a small vocabulary: once most (term, class) pairs are seen, rows of
    K counts per term take less memory than the table of pairs, and the learner turns to them
    mid-stream; the statistics are those of one fit."""
    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" for i in range(600)])
    docs = [" ".join(words[rng.integers(0, 600, 30)]) for _ in range(4000)]
    y = [f"c{i % 40}" for i in range(4000)]
    s = TextClassifier().partial_fit(docs[:100], y[:100]).stream()
    kinds = []
    for k in range(100, 4000, 300):
        s.add(docs[k:k + 300], y[k:k + 300])
        kinds.append(s._open[0].dense)
    assert kinds[0] is False and kinds[-1] is True
    _same_stats(TextClassifier().fit(docs, y), s.finish())


@pytest.mark.parametrize("how", ["fit", "fit_stream_of_chunks"])
def test_a_fit_replaces_earlier_chunks(how):
    """fit makes new statistics: the chunks of earlier partial_fit calls are not added to the
    next chunk's counts (nor to the fit's)."""
    docs = ["cheap pills now", "meeting at noon", "cheap offer", "lunch meeting"] * 10
    y = ["spam", "ham"] * 20
    m = TextClassifier().partial_fit(docs[:20], y[:20])
    m.partial_fit(docs[20:], y[20:])
    new, ny = ["buy now pills", "noon lunch"], ["spam", "ham"]
    if how == "fit":
        m.fit(new, ny)
    else:
        m.fit(iter([(new[:1], ny[:1]), (new[1:], ny[1:])]))
    m.partial_fit(["cheap offer now"], ["spam"])
    ref = TextClassifier().fit(new + ["cheap offer now"], ny + ["spam"])
    np.testing.assert_allclose(m.predict_log_proba(docs), ref.predict_log_proba(docs), rtol=1e-12, atol=1e-12)
    _same_stats(ref, m)


@pytest.mark.parametrize("loaded", [False, True])
def test_a_stream_after_a_model_file_equals_one_fit(tmp_path, loaded):
    """The statistics before the table join it (found by their own term table) or, read from
    a file without one, are added to its statistics: the same model either way."""
    first, rest = ["cheap pills now", "meeting at noon"], ["cheap offer today", "lunch meeting noon", "pills"]
    y1, y2 = ["spam", "ham"], ["spam", "ham", "spam"]
    m = TextClassifier(ngram_range=(1, 2)).fit(first, y1, sample_weight=[2.0, 1.0])
    if loaded:
        m.save(tmp_path / "m.nbm")
        m = load(tmp_path / "m.nbm")
    s = m.stream()
    s.add(rest[:2], y2[:2])
    s.add(rest[2:], y2[2:])
    assert isinstance(s._open, tuple) and (s.work.stats_.table is None) == loaded  # which path closes it
    assert s.finish() is m
    whole = TextClassifier(ngram_range=(1, 2)).fit(first + rest, y1 + y2, sample_weight=[2.0, 1.0, 1, 1, 1])
    _same_stats(whole, m)
    np.testing.assert_allclose(m.predict_log_proba(first + rest), whole.predict_log_proba(first + rest), rtol=1e-12)
