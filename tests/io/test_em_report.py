"""The EM report (n_iter_, em_converged_, unlabeled_weight_, ...) is saved with the model, comes
back on load, shows in ``nbayes info`` / ``GET /v1/model``, and is checked like every number of
a model file."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import nbayes
from nbayes.errors import ModelFileError
from nbayes.io.info import model_info
from nbayes.io.load import load_with_state
from nbayes.io.model_file import load_state, save_state
from nbayes.semi_supervised import EM_ATTRS

RNG = np.random.default_rng(3)
X = RNG.poisson(1.0, (60, 6))
Y = np.repeat([0, 1], 5)


@pytest.mark.parametrize(
    "make", [nbayes.MultinomialNB, nbayes.BernoulliNB, nbayes.NaiveBayes]
)
def test_em_report_round_trips_and_shows_in_info(tmp_path, make):
    model = make().fit(X[:10], Y, X_unlabeled=X[10:])
    path = tmp_path / "m.nbm"
    model.save(path)
    loaded, state = load_with_state(path)[:2]
    for name in EM_ATTRS:
        want, got = getattr(model, name), getattr(loaded, name)
        if isinstance(want, np.ndarray):
            assert_allclose(got, want, rtol=0)
        else:
            assert got == want, name
    report = model_info(loaded, state, path)["semi_supervised"]
    assert report["unlabeled_rows"] == 50 and report["iterations"] == model.n_iter_
    trace = model.em_log_likelihood_
    assert report["final_log_likelihood"] == (pytest.approx(trace[-1], rel=0) if len(trace) else None)


def test_supervised_model_has_no_report(tmp_path):
    model = nbayes.MultinomialNB().fit(X[:10], Y)
    model.save(tmp_path / "m.nbm")
    loaded, state = load_with_state(tmp_path / "m.nbm")[:2]
    assert not hasattr(loaded, "n_iter_")
    assert "semi_supervised" not in model_info(loaded, state, tmp_path / "m.nbm")


@pytest.mark.parametrize(
    "field, value",
    [("n_iter", -1), ("n_iter", 2.5), ("converged", "yes"), ("unlabeled_weight", float("inf")),
     ("unlabeled_weight", -1.0), ("log_likelihood", [1.0, "x"]), ("n_unlabeled", True),
     ("cv_scores", [[1.0]])],
)
def test_bad_em_report_in_a_file_is_refused(tmp_path, field, value):
    nbayes.MultinomialNB().fit(X[:10], Y, X_unlabeled=X[10:]).save(tmp_path / "m.nbm")
    state = load_state(tmp_path / "m.nbm")
    state["meta"]["em"][field] = value
    save_state(tmp_path / "bad.nbm", state)
    with pytest.raises(ModelFileError, match=f"meta 'em': field '{field}'"):
        nbayes.load(tmp_path / "bad.nbm")


def test_em_wrapper_report_shows_in_info(tmp_path):
    y = np.concatenate([Y.astype(object), np.full(50, "?", dtype=object)])
    model = nbayes.EM(nbayes.MultinomialNB(), unlabeled_label="?").fit(X, y)
    model.save(tmp_path / "em.nbm")
    loaded, state = load_with_state(tmp_path / "em.nbm")[:2]
    report = model_info(loaded, state, tmp_path / "em.nbm")["semi_supervised"]
    assert report["unlabeled_rows"] == 50 and report["iterations"] == model.n_iter_
