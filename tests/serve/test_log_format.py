"""The update log's record format (nbayes.serve._codec, ._log): an update's statistics as
compact named arrays round-trip bit for bit for every kind of statistics; records are sparse and
narrowed (a text update is a small fraction of a model file image); the first, unreleased format
is refused by name; many records replayed at once equal the updates applied one by one; the
term table the learning path extends finds every term as one built from the strings does."""

from __future__ import annotations

import copy
import json

import numpy as np

from nbayes.serve._delta import dense
import pytest

import nbayes
from nbayes.errors import ModelFileError
from nbayes.io.model_file import state_to_bytes
from nbayes.serve import _codec, _log
from nbayes.serve._delta import apply, count
from nbayes.serve._records import LogTerms, read_deltas, replay
from nbayes.text.vocab import TermTable

SPAM = ["win a free prize now", "free cash claim now", "claim your free prize"]
HAM = ["lunch at noon tomorrow", "see you at home tonight", "meeting moved to thursday"]


def _same(a, b):
    assert type(a) is type(b)
    if isinstance(a, np.ndarray):
        assert a.shape == b.shape and (a.dtype == b.dtype or (a.dtype.kind in "OU" and b.dtype.kind in "OU"))
        if a.dtype.kind == "f":
            np.testing.assert_array_equal(a.view(np.uint64) if a.dtype == np.float64 else a,
                                          b.view(np.uint64) if b.dtype == np.float64 else b)  # bit for bit
        else:
            assert a.tolist() == b.tolist()


def _models():
    rng = np.random.default_rng(3)
    Xc = rng.integers(0, 5, (30, 4))
    y = rng.choice(["a", "b", "c"], 30)
    Xk = rng.choice(["x", "y", "z"], (30, 3)).astype(object)
    docs, lab = SPAM + HAM, ["spam"] * 3 + ["ham"] * 3
    new_docs = ["free zebra zebra ünïcode", "okapi lunch", "zebra 𝔘𝔫𝔦"]
    return {
        "text": (nbayes.TextClassifier().fit(docs, lab), new_docs, ["spam", "ham", "spam"], [0.5, 2.0, 1.25]),
        "text bigrams": (nbayes.TextClassifier(ngram_range=(1, 2), model="bernoulli").fit(docs, lab), new_docs,
                         ["spam", "ham", "spam"], None),
        "text hashing": (nbayes.TextClassifier(n_features=2**16).fit(docs, lab), new_docs, ["spam", "ham", "spam"], None),
        "multinomial": (nbayes.MultinomialNB().fit(Xc, y), rng.integers(0, 5, (3, 4)), ["a", "c", "a"], [0.1, 1.0, 3.0]),
        "gaussian": (nbayes.GaussianNB().fit(rng.normal(size=(30, 3)), y), rng.normal(size=(3, 3)), ["a", "b", "b"], None),
        "categorical": (nbayes.CategoricalNB().fit(Xk, y), np.array([["x", "w", "z"], ["y", "y", "y"]], dtype=object),
                        ["b", "c"], None),
        "integer labels": (nbayes.MultinomialNB().fit(Xc, np.arange(30) % 3), rng.integers(0, 5, (2, 4)), [2, 0], None),
    }


@pytest.mark.parametrize("kind", list(_models()))
def test_a_record_holds_the_update_exactly_and_replays_to_partial_fit(kind):
    model, X, y, w = _models()[kind]
    d = count(model, X, y, w)
    terms = LogTerms()
    body = terms.body(d)
    terms.commit()
    back = read_deltas(model, [body], "test")[0]
    assert back.classes.tolist() == d.classes.tolist()
    want, got = d.stats.to_arrays(), back.stats.to_arrays()
    assert list(want) == list(got)
    for k in want:
        _same(np.asarray(want[k]), np.asarray(got[k]))
    offline = copy.deepcopy(model)
    offline.partial_fit(X, y, sample_weight=w)
    served = apply(model, back)
    Xp = X if kind.startswith("text") else np.asarray(X)
    np.testing.assert_allclose(served.predict_proba(Xp), offline.predict_proba(Xp), rtol=0, atol=1e-12)
    # replaying the same update three times at start equals applying it three times in turn
    # (the second and third records name the words the first one numbered)
    bodies = [body, memoryview(terms.body(d)), terms.body(d)]
    if kind in ("text", "text bigrams"):
        assert len(bodies[2]) < len(body)
    again, words = replay(model, bodies, 0, "test")
    third = read_deltas(model, bodies, "test")[2].stats.to_arrays()
    for k, v in d.stats.to_arrays().items():
        _same(np.asarray(v), np.asarray(third[k]))
    step = apply(apply(apply(model, back), back), back)
    np.testing.assert_allclose(again.predict_proba(Xp), step.predict_proba(Xp), rtol=0, atol=1e-12)


def test_text_records_are_sparse_and_narrow():
    model = nbayes.TextClassifier().fit(SPAM + HAM, ["spam"] * 3 + ["ham"] * 3)
    rng = np.random.default_rng(0)  # two classes: a term is in both, dense narrowed counts are smaller
    vocab = [f"w{i}" for i in range(3000)]
    docs = [" ".join(rng.choice(vocab, 60)) for _ in range(100)]
    d = count(model, docs, [["spam", "ham"][i % 2] for i in range(100)], None)
    image = state_to_bytes(apply(model, d).to_state())  # format 2: pairs in narrow integers
    body = LogTerms().body(d)
    assert len(body) < 1.5 * len(image), (len(body), len(image))  # a record is no larger than a model file
    assert len(body) < dense(d.stats.term_count).nbytes + dense(d.stats.doc_count).nbytes  # new words included
    head_end = 4 + int.from_bytes(body[:4], "little")
    specs = {name: how for name, _, how, *rest in json.loads(body[4:head_end])["arrays"]}
    assert specs["stats/term_count"] == "dense" and specs["text/new_terms"] == "str"
    labels = [f"c{i % 20}" for i in range(100)]  # 20 classes: a term is in a few, sparse
    many = nbayes.TextClassifier().fit(SPAM + HAM + ["x"] * 14, labels[:20])
    d = count(many, docs, labels, None)
    body = LogTerms().body(d)
    head_end = 4 + int.from_bytes(body[:4], "little")
    specs = {name: how for name, _, how, *rest in json.loads(body[4:head_end])["arrays"]}
    assert specs["stats/term_count"] == "sparse" and specs["stats/doc_count"] == "sparse"
    assert len(body) < (dense(d.stats.term_count).nbytes + dense(d.stats.doc_count).nbytes) / 8  # vs dense float64


def test_narrowing_is_exact_and_keeps_what_does_not_fit():
    for values in ([0.0, 1.0, 255.0], [0.0, 256.0], [1.0, 2.0**32 - 1], [2.0**32], [0.5, 1.0], [-1.0, 2.0],
                   [-0.0, 1.0], [1e300, 3.0], [np.nextafter(1.0, 2.0)]):
        a = np.zeros((3, 40))
        a[0, : len(values)] = values
        classes, arrays = _codec.decode(_codec.encode(np.array(["a"]), {"x": a, "v": np.array(values)}), "test")
        _same(arrays["x"], a)
        _same(arrays["v"], np.array(values))
        assert np.signbit(arrays["v"]).tolist() == np.signbit(np.array(values)).tolist()


def _encoded_as_first_written(a):
    """_codec._encode_array as first written (the dense form narrowed over every value, then
    compared with the sparse one): the bytes a log holds must not change."""
    flat = np.ascontiguousarray(a).ravel()
    dense = _codec._narrow(flat)
    if a.dtype == np.float64 and a.size >= 64:
        nz = np.flatnonzero(flat.view(np.uint64))
        idx = np.dtype(np.uint32 if a.size < 2**32 else np.uint64).newbyteorder("<")
        vals = _codec._narrow(flat[nz])
        if len(nz) * (idx.itemsize + vals.itemsize) < dense.nbytes:
            return ["sparse", len(nz), idx.str, vals.dtype.str], \
                [nz.astype(idx).tobytes(), vals.astype(vals.dtype.newbyteorder("<")).tobytes()]
    return ["dense", dense.dtype.str, a.dtype.str], [dense.astype(dense.dtype.newbyteorder("<")).tobytes()]


@pytest.mark.parametrize("seed", range(40))
def test_an_array_is_encoded_as_it_was_first(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([0, 1, 10, 63, 64, 65, 200, 1000]))
    pool = np.array([0.0, 0.0, 0.0, -0.0, 1.0, 2.0, 255.0, 256.0, 65535.0, 65536.0, 2.0**32 - 1, 2.0**32, 0.5,
                     -1.0, 1e300, np.nan])
    weights = rng.random(len(pool)) * (rng.random(len(pool)) < 0.5)
    weights[0] += 0.01 + 10 * rng.random()  # zeros, from none to most of the values
    a = rng.choice(pool, n, p=weights / weights.sum())
    for x in (a, a.reshape(-1, 2) if n % 2 == 0 else a):
        assert _codec._encode_array(x) == _encoded_as_first_written(x)


def test_a_damaged_body_is_a_model_file_error():
    body = _codec.encode(np.array(["a", "b"]), {"stats/class_count": np.array([1.0, 2.0])})
    for bad in (body[:-3], body + b"\0", b"\xff\xff\xff\x7f" + body[4:], body[:4] + b"[" + body[5:]):
        with pytest.raises(ModelFileError, match="cannot be read"):
            _codec.decode(bad, "MODEL.log")


def test_a_log_of_the_first_format_is_refused_by_name(tmp_path):
    path = tmp_path / "m.nbm.log"
    path.write_bytes(_log.MAGIC_V1 + b"\0" * 40)
    with pytest.raises(ModelFileError, match="earlier, unreleased format"):
        _log.read_log(str(path))


def test_an_extended_term_table_finds_every_term():
    """The learning path's term table (old code points kept, new terms appended, hash table
    re-filled) scores documents exactly as a table built from the strings."""
    model = nbayes.TextClassifier().fit(SPAM + HAM, ["spam"] * 3 + ["ham"] * 3)
    rng = np.random.default_rng(5)
    letters = list("abcdefgé𝔘z")
    for _ in range(20):
        words = sorted({"".join(rng.choice(letters, rng.integers(2, 7))) for _ in range(60)})
        d = count(model, [" ".join(rng.choice(words, 30))], ["spam"], None)
        new = apply(model, d)
        assert isinstance(new._table, TermTable) and new._table is not model._table
        fresh = TermTable(new._terms, model._table.how)
        probe = [" ".join(rng.choice(words + ["free", "lunch", "nope"], 40)) for _ in range(5)]
        docs, _ = new.prepare_input(probe, fitting=False)
        w = np.asarray(new._weights)
        np.testing.assert_array_equal(new._table.score(docs.buf, docs.bounds, docs.table, w, False),
                                      fresh.score(docs.buf, docs.bounds, docs.table, w, False))
        model = new


def test_a_group_with_a_new_class_replays():
    model = nbayes.TextClassifier().fit(SPAM + HAM, ["spam"] * 3 + ["ham"] * 3)
    d1 = count(model, ["zebra okapi"], ["zoo"], None)
    d2 = count(model, ["free zebra"], ["spam"], None)
    terms = LogTerms()
    body1 = terms.body(d1)
    body2 = terms.body(d2)  # one group: the second record numbers after the first's words
    live = apply(apply(model, d1), d2)
    replayed, words = replay(model, [body1, body2], 0, "test")
    assert sorted(words) == sorted(set(words)) and "zebra" in words
    # a rewritten log (after a snapshot holding the first record) keeps the second's counts only
    only, _ = replay(model, [body1, body2], 1, "test")
    np.testing.assert_allclose(only.predict_proba(["zebra free"]), apply(model, d2).predict_proba(["zebra free"]),
                               rtol=0, atol=1e-12)
    assert only.classes_.tolist() == ["ham", "spam"]
    assert replayed.classes_.tolist() == live.classes_.tolist() == ["ham", "spam", "zoo"]
    probe = ["zebra", "okapi free", "lunch"]
    np.testing.assert_allclose(replayed.predict_proba(probe), live.predict_proba(probe), rtol=0, atol=1e-12)


def test_the_term_lookup_kernel_equals_a_binary_search():
    """nbayes._kernels.lookup.find_terms (its NumPy twin: searchsorted plus an equality check)
    over tables built from strings and extended by the learning path."""
    from nbayes.text.online import find as lookup

    rng = np.random.default_rng(11)
    letters = list("abé𝔘zq") + ["\u0130"]
    words = sorted({"".join(rng.choice(letters, rng.integers(1, 12))) for _ in range(400)})
    vocab = np.empty(len(words), dtype=object)
    vocab[:] = words
    table = TermTable(vocab[::2])
    queries = vocab[rng.permutation(len(vocab))[:150]]
    want = np.searchsorted(vocab[::2], queries)
    hit = (want < len(vocab[::2])) & (vocab[::2][np.minimum(want, len(vocab[::2]) - 1)] == queries)
    np.testing.assert_array_equal(lookup(table, queries), np.where(hit, want, -1))
    assert lookup(table, queries[:0]).tolist() == []


def test_a_group_applied_at_once_equals_its_sum_applied():
    """apply_all (the group's terms found by the term table, new ones inserted once, the sum
    added into the model's arrays) gives the statistics, bit for bit, and the summed delta of
    total + apply; with new terms shared by several updates, repeated ones, and a new class."""
    from nbayes.serve._delta import apply_all, total

    rng = np.random.default_rng(8)
    words = [f"w{i}" for i in range(40)] + ["free", "lunch", "prize", "okapi", "zébra"]
    model = nbayes.TextClassifier(alpha=0.5).fit(SPAM + HAM, ["spam"] * 3 + ["ham"] * 3)
    for _ in range(15):
        deltas = []
        for _ in range(rng.integers(1, 5)):
            n = int(rng.integers(1, 4))
            docs = [" ".join(rng.choice(words, rng.integers(1, 9))) for _ in range(n)]
            deltas.append(count(model, docs, list(rng.choice(["spam", "ham", "zoo"], n)), rng.uniform(0.1, 2.0, n).tolist()))
        got, summed = apply_all(model, deltas)
        want_delta = total(deltas)
        want = apply(model, want_delta)
        for k, v in want.stats_.to_arrays().items():
            _same(np.asarray(v), np.asarray(got.stats_.to_arrays()[k]))
        for k, v in want_delta.stats.to_arrays().items():
            _same(np.asarray(v), np.asarray(summed.stats.to_arrays()[k]))
        assert summed.classes.tolist() == want_delta.classes.tolist()
        probe = [" ".join(rng.choice(words, 6)) for _ in range(4)]
        np.testing.assert_array_equal(got.predict_proba(probe), want.predict_proba(probe))
        model = got


def test_deltas_written_in_a_log_are_summed_by_number_as_by_dictionary():
    """Deltas the log has numbered (LogTerms.body, then commit) are summed by their numbers
    (no dictionary look-up per term): the sum equals the dictionary's, bit for bit; a delta
    not numbered, or numbered by another log or not yet committed, takes the dictionary."""
    from nbayes.serve._delta import _by_number, total

    rng = np.random.default_rng(9)
    words = [f"w{i}" for i in range(60)] + ["free", "lunch", "prize", "zébra"]
    model = nbayes.TextClassifier(alpha=0.5).fit(SPAM + HAM, ["spam"] * 3 + ["ham"] * 3)
    for _ in range(10):
        terms = LogTerms(["lunch", "w3"])
        deltas = []
        for _ in range(rng.integers(2, 6)):
            n = int(rng.integers(1, 4))
            docs = [" ".join(rng.choice(words, rng.integers(1, 9))) for _ in range(n)]
            # weights on a grid (quarters): float sums exact, so summed by number (fractional
            # weights keep their exact sums: tests/serve/test_exact_replay.py)
            d = count(model, docs, list(rng.choice(["spam", "ham", "zoo"], n)), (rng.integers(1, 9, n) / 4).tolist())
            terms.body(d)
            deltas.append(d)
        assert _by_number(deltas, terms) is None  # numbers not committed yet
        terms.commit()
        assert _by_number(deltas, terms) is not None and _by_number(deltas, LogTerms()) is None
        by_number, by_dict = total(deltas, terms), total(deltas)
        for k, v in by_dict.stats.to_arrays().items():
            _same(np.asarray(v), np.asarray(by_number.stats.to_arrays()[k]))
        assert by_number.classes.tolist() == by_dict.classes.tolist()
        assert (by_number.rows, by_number.weight) == (by_dict.rows, by_dict.weight)
        deltas[0].numbered = None
        assert _by_number(deltas, terms) is None
