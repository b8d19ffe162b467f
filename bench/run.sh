#!/usr/bin/env bash
# The performance benchmark: iap-audit against the DuckDB peer on gen.py's synthetic months.
#
#   bench/run.sh [--sizes 100000,1000000,5000000] [--pairs 3] [--seed 42] [--timeout-min 60] [--mem-cap-gb G]
#
# Needs: scripts/setup.sh --with-bench-tools (duckdb in .venv, libsimdjson-dev), the Swift toolchain.
# Not part of scripts/test.sh. For each size N it
#   1. makes the data once with ../shared/bench/gen.py into .bench/nN/ (.bench/nN-seedS/ for another
#      seed; kept, made again only when truth.json is missing), or skips N when the disk has no room for input plus output;
#   2. runs A = iap-audit run (fresh .bench/out-N each time) and B = peer_duckdb.py alternately,
#      --pairs times (A B A B …), each under /usr/bin/time -v (wall, user+sys CPU, peak RSS);
#   3. measures a nightly increment against the full run (bench/nightly.sh: a ledger of the month's first 30/31
#      given the rest, A/B, the ratio printed; findings checked equal);
#   4. prints the timing table, iap-audit's findings beside truth.json, and the JSON parsing probes on
#      verify.jsonl, one thread each: bench/json_probe.cpp (simdjson DOM, DOM + duplicate-key walk,
#      On-Demand) and iap-audit-json-probe (iap-audit's LineTape, and its fast readers into rows);
# then growth and targets over the sizes. Everything printed on stdout is appended, identical, to
# bench/RESULTS.md with the date and commit (also when a run is interrupted, marked incomplete).
# Progress goes to stderr; per-run logs stay in .bench/log/<time>/.
set -euo pipefail
cd "$(dirname "$0")/.."

sizes="100000,1000000,5000000"
pairs=3
seed=42
timeout_min=60       # a run longer than this is stopped and counted as failed
mem_cap_gb=""        # virtual-memory cap for iap-audit runs; default 80% of RAM, 0 = none
command_line="bench/run.sh $*"

shared_bench="../shared/bench"   # gen.py and peer_duckdb.py live beside the checkout
py=".venv/bin/python"
bytes_per_transaction=2300       # gen.py writes ~2.3 GB per million client lines
output_factor=8                  # iap-audit's output ≈ 0.55 × its input at 1M (audit.sqlite, spill, workbook); margin kept

usage() { # $1: exit status (0 for --help, 64 for a usage error)
  sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit "$1"
}

log() { echo "bench: $*" >&2; }

parse_args() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --sizes) sizes="${2:?}"; shift 2 ;;
      --pairs) pairs="${2:?}"; shift 2 ;;
      --seed) seed="${2:?}"; shift 2 ;;
      --timeout-min) timeout_min="${2:?}"; shift 2 ;;
      --mem-cap-gb) mem_cap_gb="${2:?}"; shift 2 ;;
      -h|--help) usage 0 ;;
      *) echo "bench/run.sh: unknown option $1" >&2; usage 64 ;;
    esac
  done
  [[ "$sizes" =~ ^[0-9]+(,[0-9]+)*$ && "$pairs" =~ ^[1-9][0-9]*$ && "$seed" =~ ^[0-9]+$ ]] || usage 64
  if [ -z "$mem_cap_gb" ]; then
    local ram_kib
    ram_kib=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)
    mem_cap_gb=$(( ram_kib * 8 / 10 / 1024 / 1024 ))
  fi
}

check_tools() {
  [ -f "$shared_bench/gen.py" ] && [ -f "$shared_bench/peer_duckdb.py" ] \
    || { echo "bench/run.sh: $shared_bench/gen.py and peer_duckdb.py not found" >&2; exit 1; }
  "$py" -c "import duckdb" 2>/dev/null \
    || { echo "bench/run.sh: no duckdb in .venv: run scripts/setup.sh --with-bench-tools" >&2; exit 1; }
  [ -x /usr/bin/time ] || { echo "bench/run.sh: /usr/bin/time is missing (Debian package time)" >&2; exit 1; }
}

build() {
  log "swift build -c release"
  swift build -c release >&2
  # Every run uses this copy: a rebuild of the working tree during the benchmark must not change it.
  iap=".bench/iap-audit"
  cp .build/release/iap-audit "$iap"
  log "swift build -c release --product iap-audit-json-probe"
  if swift build -c release --product iap-audit-json-probe >&2; then
    own_probe=".bench/iap-audit-json-probe"
    cp .build/release/iap-audit-json-probe "$own_probe"
  else
    log "iap-audit-json-probe did not build; its parsing rows n/a"
    own_probe=""
  fi
  log "c++ json_probe"
  if c++ -O2 -std=c++17 bench/json_probe.cpp -lsimdjson -o .bench/json_probe >&2; then
    probe=".bench/json_probe"
  else
    log "json_probe did not build (scripts/setup.sh --with-bench-tools installs libsimdjson-dev); parsing row n/a"
    probe=""
  fi
}

# HEAD's short hash, "-dirty" when what the build reads (Sources/, Package.swift) differs from it.
commit_label() {
  local label
  label=$(git rev-parse --short HEAD)
  [ -z "$(git status --porcelain -- Sources Package.swift Package.resolved)" ] || label="$label-dirty"
  echo "$label"
}

# The data folder of size $1: .bench/nN for the default seed 42, .bench/nN-seedS for another.
data_dir() { if [ "$seed" = 42 ]; then echo ".bench/n$1"; else echo ".bench/n$1-seed$seed"; fi; }

free_bytes() { df -Pk "$1" | sed -n '2p' | { read -r _ _ _ avail _; echo $(( avail * 1024 )); }; }

input_bytes() { # the cached input of size $1, else gen.py's estimate
  local dir
  dir=$(data_dir "$1")
  if [ -f "$dir/truth.json" ]; then
    echo $(( $(stat -c %s "$dir/client.jsonl" "$dir/server.jsonl" "$dir/verify.jsonl" | paste -sd+) ))
  else
    echo $(( $1 * bytes_per_transaction ))
  fi
}

# Succeeds when the disk holds size $1's input (unless cached) plus one run's output; else prints why not.
room_for() {
  local size=$1 input need_input=0 output need free
  input=$(input_bytes "$size")
  [ -f "$(data_dir "$size")/truth.json" ] || need_input=$input
  output=$(( input * output_factor / 10 ))
  need=$(( need_input + output + (1 << 30) ))
  free=$(free_bytes .bench)
  [ "$free" -lt "$need" ] || return 0
  echo "Skipped N = $size: needs ~$(( need / 1000000000 )) GB free (input $(( input / 1000000000 )) GB" \
    "$([ "$need_input" -eq 0 ] && echo cached || echo to generate), output ~$(( output / 1000000000 )) GB," \
    "1 GB margin); $(( free / 1000000000 )) GB free."
  return 1
}

# Makes size $1's data folder with gen.py unless its truth.json exists (written last, so it marks a whole set).
make_data() {
  local size=$1 dir
  dir=$(data_dir "$1")
  [ ! -f "$dir/truth.json" ] || return 0
  log "generating $dir (gen.py --n $size --seed $seed; ~2.5 min per million)"
  rm -rf "$dir"
  python3 "$shared_bench/gen.py" --n "$size" --seed "$seed" --out "$dir" >/dev/null
}

# Runs one timed command: $1 size, $2 tool, $3 pair, then the command. Appends a row to $runs.
timed_run() {
  local size=$1 tool=$2 pair=$3 base rc=0
  shift 3
  base="$logdir/$size-$tool-$pair"
  /usr/bin/time -v -o "$base.time" timeout "${timeout_min}m" "$@" >"$base.json" 2>"$base.err" || rc=$?
  "$py" bench/report.py record --time-file "$base.time" --size "$size" --tool "$tool" --pair "$pair" --rc "$rc" >>"$runs"
  local wall cpu rss
  IFS=$'\t' read -r _ _ _ wall cpu rss _ < <(tail -n 1 "$runs")
  log "  $tool #$pair: exit $rc, wall ${wall}s, CPU ${cpu}s, peak RSS $(( rss / 1024 )) MiB"
  return "$rc"
}

run_iap_audit() {
  local size=$1 pair=$2
  rm -rf ".bench/out-$size"   # a fresh ledger: every run imports everything
  # The memory cap keeps a run that outgrows the machine from taking it down (it then fails).
  ( [ "$mem_cap_gb" -eq 0 ] || ulimit -v $(( mem_cap_gb * 1024 * 1024 ))
    export IAP_AUDIT_PHASE_TIMINGS=".bench/out-$size/phase-timings.json"   # wall and CPU seconds and peak RSS per phase
    timed_run "$size" iap-audit "$pair" "$iap" run "$(data_dir "$size")" --out ".bench/out-$size" --json )
}

run_duckdb() {
  local size=$1 pair=$2
  timed_run "$size" duckdb "$pair" "$py" "$shared_bench/peer_duckdb.py" "$(data_dir "$size")" --threads 2 \
    --out ".bench/out-$size-duckdb.parquet"
}

# A B A B … at one size; the last completed iap-audit summary is kept for the findings table.
measure_size() {
  local size=$1 pair rc
  for pair in $(seq 1 "$pairs"); do
    if [ -z "$iap_gave_up" ]; then
      log "N=$size pair $pair/$pairs: A iap-audit"
      rc=0; run_iap_audit "$size" "$pair" || rc=$?
      if [ "$rc" -eq 0 ]; then   # keep what the report needs: the next run starts a fresh output folder
        cp "$logdir/$size-iap-audit-$pair.json" "$logdir/$size-iap-audit.json"
        "$py" bench/report.py extract --db ".bench/out-$size/audit.sqlite" >"$logdir/$size-audit-extract.json"
        rm -f "$logdir/$size-phase-timings.json"
        [ ! -f ".bench/out-$size/phase-timings.json" ] \
          || cp ".bench/out-$size/phase-timings.json" "$logdir/$size-phase-timings.json"
      elif [ "$rc" -eq 124 ]; then
        iap_gave_up="iap-audit took over $timeout_min min at N = $size: not run again at this or larger sizes"
        log "$iap_gave_up"
      fi
    fi
    log "N=$size pair $pair/$pairs: B DuckDB"
    rc=0; run_duckdb "$size" "$pair" || rc=$?
    [ "$rc" -ne 0 ] || cp "$logdir/$size-duckdb-$pair.json" "$logdir/$size-duckdb.json"
  done
  if [ -n "$probe" ]; then
    log "N=$size json_probe on verify.jsonl"
    "$probe" "$(data_dir "$size")/verify.jsonl" >"$logdir/$size-probe.json" || log "json_probe failed"
  fi
  if [ -n "$own_probe" ]; then
    log "N=$size iap-audit-json-probe on verify.jsonl"
    "$own_probe" "$(data_dir "$size")/verify.jsonl" >"$logdir/$size-own-probe.json" || log "iap-audit-json-probe failed"
  fi
}

# The nightly increment at size $1 (bench/nightly.sh: a ledger of the first 30/31 given the rest, against a full
# run, A/B), when the disk holds its copy of the input and three ledgers.
measure_nightly() {
  local size=$1 input need free
  input=$(input_bytes "$size")
  need=$(( input + 3 * input * output_factor / 10 + (1 << 30) ))
  free=$(free_bytes .bench)
  if [ -n "$iap_gave_up" ] || [ "$free" -lt "$need" ]; then
    printf 'Nightly increment at N = %s skipped: needs ~%s GB free and a completed run.\n\n' "$size" $(( need / 1000000000 ))
    return 0
  fi
  log "N=$size nightly increment (bench/nightly.sh)"
  bench/nightly.sh "$(data_dir "$size")" ".bench/nightly-$size" "$iap" "$pairs" || printf 'Nightly increment at N = %s failed.\n\n' "$size"
}

report_size() {
  local size=$1
  [ -z "$iap_gave_up" ] || printf '%s.\n\n' "$iap_gave_up"
  "$py" bench/report.py size --size "$size" --runs "$runs" --data "$(data_dir "$size")" \
    --iap-json "$logdir/$size-iap-audit.json" --extract "$logdir/$size-audit-extract.json" \
    --timings "$logdir/$size-phase-timings.json" --peer-json "$logdir/$size-duckdb.json" \
    --peer-parquet ".bench/out-$size-duckdb.parquet" --probe-json "$logdir/$size-probe.json" \
    --own-probe-json "$logdir/$size-own-probe.json"
}

# Appends this invocation's block to bench/RESULTS.md; on an interrupted run it says so.
append_results() {
  local rc=$?
  [ -s "${block:-}" ] || exit "$rc"
  if [ "$rc" -ne 0 ]; then
    printf '**Incomplete**: the run stopped with exit %s before finishing.\n\n' "$rc" | tee -a "$block"
  fi
  cat "$block" >>bench/RESULTS.md
  log "appended to bench/RESULTS.md; logs in $logdir"
  exit "$rc"
}

main() {
  parse_args "$@"
  check_tools
  mkdir -p .bench
  build
  logdir=".bench/log/$(date -u +%Y%m%dT%H%M%SZ)"
  mkdir -p "$logdir"
  runs="$logdir/runs.tsv"
  block="$logdir/block.md"
  : >"$runs"
  iap_gave_up=""
  trap append_results EXIT
  "$py" bench/report.py header --command "$command_line" --commit "$(commit_label)" --binary "$iap" \
    --duckdb "$("$py" -c 'import duckdb; print(duckdb.__version__)')" | tee -a "$block"
  local size skipped
  for size in ${sizes//,/ }; do
    rm -rf ".bench/out-$size" ".bench/out-$size-duckdb.parquet"   # last invocation's outputs
    if ! skipped=$(room_for "$size"); then
      printf '%s\n\n' "$skipped" | tee -a "$block"
      continue
    fi
    make_data "$size"
    measure_size "$size"
    report_size "$size" | tee -a "$block"
    measure_nightly "$size" | tee -a "$block"
  done
  "$py" bench/report.py summary --runs "$runs" | tee -a "$block"
}

main "$@"
