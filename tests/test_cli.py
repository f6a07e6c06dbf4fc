"""The installed ``nbayes`` command, run as a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time


NBAYES = shutil.which("nbayes")


def run(*args: str) -> subprocess.CompletedProcess:
    cmd = [NBAYES, *args] if NBAYES else [sys.executable, "-m", "nbayes.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=os.environ.copy())


def test_demo_json_reproduces_the_seeds():
    out = run("demo", "--json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    pt = res["playtennis"]
    assert round(pt["joint"]["No"], 4) == 0.0206 and round(pt["joint"]["Yes"], 4) == 0.0053
    assert pt["prediction"] == "No"
    hv = res["house_votes_84"]
    assert hv["missing_votes"] == 392 and hv["rows"] == 435
    assert hv["cv_accuracy"] > 0.85
    assert hv["merge_max_abs_diff"] < 1e-12 and hv["unlearn_max_abs_diff"] < 1e-9
    assert hv["load_identical"] is True


def test_demo_text_output():
    out = run("demo")
    assert out.returncode == 0, out.stderr
    assert "prediction: No" in out.stdout and "identical = True" in out.stdout


def test_help_is_fast_and_shows_examples():
    t0 = time.perf_counter()
    out = run("--help")
    elapsed = time.perf_counter() - t0
    assert out.returncode == 0 and "Examples:" in out.stdout and "demo" in out.stdout
    assert elapsed < 5  # generous for a loaded CI machine; measured ~0.15 s (lazy imports)


def test_unknown_command_exits_2():
    out = run("frobnicate")
    assert out.returncode == 2 and "No such command" in out.stderr
