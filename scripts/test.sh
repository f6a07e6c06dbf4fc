#!/usr/bin/env bash
# The whole test suite on a fresh clone: installs nbayes with its test extras, then runs pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'
export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-$PWD/.numba_cache}"
python3 -m pytest "$@"
