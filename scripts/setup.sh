#!/usr/bin/env bash
# Installs what iap-audit needs on Debian 12 (the Swift toolchain is assumed present):
# the C libraries it links (SQLite, libxlsxwriter, OpenSSL's libcrypto, zlib, libcurl), sqlite3, and a Python
# virtual environment (.venv) with the independent readers the tests use (openpyxl).
#   --with-test-tools   also logrotate (the rotation tests drive the real program) and the .venv with openpyxl
#                       (scripts/test.sh)
#   --with-bench-tools  the test tools, plus duckdb in .venv and libsimdjson-dev (bench/run.sh)
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

option="${1:-}"
# libcurl4: FoundationNetworking (URLSession, ask-apple) loads it; the Swift toolchain's own dependencies usually bring it.
packages=(libsqlite3-dev libxlsxwriter-dev libssl-dev zlib1g-dev libcurl4 openssl sqlite3 python3 python3-venv)
[ "$option" = "" ] || packages+=(logrotate)
[ "$option" != "--with-bench-tools" ] || packages+=(libsimdjson-dev g++ time)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ "$option" = "--with-test-tools" ] || [ "$option" = "--with-bench-tools" ]; then
  if ! .venv/bin/python -c "import openpyxl" 2>/dev/null; then
    echo "setup: creating .venv with openpyxl" >&2
    rm -rf .venv
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check openpyxl
  fi
fi

if [ "$option" = "--with-bench-tools" ] && ! .venv/bin/python -c "import duckdb" 2>/dev/null; then
  echo "setup: installing duckdb into .venv" >&2
  .venv/bin/pip install --quiet --disable-pip-version-check duckdb
fi
