"""Every command and code block of README.md and docs/*.md runs, so the docs cannot drift.

The convention (markers, which blocks run, how output is compared) is in tests/docs/blocks.py
and docs/testing.md. Each page runs in its own empty temporary folder, in one Python process
(its python blocks share a namespace, in page order, shell blocks run in the same folder), with
``../shared/data`` pointing at the shared datasets (``$NBAYES_DATA``) and ``docs/examples``
importable.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .blocks import PYTHON, ROOT, SHELL, Block, blocks, commands, foreign, pages, runnable_parts

DRIVER = Path(__file__).with_name("_driver.py")
PAGES = pages()
#: a page's whole run (its blocks are each held to a minute by the driver)
PAGE_SECONDS = 600


def _page_id(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def _steps(page_blocks: list[Block]) -> list[dict[str, object]]:
    steps: list[dict[str, object]] = []
    for b in page_blocks:
        if not b.runs:
            continue
        if b.setup:
            steps.append({"where": f"{b.where} (setup)", "kind": "setup", "code": b.setup})
        if b.lang in PYTHON:
            kind = "doctest" if any(line.lstrip().startswith(">>>") for line in b.code.split("\n")) else "script"
            steps.append({"where": b.where, "kind": kind, "code": b.code})
        else:
            cmds = [{"parts": runnable_parts(c.command), "expected": c.expected} for c in commands(b)]
            steps.append({"where": b.where, "kind": "shell", "commands": cmds})
    return steps


def test_markers_and_tags_are_well_formed() -> None:
    """Every marker has a reason, every block of prompts is tagged, every shell block that runs
    holds only nbayes / python commands (anything else is marked not run, with why)."""
    problems = []
    for page in PAGES:
        for b in blocks(page):
            problems += [f"{b.where}: {p}" for p in b.problems]
            if b.runs and b.lang in SHELL:
                for c in commands(b):
                    word = foreign(c.command)
                    if word:
                        problems.append(f"{b.where}: `{word}` is not run by the docs test; "
                                        "mark the block <!-- not run: reason -->")
    assert not problems, "\n".join(problems)


def test_pages_are_found() -> None:
    names = {_page_id(p) for p in PAGES}
    assert {"README.md", "docs/cli.md", "docs/testing.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=[_page_id(p) for p in PAGES])
def test_page_runs(page: Path, tmp_path: Path, shared_data: Path) -> None:
    steps = _steps(blocks(page))
    if not steps:
        pytest.skip("no block that runs")
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(shared_data.resolve(), target_is_directory=True)
    (tmp_path / "steps.json").write_text(json.dumps(steps), encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "docs" / "examples")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["NBAYES_DATA"] = str(shared_data.resolve())
    proc = subprocess.run([sys.executable, str(DRIVER), str(tmp_path / "steps.json"), str(tmp_path / "out.json")],
                          cwd=work, env=env, capture_output=True, text=True, timeout=PAGE_SECONDS)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    if os.environ.get("NBAYES_DOCS_TIMINGS"):  # where the time goes: a file to append to
        with open(os.environ["NBAYES_DOCS_TIMINGS"], "a", encoding="utf-8") as f:
            f.writelines(f"{seconds:8.2f}  {where}\n" for where, seconds in result["timings"])
    failures = result["failures"]
    assert not failures, "\n\n".join(f"{f['where']} ({f['kind']}):\n{f['problem']}" for f in failures)
