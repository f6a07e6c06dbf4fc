"""nbayes.dask on a real cluster: a distributed.LocalCluster with 2 worker processes.

The model trained on Dask equals the single-process one (1e-9) for every model type, with
partitions of unequal size and an empty one; a worker killed mid-training never yields a
partial model; logistic regression reaches the same optimum to the solver's tolerance."""

from __future__ import annotations

import os
import threading

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import nbayes

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
from dask import delayed  # noqa: E402

import nbayes.dask as nbd  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            yield c


def table(rng, n=400):
    y = rng.choice(["a", "b", "c"], n)
    df = pd.DataFrame({
        "num": rng.normal(size=n) + (y == "a"),
        "cat": rng.choice(["x", "y", "z"], n),
        "cnt": rng.poisson(2.0, n).astype(float),
        "label": y,
    })
    df.loc[::17, "num"] = np.nan  # missing values, left out exactly
    df.loc[::23, "cat"] = None
    return df


def uneven(df: pd.DataFrame):
    """Partitions of 7, 150, 0 and the rest rows."""
    cuts = [0, 7, 157, 157, len(df)]
    parts = [df.iloc[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    assert len(parts[2]) == 0
    return dd.from_delayed([delayed(p) for p in parts], meta=df.iloc[:0])


@pytest.mark.parametrize("make", [
    lambda: nbayes.NaiveBayes(),
    lambda: nbayes.GaussianNB(),
    lambda: nbayes.MultinomialNB(alpha=0.5),
    lambda: nbayes.BernoulliNB(binarize=1.0),
    lambda: nbayes.ComplementNB(),
    lambda: nbayes.CategoricalNB(),
], ids=["mixed", "gaussian", "multinomial", "bernoulli", "complement", "categorical"])
def test_dask_model_equals_single_process(client, rng, make):
    df = table(rng)
    if type(make()).__name__ == "NaiveBayes":
        cols = ["num", "cat", "cnt"]
    elif type(make()).__name__ == "CategoricalNB":
        cols = ["cat", "cnt"]
        df = df.assign(cat=df["cat"].fillna("none"))
    elif type(make()).__name__ == "GaussianNB":
        cols = ["num", "cnt"]
        df = df.assign(num=df["num"].fillna(0.0))
    else:
        cols = ["cnt"]
        df = df.assign(cnt2=df["cnt"] * 2)
        cols = ["cnt", "cnt2"]
    df = df[cols + ["label"]]
    model = nbd.fit(make(), uneven(df), target="label")
    local = make().fit(df[cols] if type(make()).__name__ in ("NaiveBayes", "CategoricalNB") else df[cols].to_numpy(float), df["label"].to_numpy())
    X = df[cols] if type(model).__name__ in ("NaiveBayes", "CategoricalNB") else df[cols].to_numpy(float)
    assert_allclose(model.predict_proba(X), local.predict_proba(X), rtol=1e-9, atol=1e-12)
    pred = nbd.predict(model, uneven(df), target="label").compute()
    assert pred.tolist() == local.predict(X).tolist()
    proba = nbd.predict_proba(model, uneven(df), target="label").compute()
    assert_allclose(proba.to_numpy(), local.predict_proba(X), rtol=1e-9)


def test_text_classifier_on_a_bag_and_a_frame(client, rng):
    import dask.bag as db

    words = ["cheap", "pills", "offer", "lunch", "noon", "meeting", "free", "call"]
    texts = [" ".join(rng.choice(words, 6)) for _ in range(300)]
    labels = ["spam" if ("cheap" in t or "free" in t) else "ham" for t in texts]
    local = nbayes.TextClassifier(alpha=0.3).fit(texts, labels)
    bag = db.from_sequence(list(zip(texts, labels)), npartitions=5)
    model = nbd.fit(nbayes.TextClassifier(alpha=0.3), bag)
    assert_allclose(model.predict_proba(texts), local.predict_proba(texts), rtol=1e-9)
    frame = uneven(pd.DataFrame({"text": texts, "label": labels}))
    model2 = nbd.fit(nbayes.TextClassifier(alpha=0.3), frame, target="label", text="text")
    assert_allclose(model2.predict_proba(texts), local.predict_proba(texts), rtol=1e-9)


def test_sample_weight_column(client, rng):
    df = table(rng)[["cnt", "label"]].assign(w=rng.uniform(0.5, 2.0, 400))
    model = nbd.fit(nbayes.MultinomialNB(), uneven(df), target="label", sample_weight="w")
    local = nbayes.MultinomialNB().fit(df[["cnt"]].to_numpy(float), df["label"], sample_weight=df["w"])
    assert_allclose(model.feature_count_, local.feature_count_, rtol=1e-12)


def test_logistic_regression_by_distributed_lbfgs(client, rng):
    n = 500
    y = rng.choice(["p", "q", "r"], n)
    df = pd.DataFrame(rng.normal(size=(n, 4)) + (y == "p")[:, None], columns=list("abcd")).assign(label=y)
    model = nbd.fit_logistic(nbayes.LogisticRegression(C=2.0), uneven(df), target="label", tol=1e-8)
    local = nbayes.LogisticRegression(C=2.0, tol=1e-10).fit(df[list("abcd")].to_numpy(), y)
    assert abs(model.objective_ - local.objective_) <= 1e-6 * local.objective_
    assert_allclose(model.predict_proba(df[list("abcd")].to_numpy()), local.predict_proba(df[list("abcd")].to_numpy()), atol=1e-4)


def test_bad_input(client):
    with pytest.raises(nbayes.errors.DataError, match="target column 'nope'"):
        nbd.fit(nbayes.GaussianNB(), dd.from_pandas(pd.DataFrame({"a": [1.0, 2.0]}), npartitions=1), target="nope")
    with pytest.raises(nbayes.errors.InvalidParameterError, match="fit_logistic"):
        nbd.fit(nbayes.LogisticRegression(), dd.from_pandas(pd.DataFrame({"a": [1.0], "y": [1]}), npartitions=1), target="y")
    empty = pd.DataFrame({"a": pd.Series([], dtype=float), "y": pd.Series([], dtype=object)})
    with pytest.raises(nbayes.errors.DataError, match="every partition is empty"):
        nbd.fit(nbayes.GaussianNB(), dd.from_pandas(empty, npartitions=1), target="y")


def test_a_worker_killed_mid_training_never_gives_a_partial_model(client, rng):
    df = table(rng, n=4000)[["cnt", "label"]]
    ddf = dd.from_pandas(df, npartitions=40)
    local = nbayes.MultinomialNB().fit(df[["cnt"]].to_numpy(float), df["label"])
    workers = list(client.scheduler_info()["workers"])

    def kill():
        try:  # the worker dies before it can answer: the call itself reports a closed stream
            client.run(os._exit, 1, workers=[workers[0]])
        except Exception:  # noqa: BLE001
            pass

    timer = threading.Timer(0.05, kill)
    timer.start()
    try:
        model = nbd.fit(nbayes.MultinomialNB(), ddf, target="label", split_every=2)
    except nbayes.errors.DataError as exc:  # the job may fail; then it says so and returns nothing
        assert "no model was returned" in str(exc)
    else:  # or Dask retries the lost tasks elsewhere: then the model is the whole one
        assert_allclose(model.feature_count_, local.feature_count_, rtol=1e-12)
    finally:
        timer.join()
    client.wait_for_workers(2, timeout=60)
    assert set(client.scheduler_info()["workers"]) != set(workers)  # one was killed and replaced


def test_cli_train_on_an_existing_cluster(client, rng, tmp_path):
    import shutil
    import subprocess

    df = table(rng)
    csv = tmp_path / "t.csv"
    df.to_csv(csv, index=False)
    exe = shutil.which("nbayes")
    address = client.scheduler.address
    for out, extra in (("dask.nbm", ["--dask", address]), ("local.nbm", [])):
        run = subprocess.run([exe, "train", str(csv), "--target", "label", "-o", str(tmp_path / out), "--json", *extra],
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
    on_dask, local = nbayes.load(tmp_path / "dask.nbm"), nbayes.load(tmp_path / "local.nbm")
    X = pd.read_csv(csv).drop(columns=["label"])
    assert_allclose(on_dask.predict_proba(X), local.predict_proba(X), rtol=1e-9, atol=1e-12)
