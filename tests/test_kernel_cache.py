"""The compiled kernels' cache is keyed by all their sources (nbayes._kernels): numba checks a
cached kernel against its own file only, and a kernel that inlines a changed helper from
another file must not be loaded from a cache made before the change."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import nbayes._kernels as kernels


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def test_the_cache_folder_is_named_after_every_kernel_source(tmp_path):
    folder = Path(kernels.__file__).parent
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", "import nbayes._kernels, numba; print(numba.config.CACHE_DIR)"],
                         env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert out == str(tmp_path / f"nbayes-{_digest(folder)}")


def test_a_change_to_any_kernel_source_changes_the_folder(tmp_path, monkeypatch):
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("x = 1\n")
    monkeypatch.setattr(kernels, "__file__", str(tmp_path / "__init__.py"))
    before = kernels._sources_digest()
    (tmp_path / "b.py").write_text("x = 2\n")  # a helper another kernel inlines
    assert kernels._sources_digest() != before


def test_stale_folders_of_other_sources_are_removed(tmp_path):
    """An upgrade leaves the old kernels' folder behind: removed once unused for STALE_DAYS;
    a folder of other sources still in use (recent) stays, and so does anything not ours."""
    old, recent, other = tmp_path / "nbayes-0000000000000000", tmp_path / "nbayes-1111111111111111", tmp_path / "keep"
    for folder in (old, recent, other):
        folder.mkdir()
        (folder / "k.nbi").write_bytes(b"x")
    long_ago = __import__("time").time() - (kernels.STALE_DAYS + 1) * 86400
    os.utime(old, (long_ago, long_ago))
    os.utime(other, (long_ago, long_ago))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    subprocess.run([sys.executable, "-c", "import nbayes._kernels"], env=env, check=True)
    mine = tmp_path / f"nbayes-{_digest(Path(kernels.__file__).parent)}"
    assert not old.exists() and recent.exists() and other.exists() and mine.is_dir()
