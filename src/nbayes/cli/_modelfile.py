"""Model files of the command line: the model, and what ``train`` recorded beside it (target,
columns, rows, the markers of missing values) under ``meta["cli"]``."""

from __future__ import annotations

import os
from typing import Any

from ..io.load import load_with_state
from ..io.model_file import save_model
from ._paths import check_model_file, check_output


def load(path: str | os.PathLike[str], replay: bool = False) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """(model, its verified state, what the CLI recorded) of the model file ``path``; the updates
    of a learning service's log beside it that the file lacks are a warning, or (``replay``)
    added."""
    check_model_file(path)
    model, state = load_with_state(path, replay=replay)
    cli = (state.get("meta") or {}).get("cli") or {}
    return model, state, dict(cli)


def save(model: Any, path: str | os.PathLike[str], meta: dict[str, Any]) -> None:
    """Write ``model`` to ``path`` atomically, with ``meta`` as what the CLI recorded: read back
    and checked as ``load`` would before anything is written, as ``model.save`` does."""
    check_output(path, "the model file")
    save_model(model, path, meta={"cli": meta})
