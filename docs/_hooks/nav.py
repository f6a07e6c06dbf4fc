"""MkDocs hook: a docs/*.md page the nav of mkdocs.yml does not list is appended to the user
guide, so a page added by anyone is built and link-checked before it is placed in the nav."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _listed(nav: Any) -> set[str]:
    out: set[str] = set()
    items = nav if isinstance(nav, list) else [nav]
    for item in items:
        if isinstance(item, str):
            out.add(item)
        elif isinstance(item, dict):
            for value in item.values():
                out |= _listed(value)
    return out


def on_config(config: Any) -> Any:
    nav = config["nav"]
    if not nav:
        return config
    listed = _listed(nav)
    docs = Path(config["docs_dir"])
    new = sorted(p.name for p in docs.glob("*.md") if p.name not in listed)
    if new:
        for section in nav:
            if isinstance(section, dict) and "User guide" in section:
                section["User guide"].extend(new)
                break
    return config
