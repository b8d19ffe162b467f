#!/usr/bin/env python3
"""Formatting half of bench/run.sh: turns measurements into the text printed and kept in RESULTS.md.

Subcommands (run.sh calls them; the venv's python, for duckdb):
  record  --time-file F --size N --tool T --pair I --rc RC   one TSV row from `/usr/bin/time -v` output
  header  --command C --commit C --duckdb V --binary F       the block's first lines
  extract --db audit.sqlite                                  after each completed iap-audit run: the
                                                             findings rows the truth table needs, as JSON
  size    --size N --runs TSV --data DIR --out DIR --iap-json F --peer-json F
          --peer-parquet F --probe-json F --own-probe-json F --extract F --timings F   the section of one size
  summary --runs TSV                                         growth and targets over all sizes run

Units: wall and CPU in seconds (CPU = user + sys, children included), peak RSS in MiB
(`Maximum resident set size` / 1024), throughput in MB/s with MB = 10^6 bytes.
"""
import argparse
import datetime
import glob
import hashlib
import json
import os
import sqlite3
import statistics
import sys

TOOLS = ("iap-audit", "duckdb")
TOOL_LABEL = {"iap-audit": "iap-audit", "duckdb": "DuckDB peer (threads=2)"}
# Targets from the issue.
TARGET_RATIO, STRETCH_RATIO, TARGET_RSS_MIB, TARGET_GROWTH = 2.0, 1.0, 512, 5.5


def n(value):
    """An integer with thousands separators."""
    return f"{value:,}"


def size_label(size):
    return f"{size // 1000000}M" if size % 1000000 == 0 else f"{size // 1000}K" if size % 1000 == 0 else str(size)


# ---------------------------------------------------------------- record

def parse_time_file(path):
    """Wall s, CPU s (user + sys), peak RSS KiB from GNU time -v output."""
    fields = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            key, sep, value = line.strip().rpartition(": ")
            if sep:
                fields[key] = value
    parts = [float(p) for p in fields["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")]
    wall = 0.0
    for p in parts:
        wall = wall * 60 + p
    cpu = float(fields["User time (seconds)"]) + float(fields["System time (seconds)"])
    return wall, cpu, int(fields["Maximum resident set size (kbytes)"])


def cmd_record(a):
    try:
        wall, cpu, rss = parse_time_file(a.time_file)
    except (OSError, KeyError, ValueError):
        wall, cpu, rss = 0.0, 0.0, 0
    print(f"{a.size}\t{a.tool}\t{a.pair}\t{wall:.2f}\t{cpu:.2f}\t{rss}\t{a.rc}")


def load_runs(path):
    runs = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                size, tool, pair, wall, cpu, rss, rc = line.rstrip("\n").split("\t")
                runs.append(dict(size=int(size), tool=tool, pair=int(pair), wall=float(wall),
                                 cpu=float(cpu), rss_mib=int(rss) / 1024, rc=int(rc)))
    return runs


def stats(runs, size, tool):
    """Medians over the successful runs of one tool at one size, or None."""
    mine = [r for r in runs if r["size"] == size and r["tool"] == tool]
    ok = [r for r in mine if r["rc"] == 0]
    if not ok:
        return dict(count=len(mine), ok=0, failures=[r["rc"] for r in mine])
    walls = [r["wall"] for r in ok]
    return dict(count=len(mine), ok=len(ok), failures=[r["rc"] for r in mine if r["rc"] != 0],
                wall=statistics.median(walls), wall_min=min(walls), wall_max=max(walls),
                cpu=statistics.median(r["cpu"] for r in ok), rss=max(r["rss_mib"] for r in ok),
                walls=[r["wall"] for r in mine])


# ---------------------------------------------------------------- header

def cmd_header(a):
    with open("/proc/meminfo") as f:
        ram_kib = int(next(l for l in f if l.startswith("MemTotal:")).split()[1])
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    cpu_model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    with open(a.binary, "rb") as f:
        binary_sha = hashlib.sha256(f.read()).hexdigest()[:12]
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"## {now} · commit {a.commit}")
    print()
    print(f"- command: `{a.command}`")
    print(f"- machine: {os.cpu_count()} cores ({cpu_model}), {ram_kib / 1024 / 1024:.1f} GiB RAM, "
          f"load average {load} at start")
    print(f"- A = `iap-audit run .bench/nN --out .bench/out-N --json` (fresh output folder; the release build "
          f"of this tree, copied to {a.binary} before the first run, sha256 {binary_sha}…); "
          f"B = `peer_duckdb.py .bench/nN --threads 2` (DuckDB {a.duckdb}); alternated A B A B …")
    print()


# ---------------------------------------------------------------- size section

def timing_table(runs, size):
    lines = ["| tool | runs ok | wall median s | spread min–max s | CPU median s | peak RSS max MiB | walls in run order s |",
             "|---|---|---|---|---|---|---|"]
    for tool in TOOLS:
        s = stats(runs, size, tool)
        if s["count"] == 0:
            lines.append(f"| {TOOL_LABEL[tool]} | not run | | | | | |")
            continue
        fails = "" if not s["failures"] else " (failed: " + ", ".join(
            "timeout" if rc == 124 else f"exit {rc}" for rc in s["failures"]) + ")"
        if s["ok"] == 0:
            lines.append(f"| {TOOL_LABEL[tool]} | 0/{s['count']}{fails} | n/a | | | | |")
            continue
        walls = ", ".join(f"{w:.2f}" for w in s["walls"])
        lines.append(f"| {TOOL_LABEL[tool]} | {s['ok']}/{s['count']}{fails} | {s['wall']:.2f} | "
                     f"{s['wall_min']:.2f}–{s['wall_max']:.2f} | {s['cpu']:.2f} | {s['rss']:.0f} | {walls} |")
    a, b = stats(runs, size, "iap-audit"), stats(runs, size, "duckdb")
    if a.get("ok") and b.get("ok"):
        lines.append("")
        lines.append(f"Ratio iap-audit / DuckDB (medians): wall **{a['wall'] / b['wall']:.2f}×**, "
                     f"CPU {a['cpu'] / b['cpu']:.2f}×, peak RSS {a['rss'] / b['rss']:.2f}×")
    else:
        lines.append("")
        lines.append("Ratio iap-audit / DuckDB: n/a (a tool has no completed run)")
    return lines


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError, TypeError):
        return None


def terms_text(by_kind, kinds):
    """'kind a (r1 x, r2 y) + kind b z' and the sum, from the --json summary's by_kind."""
    parts, total = [], 0
    for kind in kinds:
        reasons = by_kind.get(kind, {})
        count = sum(reasons.values())
        total += count
        if len(reasons) > 1:
            parts.append(f"{kind} {n(count)} (" + ", ".join(f"{r} {n(c)}" for r, c in sorted(reasons.items())) + ")")
        elif reasons:
            (reason, c), = reasons.items()
            parts.append(f"{kind}/{reason} {n(c)}")
        else:
            parts.append(f"{kind} 0")
    return " + ".join(parts), total


# Which iap-audit findings stand for each of gen.py's expected counts (docs/findings.md, SEMANTICS.md).
DROPPED_KINDS = ("dropped_order", "pending_verification", "sandbox_refused", "verification_backlog")
DUPLICATE_KINDS = ("duplicate_credit", "regranted")
SANDBOX_KINDS = ("sandbox_leak", "sandbox_allowlisted")
# Findings with no counterpart in truth.json, and why.
UNMAPPED_NOTES = {
    "invalid_credit": "a grant without Apple's proof (rule 13); gen.py credits on the server's word alone",
    "refund_still_granted": "gen.py plants no refunds",
    "id_reissued": "info: one billing event under several ids; gen.py plants none",
}


def audit_sets(db_path):
    """From audit.sqlite: findings of the mapped kinds with whether the client reported T as purchased,
    and per granted flag the Sandbox requests' count, ids and ids the client reported as purchased."""
    if not os.path.exists(db_path):
        raise OSError(f"{db_path} does not exist")
    db = sqlite3.connect(db_path)
    try:
        rows = db.execute(f"""
            SELECT f.kind, f.reason, f.transaction_id,
                   EXISTS (SELECT 1 FROM client_report c
                           WHERE c.transaction_id = f.transaction_id AND c.state = 'purchased')
            FROM finding f WHERE f.kind IN ({",".join("?" * len(DROPPED_KINDS + DUPLICATE_KINDS + SANDBOX_KINDS))})
            """, DROPPED_KINDS + DUPLICATE_KINDS + SANDBOX_KINDS).fetchall()
        sandbox = db.execute("""
            WITH request AS (SELECT request_id, max(granted) AS granted, transaction_ids FROM server_request
                             WHERE event = 'verify' AND environment = 'Sandbox' GROUP BY request_id)
            SELECT request.granted, count(DISTINCT request.request_id), count(*),
                   sum(EXISTS (SELECT 1 FROM client_report c WHERE c.transaction_id = ids.value
                               AND c.state = 'purchased'))
            FROM request, json_each(request.transaction_ids) AS ids GROUP BY request.granted""").fetchall()
    finally:
        db.close()
    return rows, {granted: (requests, ids, purchased) for granted, requests, ids, purchased in sandbox}


def cmd_extract(a):
    """Saves what findings_section needs from one run's audit.sqlite (the next run replaces it)."""
    try:
        rows, sandbox = audit_sets(a.db)
        print(json.dumps({"rows": rows, "sandbox": [[g, *v] for g, v in sandbox.items()]}))
    except (sqlite3.Error, OSError) as error:
        print(json.dumps({"error": str(error)}))


def dropped_breakdown(rows):
    """Distinct client purchases among the dropped-like findings, and what the row total overcounts.

    Each purchased T counts once, under the first of its rows in DROPPED_KINDS order; its other rows
    are overlaps. Rows whose T the client never reported as purchased are not purchases."""
    order = {k: i for i, k in enumerate(DROPPED_KINDS)}
    by_tid = {}
    not_purchase = {}
    for kind, reason, tid, purchased in rows:
        if kind not in order:
            continue
        if not purchased:
            not_purchase[(kind, reason)] = not_purchase.get((kind, reason), 0) + 1
            continue
        by_tid.setdefault(tid, []).append((order[kind], kind, reason))
    overlap = {}
    for entries in by_tid.values():
        entries.sort()
        first = entries[0]
        for _, kind, reason in entries[1:]:
            key = (kind, reason, first[1], first[2])
            overlap[key] = overlap.get(key, 0) + 1
    return set(by_tid), overlap, not_purchase


def peer_sets(parquet):
    """The DuckDB peer's findings (same semantics as truth.json) as sets of ids per kind."""
    try:
        import duckdb
        path = parquet.replace("'", "''")
        sets = {}
        for kind, tid in duckdb.connect().execute(f"SELECT kind, transaction_id FROM '{path}'").fetchall():
            sets.setdefault(kind, set()).add(tid)
        return sets
    except Exception:  # the check is an extra: no parquet, no duckdb → skip it
        return None


def set_check(label, mine, theirs):
    only_peer, only_mine = theirs - mine, mine - theirs
    text = f"  - {label}: iap-audit {n(len(mine))} ids, DuckDB peer {n(len(theirs))}; "
    if not only_peer and not only_mine:
        return text + "identical"
    sample = lambda s: ", ".join(sorted(s)[:3]) + (" …" if len(s) > 3 else "")
    return (text + f"only in peer {n(len(only_peer))} ({sample(only_peer)}), "
            f"only in iap-audit {n(len(only_mine))} ({sample(only_mine)})")


def verdict(expected, got):
    residual = expected - got
    return "**balances** (residual 0)" if residual == 0 else f"**does not balance**: residual {residual:+,} (truth − iap-audit)"


def findings_section(size, data_dir, extract_json, iap_json, peer_json, peer_parquet):
    lines = [f"#### Findings at N = {n(size)} beside truth.json", ""]
    truth = load_json(os.path.join(data_dir, "truth.json"))
    iap = load_json(iap_json)
    peer = load_json(peer_json) or {}
    if truth is None or iap is None:
        return lines + ["n/a: " + ("no truth.json" if truth is None else "no completed iap-audit run") + "", ""]
    by_kind = iap["findings"]["by_kind"]
    pattern = os.path.join(os.path.dirname(iap_json), f"{size}-iap-audit-*.json")
    differing = [os.path.basename(p) for p in sorted(glob.glob(pattern))
                 if (load_json(p) or {}).get("findings", {}).get("by_kind", by_kind) != by_kind]
    if differing:
        lines += [f"**Warning**: the completed iap-audit runs disagree: {', '.join(differing)} differ from the last; "
                  "the table uses the last.", ""]
    exp, planted = truth["expected"], truth["planted"]
    files = {f.get("kind"): f for f in iap.get("files", [])}
    count = lambda kind, reason=None: (sum(by_kind.get(kind, {}).values()) if reason is None
                                       else by_kind.get(kind, {}).get(reason, 0))

    drop_text, _ = terms_text(by_kind, DROPPED_KINDS)
    dup_text, dup_total = terms_text(by_kind, DUPLICATE_KINDS)
    sbx_text, sbx_total = terms_text(by_kind, SANDBOX_KINDS)
    imported = " / ".join(n(files.get(k, {}).get("imported", 0)) for k in ("client_report", "server_log", "verify_response"))
    rejected = sum(f.get("rejected", 0) for f in iap.get("files", []))
    lines += ["| truth.json | truth | iap-audit (`--json` findings.by_kind) | DuckDB peer |",
              "|---|---|---|---|",
              f"| lines client / server / verify | {' / '.join(n(truth['lines'][k]) for k in ('client', 'server', 'verify'))} "
              f"| imported {imported}, rejected {n(rejected)} | |",
              f"| expected.dropped_orders | {n(exp['dropped_orders'])} | {drop_text} | {n(peer.get('dropped_orders', 0)) if peer else 'n/a'} |",
              f"| expected.duplicate_tids | {n(exp['duplicate_tids'])} | {dup_text} = {n(dup_total)} | {n(peer.get('duplicate_tids', 0)) if peer else 'n/a'} |",
              f"| expected.sandbox_leak_tids | {n(exp['sandbox_leak_tids'])} | {sbx_text} = {n(sbx_total)} | {n(peer.get('sandbox_leak_tids', 0)) if peer else 'n/a'} |",
              f"| planted.dropped (requests never sent) | {n(planted['dropped'])} | dropped_order/never_sent {n(count('dropped_order', 'never_sent'))} | |",
              f"| planted.failed_no_retry (requests) | {n(planted['failed_no_retry'])} | dropped_order/verify_failed {n(count('dropped_order', 'verify_failed'))}, "
              f"pending_verification {n(count('pending_verification'))} | |",
              f"| planted.sandbox_rejected (requests) | {n(planted['sandbox_rejected'])} | sandbox_refused {n(count('sandbox_refused'))} (info) | |",
              f"| planted.sandbox_leak (requests) | {n(planted['sandbox_leak'])} | sandbox_leak {n(count('sandbox_leak'))} + sandbox_allowlisted {n(count('sandbox_allowlisted'))} | |",
              f"| planted.dup_same_user (requests) | {n(planted['dup_same_user'])} | duplicate_credit/same_user {n(count('duplicate_credit', 'same_user'))}, "
              f"restore_credited_as_purchase {n(count('duplicate_credit', 'restore_credited_as_purchase'))}, regranted {n(count('regranted'))} | |",
              f"| planted.dup_other_user (requests) | {n(planted['dup_other_user'])} | duplicate_credit/cross_account {n(count('duplicate_credit', 'cross_account'))} | |",
              f"| planted.failed_retried_ok (requests) | {n(planted['failed_retried_ok'])} | no finding (benign: a failure retried successfully) | |",
              ""]

    extract = load_json(extract_json) or {"error": "no extract of audit.sqlite"}
    if "error" in extract:
        rows, sandbox = None, {}
        lines.append(f"(no split from audit.sqlite: {extract['error']}; the arithmetic below uses the summary counts only)")
    else:
        rows = [tuple(r) for r in extract["rows"]]
        sandbox = {g: (requests, ids, purchased) for g, requests, ids, purchased in extract["sandbox"]}
    lines.append("Differences, by the documented semantics (docs/findings.md, SEMANTICS.md rules):")

    # Dropped orders: gen.py counts client purchases never credited, whatever happened to them.
    if rows is None:
        _, total = terms_text(by_kind, DROPPED_KINDS[:3])
        lines.append(f"- dropped: {n(exp['dropped_orders'])} vs {terms_text(by_kind, DROPPED_KINDS[:3])[0]} = {n(total)}: "
                     + verdict(exp["dropped_orders"], total) + " (verification_backlog not split without audit.sqlite)")
    else:
        purchases, overlap, not_purchase = dropped_breakdown(rows)
        row_total = sum(count(k) for k in DROPPED_KINDS)
        minus = [f"{n(c)} {k}/{r} also {fk}/{fr}" for (k, r, fk, fr), c in sorted(overlap.items())]
        minus += [f"{n(c)} {k}/{r} not client purchases" for (k, r), c in sorted(not_purchase.items())]
        subtracted = sum(overlap.values()) + sum(not_purchase.values())
        lines.append(f"- dropped: {n(exp['dropped_orders'])} =? {drop_text} = {n(row_total)}"
                     + "".join(f" − {m}" for m in minus) + f" = {n(row_total - subtracted)} distinct purchases → "
                     + verdict(exp["dropped_orders"], len(purchases)))
        if row_total - subtracted != len(purchases):
            lines.append(f"  - note: the summary counts and audit.sqlite disagree ({n(row_total - subtracted)} vs {n(len(purchases))})")
        lines.append("  - truth.json counts every client purchase never credited (gen.py: `dropped_orders`). iap-audit "
                     "splits them: never_sent / verify_failed are problems (rule 8); sandbox_refused is info, a sandbox "
                     "purchase correctly refused, no money paid (rule 8, docs: not a dropped order); pending_verification is "
                     "a retryable failure younger than the 24 h grace, not yet dropped (rule 14).")
        if any(k == "verification_backlog" for k, _, _, _ in overlap):
            lines.append("  - verification_backlog overlaps verify_failed: an overdue retryable failure (21002, 21005, 21009, "
                         "211xx) is both a backlog item (rule 14) and, not being pending, a dropped order (rule 8).")
        if not_purchase:
            lines.append("  - rows on ids the client reported as restored (or never reported) are no purchase: a restore is "
                         "no payment (rule 8); gen.py counts only `purchased` ids.")
    lines.append(f"- duplicates: {n(exp['duplicate_tids'])} vs {dup_text} = {n(dup_total)} → "
                 + verdict(exp["duplicate_tids"], dup_total)
                 + ". gen.py counts ids credited more than once or to more than one user; iap-audit calls 2+ users "
                   "cross_account, one user's consumable twice same_user, a non-consumable re-granted info regranted (rule 10; "
                   "without --config every product type is unknown, so same_user).")
    lines.append(f"- sandbox leak: {n(exp['sandbox_leak_tids'])} vs {sbx_text} = {n(sbx_total)} → "
                 + verdict(exp["sandbox_leak_tids"], sbx_total)
                 + ". A credited grant on a Sandbox answer is sandbox_leak, or info sandbox_allowlisted for an allowlisted "
                   "user (rule 11; no allowlist without --config).")
    lines.append("- planted.* count planted *requests*, iap-audit counts transaction ids: a batched request carries 2–3 ids "
                 f"(planted.batched_requests {n(planted['batched_requests'])}), and a restore request carries restored ids, "
                 "which are never dropped orders or sandbox_refused (rule 8).")
    if sandbox:
        for granted, label, kinds in ((0, "sandbox_rejected", "sandbox_refused"), (1, "sandbox_leak", "sandbox_leak")):
            if granted in sandbox:
                requests, ids, purchased = sandbox[granted]
                lines.append(f"  - {label}: server.jsonl has {n(requests)} Sandbox requests {'granted' if granted else 'refused'}, "
                             f"carrying {n(ids)} ids, {n(purchased)} of them client purchases → {kinds} "
                             f"{n(count(kinds))}" + (" (purchases only)" if not granted else " (every credited id)"))
    lines.append("- planted.failed_no_retry: the ids of those requests are verify_failed or, within the grace, "
                 "pending_verification; gen.py's FAIL_STATUSES are 5/6 retryable, so most are also verification_backlog.")
    mapped = set(DROPPED_KINDS + DUPLICATE_KINDS + SANDBOX_KINDS)
    for kind in sorted(set(by_kind) - mapped):
        lines.append(f"- not in truth.json: {kind} {n(count(kind))} — {UNMAPPED_NOTES.get(kind, 'no counterpart in gen.py')}")

    sets = peer_sets(peer_parquet) if rows is not None else None
    if sets is not None:
        lines.append("- set check against the DuckDB peer's findings (its semantics are truth.json's):")
        lines.append(set_check("dropped", dropped_breakdown(rows)[0], sets.get("dropped", set())))
        lines.append(set_check("duplicates", {t for k, _, t, _ in rows if k in DUPLICATE_KINDS}, sets.get("duplicate", set())))
        lines.append(set_check("sandbox leak", {t for k, _, t, _ in rows if k in SANDBOX_KINDS}, sets.get("sandbox_leak", set())))
    lines.append("")
    return lines


def parse_section(size, data_dir, probe_json, own_probe_json, timings_json):
    lines = [f"#### JSON parsing at N = {n(size)} (single thread, parse-only time, median of repeats)", ""]
    probe = load_json(probe_json)
    lines += ["| parser | file | MB | parse s (min–max) | MB/s | wall s incl. reading | lines (failed) | extracted |",
              "|---|---|---|---|---|---|---|---|"]

    def row(label, name, mb, p, wall, extracted):
        return (f"| {label} | {name} | {mb:.1f} | {p['parse_s']:.3f} ({p['parse_s_min']:.3f}–{p['parse_s_max']:.3f}) | "
                f"{p['mb_per_s']:.0f} | {wall} | {n(p['lines'])} ({n(p['failed_lines'])}) | {extracted} |")

    if probe is None:
        lines.append("| simdjson | n/a (json_probe not built or failed: install libsimdjson-dev) | | | | | | |")
    else:
        mb = probe["bytes"] / 1e6
        name = os.path.basename(probe["file"])
        for key, label in (("dom", "simdjson DOM, full validation (duplicate keys accepted)"),
                           ("strict", "simdjson DOM + duplicate-key walk (as strict as iap-audit)"),
                           ("ondemand", "simdjson On-Demand, fields iap-audit needs")):
            if key not in probe:
                continue
            p = probe[key]
            # Only the On-Demand pass extracts fields; the DOM passes parse (and walk) only.
            extracted = f"{n(p['status0'])} status-0 responses, {n(p['in_app_items'])} in_app items" if key == "ondemand" else ""
            lines.append(row(label, name, mb, p, f"{p['wall_s']:.3f}", extracted))
    own = load_json(own_probe_json)
    if own is None:
        lines.append("| iap-audit's own readers | n/a (iap-audit-json-probe not built or failed) | | | | | | |")
    else:
        mb = own["bytes"] / 1e6
        name = os.path.basename(own["file"])
        for key, label in (("tape", "**iap-audit LineTape**, full validation (duplicate keys refused), positions"),
                           ("records", "**iap-audit fast readers**: LineTape + every stored field into rows")):
            p = own[key]
            extracted = "" if key == "tape" else f"{n(p['records'])} responses, {n(p['in_app_items'])} in_app items into rows"
            lines.append(row(label, name, mb, p, "", extracted))
    # The whole parse phase (both cores, beside the SQLite writer): run.sh keeps the last completed
    # run's .bench/out-N/phase-timings.json.
    timings = load_json(timings_json)
    if timings is None:
        lines.append("| **iap-audit parse phase** (own scanner) | all inputs | | n/a | n/a | | | "
                     "placeholder: read from .bench/out-N/phase-timings.json once iap-audit writes it |")
    else:
        input_bytes = sum(os.path.getsize(os.path.join(data_dir, f)) for f in ("client.jsonl", "server.jsonl", "verify.jsonl"))
        parse = {k: v for k, v in timings.items() if "parse" in k.lower() and isinstance(v, (int, float))}
        for key, seconds in parse.items():
            rate = f"{input_bytes / 1e6 / seconds:.0f}" if seconds else "n/a"
            lines.append(f"| iap-audit import, parse phase `{key}` (wall, both cores, beside the writer) | all inputs | "
                         f"{input_bytes / 1e6:.1f} | {seconds:.3f} | {rate} | | | MB/s over all three inputs |")
        lines.append("")
        lines.append(f"iap-audit phase-timings.json: `{json.dumps(timings, sort_keys=True)}`")
    if probe is not None:
        lines.append("")
        lines.append(f"simdjson {probe.get('simdjson', '?')}: stage 1 runs the `{probe['implementation']}` kernel (chosen at run time); "
                     f"On-Demand's own code is compiled for `{probe['ondemand_builtin']}` (the build has no -march flag).")
    lines.append("")
    return lines


def cmd_size(a):
    runs = load_runs(a.runs)
    lines = [f"### N = {n(a.size)} ({size_label(a.size)})", ""]
    input_bytes = {f: os.path.getsize(os.path.join(a.data, f + ".jsonl")) for f in ("client", "server", "verify")}
    lines.append(f"Input {sum(input_bytes.values()) / 1e6:,.1f} MB (" + ", ".join(f"{k} {v / 1e6:,.1f}" for k, v in input_bytes.items()) + ")")
    lines.append("")
    lines += timing_table(runs, a.size)
    lines.append("")
    lines += findings_section(a.size, a.data, a.extract, a.iap_json, a.peer_json, a.peer_parquet)
    lines += parse_section(a.size, a.data, a.probe_json, a.own_probe_json, a.timings)
    print("\n".join(lines))


# ---------------------------------------------------------------- summary

def cmd_summary(a):
    runs = load_runs(a.runs)
    sizes = sorted({r["size"] for r in runs})
    lines = ["### Growth and targets", ""]
    measured = {(size, tool): stats(runs, size, tool) for size in sizes for tool in TOOLS}
    ok = lambda size, tool: measured.get((size, tool), {}).get("ok")
    base = 1000000 if ok(1000000, "iap-audit") else next((s for s in sizes if ok(s, "iap-audit")), None)
    if base is None:
        lines.append("Growth: n/a (no completed iap-audit run)")
    else:
        note = "" if base == 1000000 else " (1M not measured in this invocation)"
        parts = []
        for tool in TOOLS:
            b = measured.get((base, tool), {})
            cells = []
            for size in sizes:
                s = measured[(size, tool)]
                if s.get("ok") and b.get("ok"):
                    cells.append(f"{size_label(size)} wall {s['wall']:.2f} s ({s['wall'] / b['wall']:.2f}×) "
                                 f"RSS {s['rss']:.0f} MiB ({s['rss'] / b['rss']:.2f}×)")
                else:
                    cells.append(f"{size_label(size)} n/a")
            parts.append(f"- {TOOL_LABEL[tool]}: " + "; ".join(cells))
        lines.append(f"Growth relative to N = {size_label(base)}{note}:")
        lines += parts
    lines.append("")
    lines.append("Targets:")

    def met(flag):
        return "**met**" if flag else "**not met**"

    a1, b1 = measured.get((1000000, "iap-audit"), {}), measured.get((1000000, "duckdb"), {})
    if a1.get("ok") and b1.get("ok"):
        ratio = a1["wall"] / b1["wall"]
        lines.append(f"- 1M wall ≤ {TARGET_RATIO}× DuckDB: {met(ratio <= TARGET_RATIO)} — {ratio:.2f}× "
                     f"({a1['wall']:.2f} s vs {b1['wall']:.2f} s); stretch ≤ {STRETCH_RATIO}×: {met(ratio <= STRETCH_RATIO)}")
    else:
        lines.append(f"- 1M wall ≤ {TARGET_RATIO}× DuckDB (stretch {STRETCH_RATIO}×): n/a (1M not measured)")
    for size in (1000000, 5000000):
        s = measured.get((size, "iap-audit"), {})
        if s.get("ok"):
            lines.append(f"- peak RSS ≤ {TARGET_RSS_MIB} MiB at {size_label(size)}: {met(s['rss'] <= TARGET_RSS_MIB)} — {s['rss']:.0f} MiB")
        else:
            lines.append(f"- peak RSS ≤ {TARGET_RSS_MIB} MiB at {size_label(size)}: n/a ({size_label(size)} not measured)")
    a5 = measured.get((5000000, "iap-audit"), {})
    if a5.get("ok") and a1.get("ok"):
        growth = a5["wall"] / a1["wall"]
        lines.append(f"- 5M wall ≤ {TARGET_GROWTH}× 1M wall: {met(growth <= TARGET_GROWTH)} — {growth:.2f}× "
                     f"({a5['wall']:.2f} s vs {a1['wall']:.2f} s)")
    else:
        lines.append(f"- 5M wall ≤ {TARGET_GROWTH}× 1M wall: n/a (needs both 1M and 5M)")
    lines.append("")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="subcommand", required=True)
    p = sub.add_parser("record")
    for name in ("--time-file", "--tool"):
        p.add_argument(name, required=True)
    for name in ("--size", "--pair", "--rc"):
        p.add_argument(name, type=int, required=True)
    p = sub.add_parser("header")
    for name in ("--command", "--commit", "--duckdb", "--binary"):
        p.add_argument(name, required=True)
    p = sub.add_parser("extract")
    p.add_argument("--db", required=True)
    p = sub.add_parser("size")
    p.add_argument("--size", type=int, required=True)
    for name in ("--runs", "--data", "--iap-json", "--peer-json", "--peer-parquet", "--probe-json", "--own-probe-json", "--extract",
                 "--timings"):
        p.add_argument(name, required=True)
    p = sub.add_parser("summary")
    p.add_argument("--runs", required=True)
    a = ap.parse_args()
    {"record": cmd_record, "header": cmd_header, "extract": cmd_extract, "size": cmd_size, "summary": cmd_summary}[a.subcommand](a)


if __name__ == "__main__":
    sys.exit(main())
