"""nbayes.text.online.add_counts (the learning service's update in time proportional to the
update) equals the full estimation over the summed statistics bit for bit, and the model
trained offline on the same documents to 1e-12, through learning, unlearning to zero (terms
leave the vocabulary) and learning again; its kernels (nbayes._kernels.online) equal their
NumPy twins."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import nbayes
from nbayes._kernels.online import extend_slots, inserted, merge_pairs, merge_rows, renumbered
from nbayes._validation import encode_labels, sorted_unique
from nbayes.stats.text_insert import _Update, _updates
from nbayes.text.online import add_counts, built, find, online_ready
from nbayes.text.vocab import Pairs, TermTable

LETTERS = list("abcdé") + ["𝔘"]


# ----------------------------------------------------------------------------- NumPy twins
def _keys(V: int, ins: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(new_id, key, known) of every new column: an old term's old id, a new term's insertion point."""
    new_id = np.arange(V) + np.searchsorted(ins, np.arange(V), side="right")
    np.testing.assert_array_equal(renumbered(V, ins), new_id)
    key = np.empty(V + len(ins), dtype=np.int64)
    known = np.ones(V + len(ins), dtype=bool)
    key[new_id] = np.arange(V)
    fresh = ins + np.arange(len(ins))
    key[fresh], known[fresh] = ins, False
    return new_id, key, known


@st.composite
def _case(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    K, V = draw(st.integers(1, 5)), draw(st.integers(0, 30))
    old = rng.integers(0, 3, (K, V)).astype(float) * (rng.random((K, V)) < 0.4)
    ins = np.sort(rng.integers(0, V + 1, draw(st.integers(0, 6)))).astype(np.int64)
    Vn = V + len(ins)
    up = rng.integers(0, 3, (K, Vn)).astype(float) * (rng.random((K, Vn)) < 0.3)
    fresh = ins + np.arange(len(ins))
    up[:, fresh] += rng.random((K, len(ins))) < 0.5  # new terms: some counted
    return old, ins, up


@settings(max_examples=150, deadline=None)
@given(_case())
def test_merge_rows_equals_inserting_columns_and_adding(case):
    old, ins, up = case
    m, u = sp.csr_matrix(old), sp.csr_matrix(up)
    m.sort_indices()
    u.sort_indices()
    new_id, key, known = _keys(old.shape[1], ins)
    args = (ins, u.indptr.astype(np.int64), key[u.indices], known[u.indices], u.indices.astype(np.int64), u.data)
    indptr, indices, data, data2, at, sums = merge_rows(m.indptr.astype(np.int64), m.indices, m.data, np.zeros(0),
                                                        *args, np.zeros(0), 1)
    assert len(data2) == 0
    want = np.insert(old, ins, 0.0, axis=1) + up
    got = sp.csr_matrix((data, indices, indptr), shape=want.shape)
    np.testing.assert_array_equal(got.toarray(), want)
    assert got.nnz == int((want != 0).sum()) and got.has_sorted_indices
    np.testing.assert_array_equal(data[at], want[np.repeat(np.arange(len(up)), np.diff(u.indptr)), u.indices])
    rows = np.repeat(np.arange(len(want)), np.diff(indptr))
    np.testing.assert_array_equal(sums, np.bincount(rows, weights=data, minlength=len(want)))  # the same order
    # a second matrix and update of the same patterns (document counts beside term counts): in
    # the same pass, the same indices, each as merged alone; the sums of the second
    old2, up2 = old * 0.5 + (old != 0) * 0.25, up * 3.0 + (up != 0)
    m2, u2 = sp.csr_matrix(old2), sp.csr_matrix(up2)
    both = merge_rows(m.indptr.astype(np.int64), m.indices, m.data, m2.data, *args, u2.data, 2)
    alone = merge_rows(m2.indptr.astype(np.int64), m2.indices, m2.data, np.zeros(0), *args[:-1], u2.data,
                       np.zeros(0), 1)
    for k in (0, 1, 4):
        np.testing.assert_array_equal(both[k], (indptr, indices, at)[(0, 1, 4).index(k)])
    np.testing.assert_array_equal(both[2], data)
    np.testing.assert_array_equal(both[3], alone[2])
    np.testing.assert_array_equal(both[5], alone[5])


@settings(max_examples=150, deadline=None)
@given(_case())
def test_merge_pairs_equals_the_pairs_of_the_new_table(case):
    old, ins, up = case
    weight = np.where(old != 0, old * 10 + 1, 0.0)  # pairs by term: CSC of the classes x terms table
    cw = sp.csc_matrix(weight)
    cw.sort_indices()
    u = sp.csc_matrix(up)
    u.sort_indices()
    up_terms = np.repeat(np.arange(up.shape[1]), np.diff(u.indptr))
    new_id, key, known = _keys(old.shape[1], ins)
    indptr, cls, delta = merge_pairs(cw.indptr.astype(np.int64), cw.indices.astype(np.int64), cw.data,
                                     new_id if len(ins) else new_id[:0], up.shape[1], up_terms, key[up_terms],
                                     known[up_terms], u.indices.astype(np.int64), -u.data)
    want = np.insert(weight, ins, 0.0, axis=1)
    touched = up != 0
    want[touched] = -up[touched]  # the update's weight replaces the old one
    got = sp.csc_matrix((delta, cls, indptr), shape=want.shape)
    np.testing.assert_array_equal(got.toarray(), want)
    assert got.has_sorted_indices and got.nnz == int((want != 0).sum())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_update_entries_equal_the_sorted_entries(seed, same):
    """The compiled pass over an update's counts (update_entries, via _updates) gives the
    entries the NumPy sort gives, dense or CSR; document counts of another pattern fall back."""
    rng = np.random.default_rng(seed)
    K = int(rng.integers(1, 6))
    Kd, T = int(rng.integers(1, K + 1)), int(rng.integers(0, 30))
    cpos = np.sort(rng.choice(K, Kd, replace=False)).astype(np.int64)
    pos = np.cumsum(rng.integers(1, 4, T)).astype(np.int64)
    key, known = rng.integers(0, 50, T).astype(np.int64), rng.random(T) < 0.7
    A = rng.integers(1, 4, (Kd, T)) * (rng.random((Kd, T)) < 0.5).astype(float)
    B = np.where(A != 0, rng.integers(1, 3, (Kd, T)), 0).astype(float)
    if not same and A.size:
        B.flat[int(rng.integers(0, A.size))] += 1.0  # maybe a document count where no term count is
    for tc, dc in ((A, B), (sp.csr_matrix(A), sp.csr_matrix(B))):
        fast = _updates(tc, dc, cpos, pos, key, known, K)
        shared = bool(np.array_equal(A != 0, B != 0))
        assert (fast[0].rows is fast[1].rows) == shared  # the compiled pass exactly when one pattern
        for f, m in zip(fast, (tc, dc)):
            slow = _Update(m, cpos, pos, key, known, K)
            for name in ("rows", "cols", "vals", "key", "known", "ptr"):
                got, want = getattr(f, name), getattr(slow, name)
                assert got.dtype == want.dtype
                np.testing.assert_array_equal(got, want)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 30), st.integers(0, 6))
def test_inserted_equals_np_insert(seed, n, k):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    ins = np.sort(rng.integers(0, n + 1, k)).astype(np.int64)
    values = rng.normal(size=k)
    np.testing.assert_array_equal(inserted(a, ins, values), np.insert(a, ins, values))
    np.testing.assert_array_equal(inserted(a.astype(np.int64), ins, values.astype(np.int64)),
                                  np.insert(a.astype(np.int64), ins, values.astype(np.int64)))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 60), st.integers(1, 12))
def test_an_extended_table_finds_every_term_at_its_sorted_id(seed, n_old, n_new):
    """extend_slots (ids renumbered around the inserted terms, the new ones added) against a
    binary search over the sorted terms (the NumPy twin of a table lookup)."""
    rng = np.random.default_rng(seed)
    words = sorted({"".join(rng.choice(LETTERS, rng.integers(1, 10))) for _ in range(n_old + n_new + 20)})
    words = np.array(words, dtype=object)
    pick = rng.permutation(len(words))
    old, fresh = np.sort(words[pick[:n_old]]), np.sort(words[pick[n_old:n_old + n_new]])
    table = TermTable(old)
    ins = np.searchsorted(old, fresh).astype(np.int64)
    terms = np.insert(old, ins, fresh)
    from nbayes.text.online import code_points

    cps, start, length = code_points(fresh)
    slots = extend_slots(table.slots, renumbered(len(old), ins), cps, start, length, ins + np.arange(len(ins)))
    all_cps = np.concatenate([table.cps, cps])
    new = TermTable.from_parts(terms, slots, np.insert(table.start, ins, start + len(table.cps)),
                               np.insert(table.length, ins, length), all_cps, table.how)
    np.testing.assert_array_equal(find(new, words), [int(np.flatnonzero(terms == w)[0]) if w in set(terms) else -1
                                                     for w in words.tolist()])
    np.testing.assert_array_equal(table.slots[0::2] == -1, table.slots[0::2] == -1)  # the old table untouched
    np.testing.assert_array_equal(find(table, old), np.arange(len(old)))


# ----------------------------------------------------------------------------- the update
def _docs(rng, vocab, n):
    return [" ".join(rng.choice(vocab, rng.integers(1, 9))) for _ in range(n)]


def _delta(model, docs, labels, w):
    Xv, _ = model.prepare_input(docs, fitting=False)
    y = np.asarray(labels, dtype=object)
    classes = sorted_unique(y)
    codes, _ = encode_labels(y, classes)
    return model.count_statistics(Xv, codes, len(classes), None if w is None else np.asarray(w, dtype=float)), classes


def _full(model, d, classes):
    pos, _ = encode_labels(classes, model.classes_)
    want = copy.copy(model)
    want.set_statistics(model.stats_ + d.embed(pos, len(model.classes_)), model.classes_, model.n_features_in_, None)
    return want


def _bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    if a.dtype.kind == "f":
        np.testing.assert_array_equal(a.view(np.uint64), b.astype(np.float64).view(np.uint64))
    else:
        assert a.tolist() == b.tolist()


def _same_model(got, want):
    for k, v in want.stats_.to_arrays().items():
        _bits(got.stats_.to_arrays()[k], v)
    for field in ("indptr", "cls", "delta", "base"):
        _bits(getattr(got._pairs, field), getattr(want._pairs, field))
    # the rows of the frequent terms, built by the writer (not by the version's first
    # prediction), equal those the full estimation's pairs build on demand
    assert got._pairs._heavy is not None
    for a, b in zip(got._pairs.heavy(), want._pairs.heavy()):
        _bits(a, b)
    for key in ("_intercept", "class_log_prior_", "_const", "_terms", "_keep"):
        _bits(getattr(got, key), getattr(want, key))
    np.testing.assert_array_equal(find(got._table, want._terms), np.arange(len(want._terms)))


SETTINGS = [
    dict(),
    dict(alpha=0.3, binary=True),
    dict(ngram_range=(1, 2), fit_prior=False),
    dict(alpha=2.0, class_prior=[0.2, 0.3, 0.5]),
]


@pytest.mark.parametrize("params", SETTINGS)
def test_updates_equal_the_full_estimation_and_the_offline_model(params):
    """Random updates (new terms, weights, a subset of the classes) then unlearning to zero of
    some documents and learning again: each update equals set_statistics(stats_ + update) bit
    for bit, and the model equals the one fitted offline on the documents it holds."""
    rng = np.random.default_rng(len(str(params)))
    vocab = [f"w{i}" for i in range(30)] + ["zébra", "𝔘nicode", "a", "ab", "abc"]
    classes = ["ham", "spam", "zoo"]
    docs, labels, weights = _docs(rng, vocab[:12], 6), ["ham", "spam", "zoo"] * 2, [1.0] * 6
    model = nbayes.TextClassifier(**params).fit(docs, labels, sample_weight=weights)
    probe = _docs(rng, vocab, 8) + ["never seen words"]
    for step in range(25):
        n = int(rng.integers(1, 5))
        new_docs = _docs(rng, vocab + [f"fresh{step}_{i}" for i in range(4)], n)
        new_labels = rng.choice(classes[: int(rng.integers(1, 4))], n).tolist()
        w = (rng.integers(0 if step % 3 == 1 else 1, 4, n) * 0.5).tolist()  # some documents weigh 0
        d, cls = _delta(model, new_docs, new_labels, w)
        assert online_ready(model)
        got = add_counts(model, d, cls)
        assert got is not None
        _same_model(got, _full(model, d, cls))
        model = got
        docs, labels, weights = docs + new_docs, labels + new_labels, weights + w
        if step % 8 == 7:  # forget the documents of the last two updates' terms: they leave the vocabulary
            k = len(new_docs)
            model = copy.copy(model).unlearn(docs[-k:], labels[-k:], sample_weight=weights[-k:])
            docs, labels, weights = docs[:-k], labels[:-k], weights[:-k]
            assert not any(f"fresh{step}_" in t for t in model._terms.tolist())
        offline = nbayes.TextClassifier(**params).fit(docs, labels, sample_weight=weights)
        assert model._terms.tolist() == offline._terms.tolist()
        np.testing.assert_allclose(model.predict_proba(probe), offline.predict_proba(probe), rtol=0, atol=1e-12)
        np.testing.assert_allclose(model.predict_joint_log_proba(probe), offline.predict_joint_log_proba(probe),
                                   rtol=1e-12, atol=1e-12)


def test_the_served_version_is_never_written():
    """Copy-on-write: after many updates from one version (including a second version from the
    same parent), the parent's arrays and answers are what they were."""
    rng = np.random.default_rng(3)
    vocab = [f"w{i}" for i in range(20)]
    model = nbayes.TextClassifier().fit(_docs(rng, vocab, 10), ["a", "b"] * 5)
    probe = _docs(rng, vocab, 5) + ["fresh0 fresh1 w1"]
    for _ in range(3):
        model = add_counts(model, *_delta(model, ["fresh0 w1 new"], ["a"], None))
    before = model.predict_proba(probe)
    snapshot = {k: copy.deepcopy(v) for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    slots = model._table.slots.copy()
    one = add_counts(model, *_delta(model, ["fresh1 w2 other"], ["b"], None))
    two = add_counts(model, *_delta(model, ["fresh2 w3 zzz"], ["a"], None))  # from the same parent
    np.testing.assert_array_equal(model.predict_proba(probe), before)
    np.testing.assert_array_equal(model._table.slots, slots)
    for k, v in snapshot.items():
        np.testing.assert_array_equal(getattr(model, k), v)
    assert find(one._table, np.array(["fresh1", "fresh2"], dtype=object)).tolist()[1] == -1
    assert find(two._table, np.array(["fresh1", "fresh2"], dtype=object)).tolist()[0] == -1
    assert min(find(two._table, two._terms).tolist() + [0]) >= 0


@pytest.mark.parametrize("params", [dict(min_df=2), dict(max_df=0.6), dict(max_df=6), dict(min_df=0.25),
                                    dict(min_df=2, max_df=0.8)])
def test_the_filters_keep_every_term_exactly_when_the_online_path_is_taken(params):
    """With a document-frequency filter, an update takes the online path exactly when the full
    estimation keeps every term (it looks only at the update's terms when the bounds cannot
    have moved against the others), and then equals it bit for bit."""
    rng = np.random.default_rng(len(str(params)))
    vocab = [f"w{i}" for i in range(8)]
    ready = took = 0
    for step in range(60):
        docs = ["w0 w1 w2 w3", "w4 w5 w6 w7"] * 2 + _docs(rng, vocab, int(rng.integers(1, 7)))
        model = nbayes.TextClassifier(**params).fit(docs, (["a", "b"] * len(docs))[: len(docs)])
        if not online_ready(model):
            continue
        ready += 1
        new = _docs(rng, vocab + [f"new{step}"], int(rng.integers(1, 4)))
        d, cls = _delta(model, new, rng.choice(["a", "b"], len(new)).tolist(), None)
        want = _full(model, d, cls)
        got = add_counts(model, d, cls)
        assert (got is not None) == bool(want._active(want.stats_).all())
        if got is not None:
            _same_model(got, want)
            took += 1
    assert ready >= 5 and took >= 1, (ready, took)


@pytest.mark.parametrize("params", [dict(min_df=2), dict(model="complement"), dict(model="bernoulli"),
                                    dict(n_features=64), dict(max_features=5)])
def test_other_models_take_the_general_path(params):
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(10)]
    model = nbayes.TextClassifier(**params).fit(_docs(rng, vocab, 10) + ["w1 w2"] * 4, ["a", "b"] * 7)
    d, cls = _delta(model, ["w1 brand new"], ["a"], None)
    assert add_counts(model, d, cls) is None
    # what a first prediction would build, built by the service's writer, equals it bit for bit
    fresh = copy.copy(model)
    fresh.set_statistics(model.stats_, model.classes_, model.n_features_in_, model.input_feature_names())
    pairs = fresh.__dict__.get("_pairs")
    if pairs is not None:
        assert pairs._heavy is None
        built(fresh)
        want = Pairs(pairs.indptr, pairs.cls, pairs.delta, pairs.base).heavy()
        for a, b in zip(pairs._heavy, want):
            _bits(a, b)
    probe = _docs(rng, vocab, 4) + ["brand new"]
    np.testing.assert_array_equal(built(fresh).predict_proba(probe), model.predict_proba(probe))


def test_a_model_read_from_its_file_takes_the_online_path(tmp_path):
    """What the service loads (CSR counts from the file, pairs estimated from them) is ready for
    add_counts, and so is each version it makes."""
    rng = np.random.default_rng(5)
    vocab = [f"w{i}" for i in range(30)]
    nbayes.TextClassifier().fit(_docs(rng, vocab, 20), ["a", "b"] * 10).save(tmp_path / "m.nbm")
    model = nbayes.load(tmp_path / "m.nbm")
    for i in range(3):
        assert online_ready(model)
        model = add_counts(model, *_delta(model, [f"new{i} w1 w2"], ["b"], None))
        assert model is not None
