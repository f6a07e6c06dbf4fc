"""``nbayes demo`` teaches what the docs teach: calibration fitted on held-out folds of the
training data, measured on other rows; every printed figure says what it was measured on; the
output streams section by section."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from nbayes.demo import run


def test_calibration_is_never_fitted_on_the_data_it_is_measured_on(tmp_path, capsys):
    run(as_json=True, report=None)
    res = json.loads(capsys.readouterr().out)
    for name in ("house_votes_84", "sms_spam"):
        c = res[name]["calibration"]
        assert "out-of-fold" in c["fitted_on"] and "training" in c["fitted_on"]
        assert "evaluation" not in c["fitted_on"] and "test" not in c["fitted_on"]
        assert c["fitted_on"] != c["measured_on"]
    assert res["sms_spam"]["calibration"]["measured_on"] == f"the {res['sms_spam']['test_rows']} test messages"
    lc = res["learning_curve"]
    assert lc["crossover"] is not None and lc["gap_resolved_from"] >= lc["crossover"]
    assert all(0.5 < e["probability"] <= 1 for e in res["sms_spam"]["explained"])


def test_printed_text_names_what_calibration_was_fitted_on(capsys):
    run(report=None)
    out = capsys.readouterr().out
    assert "the evaluation data" not in out
    assert out.count("scaling fitted on") == 2 and "measured on the 1115 test messages" in out
    assert "two standard errors" in out and "P = " in out


def test_output_streams_line_by_line_through_a_pipe(tmp_path):
    """The first section arrives while the demo is still running (stdout is a pipe here)."""
    cmd = [sys.executable, "-m", "nbayes.cli", "demo", "--report", str(tmp_path / "r.html")]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy()) as p:
        assert p.stdout is not None
        first = p.stdout.readline()
        running = p.poll() is None
        rest = p.stdout.read()
        p.wait(timeout=120)
    assert first.startswith("PlayTennis") and running, "the first line came only when the demo ended"
    assert "Learning curves" in rest and p.returncode == 0
