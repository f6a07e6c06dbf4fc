"""Runs one page's blocks in order, in the current folder, in one Python session; writes a JSON
list of failures. Started by tests/docs/test_docs_run.py: ``python _driver.py steps.json out.json``.

A step is {"where", "kind": "setup" | "script" | "doctest" | "shell", "code", "commands"}.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import subprocess
import sys
import time
import traceback
import warnings
from typing import Any

#: a block that takes more than a minute is marked not run instead (docs/testing.md); the test
#: fails a block past this limit, which leaves room for a slow machine
BLOCK_SECONDS = 180.0
DURATION = re.compile(r"\b\d+(\.\d+)?\s?s\b")


def normalise(line: str) -> str:
    """Whitespace collapsed and durations masked: what a shown output line is compared by."""
    return " ".join(DURATION.sub("<s>", line).split())


def output_differs(expected: list[str], actual: str) -> str | None:
    """None when the shown lines appear in the actual output, in order; else a description.

    Both sides are compared as one whitespace-normalised text with durations masked, so a line
    wrapped at another terminal width still matches; ``...`` and blank shown lines are elisions
    and the output may hold more than is shown.
    """
    got = normalise(actual)
    pos = 0
    for line in expected:
        want = normalise(line)
        if not want or want == "...":
            continue
        found = got.find(want, pos)
        if found < 0:
            return f"shown output not in the actual output: {line.strip()!r}"
        pos = found + len(want)
    return None


def run_shell(step: dict[str, Any]) -> list[str]:
    problems = []
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1", TERM="dumb")
    for cmd in step["commands"]:
        shown = cmd["expected"]
        wants_error = any(line.startswith("nbayes: error:") for line in shown)
        for part in cmd["parts"]:
            try:
                proc = subprocess.run(["bash", "-o", "pipefail", "-c", part], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True, timeout=BLOCK_SECONDS)
            except subprocess.TimeoutExpired:
                problems.append(f"$ {part}\n  did not finish in {BLOCK_SECONDS:.0f} s: mark the block not run")
                continue
            status = 2 if wants_error else 0
            if proc.returncode != status:
                problems.append(f"$ {part}\n  exit status {proc.returncode}, expected {status}; output:\n{proc.stdout}")
                continue
            differs = output_differs(shown, proc.stdout) if shown else None
            if differs:
                problems.append(f"$ {part}\n  {differs}\n  actual output:\n{proc.stdout}")
    return problems


def run_python(step: dict[str, Any], ns: dict[str, Any]) -> list[str]:
    start = time.perf_counter()
    if step["kind"] == "doctest":
        test = doctest.DocTestParser().get_doctest(step["code"], ns, step["where"], step["where"], 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        out: list[str] = []
        result = runner.run(test, out=out.append, clear_globs=False)
        ns.update(test.globs)  # DocTest ran on a copy of the namespace
        problems = ["".join(out)] if result.failed else []
    else:
        try:
            exec(compile(step["code"], step["where"], "exec"), ns)
            problems = []
        except BaseException:  # noqa: BLE001 - reported as the block's failure
            problems = [traceback.format_exc(limit=-6)]
    took = time.perf_counter() - start
    if not problems and took > BLOCK_SECONDS:
        problems.append(f"took {took:.0f} s (> {BLOCK_SECONDS:.0f}): mark the block not run")
    return problems


def main() -> None:
    steps = json.loads(open(sys.argv[1], encoding="utf-8").read())
    warnings.simplefilter("error")  # a documented example that warns is a failing example
    ns: dict[str, Any] = {"__name__": "__docs__"}
    failures = []
    timings = []
    for step in steps:
        start = time.perf_counter()
        problems = run_shell(step) if step["kind"] == "shell" else run_python(step, ns)
        timings.append((step["where"], round(time.perf_counter() - start, 2)))
        failures += [{"where": step["where"], "kind": step["kind"], "problem": p} for p in problems]
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump({"failures": failures, "timings": timings}, f)


if __name__ == "__main__":
    main()
