"""The statistics protocol's laws on each statistics type: the statistics of a union are the
sum of the parts' (in any order), subtracting a part gives the rest, embedding into a larger
class set adds zero rows, the check accepts what data produced and files round-trip."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from nbayes.errors import StatisticsError, UnlearnError
from nbayes.stats import CountStats, MomentStats, Statistics

KINDS = {"counts": CountStats, "moments": MomentStats}


def _batch(seed: int, n: int, kind: str, K: int = 3, d: int = 4):
    rng = np.random.default_rng(seed)
    X = rng.poisson(2.0, (n, d)).astype(float) if kind == "counts" else rng.normal(5.0, 3.0, (n, d))
    codes = rng.integers(0, K, n)
    w = rng.random(n) + 0.1
    return X, codes, w


def _core(s: Statistics) -> list:
    """The arrays of the values (the tails of their exact sums, stats/exact/..., aside: sums of
    the same rows in other batches agree to rounding, not bit for bit)."""
    return sorted((k, v) for k, v in s.to_arrays().items() if not k.startswith("stats/exact/"))


def _close(a: Statistics, b: Statistics) -> None:
    for (ka, va), (kb, vb) in zip(_core(a), _core(b)):
        assert ka == kb
        assert_allclose(va, vb, rtol=1e-9, atol=1e-9, err_msg=ka)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n1=st.integers(1, 30), n2=st.integers(1, 30),
       kind=st.sampled_from(sorted(KINDS)))
def test_union_is_sum_and_subtraction_inverts(seed, n1, n2, kind):
    S = KINDS[kind]
    X, codes, w = _batch(seed, n1 + n2, kind)
    whole = S.of(X, codes, 3, w)
    a, b = S.of(X[:n1], codes[:n1], 3, w[:n1]), S.of(X[n1:], codes[n1:], 3, w[n1:])
    _close(a + b, whole)
    _close(b.merge(a), whole)
    # subtracting the batch added gives the statistics back bit for bit (stats.exact)
    back = (a + b).subtract(b, np.arange(3))
    for (ka, va), (kb, vb) in zip(sorted(back.to_arrays().items()), sorted(a.to_arrays().items())):
        assert ka == kb and va.tobytes() == vb.tobytes(), ka
    whole.check(n_classes=3, n_features=4)
    assert isinstance(whole, Statistics)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_embed_adds_empty_classes_and_files_round_trip(kind):
    S = KINDS[kind]
    X, codes, w = _batch(1, 20, kind)
    s = S.of(X, codes, 3, w)
    big = s.embed(np.array([0, 2, 3]), 5)
    assert big.class_count[[1, 4]].tolist() == [0.0, 0.0]
    assert_allclose(big.class_count[[0, 2, 3]], s.class_count)
    big.check(n_classes=5)
    _close(S.from_arrays(s.to_arrays()), s)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_subtracting_more_than_learned_names_the_class(kind):
    S = KINDS[kind]
    X, codes, w = _batch(2, 20, kind)
    s = S.of(X, codes, 3, w)
    assert s.class_count[0] > 0
    with pytest.raises(UnlearnError, match="of class 'a'"):
        s.subtract(S.of(X, codes, 3, w * 2), np.array(["a", "b", "c"]))


def test_check_refuses_impossible_statistics():
    s = CountStats(np.array([1.0, 2.0]), np.array([[1.0, 0.0], [2.0, 4.0]]), np.array([[2.0, 0.0], [0.0, 0.0]]))
    with pytest.raises(StatisticsError, match="missing_count.*more than its class's weight"):
        s.check()
    with pytest.raises(StatisticsError, match="expected shape"):
        CountStats(np.array([1.0]), np.ones((2, 2))).check()
    m = MomentStats(np.array([1.0]), np.array([[0.0]]), np.array([[3.0]]), np.array([[0.0]]))
    with pytest.raises(StatisticsError, match="no weight but a mean"):
        m.check()
