"""A user's first run against the later ones: each main job in a fresh process, with empty caches.

Each job runs as its own Python process. The first run starts with nbayes' run-time caches empty (a
new ``NUMBA_CACHE_DIR`` for a numba build of nbayes, so the same script measures the JIT it
replaced; the compiled build has none) and, where the script may (root), the operating system's
page cache dropped; the later runs are new processes that find the caches filled. Bytecode is
not counted: ``pip install`` compiles it at install time. A job's time runs from the process's first line to its result, data
reading left out (it is done before nbayes or scikit-learn is imported): imports, fit and predict.
scikit-learn's same job runs the same way, for reference. Goal (issue #26): every first run
within 1.3x of the later ones.

Then the command line and the service, from a shell's point of view:
- ``nbayes predict MODEL one-row.jsonl``: wall time and peak memory of the whole process (goal:
  at most 0.4 s and 150 MB);
- ``nbayes serve MODEL``: from the process's start to its first answer (goal: within 1.5 s),
  then the latencies of the first 300 requests one after another (no warm-up tail: the first
  50's worst against the rest's p99).

    python benchmarks/cold_start.py [--python PATH] [--later 3] [--json]

``--python`` runs the jobs under another interpreter (say, a virtual environment holding another
build of nbayes) for an A/B comparison on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("NBAYES_DATA") or HERE.parents[1] / "shared" / "data")

#: reading the data (standard library and NumPy only, before the clock starts)
READERS = textwrap.dedent('''
    import gzip, json, os, time
    import numpy as np
    DATA = os.environ["NBAYES_DATA"]
    def jsonl(name, step=1):
        with gzip.open(os.path.join(DATA, name), "rt", encoding="utf-8") as f:
            rows = [json.loads(line) for line in f][::step]
        return [r["text"] for r in rows], np.array([r["label"] for r in rows])
    def gaussian_data():
        rng = np.random.default_rng(0)
        y = rng.integers(0, 3, 20000)
        X = rng.normal(size=(20000, 20)) + y[:, None] * 0.3
        return X, y
    def logistic_data():
        rng = np.random.default_rng(1)
        y = rng.integers(0, 3, 5000)
        X = rng.normal(size=(5000, 50)) + y[:, None] * 0.1
        return X, y
''')

#: name -> (data, nbayes job, scikit-learn job or None); each job sets ``score``
JOBS: dict[str, tuple[str, str, str | None]] = {
    "GaussianNB fit + predict_proba, 20,000 x 20": (
        "X, y = gaussian_data()",
        "from nbayes import GaussianNB\nP = GaussianNB().fit(X, y).predict_proba(X)\nscore = float(np.mean(P.argmax(1) == y))",
        "from sklearn.naive_bayes import GaussianNB\nP = GaussianNB().fit(X, y).predict_proba(X)\nscore = float(np.mean(P.argmax(1) == y))",
    ),
    "LogisticRegression, 5,000 x 50, 3 classes": (
        "X, y = logistic_data()",
        "from nbayes import LogisticRegression\nscore = float(np.mean(LogisticRegression().fit(X, y).predict(X) == y))",
        "from sklearn.linear_model import LogisticRegression\nscore = float(np.mean(LogisticRegression().fit(X, y).predict(X) == y))",
    ),
    "NaiveBayes on adult (mixed columns)": (
        "import csv\nwith gzip.open(os.path.join(DATA, 'adult', 'data.csv.gz'), 'rt') as f:\n"
        "    rows = list(csv.DictReader(f))",
        "import pandas as pd\nfrom nbayes import NaiveBayes\ndf = pd.DataFrame(rows)\n"
        "for c in ('age', 'fnlwgt', 'education-num', 'capital-gain', 'capital-loss', 'hours-per-week'):\n"
        "    df[c] = pd.to_numeric(df[c])\n"
        "y = df.pop('class').to_numpy()\nscore = float(np.mean(NaiveBayes().fit(df, y).predict(df) == y))",
        None,
    ),
    "TextClassifier on 20 Newsgroups, fit + predict": (
        "Xtr, ytr = jsonl('20newsgroups/train.jsonl.gz'); Xte, yte = jsonl('20newsgroups/test.jsonl.gz')",
        "from nbayes import TextClassifier\nscore = float(np.mean(TextClassifier(alpha=0.01).fit(Xtr, ytr).predict(Xte) == yte))",
        "from sklearn.feature_extraction.text import CountVectorizer\nfrom sklearn.naive_bayes import MultinomialNB\n"
        "v = CountVectorizer()\nm = MultinomialNB(alpha=0.01).fit(v.fit_transform(Xtr), ytr)\n"
        "score = float(np.mean(m.predict(v.transform(Xte)) == yte))",
    ),
    "the same with bigrams": (
        "Xtr, ytr = jsonl('20newsgroups/train.jsonl.gz'); Xte, yte = jsonl('20newsgroups/test.jsonl.gz')",
        "from nbayes import TextClassifier\n"
        "score = float(np.mean(TextClassifier(alpha=0.01, ngram_range=(1, 2)).fit(Xtr, ytr).predict(Xte) == yte))",
        "from sklearn.feature_extraction.text import CountVectorizer\nfrom sklearn.naive_bayes import MultinomialNB\n"
        "v = CountVectorizer(ngram_range=(1, 2))\nm = MultinomialNB(alpha=0.01).fit(v.fit_transform(Xtr), ytr)\n"
        "score = float(np.mean(m.predict(v.transform(Xte)) == yte))",
    ),
    'model="nblr", bigrams, 3,125 IMDB documents': (
        "Xtr, ytr = jsonl('imdb/train.jsonl.gz', 8); Xte, yte = jsonl('imdb/test.jsonl.gz', 8)",
        "from nbayes import TextClassifier\n"
        "m = TextClassifier(model='nblr', ngram_range=(1, 2)).fit(Xtr, ytr)\nscore = float(np.mean(m.predict(Xte) == yte))",
        None,
    ),
}

SCRIPT = '''
import time
{readers}
{data}
t0 = time.perf_counter()
{job}
print("RESULT", time.perf_counter() - t0, score)
'''


def run_job(python: str, data: str, job: str, env: dict[str, str]) -> tuple[float, float]:
    """(seconds of imports + job, score) of one fresh process."""
    code = SCRIPT.format(readers=READERS, data=data, job=job)
    out = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT")][-1]
    _, seconds, score = line.split()
    return float(seconds), float(score)


def fresh_env(caches: Path) -> dict[str, str]:
    """The environment of a run whose caches live under ``caches`` (empty for a first run)."""
    return dict(os.environ, NBAYES_DATA=str(DATA), NUMBA_CACHE_DIR=str(caches / "numba"),
                MPLCONFIGDIR=str(caches / "mpl"))


def drop_page_cache() -> None:
    """Drop the operating system's page cache (root on Linux only; else nothing)."""
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError:
        pass


def jobs(python: str, later: int, only: list[str] | None) -> list[dict]:
    results = []
    for name, (data, ours, theirs) in JOBS.items():
        if only and not any(o.lower() in name.lower() for o in only):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            env = fresh_env(Path(tmp))
            run_job(python, data, "score = 0.0", env)  # the data read once: its pages are not the job's
            drop_page_cache()
            first, score = run_job(python, data, ours, env)
            warm = [run_job(python, data, ours, env)[0] for _ in range(later)]
            row = {"job": name, "first_s": first, "later_s": statistics.median(warm), "score": score}
            row["ratio"] = first / row["later_s"]
            if theirs is not None:
                run_job(python, data, theirs, env)  # scikit-learn's own first run fills its caches
                sk = [run_job(python, data, theirs, env) for _ in range(later)]
                row["sklearn_s"] = statistics.median(s for s, _ in sk)
                row["sklearn_score"] = sk[-1][1]
        results.append(row)
        sk_text = f"   scikit-learn {row['sklearn_s']:.2f} s ({row['sklearn_score']:.4f})" if "sklearn_s" in row else ""
        print(f"{name:48s} first {first:6.2f} s  later {row['later_s']:6.2f} s  ratio {row['ratio']:4.2f}"
              f"  (score {score:.4f}){sk_text}", flush=True)
    return results


def peak_run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, peak resident MB, stdout) of one command, measured by a wrapper process."""
    wrapper = ("import resource, subprocess, sys, time\nt = time.perf_counter()\n"
               "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
               "dt = time.perf_counter() - t\nif p.returncode: sys.exit(p.stderr)\n"
               "print(dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\nprint(p.stdout, end='')")
    out = subprocess.run([sys.executable, "-c", wrapper, *cmd], env=env, capture_output=True, text=True, timeout=300)
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    first, _, rest = out.stdout.partition("\n")
    seconds, mb = map(float, first.split())
    return seconds, mb, rest


def cli_and_service(python: str, later: int) -> dict:
    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        env = fresh_env(tmp_path / "caches")
        model, one = tmp_path / "spam.nbm", tmp_path / "one.jsonl"
        sms = DATA / "sms_spam" / "all.jsonl.gz"
        subprocess.run([python, "-m", "nbayes.cli", "train", str(sms), "--target", "label", "-o", str(model)],
                       env=env, check=True, capture_output=True)
        one.write_text(json.dumps({"text": "WIN a FREE prize: call 0800 now"}) + "\n")
        # a fresh cache for the first predict: the model was trained in a process of its own
        env = fresh_env(tmp_path / "caches2")
        cmd = [python, "-m", "nbayes.cli", "predict", str(model), str(one)]
        first = peak_run(cmd, env)
        warm = [peak_run(cmd, env) for _ in range(max(later, 3))]
        results["predict_one_row"] = {"first_s": first[0], "first_mb": first[1],
                                      "later_s": statistics.median(w[0] for w in warm),
                                      "later_mb": max(w[1] for w in warm), "answer": warm[-1][2].split()}
        print(f"nbayes predict MODEL one-row.jsonl       first {first[0]:.2f} s {first[1]:.0f} MB; "
              f"later {results['predict_one_row']['later_s']:.2f} s {results['predict_one_row']['later_mb']:.0f} MB "
              f"(goal <= 0.4 s, 150 MB)", flush=True)
        results["serve"] = serve_first_answer(python, model, fresh_env(tmp_path / "caches3"))
    return results


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _post(url: str, body: dict, timeout: float = 10.0) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


def serve_first_answer(python: str, model: Path, env: dict[str, str]) -> dict:
    """Seconds from the start of ``nbayes serve`` to its first answer, then 300 requests in turn."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}/v1/predict"
    t0 = time.perf_counter()
    proc = subprocess.Popen([python, "-m", "nbayes.cli", "serve", str(model), "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                _post(url, {"text": "free prize, call now"}, timeout=5)
                break
            except OSError:
                if proc.poll() is not None or time.perf_counter() - t0 > 60:
                    raise RuntimeError("nbayes serve did not answer")
                time.sleep(0.01)
        ready = time.perf_counter() - t0
        texts = [f"message {i}: win a free prize now, call {i:04d}" for i in range(300)]
        lat = []
        for text in texts:
            t = time.perf_counter()
            _post(url, {"text": text})
            lat.append((time.perf_counter() - t) * 1000)
    finally:
        proc.terminate()
        proc.wait(10)
    head, rest = lat[:50], sorted(lat[50:])
    out = {"first_answer_s": ready, "first50_max_ms": max(head), "rest_p99_ms": rest[int(0.99 * (len(rest) - 1))],
           "rest_median_ms": statistics.median(rest)}
    print(f"nbayes serve: first answer after {ready:.2f} s (goal <= 1.5 s); first 50 requests' worst "
          f"{out['first50_max_ms']:.1f} ms, the next 250's p99 {out['rest_p99_ms']:.1f} ms (median "
          f"{out['rest_median_ms']:.1f} ms)", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", default=sys.executable, help="interpreter to run the jobs under")
    ap.add_argument("--later", type=int, default=3, help="later runs per job (their median is reported)")
    ap.add_argument("--only", nargs="*", help="run only the jobs whose names contain these words")
    ap.add_argument("--no-cli", action="store_true", help="skip the command line and service measures")
    ap.add_argument("--json", action="store_true", help="print the results as JSON at the end")
    args = ap.parse_args()
    if not (DATA / "20newsgroups").exists():
        sys.exit(f"the shared datasets are not at {DATA} (set NBAYES_DATA)")
    version = subprocess.run([args.python, "-c", "import nbayes; print(nbayes.__version__, nbayes.__file__)"],
                             capture_output=True, text=True).stdout.strip()
    print(f"{os.cpu_count()} cores; nbayes {version}; each run a fresh process (first: empty caches)")
    results: dict = {"cores": os.cpu_count(), "jobs": jobs(args.python, args.later, args.only)}
    if not args.no_cli:
        results.update(cli_and_service(args.python, args.later))
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
