#!/usr/bin/env bash
# The whole test suite on a fresh clone: installs nbayes with its test extras, then mypy and pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
# the web page of `nbayes serve` is tested in Debian's headless Chromium (tests/test_serve.py):
# installed here when it is missing and this machine can (root with apt-get)
if ! command -v chromium >/dev/null && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium) >/dev/null
fi
# an editable install of the compiled kernels (meson-python): the build tools come first, and
# the package is built in this environment (no isolation), then rebuilt on import when a
# kernel's source changes
python3 -m pip install --quiet --disable-pip-version-check meson-python meson ninja 'Cython>=3.0.10'
python3 -m pip install --quiet --disable-pip-version-check --no-build-isolation -e '.[test]'
# types: mypy over src/ with the configuration in pyproject.toml (strict, the whole package)
python3 -m mypy
# the tests on every core (pytest-xdist; one worker per core, the long tests handed to whichever
# worker is free): about half the time of one process on 2 cores. NBAYES_TEST_WORKERS=0 runs them
# in this process (a debugger, -x on the first failure in order). pytest-benchmark, when installed,
# would turn itself off under xdist with a warning (an error here): nbayes times in benchmarks/
python3 -m pytest -n "${NBAYES_TEST_WORKERS:-auto}" --dist worksteal -p no:benchmark "$@"
