"""nbayes.active: suggestions, the registered pool, expected error reduction, the stopping rule."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import nbayes
from nbayes.active import STRATEGIES, Pool, StabilizingPredictions, kappa, suggest
from nbayes.errors import DataError, InvalidParameterError

WORDS = ["ball", "goal", "team", "match", "vote", "party", "election", "law", "code", "bug", "python", "deploy"]


def corpus(rng: np.random.Generator, n: int) -> tuple[list[str], np.ndarray]:
    y = rng.integers(0, 3, size=n)
    docs = []
    for c in y:
        own = WORDS[4 * c: 4 * c + 4]
        words = rng.choice(own, size=6).tolist() + rng.choice(WORDS, size=rng.integers(0, 4)).tolist()
        docs.append(" ".join(words))
    return docs, np.array(["sport", "politics", "tech"])[y]


@pytest.fixture
def setting(rng):
    docs, y = corpus(rng, 200)
    model = nbayes.TextClassifier(alpha=0.5).fit(docs[:9], y[:9])
    return model, docs, y


def test_the_pool_scores_as_the_model_predicts(setting):
    model, docs, _ = setting
    pool = Pool(model, docs + ["an unseen word only", "ball ball zebra"])
    assert_allclose(pool.log_proba(), model.predict_log_proba(docs + ["an unseen word only", "ball ball zebra"]),
                    atol=1e-9)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_strategy_returns_k_distinct_unlabelled_rows(setting, strategy):
    model, docs, _ = setting
    pool = Pool(model, docs)
    pool.mark(range(0, 50))
    pick = suggest(model, pool, 12, strategy=strategy, random_state=0, n_candidates=30, n_evaluate=60)
    assert len(pick) == 12 and len(set(pick.tolist())) == 12
    assert np.all(pick >= 50) and np.all(pick < len(docs))
    # the simple call (rows, not a pool) gives the same as an unmarked pool
    if strategy != "random":
        assert_allclose(suggest(model, docs, 5, strategy=strategy, random_state=0, n_candidates=30, n_evaluate=60),
                        suggest(model, Pool(model, docs), 5, strategy=strategy, random_state=0, n_candidates=30,
                                n_evaluate=60))


def test_uncertainty_picks_the_least_certain():
    model = nbayes.TextClassifier().fit(["ball goal", "vote party"], ["sport", "politics"])
    pool = ["ball goal ball", "ball vote", "vote party vote", "goal party"]
    assert sorted(suggest(model, pool, 2, strategy="least_confident").tolist()) == [1, 3]
    assert sorted(suggest(model, pool, 2, strategy="margin").tolist()) == [1, 3]
    assert sorted(suggest(model, pool, 2, strategy="entropy").tolist()) == [1, 3]


def test_expected_error_equals_refitting_per_candidate_and_label(setting, rng):
    """The statistics update equals the model refitted with the candidate under each label."""
    from nbayes.active._strategies import expected_error

    model, docs, y = setting
    train = list(docs[:9])
    pool = Pool(model, docs)
    cand = np.array([20, 31, 47])
    evaluate = np.arange(60, 120)
    # only candidates whose every word the model already knows (the update leaves a new vocabulary out)
    known = set(model.vocabulary_)
    cand = np.array([c for c in range(20, 200) if set(docs[c].split()) <= known][:3])
    got = expected_error(pool, cand, evaluate)
    want = []
    for j in cand:
        P = model.predict_proba([docs[j]])[0]
        total = 0.0
        for c, label in enumerate(model.classes_):
            refit = nbayes.TextClassifier(alpha=0.5).fit(train + [docs[j]], np.append(y[:9], label))
            total += P[c] * float(np.sum(1.0 - refit.predict_proba([docs[i] for i in evaluate]).max(axis=1)))
        want.append(total)
    assert_allclose(got, want, rtol=1e-7)


def test_expected_error_needs_a_multinomial_text_model(rng):
    X = rng.integers(0, 3, size=(30, 4))
    model = nbayes.MultinomialNB().fit(X, rng.integers(0, 2, size=30))
    with pytest.raises(InvalidParameterError, match="multinomial text model"):
        suggest(model, X, 3, strategy="expected_error")
    assert len(suggest(model, X, 3, strategy="entropy")) == 3  # other strategies take any model


def test_pool_errors(setting):
    model, docs, _ = setting
    with pytest.raises(DataError, match="no rows"):
        Pool(model, [])
    pool = Pool(model, docs[:5])
    pool.mark(range(5))
    with pytest.raises(InvalidParameterError, match="every row of the pool is labelled"):
        suggest(model, pool, 2)
    with pytest.raises(InvalidParameterError, match="'strategy' must be one of"):
        suggest(model, docs, 2, strategy="committee")


def test_kappa_and_the_stopping_rule():
    assert kappa(np.array([0, 1, 0, 1]), np.array([0, 1, 0, 1])) == 1.0
    assert_allclose(kappa(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])), 0.0)
    stop = StabilizingPredictions(threshold=0.99, window=2)

    class Fixed:
        def __init__(self, pred):
            self.pred = pred

        def predict(self, X):
            return self.pred

    a, b = np.array([0, 1, 2, 1]), np.array([0, 1, 1, 1])
    assert not stop.update(Fixed(a))
    assert not stop.update(Fixed(b))
    assert not stop.update(Fixed(b))  # one stable round of two
    assert stop.update(Fixed(b))
    assert stop.kappas[-2:] == [1.0, 1.0]


def test_a_pool_of_documents_without_a_term_is_still_a_pool():
    """Documents with no token (empty, punctuation) count nothing: a pool of them is scored by
    the prior alone, not refused as an empty vocabulary."""
    model = nbayes.TextClassifier().fit(["free prize", "lunch home", "free cash"], ["s", "h", "s"])
    pool = Pool(model, ["", "!!", "?"])
    assert pool.counts.shape == (3, 0)
    np.testing.assert_allclose(pool.log_proba(), model.predict_log_proba(["", "!!", "?"]), rtol=1e-12)
    for strategy in STRATEGIES:
        picks = suggest(model, pool, 2, strategy=strategy, random_state=0)
        assert len(set(picks.tolist())) == 2 and set(picks.tolist()) <= {0, 1, 2}
