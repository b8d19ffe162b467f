#!/usr/bin/env bash
# A nightly increment against a full run, measured A/B in one invocation:
#
#   bench/nightly.sh DATA WORK BINARY [PAIRS]
#
# DATA holds gen.py's month (client.jsonl, server.jsonl, verify.jsonl; read only). WORK is made (and removed at the
# end) with base/ (each file's first 30/31 of lines, dated a day back: the files of the earlier nights, left as
# they were) and day/ (the rest: the last night's delivery), and a ledger of base/ alone. Then, PAIRS times (default
# 3): A = a fresh run over base/ and day/ (the full run), B = a copy of base/'s ledger given base/ and day/ (the
# nightly increment). Prints a markdown table: each side's wall seconds (median, min–max), B/A, whether B's findings
# equal A's (table finding, every column), and B's phase timings. Needs GNU time at /usr/bin/time and python3.
set -euo pipefail

[ $# -ge 3 ] || { sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }
data=$1 work=$2 iap=$3 pairs=${4:-3}
log() { echo "bench: $*" >&2; }

rm -rf "$work"
mkdir -p "$work/base" "$work/day" "$work/times"
trap 'rm -rf "$work"' EXIT
for f in client.jsonl server.jsonl verify.jsonl; do
  n=$(wc -l <"$data/$f")
  k=$(( n * 30 / 31 ))
  head -n "$k" "$data/$f" >"$work/base/$f"
  tail -n +"$(( k + 1 ))" "$data/$f" >"$work/day/$f"
done
# Files of earlier nights are old: their stat is trusted (a file modified in the last 2 s would be hashed).
touch -d '1 day ago' "$work"/base/*
log "nightly: the ledger of the first 30/31 ($(du -sh "$work/base" | cut -f1))"
"$iap" run "$work/base" --out "$work/ledger0" --json >/dev/null 2>"$work/times/ledger0.err"

# Wall seconds of one run of the command after the first two arguments ($1: output folder, $2: timing label).
timed() {
  local label=$1
  shift
  /usr/bin/time -f %e -o "$work/times/$label" "$@" >/dev/null 2>"$work/times/$label.err"
  cat "$work/times/$label"
}

findings() { # a digest of table finding in the ledger $1, every column, in id order
  python3 - "$1" <<'EOF'
import hashlib, sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT * FROM finding ORDER BY finding_id").fetchall()
print(len(rows), hashlib.sha256(repr(rows).encode()).hexdigest())
EOF
}

a_times=() b_times=() agree=yes
for pair in $(seq 1 "$pairs"); do
  log "nightly pair $pair/$pairs: A full run"
  rm -rf "$work/full"
  a_times+=("$(timed "a$pair" "$iap" run "$work/base" "$work/day" --out "$work/full" --json)")
  log "nightly pair $pair/$pairs: B increment"
  rm -rf "$work/inc"
  cp -r "$work/ledger0" "$work/inc"
  # The copy's dirty pages are the benchmark's, not the night's: written back before B (B's first commit would
  # otherwise fsync the whole 1.3 GB copy: 0.8 s of "opening the ledger" at 1M, and the writeback slowed the rest).
  sync
  b_times+=("$(IAP_AUDIT_PHASE_TIMINGS="$work/times/phases.json" timed "b$pair" "$iap" run "$work/base" "$work/day" --out "$work/inc" --json)")
  [ "$(findings "$work/full/audit.sqlite")" = "$(findings "$work/inc/audit.sqlite")" ] || agree=no
done

python3 - "$agree" "$(findings "$work/full/audit.sqlite")" "$work/times/phases.json" "${a_times[*]}" "${b_times[*]}" <<'EOF'
import json, statistics, sys
agree, digest, phases, a, b = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), sys.argv[5].split()
a, b = [float(x) for x in a], [float(x) for x in b]
ma, mb = statistics.median(a), statistics.median(b)
print("#### Nightly increment: the last 1/31 of each file onto a ledger of the rest, A/B\n")
print("| run | wall s median (min–max) | runs |")
print("|---|---|---|")
print(f"| A: full run, fresh ledger | {ma:.2f} ({min(a):.2f}–{max(a):.2f}) | {len(a)} |")
print(f"| B: nightly increment | {mb:.2f} ({min(b):.2f}–{max(b):.2f}) | {len(b)} |")
print(f"\nB/A = **{mb / ma:.1%}** (target ≤ 15%); B's findings equal A's: **{agree}** ({digest.split()[0]} findings).")
try:
    timings = json.load(open(phases))
    def part(k, v):
        cpu = f" (CPU {v['cpu_seconds']:.2f} s)" if "cpu_seconds" in v else ""
        return f"{k} {v['seconds']:.2f} s{cpu}"
    parts = [part(k, v) for k, v in timings.items() if isinstance(v, dict) and "seconds" in v]
    print("B's phases (last run, wall and CPU of every thread): " + ", ".join(parts) + ".")
    if "reconcile_carry" in timings:
        print(f"B's request stage: {timings['reconcile_carry']}.")
    print()
except (OSError, ValueError):
    print()
EOF
