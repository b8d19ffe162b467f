#!/usr/bin/env bash
# Runs the whole test suite: installs what it needs, builds, runs every test.
# The tests read XLSX and SQLite output back with Python (openpyxl, sqlite3) from .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-test-tools
export IAP_AUDIT_PYTHON="$PWD/.venv/bin/python"
swift build --build-tests
swift test --skip-build
