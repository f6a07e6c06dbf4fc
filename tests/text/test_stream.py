"""A stream of partial_fit chunks counted into one open term table (nbayes.text._stream), and
documents read from Arrow buffers: both must give what fitting the lists of strings gives."""

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
    classes = sorted(set(y))
    for k, (lo, hi) in enumerate(zip([0, *cuts], [*cuts, n])):
        chunk = pl.Series(docs[lo:hi], dtype=pl.String) if arrow else docs[lo:hi]
        parts.partial_fit(chunk, y[lo:hi], classes=classes if k == 0 else None,
                          sample_weight=None if w is None else w[lo:hi])
        getattr(parts, "base_estimator_", None)  # a probe, as the command line makes: nothing is estimated
    _same_stats(whole, parts)
    np.testing.assert_allclose(parts.predict_log_proba(docs), whole.predict_log_proba(docs), rtol=1e-12, atol=1e-12)


def test_the_table_stays_open_until_something_reads_the_statistics():
    docs = ["cheap pills now", "meeting at noon", "cheap offer", "lunch meeting"] * 50
    y = ["spam", "ham"] * 100
    m = TextClassifier().partial_fit(docs[:100], y[:100])
    m.partial_fit(docs[100:150], y[100:150])
    m.partial_fit(docs[150:], y[150:])
    assert "_stream" in m.__dict__ and "stats_" not in m.__dict__
    assert getattr(m, "base_estimator_", None) is None and getattr(m, "no_such_thing", 7) == 7
    assert "_stream" in m.__dict__  # probes of names the model does not have leave it open
    assert m.predict(["cheap pills"]).tolist() == ["spam"]  # a parameter: the statistics are made once
    assert "_stream" not in m.__dict__ and m.stats_.n_docs == 200
    # a chunk bringing a new class closes nothing twice and counts through the general path
    m.partial_fit(["a brand new class"], ["other"])
    m.partial_fit(["more of it"], ["other"])
    ref = TextClassifier().fit(docs + ["a brand new class", "more of it"], y + ["other", "other"])
    _same_stats(ref, m)


def test_a_probe_does_not_estimate_a_hashing_stream(monkeypatch):
    m = TextClassifier(n_features=2**10).fit(["a b c", "d e f"], [0, 1])
    m.partial_fit(["a b", "e f"], [0, 1])
    calls = []
    original = type(m).estimate_parameters
    monkeypatch.setattr(type(m), "estimate_parameters", lambda self, *a, **k: calls.append(1) or original(self, *a, **k))
    getattr(m, "base_estimator_", None)
    getattr(m, "anything", None)
    assert calls == [] and m.__dict__["_pending"]
    m.predict(["a b"])
    assert len(calls) == 1


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
    m = TextClassifier().partial_fit(docs[:100], y[:100])
    kinds = []
    for k in range(100, 4000, 300):
        m.partial_fit(docs[k:k + 300], y[k:k + 300])
        kinds.append(m.__dict__["_stream"][0].dense)
    assert kinds[0] is False and kinds[-1] is True
    _same_stats(TextClassifier().fit(docs, y), m)


@pytest.mark.parametrize("how", ["fit", "fit_stream_of_chunks"])
def test_a_fit_replaces_an_open_stream(how):
    """fit makes new statistics: a table left open by earlier partial_fit calls is dropped
    with the old statistics, not added to the next chunk's counts (nor to the fit's)."""
    docs = ["cheap pills now", "meeting at noon", "cheap offer", "lunch meeting"] * 10
    y = ["spam", "ham"] * 20
    m = TextClassifier().partial_fit(docs[:20], y[:20])
    m.partial_fit(docs[20:], y[20:])
    assert "_stream" in m.__dict__
    new, ny = ["buy now pills", "noon lunch"], ["spam", "ham"]
    if how == "fit":
        m.fit(new, ny)
    else:
        m.fit(iter([(new[:1], ny[:1]), (new[1:], ny[1:])]))
    m.partial_fit(["cheap offer now"], ["spam"])
    ref = TextClassifier().fit(new + ["cheap offer now"], ny + ["spam"])
    np.testing.assert_allclose(m.predict_log_proba(docs), ref.predict_log_proba(docs), rtol=1e-12, atol=1e-12)
    _same_stats(ref, m)


def test_threads_predicting_at_once_close_the_table_once(monkeypatch):
    """Eight threads predicting at once with the table open (CORRECTNESS.md: a server does
    this): one of them makes the statistics, the others wait for them; every answer is the
    serial one (a slow close opens the window in which a second close would find it gone)."""

    from nbayes.text import _stream

    docs = ["cheap pills now", "meeting at noon", "cheap offer", "lunch meeting"] * 10
    y = ["spam", "ham"] * 20
    ref = TextClassifier().fit(docs, y).predict_log_proba(docs)
    m = TextClassifier().partial_fit(docs[:20], y[:20])
    m.partial_fit(docs[20:], y[20:])
    original = _stream.learned_terms
    closes = []

    def slow(*args, **kwargs):
        closes.append(1)
        time.sleep(0.2)
        return original(*args, **kwargs)

    monkeypatch.setattr(_stream, "learned_terms", slow)
    _predict_on_eight_threads(m, docs, ref)
    assert closes == [1]


@pytest.mark.parametrize("kw", [{}, {"n_features": 2**10}, {"model": "complement"}])
def test_threads_predicting_at_once_estimate_once(monkeypatch, kw):
    """The parameters deferred by a stream are estimated once when eight threads predict at
    once: a second estimation replacing the first's attributes one by one would leave a window
    in which a third thread finds one gone and no estimation pending (AttributeError)."""

    docs = ["cheap pills now", "meeting at noon", "cheap offer", "lunch meeting"] * 10
    y = ["spam", "ham"] * 20
    ref = TextClassifier(**kw).fit(docs, y).predict_log_proba(docs)
    m = TextClassifier(**kw).partial_fit(docs[:20], y[:20])
    m.partial_fit(docs[20:], y[20:])
    m.stats_  # the table closed: what is left deferred is the estimation
    assert m.__dict__["_pending"]
    calls = []
    original = type(m).estimate_parameters

    def slow(self, *args, **kwargs):
        calls.append(1)
        time.sleep(0.2)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(m), "estimate_parameters", slow)
    _predict_on_eight_threads(m, docs, ref)
    assert calls == [1]


def _predict_on_eight_threads(m: TextClassifier, docs: list[str], ref: np.ndarray) -> None:
    """Eight threads predict ``docs`` with ``m`` at once: each gets ``ref``, none an error."""
    out: list = [None] * 8

    def run(i):
        try:
            out[i] = m.predict_log_proba(docs)
        except Exception as exc:  # noqa: BLE001 - reported below
            out[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got in out:
        assert not isinstance(got, BaseException), repr(got)
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


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
    m.partial_fit(rest[:2], y2[:2])
    m.partial_fit(rest[2:], y2[2:])
    opened = m.__dict__["_stream"]
    before = m.__dict__["_stream_before"]
    assert isinstance(opened, tuple) and (before.table is None) == loaded  # which path closes it
    whole = TextClassifier(ngram_range=(1, 2)).fit(first + rest, y1 + y2, sample_weight=[2.0, 1.0, 1, 1, 1])
    _same_stats(whole, m)
    np.testing.assert_allclose(m.predict_log_proba(first + rest), whole.predict_log_proba(first + rest), rtol=1e-12)
