"""CORRECTNESS "weights and magnitudes": a uniform weight, or a uniform rescaling of a feature,
gives the same predictions up to where float64 overflows; past that, one clear error naming the
column (or the weights), never inf/NaN parameters used silently and never a numpy warning
(pytest turns warnings into failures)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import nbayes
from nbayes.errors import DataError

RNG = np.random.default_rng(7)
COUNTS = RNG.poisson(2.0, (40, 5)).astype(float)
REALS = RNG.normal(0.0, 1.0, (40, 5)) + np.repeat([[0.0], [1.5]], 20, axis=0)
CODES = RNG.integers(0, 3, (40, 5))
Y = np.repeat([0, 1], 20)

# models whose estimates are invariant under a uniform weight (smoothing in weight units is not:
# alpha=0 / var_smoothing relative to the data's own variance)
WEIGHT_INVARIANT = [
    (lambda: nbayes.GaussianNB(), REALS),
    (lambda: nbayes.MultinomialNB(alpha=0.0), COUNTS),
    (lambda: nbayes.BernoulliNB(alpha=0.0, binarize=1.5), COUNTS),
    (lambda: nbayes.CategoricalNB(alpha=0.0), CODES),
]


@pytest.mark.parametrize("make, X", WEIGHT_INVARIANT)
@settings(max_examples=15, deadline=None)
@given(exponent=st.floats(-300.0, 300.0))
def test_uniform_weight_changes_nothing(make, X, exponent):
    w = np.full(len(Y), 10.0**exponent)
    expected = make().fit(X, Y).predict_proba(X)
    assert_allclose(make().fit(X, Y, sample_weight=w).predict_proba(X), expected, rtol=1e-9, atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(exponent=st.floats(-150.0, 150.0), column=st.integers(0, 4))
def test_gaussian_feature_rescaling_changes_nothing(exponent, column):
    scale = np.ones(5)
    scale[column] = 10.0**exponent
    expected = nbayes.GaussianNB(var_smoothing=0.0).fit(REALS, Y).predict_proba(REALS)
    got = nbayes.GaussianNB(var_smoothing=0.0).fit(REALS * scale, Y).predict_proba(REALS * scale)
    assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "make, X",
    [(m, X) for m, X in WEIGHT_INVARIANT] + [(lambda: nbayes.MultinomialNB(), COUNTS)],
)
def test_weights_past_float64_are_one_clear_error(make, X):
    with pytest.raises(DataError, match=r"^sample_weight: .*overflow.*rescale the weights"):
        make().fit(X, Y, sample_weight=np.full(len(Y), 1e308))


@pytest.mark.parametrize("make", [nbayes.MultinomialNB, nbayes.ComplementNB, nbayes.GaussianNB])
def test_overflow_across_partial_fit_is_refused_and_changes_nothing(make):
    X = np.abs(REALS)
    w = np.full(len(Y), 1e306)
    model = make().partial_fit(X, Y, classes=[0, 1], sample_weight=w)
    for _ in range(200):  # the sums pass 1.8e308 within a few hundred chunks
        before = model.predict_proba(X)
        try:
            model.partial_fit(X, Y, sample_weight=w)
        except DataError as err:
            assert "rescale" in str(err)
            break
    else:
        pytest.fail("200 chunks of weight 1e306 never overflowed")
    assert_allclose(model.predict_proba(X), before, rtol=0, atol=0)  # the refused chunk left no trace


def test_squares_past_float64_name_the_column():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(REALS, columns=["a", "b", "c", "d", "e"])
    frame["d"] *= 1e300
    with pytest.raises(DataError, match=r"^X: .*column 'd' .* overflows"):
        nbayes.GaussianNB().fit(frame, Y)
    frame["d"] /= 1e150  # squares back within range: fits, same as the unscaled column
    expected = nbayes.GaussianNB(var_smoothing=0.0).fit(REALS, Y).predict_proba(REALS)
    got = nbayes.GaussianNB(var_smoothing=0.0).fit(frame, Y).predict_proba(frame)
    assert_allclose(got, expected, rtol=1e-9)
