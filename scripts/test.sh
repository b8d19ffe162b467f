#!/usr/bin/env bash
# Runs the whole test suite: installs what it needs, builds, runs every test.
# The tests read XLSX and SQLite output back with Python (openpyxl, sqlite3) from .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-test-tools
export IAP_AUDIT_PYTHON="$PWD/.venv/bin/python"
swift build --build-tests
log=$(mktemp)
# Each run's scratch folders (TestPaths.scratch, under $TMPDIR) in a folder of its own, removed at the end.
scratch=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$scratch"' EXIT
export TMPDIR="$scratch"
status=0
# The suite is XCTest; Swift Testing (no tests here) is turned off so its "0 tests" line is not the last word.
swift test --skip-build --disable-swift-testing 2>&1 | tee "$log" || status=$?
summary=$(grep -E "Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -1 || true)
executed=$(echo "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
failed=$(echo "$summary" | sed -E 's/.*with ([0-9]+) failures?.*/\1/')
if [ -z "$summary" ] || [ "$executed" -eq 0 ]; then
  echo "test.sh: no test ran" >&2
  exit 1
fi
echo "$((executed - failed)) passed, $failed failed"
exit "$status"
