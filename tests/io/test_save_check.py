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
    with np.errstate(over="ignore"):
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
