"""The commands around a learning service's update log: ``info`` and ``predict`` warn (one line)
when MODEL.log holds updates MODEL lacks and add them with ``--replay``; ``nbayes snapshot``
writes them into MODEL; ``nbayes repair`` cuts a log damaged in the middle back to its valid
records, copying it aside."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("starlette", reason="the log is written by nbayes serve --learn: pip install 'nbayes[serve]'")

import nbayes  # noqa: E402
from nbayes.serve import create_app  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

AUTH = {"Authorization": "Bearer tok"}


@pytest.fixture
def served(tmp_path):
    """A model file and the log a killed learning service left: 2 updates the file lacks."""
    path = tmp_path / "m.nbm"
    nbayes.TextClassifier().fit(["free prize", "lunch noon"], ["spam", "ham"]).save(path)
    before = path.read_bytes()
    with TestClient(create_app(str(path), learn=True, token="tok")) as c:
        for text, label in (("zebra zebra zebra", "spam"), ("okapi", "ham")):
            assert c.post("/v1/learn", json={"text": text, "label": label}, headers=AUTH).status_code == 200
        log = (tmp_path / "m.nbm.log").read_bytes()
    path.write_bytes(before)
    (tmp_path / "m.nbm.log").write_bytes(log)
    return path


def test_info_and_predict_warn_in_one_line_and_replay_on_request(served, cli, tmp_path):
    out = cli.ok("info", str(served), "--json")
    warning = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(warning) == 1 and warning[0].startswith("nbayes: warning: ") and "2 acknowledged update(s)" in warning[0]
    assert json.loads(out.stdout)["training_rows"] == 2
    out = cli.ok("info", str(served), "--json", "--replay")
    assert out.stderr.strip() == "" and json.loads(out.stdout)["training_rows"] == 4
    data = tmp_path / "new.csv"
    data.write_text("text\nzebra\n")
    stale = cli.ok("predict", str(served), str(data), "--proba", "--json")
    fresh = cli.ok("predict", str(served), str(data), "--proba", "--json", "--replay")
    assert "--replay adds them" in stale.stderr and fresh.stderr.strip() == ""
    assert json.loads(stale.stdout) != json.loads(fresh.stdout)


def test_snapshot_command(served, cli):
    out = cli.ok("snapshot", str(served))
    assert "version 2 written, 2 update(s)" in out.stdout
    out = cli.ok("info", str(served), "--json")
    assert out.stderr.strip() == "" and json.loads(out.stdout)["training_rows"] == 4
    assert json.loads(cli.ok("snapshot", str(served), "--json").stdout)["snapshot"] is False


def test_repair_command_and_a_refused_start(served, cli):
    from nbayes.serve._log import read_log

    log = served.parent / "m.nbm.log"
    raw = bytearray(log.read_bytes())
    _, records, _, _ = read_log(str(log))
    second = len(raw) - (8 + 21 + len(records[1].body))
    raw[second - 5] ^= 0x10  # inside the first record: the second is valid after it
    first_len = len(raw)
    log.write_bytes(bytes(raw))
    cli.bad("snapshot", str(served), mentions=("damaged at byte", "nbayes repair"))
    out = cli.ok("repair", str(served), "--json")
    report = json.loads(out.stdout)
    assert report["repaired"] and report["kept"] == 0 and report["lost_versions"] == [2]
    assert report["dropped_bytes"] < first_len
    assert "nothing to repair" in cli.ok("repair", str(served)).stdout
    assert json.loads(cli.ok("info", str(served), "--json").stdout)["training_rows"] == 2
