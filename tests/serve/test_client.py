"""``nbayes learn`` / ``nbayes unlearn`` and ``nbayes.serve.learn`` / ``unlearn`` against a real
HTTP server (uvicorn in a thread), and the start-up refusals of ``nbayes serve --learn``."""

from __future__ import annotations


import numpy as np
import pytest

pytest.importorskip("starlette", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")
uvicorn = pytest.importorskip("uvicorn", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")

import nbayes  # noqa: E402
from click.testing import CliRunner  # noqa: E402
from nbayes.cli import main  # noqa: E402
from nbayes.serve import ServiceError, create_app, learn, model_info, unlearn  # noqa: E402

TOKEN = "client-test-token"
SPAM = ["win a free prize now", "free cash claim now", "claim your free prize"]
HAM = ["lunch at noon tomorrow", "see you at home tonight", "meeting moved to thursday"]
PROBE = ["free lunch", "zebra okapi", "quokka prize", "see you"]


def base():
    return nbayes.TextClassifier(alpha=0.5).fit(SPAM + HAM, ["spam"] * 3 + ["ham"] * 3)


def serving(live_server, path):
    return live_server(create_app(str(path), learn=True, token=TOKEN, max_batch=10))


@pytest.fixture
def service(tmp_path, live_server):
    path = tmp_path / "spam.nbm"
    base().save(path)
    with serving(live_server, path) as url:
        yield url, path


def probs(url):
    from nbayes.serve.client import request

    out = request(url, "/v1/predict", {"texts": PROBE})["predictions"]
    return np.array([[p["probabilities"][k] for k in ("ham", "spam")] for p in out])


def test_python_client_learns_and_unlearns_in_batches(service, monkeypatch):
    url, _ = service
    docs = [f"zebra{i} okapi" for i in range(23)]
    labels = ["ham" if i % 2 else "spam" for i in range(23)]
    calls = []
    out = learn(url, docs, labels, token=TOKEN, batch_size=10, progress=lambda d, n: calls.append((d, n)))
    assert out == {"learned": 23, "version": 3} and calls == [(10, 23), (20, 23), (23, 23)]
    monkeypatch.setenv("NBAYES_TOKEN", TOKEN)
    assert unlearn(url, docs[:5], labels[:5])["unlearned"] == 5
    ref = base().partial_fit(docs, labels).unlearn(docs[:5], labels[:5])
    np.testing.assert_allclose(probs(url), ref.predict_proba(PROBE), rtol=0, atol=1e-12)
    assert model_info(url)["version"] == 4
    with pytest.raises(ServiceError, match="403") as err:
        learn(url, ["x"], ["ham"], token="wrong")
    assert err.value.status == 403
    with pytest.raises(ServiceError, match="422"):
        learn(url, ["x"], ["hamm"], token=TOKEN)


def test_cli_learn_and_unlearn_send_a_file(service, tmp_path, monkeypatch):
    url, _ = service
    data = tmp_path / "clicks.csv"
    rows = [(f"quokka{i} prize", "spam" if i % 3 else "ham") for i in range(25)]
    data.write_text("message,label\n" + "".join(f"{t},{y}\n" for t, y in rows))
    monkeypatch.setenv("NBAYES_TOKEN", TOKEN)
    r = CliRunner().invoke(main, ["learn", url, str(data), "--target", "label", "--batch-size", "10"])
    assert r.exit_code == 0, r.output
    assert "learned 25 rows" in r.output and "version 3" in r.output
    ref = base().partial_fit([t for t, _ in rows], [y for _, y in rows])
    np.testing.assert_allclose(probs(url), ref.predict_proba(PROBE), rtol=0, atol=1e-12)
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    monkeypatch.delenv("NBAYES_TOKEN")
    r = CliRunner().invoke(main, ["unlearn", url, str(data), "--target", "label", "--token-file", str(token_file)])
    assert r.exit_code == 0, r.output
    np.testing.assert_allclose(probs(url), base().predict_proba(PROBE), rtol=0, atol=1e-12)
    r = CliRunner().invoke(main, ["unlearn", url, str(data), "--target", "label", "--token-file", str(token_file)])
    assert r.exit_code == 2 and "422" in r.output and "rows 1..10" in r.output  # nothing left to forget
    r = CliRunner().invoke(main, ["learn", url, str(data), "--target", "nope", "--token-file", str(token_file)])
    assert r.exit_code == 2 and "no column 'nope'" in r.output


def test_serve_learn_refuses_to_start_without_a_token_or_with_workers(tmp_path, monkeypatch):
    path = tmp_path / "m.nbm"
    base().save(path)
    monkeypatch.delenv("NBAYES_TOKEN", raising=False)
    r = CliRunner().invoke(main, ["serve", str(path), "--learn"])
    assert r.exit_code == 2 and "needs a token" in r.output
    monkeypatch.setenv("NBAYES_TOKEN", TOKEN)
    r = CliRunner().invoke(main, ["serve", str(path), "--learn", "--workers", "2"])
    assert r.exit_code == 2 and "--workers 2" in r.output and "one process" in r.output
    empty = tmp_path / "empty"
    empty.write_text("\n")
    r = CliRunner().invoke(main, ["serve", str(path), "--learn", "--token-file", str(empty)])
    assert r.exit_code == 2 and "empty" in r.output


def test_cli_learn_sends_table_rows_by_feature_name(tmp_path, monkeypatch, live_server):
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"age": [23.0, 35.0, 47.0, 52.0], "colour": ["red", "blue", "red", "green"],
                          "smoker": [True, False, True, False]})
    y = ["yes", "no", "yes", "no"]
    path = tmp_path / "table.nbm"
    nbayes.NaiveBayes().fit(frame, y).save(path)
    data = tmp_path / "more.csv"
    data.write_text("colour,outcome,age,smoker,note\nred,yes,30,true,x\nblue,no,,false,y\ngreen,no,61,,z\n")
    monkeypatch.setenv("NBAYES_TOKEN", TOKEN)
    with serving(live_server, path) as url:
        r = CliRunner().invoke(main, ["learn", url, str(data), "--target", "outcome"])
        assert r.exit_code == 0, r.output
        from nbayes.serve.client import request

        new = [{"age": 30.0, "colour": "red", "smoker": True}, {"age": None, "colour": "blue", "smoker": False},
               {"age": 61.0, "colour": "green", "smoker": None}]
        got = request(url, "/v1/predict", {"rows": new})["predictions"]
    ref = nbayes.NaiveBayes().fit(frame, y)
    ref.partial_fit(pl.DataFrame(new, schema=frame.schema), ["yes", "no", "no"])
    np.testing.assert_allclose([[g["probabilities"][k] for k in ("no", "yes")] for g in got],
                               ref.predict_proba(pl.DataFrame(new, schema=frame.schema)), rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------- label sets
SETS = [["spam", "promo"], ["spam"], ["spam", "promo"], ["ham"], ["ham", "home"], ["ham"]]


def test_label_sets_through_the_python_client_and_the_cli(tmp_path, monkeypatch, live_server):
    path = tmp_path / "news.nbm"
    nbayes.MultiLabel(nbayes.TextClassifier(alpha=0.5), threshold=0.5).fit(SPAM + HAM, SETS).save(path)
    ref = nbayes.load(path)
    docs = [f"zebra{i} okapi" for i in range(13)]
    sets = [("spam", "promo") if i % 2 else np.array(["ham"]) for i in range(13)]  # tuples and arrays are lists
    csv = tmp_path / "more.csv"
    csv.write_text("text,tags\n" + "".join(f"quokka{i} prize,spam; promo\n" for i in range(4)) + "lunch at home,ham;home\n")
    jsonl = tmp_path / "more.jsonl"
    jsonl.write_text('{"text": "wombat lunch", "tags": ["ham", "home"]}\n{"text": "wombat prize", "tags": ["spam"]}\n')
    monkeypatch.setenv("NBAYES_TOKEN", TOKEN)
    with serving(live_server, path) as url:
        assert learn(url, docs, sets, batch_size=5) == {"learned": 13, "version": 3}
        ref.partial_fit(docs, [list(s) for s in sets])
        r = CliRunner().invoke(main, ["learn", url, str(csv), "--target", "tags", "--multilabel", "--labels-sep", ";"])
        assert r.exit_code == 0 and "learned 5 rows" in r.output, r.output
        ref.partial_fit([f"quokka{i} prize" for i in range(4)] + ["lunch at home"], [["spam", "promo"]] * 4 + [["ham", "home"]])
        r = CliRunner().invoke(main, ["learn", url, str(jsonl), "--target", "tags", "--multilabel"])
        assert r.exit_code == 0, r.output
        r = CliRunner().invoke(main, ["unlearn", url, str(jsonl), "--target", "tags", "--multilabel"])
        assert r.exit_code == 0 and "unlearned 2 rows" in r.output, r.output
        assert unlearn(url, docs[:2], [list(s) for s in sets[:2]])["unlearned"] == 2
        ref.unlearn(docs[:2], [list(s) for s in sets[:2]])
        from nbayes.serve.client import request

        got = request(url, "/v1/predict", {"texts": PROBE})["predictions"]
        np.testing.assert_allclose([list(g["probabilities"].values()) for g in got], ref.predict_proba(PROBE),
                                   rtol=0, atol=1e-12)
        assert [g["labels"] for g in got] == ref.predict_labels(PROBE)
        r = CliRunner().invoke(main, ["learn", url, str(csv), "--target", "tags"])
        assert r.exit_code == 2 and "give --multilabel" in r.output
        r = CliRunner().invoke(main, ["learn", url, str(csv), "--target", "tags", "--labels-sep", ";"])
        assert r.exit_code == 2 and "with --multilabel" in r.output
        with pytest.raises(ServiceError, match=r"422 labels\[1\] holds 'spma'"):
            learn(url, ["a", "b"], [["ham"], ["spma"]])
    base().save(tmp_path / "single.nbm")
    with serving(live_server, tmp_path / "single.nbm") as url:
        r = CliRunner().invoke(main, ["learn", url, str(csv), "--target", "tags", "--multilabel", "--labels-sep", ";"])
        assert r.exit_code == 2 and "single-label model" in r.output
