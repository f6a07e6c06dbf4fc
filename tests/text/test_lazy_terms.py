"""A learned vocabulary stays code points until something reads its strings (fit and predict
never do); what reads them gets what the strings always gave, and the file is the same."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

import nbayes
from nbayes.stats.terms import CodeTerms

DOCS = ["the cheap pills", "cheap pills now", "lunch at noon", "noon meeting, lunch after",
        "caf\xe9 cr\xe8me at noon", "\u4e00\u4e8c cheap \U0001f600 pills", "meeting at the caf\xe9"]
Y = ["spam", "spam", "ham", "ham", "ham", "spam", "ham"]


def _fitted(**kw: object) -> nbayes.TextClassifier:
    return nbayes.TextClassifier(alpha=0.5, ngram_range=(1, 2), **kw).fit(DOCS, Y)


def _unread(m: nbayes.TextClassifier) -> bool:
    v = m.stats_.__dict__["terms"]
    return isinstance(v, CodeTerms) and v._strings is None


def test_fit_and_predict_make_no_strings() -> None:
    m = _fitted()
    m.predict(DOCS)
    m.predict_proba(DOCS[:2])
    assert _unread(m)
    assert m._vocab is m.stats_.vocab  # one vocabulary, not a second array of the kept terms
    assert m._table.vocab is m.stats_.vocab


@pytest.mark.parametrize("read", ["vocabulary_", "terms", "_terms", "table", "feature_scores", "explain"])
def test_what_reads_the_terms_gets_scikit_learns_vocabulary(read: str) -> None:
    m = _fitted()
    want = CountVectorizer(ngram_range=(1, 2)).fit(DOCS).get_feature_names_out().tolist()
    if read == "vocabulary_":
        assert list(m.vocabulary_) == want and list(m.vocabulary_.values()) == list(range(len(want)))
    elif read == "terms":
        terms = m.stats_.terms
        assert isinstance(terms, np.ndarray) and terms.dtype == object and terms.tolist() == want
        assert m.stats_.terms is terms  # made once
    elif read == "_terms":
        assert m._terms.tolist() == want
    elif read == "table":
        assert m._table.terms.tolist() == want
    elif read == "feature_scores":
        assert m.feature_scores()[1] == want
    else:  # (needs no strings: its tokens are the document's)
        assert "cheap pills" in m.explain(DOCS[0]).tokens
        return
    assert not _unread(m)
    assert m.stats_.terms.tolist() == want


def test_file_is_the_same_whether_the_strings_were_made(tmp_path: pytest.TempPathFactory) -> None:
    a, b = _fitted(), _fitted()
    b.stats_.terms  # noqa: B018  # made strings before saving
    a.save(tmp_path / "a.nbm")
    b.save(tmp_path / "b.nbm")
    assert _unread(a) and not _unread(b)
    assert (tmp_path / "a.nbm").read_bytes() == (tmp_path / "b.nbm").read_bytes()
    back = nbayes.load(tmp_path / "a.nbm")
    assert back.vocabulary_ == a.vocabulary_
    np.testing.assert_array_equal(back.predict_proba(DOCS), a.predict_proba(DOCS))


def test_updates_on_unread_terms() -> None:
    """partial_fit, unlearn and merge read the strings they need from a fresh model."""
    more, more_y = ["cheap offer now", "noon lunch"], ["spam", "ham"]
    want = nbayes.TextClassifier(alpha=0.5, ngram_range=(1, 2)).fit(DOCS + more, Y + more_y)
    grown = _fitted().partial_fit(more, more_y)
    merged = _fitted().merge(nbayes.TextClassifier(alpha=0.5, ngram_range=(1, 2)).fit(more, more_y))
    for m in (grown, merged):
        assert m.vocabulary_ == want.vocabulary_
        np.testing.assert_allclose(m.predict_proba(DOCS), want.predict_proba(DOCS), rtol=1e-12)
    back = want.unlearn(more, more_y)
    assert back.vocabulary_ == _fitted().vocabulary_
    np.testing.assert_allclose(back.predict_proba(DOCS), _fitted().predict_proba(DOCS), rtol=1e-12, atol=1e-12)


def test_a_loaded_model_keeps_its_vocabulary_as_code_points(tmp_path: pytest.TempPathFactory) -> None:
    m = _fitted()
    m.save(tmp_path / "m.nbm")
    back = nbayes.load(tmp_path / "m.nbm")
    np.testing.assert_array_equal(back.predict_proba(DOCS), m.predict_proba(DOCS))
    assert _unread(back)  # loading, its checks and predicting made no string per term
    assert back._table.vocab is back.stats_.vocab
    assert back.vocabulary_ == m.vocabulary_
    back.save(tmp_path / "again.nbm")
    assert (tmp_path / "again.nbm").read_bytes() == (tmp_path / "m.nbm").read_bytes()


@pytest.mark.parametrize("change, message", [
    (lambda blob, lens: (blob, lens[::-1].copy()), "not sorted|do not add up"),
    (lambda blob, lens: (np.concatenate([blob[: int(lens[0])], blob]), np.concatenate([lens[:1], lens])), "repeats a term"),
    (lambda blob, lens: (blob[::-1].copy(), lens), "not sorted|not UTF-8"),
    (lambda blob, lens: (blob, lens + 1), "do not add up"),
    (lambda blob, lens: (np.concatenate([blob, np.array([0xff], dtype=np.uint8)]), lens), "not UTF-8"),
])
def test_a_files_vocabulary_is_checked_on_its_code_points(
        change: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]], message: str) -> None:
    from nbayes.errors import StatisticsError
    from nbayes.stats.text import TextStats

    arrays = _fitted().stats_.to_arrays()
    blob, lens = change(arrays["stats/terms_utf8"], arrays["stats/terms_len"].astype(np.int64))
    arrays["stats/terms_utf8"], arrays["stats/terms_len"] = blob, lens
    if len(lens) != len(arrays["stats/df"]):  # a term added: its statistics too
        for name in ("stats/df", "stats/tf"):
            arrays[name] = np.concatenate([arrays[name][:1], arrays[name]])
        arrays["stats/pairs/terms"] = arrays["stats/pairs/terms"] + 1
    with pytest.raises(StatisticsError, match=message):
        TextStats.from_arrays(arrays).check()
