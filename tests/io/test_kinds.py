"""The registry of model kinds (``nbayes.io.load``): what a kind names must be a class."""

from __future__ import annotations

import pytest

from nbayes.errors import ModelFileError
from nbayes.io import load as load_module
from nbayes.naive_bayes import MultinomialNB


def test_a_kind_registered_by_path_gives_its_class(monkeypatch):
    monkeypatch.setitem(load_module.KINDS, "Plug", "nbayes.naive_bayes.multinomial:MultinomialNB")
    assert load_module.model_class("Plug") is MultinomialNB


def test_a_kind_registered_as_a_class_gives_it(monkeypatch):
    monkeypatch.setattr(load_module, "KINDS", dict(load_module.KINDS))
    load_module.register_kind("Plug", MultinomialNB)
    assert load_module.model_class("Plug") is MultinomialNB


def test_a_kind_whose_path_names_no_class_is_refused(monkeypatch):
    """A "module:name" whose name is a function (or any non-class) is a ModelFileError naming
    the kind and the path, not an AttributeError deep in loading."""
    monkeypatch.setitem(load_module.KINDS, "Plug", "nbayes.io.load:model_class")
    with pytest.raises(ModelFileError, match=r"kind 'Plug' is registered as 'nbayes.io.load:model_class', "
                                              r"which names no class"):
        load_module.model_class("Plug")


def test_an_unknown_kind_is_refused():
    with pytest.raises(ModelFileError, match="unknown model kind 'NoSuchModel'"):
        load_module.model_class("NoSuchModel")
