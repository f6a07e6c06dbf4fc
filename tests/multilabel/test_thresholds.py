"""Thresholds from out-of-fold scores: never worse than the default on those scores, and the
best per label where that is checkable by brute force."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import nbayes
from nbayes import MultiLabel
from nbayes.multilabel import read_labels
from nbayes.multilabel._thresholds import f1_thresholds


def _dense(a):
    """A statistics field's values, whether held dense or as CSR (class, term) pairs."""
    return a.toarray() if sp.issparse(a) else np.asarray(a)


def micro(S, Y, t):
    P = S > t
    tp = (P * Y).sum()
    return 2 * tp / (P.sum() + Y.sum())


def macro(S, Y, t):
    P = S > t
    tp, d = (P * Y).sum(0), P.sum(0) + Y.sum(0)
    return np.mean(np.where(d > 0, 2 * tp / np.maximum(d, 1), 0))


@pytest.mark.parametrize("seed", range(6))
def test_macro_is_the_best_cut_per_label_and_micro_beats_the_default(seed):
    rng = np.random.RandomState(seed)
    Y = (rng.rand(80, 5) < rng.uniform(0.05, 0.5, 5)).astype(float)
    S = rng.randn(80, 5) + 1.5 * Y
    S[rng.rand(80, 5) < 0.05] = np.inf
    S[rng.rand(80, 5) < 0.05] = -np.inf
    t = f1_thresholds(S, sp.csr_matrix(Y), "macro")
    for l in range(5):
        cands = np.r_[np.unique(S[:, l]) - 1e-9, np.inf]
        best = max(macro(S[:, [l]], Y[:, [l]], c) for c in cands)
        assert macro(S[:, [l]], Y[:, [l]], t[l]) == pytest.approx(best, abs=1e-12)
    tm = f1_thresholds(S, sp.csr_matrix(Y), "micro")
    assert micro(S, Y, tm) >= micro(S, Y, np.zeros(5)) - 1e-12
    assert micro(S, Y, tm) >= micro(S, Y, t) - 1e-12


@pytest.mark.parametrize("average", ["micro", "macro"])
def test_out_of_fold_f1_at_least_the_default(texts, average):
    docs, tags = texts
    ml = MultiLabel(nbayes.TextClassifier(), threshold=average, cv=3)
    ml._check_params()
    Xv, names = ml._clone().prepare_input(docs, fitting=True)
    Y, labels = read_labels(tags, len(docs))
    _, oof = ml._out_of_fold(docs, Xv, Y, None, None, labels, names)
    ml.fit(docs, tags)
    score = micro if average == "micro" else macro
    Yd = Y.toarray()  # (text: the out-of-fold scores are log-odds per known term, as the thresholds)
    assert score(oof, Yd, ml.thresholds_) >= score(oof, Yd, np.zeros(len(labels)))


def test_a_float_threshold_is_a_probability(counts):
    X, Y = counts
    ml = MultiLabel(nbayes.MultinomialNB(), threshold=0.3, empty="keep").fit(X, Y)
    np.testing.assert_array_equal(ml.predict(X), (ml.predict_proba(X) > 0.3).astype(int))
    np.testing.assert_allclose(ml.thresholds_, np.log(0.3 / 0.7))


@pytest.mark.parametrize("base", [nbayes.TextClassifier(alpha=0.3), nbayes.TextClassifier(model="bernoulli"),
                                  nbayes.TextClassifier(binary=True, fit_prior=False)], ids=repr)
@pytest.mark.parametrize("normalize", ["auto", "none"])
def test_the_text_shortcut_scores_as_the_text_models_per_fold(texts, base, normalize):
    docs, tags = texts
    docs, tags = docs + ["an unseen word here", ""], tags + [["corn"], ["ship"]]
    out = []
    for shortcut in (True, False):
        ml = MultiLabel(base, cv=4, normalize=normalize)
        ml.__dict__["_shortcut"] = shortcut
        ml._check_params()
        Xv, names = ml._clone().prepare_input(docs, fitting=True)
        Y, labels = read_labels(tags, len(docs))
        out.append(ml._out_of_fold(docs, Xv, Y, None, None, labels, names)[1])
    np.testing.assert_allclose(out[0], out[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("base", [nbayes.TextClassifier(alpha=0.3), nbayes.TextClassifier(binary=True)], ids=repr)
def test_the_linear_text_path_with_weights_and_untiled_splits(texts, base):
    """Text multinomial models score every label of a fold by one sparse product (_linear): the
    same statistics and out-of-fold scores as the general path, with sample weights, and with
    splits that leave rows out (no total minus fold)."""
    docs, tags = texts
    w = np.linspace(0.5, 2.0, len(docs))
    untiled = [(np.arange(0, 8), np.arange(8, 11)), (np.arange(3, 12), np.array([0, 1, 2, 9]))]
    for cv in (4, untiled):
        out = []
        for shortcut in (True, False):
            ml = MultiLabel(base, cv=cv)
            ml.__dict__["_shortcut"] = shortcut
            ml._check_params()
            Xv, names = ml._clone().prepare_input(docs, fitting=True)
            Y, labels = read_labels(tags, len(docs))
            out.append(ml._out_of_fold(docs, Xv, Y, w, w, labels, names))
        (S1, s1), (S2, s2) = out
        for f in ("class_count", "term_count", "doc_count", "df", "tf"):  # dense or CSR pairs: the values
            np.testing.assert_allclose(_dense(getattr(S1, f)), _dense(getattr(S2, f)), rtol=1e-12)
        np.testing.assert_allclose(s1, s2, rtol=1e-10, atol=1e-12)
    fitted = MultiLabel(base, threshold=0.5).fit(docs, tags, sample_weight=w)
    for l, lab in enumerate(fitted.classes_):
        one = type(base)(**base.get_params()).fit(docs, [int(lab in t) for t in tags], sample_weight=w)
        j = one.predict_joint_log_proba(docs)
        np.testing.assert_allclose(fitted.decision_function(docs)[:, l], j[:, 1] - j[:, 0], rtol=1e-10, atol=1e-10)
