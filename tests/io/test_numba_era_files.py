"""Files written by the numba build load and predict identically under the compiled kernels, and
the same data writes the same bytes (issue #26: the port changes no model file)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from threadpoolctl import threadpool_limits

import nbayes

from .numba_era import THREADS, fitted, models

HERE = Path(__file__).parent / "fixtures" / "numba_era"
EXPECTED = json.loads((HERE / "expected.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(models()))
def test_a_numba_era_file_predicts_as_it_did(name: str) -> None:
    model = nbayes.load(HERE / f"{name}.nbm")
    _, X_test = fitted(name)
    want = EXPECTED[name]
    assert [str(p) for p in model.predict(X_test)] == want["predict"]
    assert_allclose(model.predict_log_proba(X_test), np.array(want["log_proba"]), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("name", sorted(models()))
def test_the_same_data_writes_the_same_bytes(name: str, tmp_path: Path) -> None:
    """Refitted with the compiled kernels on the numba build's thread count (sums split over the
    threads are merged in their order), the file is the numba build's byte for byte."""
    with threadpool_limits(limits=THREADS, user_api="openmp"):
        model, X_test = fitted(name)
    model.save(tmp_path / "m.nbm")
    old = nbayes.load(HERE / f"{name}.nbm")
    if name in WEIGHTED_TEXT:
        # fractional weights: a text batch's counts are now its exact weighted sums (value and
        # tail, issue #27), where the numba build kept the kernels' float sums: the same to the
        # last bits, the unweighted counts and vocabulary identical
        new, was = model.stats_.to_arrays(), old.stats_.to_arrays()
        assert set(was) <= set(new) and set(new) - set(was) <= {k for k in new if k.startswith("stats/exact/")}
        for key, value in was.items():
            assert_allclose(np.asarray(new[key], dtype=float), np.asarray(value, dtype=float), rtol=1e-15, err_msg=key)
        assert_allclose(model.predict_log_proba(X_test), old.predict_log_proba(X_test), rtol=1e-13, atol=1e-13)
        return
    assert (tmp_path / "m.nbm").read_bytes() == (HERE / f"{name}.nbm").read_bytes()
    assert_array_equal(model.predict_log_proba(X_test), old.predict_log_proba(X_test))


#: text models the numba era fitted with fractional weights (numba_era.data("text"))
WEIGHTED_TEXT = {"text_words", "text_bigrams", "text_chars", "text_hashing"}
