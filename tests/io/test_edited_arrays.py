"""Model files whose checksum holds but whose arrays were edited (rewritten with a fresh checksum):
over every model kind ``nbayes.io.load.KINDS`` lists (text settings included), every edited file
either loads and predicts, or is refused with ModelFileError / StatisticsError: never another
exception at load or at predict (issue #27 item 4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes.errors import ModelFileError, StatisticsError
from nbayes.io.load import KINDS
from nbayes.io.model_file import load_state, save_state

DOCS = ["cheap pills now", "meeting at noon", "cheap offer now", "lunch meeting today", "offer ends now",
        "noon agenda"] * 4
Y3 = np.arange(len(DOCS)) % 3
RNG = np.random.default_rng(0)
XC = RNG.integers(0, 3, (24, 4))
XF = XC.astype(float) + RNG.normal(0, 0.3, XC.shape)
FRAME = pd.DataFrame({"n": RNG.normal(size=24), "c": RNG.choice(list("xyz"), 24), "b": RNG.random(24) > 0.5})
WT = np.linspace(0.1, 2.0, len(DOCS)) / 3
FROZEN = {t: 1.0 + 0.5 * (i % 3) for i, t in enumerate(sorted(set(" ".join(DOCS).split())))}
TAGS = [["a"], ["b"], ["a", "c"], ["c"], ["a", "b"], ["b", "c"]] * 4


def _models():
    """(name, fitted model, input to predict on): every kind, text settings included."""
    out = [
        ("MultinomialNB", nbayes.MultinomialNB().fit(XC, Y3), XC),
        ("BernoulliNB", nbayes.BernoulliNB().fit(XC, Y3), XC),
        ("CategoricalNB", nbayes.CategoricalNB().fit(XC, Y3), XC),
        ("ComplementNB", nbayes.ComplementNB().fit(XC, Y3), XC),
        ("GaussianNB", nbayes.GaussianNB().fit(XF, Y3), XF),
        ("NaiveBayes", nbayes.NaiveBayes().fit(FRAME, Y3), FRAME),
        ("GaussianBayes", nbayes.GaussianBayes().fit(XF, Y3), XF),
        ("LogisticRegression", nbayes.LogisticRegression().fit(XF, Y3), XF),
        ("text-vocabulary", nbayes.TextClassifier().fit(DOCS, Y3), DOCS),
        ("text-hashing", nbayes.TextClassifier(n_features=64).fit(DOCS, Y3), DOCS),
        ("text-bigrams", nbayes.TextClassifier(ngram_range=(1, 2)).fit(DOCS, Y3), DOCS),
        ("text-char", nbayes.TextClassifier(analyzer="char_wb", ngram_range=(2, 3)).fit(DOCS, Y3), DOCS),
        ("text-nblr", nbayes.TextClassifier(model="nblr").fit(DOCS, Y3), DOCS),
        # fractional weights: the exact counts' tails (stats/exact/...) are arrays of the file too
        ("text-presence-weighted", nbayes.TextClassifier(binary=True).fit(DOCS, Y3, sample_weight=WT), DOCS),
        ("text-bernoulli-weighted", nbayes.TextClassifier(model="bernoulli").fit(DOCS, Y3, sample_weight=WT), DOCS),
        ("text-hashing-weighted", nbayes.TextClassifier(n_features=32).fit(DOCS, Y3, sample_weight=WT), DOCS),
        ("text-tfidf", nbayes.TextClassifier(tfidf=True).fit(DOCS, Y3), DOCS),
        ("text-tfidf-frozen", nbayes.TextClassifier(tfidf=True, idf=FROZEN).fit(DOCS, Y3, sample_weight=WT), DOCS),
        ("CalibratedClassifier", nbayes.CalibratedClassifier(nbayes.MultinomialNB(), cv=3).fit(XC, Y3), XC),
        ("EM", nbayes.EM(nbayes.MultinomialNB()).fit(XC[:12], Y3[:12], X_unlabeled=XC[12:]), XC),
        ("MultiLabel", nbayes.MultiLabel(nbayes.MultinomialNB(), threshold=0.5).fit(XC, TAGS), XC),
        ("MultiLabel-text", nbayes.MultiLabel(nbayes.TextClassifier(), cv=2).fit(DOCS, TAGS), DOCS),
        ("MultiLabel-nblr", nbayes.MultiLabel(nbayes.TextClassifier(model="nblr"), threshold=0.5).fit(DOCS, TAGS),
         DOCS),
    ]
    return out


MODELS = _models()


def test_every_kind_is_covered():
    assert {type(m).__name__ for _, m, _ in MODELS} >= set(KINDS)


def _edits(a: np.ndarray):
    """(name, edited array): shapes one short, one long, flattened, a column short; impossible
    and extreme numbers."""
    if a.ndim >= 1 and a.shape[0] > 0:
        yield "short", a[:-1]
        yield "long", np.concatenate([a, a[-1:]])
    if a.ndim == 2 and a.shape[1] > 0:
        yield "column short", a[:, :-1]
        yield "flat", a.ravel()
    if a.ndim == 1 and a.size > 1:
        yield "as a column", a.reshape(-1, 1)
    if a.dtype.kind == "f" and a.size:  # a whole array rescaled: cross-statistic invariants
        yield "doubled", a * 2
        yield "halved", a / 2
    if a.dtype.kind == "f" and a.size:
        for v in (-1.0, np.nan, np.inf, 1e308, 0.0):
            b = a.copy()
            b.flat[0] = v
            yield f"first = {v}", b
    if a.dtype.kind in "iu" and a.size:
        for v in (0 if a.dtype.kind == "u" else -1, int(np.iinfo(a.dtype).max)):
            b = a.copy()
            b.flat[0] = v
            yield f"first = {v}", b


def _label_edits(a: np.ndarray):
    """(name, edited label array): one short, one long, a value twice, a value of another type,
    a missing value."""
    if len(a) > 1:
        yield "short", a[:-1]
        yield "long", np.concatenate([a, a[-1:]])
        b = a.copy()
        b[1] = b[0]
        yield "a value twice", b
    if len(a):
        for v in (12345 if isinstance(a[0], str) else "x", None):
            b = np.empty(len(a), dtype=object)
            b[:] = a.tolist()
            b[0] = v
            yield f"first = {v!r}", b


def _predicts(path, X):
    try:
        m = nbayes.load(path)
    except (ModelFileError, StatisticsError):
        return
    # no overflow warning either (the suite turns warnings into errors): a huge number loads and
    # predicts finite probabilities, or is refused
    m.predict(X)
    assert np.isfinite(m.predict_proba(X)).all()


@pytest.mark.parametrize(("name", "model", "X"), MODELS, ids=[n for n, _, _ in MODELS])
def test_edited_arrays_load_and_predict_or_are_refused(tmp_path, name, model, X):
    path = tmp_path / "m.nbm"
    model.save(path)
    state = load_state(path)
    failures = []
    for key, a in state["arrays"].items():
        edits = _edits(np.asarray(a)) if a.dtype.kind in "biuf" else _label_edits(np.asarray(a))
        for what, b in edits:
            save_state(path, {**state, "arrays": {**state["arrays"], key: b}})  # a fresh, valid checksum
            try:
                _predicts(path, X)
            except Exception as exc:  # noqa: BLE001 - the law: no other exception
                failures.append(f"{key} {what}: {type(exc).__name__}: {str(exc)[:120]}")
    assert not failures, "\n".join(failures)


TEXT = [(n, m, X) for n, m, X in MODELS if n.startswith("text-")]


@pytest.mark.parametrize(("name", "model", "X"), TEXT, ids=[n for n, _, _ in TEXT])
def test_an_edited_text_file_that_loads_saves_a_file_that_loads(tmp_path, name, model, X):
    """Text kinds: what an edited file loads as is a model whose statistics keep every invariant
    (stats.text_checks), so it saves a file that loads back (save never writes what load refuses)."""
    path, again = tmp_path / "m.nbm", tmp_path / "again.nbm"
    model.save(path)
    state = load_state(path)
    loaded = 0
    for key, a in state["arrays"].items():
        if a.dtype.kind not in "biuf":
            continue
        for what, b in _edits(np.asarray(a)):
            save_state(path, {**state, "arrays": {**state["arrays"], key: b}})
            try:
                m = nbayes.load(path)
            except (ModelFileError, StatisticsError):
                continue
            loaded += 1
            m.stats_.check(n_classes=len(m.classes_))
            m.save(again)
            nbayes.load(again)
    assert loaded > 0  # (edits a model survives: a count of 0 somewhere, a larger class weight)
