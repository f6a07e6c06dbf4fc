"""The documentation site builds with ``mkdocs build --strict`` (mkdocs.yml): a broken link,
a missing page or anchor, a docstring mkdocstrings cannot render, a cross-reference to nothing
is a failure. The API reference (docs/api/) documents every name the public packages export.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from .public import REFERENCE_MODULES, exported

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("mkdocs", reason="the docs extra: pip install '.[docs]'")
pytest.importorskip("mkdocstrings_handlers.python", reason="the docs extra: pip install '.[docs]'")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
               NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
         "-d", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{log}"
    warnings = [line for line in log.splitlines() if "WARNING" in line]
    assert not warnings, "\n".join(warnings)
    return out


def _inventory(site: Path) -> set[str]:
    raw = (site / "objects.inv").read_bytes()
    body = zlib.decompress(raw.split(b"\n", 4)[4]).decode()
    return {line.split(" ", 1)[0] for line in body.splitlines()}


def test_every_page_is_built(site: Path) -> None:
    pages = sorted((ROOT / "docs").glob("*.md"))
    assert pages
    for page in pages:
        built = site / ("index.html" if page.stem == "index" else f"{page.stem}/index.html")
        assert built.is_file(), f"{page.name} is not in the site"


def test_api_reference_lists_every_export(site: Path) -> None:
    import importlib

    documented = _inventory(site)
    missing = []
    for module_name in REFERENCE_MODULES:
        for name in exported(importlib.import_module(module_name)):
            canonical = f"{getattr(name.obj, '__module__', '')}.{getattr(name.obj, '__qualname__', '')}"
            if name.path not in documented and canonical not in documented and name.obj.__name__ != name.path:
                missing.append(name.path)
    assert not missing, (
        "exported but not in the API reference (add a `::: path` to a page of docs/api/):\n  "
        + "\n  ".join(missing)
    )
