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
# XCTest's closing line: "Executed N tests, with F failures …", or "… with S tests skipped and F failures …".
summary=$(grep -E "Executed [0-9]+ tests?, with ([0-9]+ tests? skipped and )?[0-9]+ failures?" "$log" | tail -1 || true)
executed=$(echo "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
failed=$(echo "$summary" | sed -E 's/.* ([0-9]+) failures?.*/\1/')
skipped=0
if echo "$summary" | grep -qE "[0-9]+ tests? skipped"; then
  skipped=$(echo "$summary" | sed -E 's/.*with ([0-9]+) tests? skipped.*/\1/')
fi
if [ -z "$summary" ] || [ "$executed" -eq 0 ]; then
  echo "test.sh: no test ran" >&2
  exit 1
fi
if [ "$skipped" -gt 0 ]; then
  # Why, once per reason (a bare clone: the external corpus ../shared is absent).
  echo "test.sh: $skipped skipped, because:"
  grep -oE "(needs \.\./shared[^\"]*|checked in debug builds only)" "$log" | sort | uniq -c | sed 's/^/  /' || true
fi
echo "$((executed - skipped - failed)) passed, $failed failed, $skipped skipped"
exit "$status"
