#!/usr/bin/env bash
# Fuzzes the readers for SECONDS (default 90) from SEED (default: the time): builds iap-audit-fuzz (debug, reusing
# the test build) and runs it on the seed corpus. The driver writes each mutant to OUT/current before reading it;
# when it dies (a crash: a signal), hangs (killed at its time + 60 s) or breaks an invariant (exit 1), the input is
# kept in fuzz-crashes/ (named by kind and SHA-256) and the driver runs again with the next seed until the time is
# spent. Exit 0: nothing found; 1: fuzz-crashes/ holds what was found (docs/security.md: Fuzzing).
#   scripts/fuzz.sh [SECONDS] [SEED]
#   FUZZ_CORPUS (Tests/fuzz-corpus), FUZZ_OUT (.build/fuzz), FUZZ_CRASHES (fuzz-crashes) change the folders.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-90}
seed=${2:-$(date +%s)}
corpus=${FUZZ_CORPUS:-Tests/fuzz-corpus}
out=${FUZZ_OUT:-.build/fuzz}
crashes=${FUZZ_CRASHES:-fuzz-crashes}
swift build --product iap-audit-fuzz >/dev/null || { echo "fuzz.sh: the build failed" >&2; exit 1; }
bin="$(swift build --show-bin-path)/iap-audit-fuzz"
mkdir -p "$out"
end=$(( $(date +%s) + seconds ))
found=0
while :; do
  left=$(( end - $(date +%s) ))
  [ "$left" -gt 0 ] || break
  rm -f "$out/current" "$out/current.txt" "$out/failure"
  timeout -s KILL $(( left + 60 )) "$bin" "$corpus" --out "$out" --seed "$seed" --seconds "$left" --mutate-facts
  status=$?
  [ "$status" -eq 0 ] && break
  if [ "$status" -eq 1 ] && [ -f "$out/failure" ]; then
    kind=invariant; input="$out/failure"
  elif [ "$status" -eq 137 ]; then
    kind=hang; input="$out/current"
  elif [ "$status" -gt 128 ]; then
    kind="signal$(( status - 128 ))"; input="$out/current"
  else
    echo "fuzz.sh: iap-audit-fuzz exited $status (not a crash)" >&2
    exit 1
  fi
  found=1
  if [ -f "$input" ]; then
    mkdir -p "$crashes"
    name="$kind-$(sha256sum "$input" | cut -c1-16)"
    cp "$input" "$crashes/$name"
    cp "$out/current.txt" "$crashes/$name.txt" 2>/dev/null || true
    echo "fuzz.sh: $kind (exit $status), seed $seed: kept $crashes/$name; replay: $bin --replay $crashes/$name" >&2
  else
    echo "fuzz.sh: $kind (exit $status), seed $seed, but no input was left in $out" >&2
  fi
  seed=$(( seed + 1 ))
done
[ "$found" -eq 0 ] || { echo "fuzz.sh: inputs that crash or break an invariant are in $crashes/" >&2; exit 1; }
