"""``save`` never writes what ``load`` refuses: the state is parsed back with the file reader and
built by the class's own ``from_state`` (nested kinds through their inner builders) before
anything is written (issue #27 item 1)."""

from __future__ import annotations

import numpy as np
import pytest
from .test_edited_arrays import MODELS

import nbayes
from nbayes.errors import ModelFileError


@pytest.mark.parametrize(("name", "model", "X"), MODELS, ids=[n for n, _, _ in MODELS])
def test_every_kind_saves_and_loads_back(tmp_path, name, model, X):
    path = tmp_path / "m.nbm"
    model.save(path)
    np.testing.assert_allclose(nbayes.load(path).predict_proba(X), model.predict_proba(X), rtol=1e-12, atol=0)


@pytest.mark.parametrize(("name", "model", "X"), MODELS, ids=[n for n, _, _ in MODELS])
def test_a_state_load_would_refuse_is_not_written(tmp_path, monkeypatch, name, model, X):
    path = tmp_path / "m.nbm"
    model.save(path)
    before = path.read_bytes()
    state = model.to_state()
    key = next(k for k, v in state["arrays"].items() if k.endswith("classes") and len(v) > 1)
    bad = {**state, "arrays": {**state["arrays"], key: state["arrays"][key][:-1]}}  # a class short
    monkeypatch.setattr(type(model), "to_state", lambda self: bad)
    with pytest.raises(ModelFileError, match="cannot save, the file would not load back.*nothing was written"):
        model.save(path)
    assert path.read_bytes() == before


#: a frozen idf is written in the statistics and the file's idf= is None (it is set back after
#: the statistics are read): the settings read back differ, so the check estimates, as load does
ESTIMATED_AGAIN = {"text-tfidf-frozen"}
NB_MODELS = [(n, m, X) for n, m, X in MODELS if hasattr(m, "estimate_parameters") and n not in ESTIMATED_AGAIN]


@pytest.mark.parametrize(("name", "model", "X"), NB_MODELS, ids=[n for n, _, _ in NB_MODELS])
def test_the_check_reuses_the_saved_parameters_instead_of_a_second_model(tmp_path, monkeypatch, name, model, X):
    """The read-back statistics equal the model's bit for bit: the check runs load's checks on
    them and takes the model's own parameters (no second estimation, no second fitted model's
    memory)."""
    calls = []
    real = type(model).estimate_parameters
    monkeypatch.setattr(type(model), "estimate_parameters", lambda self, *a: calls.append(1) or real(self, *a))
    model.save(tmp_path / "m.nbm")
    assert calls == []
    monkeypatch.undo()
    np.testing.assert_allclose(nbayes.load(tmp_path / "m.nbm").predict_proba(X), model.predict_proba(X), rtol=1e-12)


def test_statistics_that_differ_from_the_model_are_estimated_and_checked(tmp_path, monkeypatch):
    """A state whose statistics are not the model's (a to_state that lost or changed something)
    is built as load builds it: estimated from what was written, and refused if load would."""
    model = nbayes.MultinomialNB().fit(np.array([[1, 2], [3, 0], [0, 4]]), [0, 1, 1])
    state = model.to_state()
    changed = {**state, "arrays": {**state["arrays"], "stats/feature_count": state["arrays"]["stats/feature_count"] * 2}}
    calls = []
    real = nbayes.MultinomialNB.estimate_parameters
    monkeypatch.setattr(nbayes.MultinomialNB, "estimate_parameters", lambda self, *a: calls.append(1) or real(self, *a))
    monkeypatch.setattr(nbayes.MultinomialNB, "to_state", lambda self: changed)
    model.save(tmp_path / "m.nbm")
    assert calls == [1]  # not the model's statistics: estimated, as load does
    np.testing.assert_array_equal(nbayes.load(tmp_path / "m.nbm").feature_count_, 2 * model.feature_count_)
    impossible = {**state, "arrays": {**state["arrays"], "stats/feature_count": -state["arrays"]["stats/feature_count"]}}
    monkeypatch.setattr(nbayes.MultinomialNB, "to_state", lambda self: impossible)
    with pytest.raises(ModelFileError, match="would not load back.*feature_count"):
        model.save(tmp_path / "m.nbm")


def test_the_command_line_writes_through_the_same_check(tmp_path, monkeypatch):
    """``nbayes train`` / ``tune`` write with cli._modelfile.save: its meta is kept, and a state
    load would refuse is not written (issue #27: no writer of model files skips the check)."""
    from nbayes.cli._modelfile import save as cli_save
    from nbayes.io.model_file import load_state

    model = nbayes.MultinomialNB().fit(np.array([[1, 2], [3, 0], [0, 4]]), [0, 1, 1])
    path = tmp_path / "m.nbm"
    cli_save(model, path, {"target": "label"})
    assert load_state(path)["meta"]["cli"] == {"target": "label"}
    before = path.read_bytes()
    state = model.to_state()
    bad = {**state, "arrays": {**state["arrays"], "classes": state["arrays"]["classes"][:-1]}}
    monkeypatch.setattr(nbayes.MultinomialNB, "to_state", lambda self: bad)
    with pytest.raises(ModelFileError, match="cannot save, the file would not load back.*nothing was written"):
        cli_save(model, path, {"target": "label"})
    assert path.read_bytes() == before
