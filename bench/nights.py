#!/usr/bin/env python3
"""A generated month delivered night by night, as an on-call engineer's cron would see it (issue 30).

    python3 bench/nights.py --binary .build/release/iap-audit [--nights 30] [--modes all|MODE,...]
                            [--without FAULT,...] [--transactions 2000] [--seed 1] [--work DIR]
                            [--report FILE.md] [--json FILE.json]

`iap-audit sample` writes a month (October 2026). Its four daily feeds (client.jsonl, server.jsonl, verify.jsonl,
signed.jsonl) are cut by the day of each line's timestamp (ts, received_at). Night k (1..N) is 2026-10-(k+1):
at 00:30 the upstream job appends day k's lines to exports/<feed>; at 06:25 (cron.daily's hour) the real logrotate
rotates them in the mode under test, with `-f` every PERIOD nights (a weekly rotation: 7 for a month, 3 for fewer
than 21 nights); in the maxsize mode it runs without -f before each half of the night's delivery (00:25, 03:00) and
rotates what passed 40 KiB. At 06:30 the docs' cron line runs:

    iap-audit run exports/ --config etc/config.json --out ledger/ --fail-on new --fail-on-stale 20 --fail-on-stale-runs 1 --fail-on-rejected

(with --json; stdout and stderr kept apart). The machine's clock is the night's: a small LD_PRELOAD library (built
here with cc) shifts CLOCK_REALTIME for iap-audit and logrotate. Exit 3, exit 1 or a kill is a page (cron mails it).

Planted problems and faults (all on; --without drops some):
- `dropped`: a credited purchase's server line never delivered (a real dropped order);
- `late-credit`: a purchase's server line delivered 2 nights late (at its own ts);
- `cut-line`: a night's server delivery ends mid-line; the writer ends the line after the run (not on or before a
  rotation night, which would split it across two files);
- `bad-line`: a garbled server line that stays: it pages the night it comes, and never again under any name;
- `kill`: the run killed -9 halfway through; the next night's run is the retry;
- `disk-full`: ledger/ is a 256 MiB tmpfs, filled for one run (root only; else skipped, and the report says so);
- `ack`: an open real finding acknowledged after a run: it must never page again;
- `stop`: client.jsonl is no longer delivered from a night on: a stale page is due that night and every night after.

Expected pages: a finding page only for problem findings of the final single run (one run over every line delivered,
at the last night's clock) on the first night they page, or for the planted purchases; a rejected-lines page only on
the cut and bad-line nights; a stale page only for client reports from the stop night on; exit 1 only on the
disk-full night; the kill. Due pages: the cut and bad-line nights, the stop night, the disk-full and kill nights.
At the end the ledger's findings (id, kind, reason, severity, transaction, product, users, environment, confirmation,
loss time) and record counts must equal the single run's. Prints a table of nights (expected page, actual page, why)
and a verdict per mode; --json writes them for Tests/IAPAuditTests/Lifecycle/NightsSimulationTests.swift. Needs
/usr/sbin/logrotate and a C compiler; Python's standard library only.
"""

import argparse
import datetime as dt
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

FEEDS = {"client.jsonl": "ts", "server.jsonl": "ts", "verify.jsonl": "received_at", "signed.jsonl": "received_at"}
FAULTS = ["dropped", "late-credit", "cut-line", "bad-line", "kill", "disk-full", "ack", "stop"]
BAD_LINE = b'{"ts":"garbled by the export job\n'
COMMON = "    missingok\n    rotate {rotate}\n"
MODES = {
    "create-compress": "    weekly\n    create\n    compress\n",
    "create-delaycompress": "    weekly\n    create\n    compress\n    delaycompress\n",
    "copytruncate": "    weekly\n    copytruncate\n",
    "copytruncate-compress": "    weekly\n    copytruncate\n    compress\n",
    "dateext": "    weekly\n    create\n    dateext\n",
    "olddir": "    weekly\n    create\n    compress\n    delaycompress\n    olddir old\n",
    "rotate-2": "    weekly\n    create\n    compress\n    delaycompress\n",
    "maxsize": "    weekly\n    create\n    compress\n    delaycompress\n    maxsize 40k\n",
}
RUN_ARGS = ["run", "exports/", "--config", "etc/config.json", "--out", "ledger/", "--fail-on", "new",
            "--fail-on-stale", "20", "--fail-on-stale-runs", "1", "--fail-on-rejected", "--json"]
RECORD_TABLES = ["client_report", "server_request", "apple_record", "apple_transaction", "rejection"]
FINDING_COLUMNS = ("finding_id, kind, reason, severity, transaction_id, product_id, user_ids, environment, "
                   "apple_confirmation, loss_at_ms")
FAKECLOCK_C = r"""
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <unistd.h>
/* CLOCK_REALTIME shifted by NIGHTS_CLOCK_OFFSET_MS (ms, may be negative): the simulated night's clock. */
static void shift(struct timespec *ts) {
    const char *s = getenv("NIGHTS_CLOCK_OFFSET_MS");
    long long ns = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + (s ? atoll(s) * 1000000LL : 0);
    ts->tv_sec = ns / 1000000000LL;
    ts->tv_nsec = ns % 1000000000LL;
}
int clock_gettime(clockid_t id, struct timespec *ts) {
    int r = (int)syscall(SYS_clock_gettime, id, ts);
    if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) shift(ts);
    return r;
}
int gettimeofday(struct timeval *tv, void *tz) {
    struct timespec ts;
    int r = clock_gettime(CLOCK_REALTIME, &ts);
    if (r == 0 && tv) { tv->tv_sec = ts.tv_sec; tv->tv_usec = ts.tv_nsec / 1000; }
    (void)tz;
    return r;
}
time_t time(time_t *t) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (t) *t = ts.tv_sec;
    return ts.tv_sec;
}
"""


def log(*parts):
    print("nights:", *parts, file=sys.stderr, flush=True)


def parse_ts(text):
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


class Clock:
    """Runs programs at a simulated instant (the LD_PRELOAD library), the month's first day being `base`."""

    def __init__(self, work, base):
        self.base = base
        self.library = os.path.join(work, "fakeclock.so")
        source = os.path.join(work, "fakeclock.c")
        with open(source, "w") as f:
            f.write(FAKECLOCK_C)
        compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("clang") or shutil.which("gcc")
        if not compiler:
            sys.exit("nights: no C compiler (cc, clang, gcc) to build the clock library")
        subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", self.library, source], check=True)

    def at(self, night, hour, minute=0):
        """Night k is the morning of day k + 1 of the month (night 1: 2026-10-02)."""
        return self.base + dt.timedelta(days=night, hours=hour, minutes=minute)

    def env(self, instant):
        offset = int(instant.timestamp() * 1000) - int(time.time() * 1000)
        return dict(os.environ, LD_PRELOAD=self.library, NIGHTS_CLOCK_OFFSET_MS=str(offset), TZ="UTC")


def split_days(gen, nights):
    """{feed: {day: [line bytes]}} (day 1 = the month's first; a line after the last night's day goes to it when the
    simulation covers the whole month, else is not delivered), and the month's first day (UTC midnight)."""
    days, first = {}, None
    for feed, field in FEEDS.items():
        with open(os.path.join(gen, feed), "rb") as f:
            lines = [line for line in f if line.strip()]
        stamps = [parse_ts(json.loads(line)[field]) for line in lines]
        first = min([first] + stamps if first else stamps)
        days[feed] = list(zip(stamps, lines))
    base = dt.datetime(first.year, first.month, first.day, tzinfo=dt.timezone.utc)
    last_day = max((s - base).days + 1 for feed in days.values() for s, _ in feed)
    out = {}
    for feed, pairs in days.items():
        out[feed] = {}
        for stamp, line in pairs:
            day = (stamp - base).days + 1
            if day > nights and not (nights >= last_day - 1 and day == last_day):
                continue
            out[feed].setdefault(min(day, nights), []).append(line)
    return out, base


def ledger_findings(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return set(db.execute(f"SELECT {FINDING_COLUMNS} FROM finding").fetchall())
    finally:
        db.close()


def record_counts(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in RECORD_TABLES}
    finally:
        db.close()


class Plan:
    """The planted problems: which lines, which nights."""

    def __init__(self, args, days, baseline_findings):
        n = args.nights
        self.faults = set(FAULTS) - set(args.without)
        self.period = args.period or (7 if n >= 21 else 3)
        pick = lambda share: max(2, min(n - 1, round(share * n)))  # noqa: E731
        # The failed runs come after the second rotation (a failed run before it would hide what it pages again).
        self.kill_night = max(pick(0.5), 2 * self.period + 1) if "kill" in self.faults else None
        self.disk_night = max(pick(0.6), (self.kill_night or 0) + 1) if "disk-full" in self.faults else None
        # The bad line comes after the first rotation and before the second: rotating must not page it again (the
        # second rotation moves a file onto a name the ledger already holds).
        bad = self.period + 1
        # The cut line is completed after the run; a rotation that night or the next would split it across files.
        # Not the last night either (its rest would come after the last run).
        start = pick(0.13)
        cut = next((k for k in list(range(start, n)) + list(range(1, start))
                    if k % self.period not in (0, self.period - 1) and k not in (bad, self.kill_night, self.disk_night)),
                   None)
        self.cut_night = cut if "cut-line" in self.faults else None
        self.bad_night = bad if "bad-line" in self.faults else None
        self.late_day = pick(0.2) if "late-credit" in self.faults else None
        self.late_night = min(n, self.late_day + 2) if self.late_day else None
        self.dropped_day = pick(0.4) if "dropped" in self.faults else None
        self.ack_night = pick(0.7) if "ack" in self.faults else None
        self.stop_night = max(pick(0.83), (self.disk_night or 0) + 1) if "stop" in self.faults else None
        busy = {f[4] for f in baseline_findings}
        clients = set()
        for lines in days["client.jsonl"].values():
            for line in lines:
                record = json.loads(line)
                if record.get("state") == "purchased" and record.get("transaction_id"):
                    clients.add(record["transaction_id"])
        self.late_line = self._credit(days, self.late_day, clients, busy)
        self.dropped_line = self._credit(days, self.dropped_day, clients, busy)
        tid = lambda line: json.loads(line)["transaction_ids"][0] if line else None  # noqa: E731
        self.late_tid, self.dropped_tid = tid(self.late_line), tid(self.dropped_line)
        self.planted = {x for x in (self.late_tid, self.dropped_tid) if x}

    @staticmethod
    def _credit(days, day, clients, busy):
        """A granted purchase's server line of `day`, away from midnight, whose transaction has no finding."""
        if not day:
            return None
        for line in days["server.jsonl"].get(day, []):
            r = json.loads(line)
            ids, hour = r.get("transaction_ids") or [], parse_ts(r["ts"]).hour
            if r.get("granted") and not r.get("restore") and len(ids) == 1 and ids[0] in clients \
                    and ids[0] not in busy and 2 <= hour <= 21:
                busy.add(ids[0])
                return line
        return None

    def deliveries(self, days, night):
        """{feed: bytes} appended at 00:30 of `night`, and the part held back (a cut line's rest)."""
        out = {}
        for feed in FEEDS:
            if feed == "client.jsonl" and self.stop_night and night >= self.stop_night:
                continue
            lines = [x for x in days[feed].get(night, []) if x not in (self.late_line, self.dropped_line)]
            if feed == "server.jsonl" and night == self.late_night and self.late_line:
                lines.append(self.late_line)
            if feed == "server.jsonl" and night == self.bad_night:
                lines.insert(len(lines) // 2, BAD_LINE)
            out[feed] = b"".join(lines)
        return out

    def events(self, night):
        names = {self.cut_night: "cut-line", self.bad_night: "bad-line", self.late_night: "late-credit",
                 self.dropped_day: "dropped", self.kill_night: "kill", self.disk_night: "disk-full",
                 self.ack_night: "ack", self.stop_night: "stop"}
        return [name for at, name in names.items() if at == night]


def run_binary(binary, root, env, kill_after=None):
    """(exit, stdout, stderr, seconds): exit is -9 when killed."""
    start = time.time()
    with open(os.path.join(root, "out.json"), "wb") as out, open(os.path.join(root, "err.txt"), "wb") as err:
        process = subprocess.Popen([binary] + RUN_ARGS, cwd=root, env=env, stdout=out, stderr=err,
                                   stdin=subprocess.DEVNULL)
        if kill_after is not None:
            try:
                process.wait(timeout=kill_after)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGKILL)
        status = process.wait()
    seconds = time.time() - start
    read = lambda name: open(os.path.join(root, name), encoding="utf-8", errors="replace").read()  # noqa: E731
    return status, read("out.json"), read("err.txt"), seconds


def mount_tmpfs(path):
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m", "tmpfs", path], capture_output=True)
    return done.returncode == 0


def fill(path):
    """Fills the file system of `path` but 32 KiB; returns the filler's path."""
    filler = os.path.join(path, "filler")
    free = os.statvfs(path).f_bavail * os.statvfs(path).f_frsize
    with open(filler, "wb") as f:
        os.posix_fallocate(f.fileno(), 0, max(0, free - 32 * 1024))
    return filler


def classify(reason):
    if "new problem finding" in reason or "reopened problem finding" in reason or "new since a run that did not" in reason:
        return "findings"
    if "line(s) rejected" in reason:
        return "rejected"
    if " stale" in reason:
        return "stale:" + reason.split(" stale")[0]
    if " stopped: " in reason:  # --fail-on-stale-runs: the feed's first silent night
        return "stale:" + reason.split(" stopped: ")[0]
    return "other"


class Night:
    def __init__(self, number, date):
        self.number, self.date = number, date
        self.events, self.rotations, self.exit, self.reasons = [], 0, None, []
        self.false, self.missed, self.new_ids, self.seconds, self.notes = [], [], [], 0.0, []
        self.workbook_kept = None  # after a failed run: whether last night's audit.xlsx is still there
        self.expected, self.counts = [], {}  # what should page; the run's record and change counts

    def row(self):
        keys = ("number", "date", "events", "rotations", "exit", "reasons", "false", "missed", "new_ids", "seconds",
                "notes", "workbook_kept", "expected", "counts")
        return {k: getattr(self, k) for k in keys}


def simulate_mode(mode, args, days, plan, truth, clock):
    root = os.path.join(args.work, mode)
    exports, etc, ledger = (os.path.join(root, d) for d in ("exports", "etc", "ledger"))
    for d in (exports, etc, ledger, os.path.join(exports, "old")):
        os.makedirs(d)
    for name in ("config.json", "test-ca"):
        src = os.path.join(args.work, "gen", name)
        (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, os.path.join(etc, name))
    conf = os.path.join(root, "logrotate.conf")
    with open(conf, "w") as f:
        logs = " ".join(os.path.join(exports, feed) for feed in FEEDS)
        rotate = 2 if mode == "rotate-2" else 500 if mode == "maxsize" else 8
        f.write(f"{logs} {{\n{MODES[mode]}{COMMON.format(rotate=rotate)}}}\n")
    mounted = "disk-full" in plan.faults and mount_tmpfs(ledger)
    nights, paged, cut_rest, acked, walls = [], {}, b"", None, []
    truth_findings, truth_problems = truth["findings"], truth["problems"]
    try:
        for k in range(1, args.nights + 1):
            night = Night(k, clock.at(k, 6, 30).strftime("%Y-%m-%d"))
            night.events = plan.events(k)
            parts = plan.deliveries(days, k)
            halves = 2 if mode == "maxsize" else 1
            for half in range(halves):
                if mode == "maxsize":  # before each half: logrotate's maxsize check, run more often than daily
                    rotate_logs(night, root, conf, [], clock.env(clock.at(k, 0, 25) if half == 0 else clock.at(k, 3)))
                for feed, data in parts.items():
                    chunk = data
                    if halves > 1:  # whole lines in each half
                        cut = data.rfind(b"\n", 0, len(data) // 2) + 1
                        chunk = data[:cut] if half == 0 else data[cut:]
                    if feed == "server.jsonl" and k == plan.cut_night and half == halves - 1 and chunk:
                        last = chunk.rstrip(b"\n").rfind(b"\n") + 1
                        keep = last + (len(chunk) - last) // 2
                        chunk, cut_rest = chunk[:keep], chunk[keep:]
                        plan.planted.update(json.loads(chunk[last:] + cut_rest).get("transaction_ids") or [])
                    with open(os.path.join(exports, feed), "ab") as f:
                        f.write(chunk)
            if mode != "maxsize" and k % plan.period == 0:  # cron.daily's hour, after the night's delivery
                rotate_logs(night, root, conf, ["-f"], clock.env(clock.at(k, 6, 25)))
            env = clock.env(clock.at(k, 6, 30))
            filler = fill(ledger) if k == plan.disk_night and mounted else None
            if k == plan.disk_night and not mounted:
                night.notes.append("disk-full skipped: ledger/ is not a tmpfs (not root, or mount refused)")
            kill_after = None
            if k == plan.kill_night:
                kill_after = max(0.01, 0.5 * sorted(walls)[len(walls) // 2]) if walls else 0.05
            status, out, err, night.seconds = run_binary(args.binary, root, env, kill_after)
            if filler:
                os.remove(filler)
            if cut_rest:  # the writer ends its line after the run read it cut
                with open(os.path.join(exports, "server.jsonl"), "ab") as f:
                    f.write(cut_rest)
                cut_rest = b""
            if status not in (0, 3):  # a failed run should leave last night's workbook
                kept = os.path.exists(os.path.join(ledger, "audit.xlsx"))
                night.notes.append("audit.xlsx " + ("kept" if kept else "REMOVED") + " after the failed run")
                night.workbook_kept = kept
            night.exit = status
            if kill_after is not None and status != -signal.SIGKILL:
                night.notes.append(f"the run ended before the kill at {kill_after:.2f} s")
            if kill_after is None and status in (0, 3):
                walls.append(night.seconds)
            judge(night, out, err, status, plan, truth_problems, paged, acked, ledger)
            if k == plan.ack_night:
                acked = acknowledge(night, args.binary, root, ledger, truth_problems, clock.env(clock.at(k, 9)))
            nights.append(night)
        final = os.path.join(root, "final.sqlite")  # kept after the tmpfs goes
        source, copy = sqlite3.connect(os.path.join(ledger, "audit.sqlite")), sqlite3.connect(final)
        source.backup(copy)  # a committed WAL's pages too
        source.close(), copy.close()
        got_findings, got_counts = ledger_findings(final), record_counts(final)
    finally:
        if mounted:
            subprocess.run(["umount", ledger], check=False)
    explain_cleared(nights, final)
    missing = sorted(f[0] for f in truth_findings - got_findings)
    extra = sorted(f[0] for f in got_findings - truth_findings)
    never = sorted(set(truth_problems) - set(paged) - ({acked} if acked else set()))
    result = verdict(mode, nights, missing, extra, never, got_counts, truth["counts"], mounted, plan)
    # The nights each planted purchase's findings first paged (the late credit's should clear: not in the single run).
    result["planted_pages"] = {tid: sorted({n for i, n in paged.items() if i.endswith(":" + tid)})
                               for tid in (plan.late_tid, plan.dropped_tid) if tid}
    return result


def explain_cleared(nights, ledger):
    """Adds to each false page on a finding the single run does not hold how the ledger saw it end."""
    db = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True)
    states = {r[0]: r[1:] for r in db.execute(
        "SELECT finding_id, reason, status, resolved_run, resolved_evidence FROM finding_state")}
    db.close()
    for night in nights:
        for n, text in enumerate(night.false):
            finding = text.split(": not a finding", 1)[0]
            if finding != text and finding in states:
                reason, status, run, evidence = states[finding]
                night.false[n] = f"{text}: {reason}, {status} at run {run} by {evidence[:120]}"


def rotate_logs(night, root, conf, flags, env):
    done = subprocess.run(["/usr/sbin/logrotate"] + flags + ["-s", os.path.join(root, "state"), conf],
                          env=env, capture_output=True, text=True)
    if done.returncode != 0:
        night.notes.append("logrotate: " + done.stderr.strip()[:300])
    night.rotations += 1


def judge(night, out, err, status, plan, truth_problems, paged, acked, ledger):
    """Sets night.reasons, night.false and night.missed from the run's output."""
    k = night.number
    try:
        summary = json.loads(out) if out.strip() else {}
    except json.JSONDecodeError:
        summary = {}
        night.notes.append("stdout is not JSON")
    reasons = (summary.get("alert") or {}).get("reasons") or []
    if not reasons and status == 3:
        reasons = [x.split("alert: ", 1)[1] for x in err.splitlines() if "alert: " in x]
    night.reasons = reasons
    if status == -signal.SIGKILL:
        night.reasons = ["killed (-9)"]
        if k != plan.kill_night:
            night.false.append("killed")
    elif status not in (0, 3):
        message = summary.get("error") or err.strip().splitlines()[-1:] or ["?"]
        night.reasons = [f"exit {status}: " + (message if isinstance(message, str) else message[0])[:300]]
        if k != plan.disk_night:
            night.false.append(night.reasons[0])
    changes = summary.get("changes") or {}
    ids = list(changes.get("new") or []) + list(changes.get("reopened") or [])
    problems = set()
    if ids and os.path.exists(os.path.join(ledger, "audit.sqlite")):
        db = sqlite3.connect(f"file:{os.path.join(ledger, 'audit.sqlite')}?mode=ro", uri=True)
        severity = dict(db.execute("SELECT finding_id, severity FROM finding").fetchall())
        states = dict(db.execute("SELECT finding_id, status FROM finding_state").fetchall())
        db.close()
        problems = {i for i in ids if severity.get(i) in ("error", "warning") and states.get(i) == "open"}
    night.new_ids = sorted(problems)
    real = 0
    for i in sorted(problems):
        tid = i.split(":", 1)[1]
        if i == acked:
            night.false.append(f"{i}: acknowledged, paged again")
        elif i in paged:
            night.false.append(f"{i}: paged again (first on night {paged[i]})")
        elif i not in truth_problems and tid not in plan.planted:
            night.false.append(f"{i}: not a finding of the single run (cleared later)")
        else:
            real += 1
        paged.setdefault(i, k)
    records, counts = summary.get("records") or {}, changes.get("counts") or {}
    night.counts = {"records_in": records.get("in"), "rejected": records.get("rejected"), "new": counts.get("new"),
                    "resolved": counts.get("resolved"), "still_open": counts.get("still_open")}
    expected = [f"{real} real new finding(s)"] if real else []
    expected += ["rejected line"] if k in (plan.cut_night, plan.bad_night) else []
    expected += ["killed"] if k == plan.kill_night else []
    expected += ["exit 1 (disk full)"] if k == plan.disk_night else []
    expected += ["client reports stale"] if plan.stop_night and k >= plan.stop_night else []
    night.expected = expected
    kinds = [classify(r) for r in reasons]
    for reason, kind in zip(reasons, kinds):
        if kind == "rejected" and k not in (plan.cut_night, plan.bad_night):
            night.false.append(reason[:400])
        elif kind.startswith("stale") and not (plan.stop_night and k >= plan.stop_night and "client" in kind):
            night.false.append(reason[:400])
        elif kind == "other":
            night.false.append(reason[:400])
    if k in (plan.cut_night, plan.bad_night) and "rejected" not in kinds:
        night.missed.append("cut or bad line: no rejected-lines page")
    if k == plan.stop_night and not any(x.startswith("stale:client") for x in kinds):
        night.missed.append("stopped client export: no stale page on its first night")
    if k == plan.disk_night and status != 1 and "disk-full skipped" not in " ".join(night.notes):
        night.missed.append(f"full disk: exit {status}, not 1")


def acknowledge(night, binary, root, ledger, truth_problems, env):
    db = sqlite3.connect(f"file:{os.path.join(ledger, 'audit.sqlite')}?mode=ro", uri=True)
    open_ids = [r[0] for r in db.execute(
        "SELECT s.finding_id FROM finding_state s JOIN finding f USING (finding_id) "
        "WHERE s.status = 'open' AND f.severity = 'error' ORDER BY s.finding_id")]
    db.close()
    target = next((i for i in open_ids if i in truth_problems), None)
    if not target:
        night.notes.append("ack: no open real finding to acknowledge")
        return None
    done = subprocess.run([binary, "ack", target, "--note", "known: simulated", "--by", "nights", "--out", "ledger/"],
                          cwd=root, env=env, capture_output=True, text=True)
    night.notes.append(f"ack {target}: exit {done.returncode}")
    if done.returncode != 0:
        night.false.append(f"ack failed: {done.stderr.strip()[:200]}")
    return target


def verdict(mode, nights, missing, extra, never, counts, truth_counts, mounted, plan):
    false_nights = [n.number for n in nights if n.false]
    missed = [f"night {n.number}: {m}" for n in nights for m in n.missed]
    if never:
        missed.append(f"{len(never)} real finding(s) never paged: {', '.join(never[:5])}")
    ok = not false_nights and not missed and not missing and not extra and counts == truth_counts
    return {
        "mode": mode, "pass": ok, "false_page_nights": false_nights, "missed": missed,
        "findings_missing": missing, "findings_extra": extra, "counts": counts, "single_run_counts": truth_counts,
        "counts_equal": counts == truth_counts, "disk_full": "run" if mounted else "skipped",
        "workbook_removed_nights": [n.number for n in nights if n.workbook_kept is False],
        "nights": [n.row() for n in nights],
    }


def single_run(args, days, plan, clock):
    """The truth: one run over every line the nights delivered, at the last night's clock."""
    root = os.path.join(args.work, "single")
    os.makedirs(os.path.join(root, "exports"))
    shutil.copytree(os.path.join(args.work, "gen", "test-ca"), os.path.join(root, "etc", "test-ca"))
    shutil.copy(os.path.join(args.work, "gen", "config.json"), os.path.join(root, "etc", "config.json"))
    for k in range(1, args.nights + 1):
        for feed, data in plan.deliveries(days, k).items():
            with open(os.path.join(root, "exports", feed), "ab") as f:
                f.write(data)
    status, out, err, _ = run_binary(args.binary, root, clock.env(clock.at(args.nights, 6, 30)))
    if status not in (0, 3):
        sys.exit(f"nights: the single run failed ({status}): {err[-2000:]}")
    path = os.path.join(root, "ledger", "audit.sqlite")
    findings = ledger_findings(path)
    return {"findings": findings, "problems": {f[0] for f in findings if f[3] in ("error", "warning")},
            "counts": record_counts(path)}


def short(text, width=110):
    text = text.replace("|", "/").replace("\n", " ")
    return text if len(text) <= width else text[:width - 1] + "…"


def report(results, args, plan):
    lines = [f"# {args.nights} nights, {args.transactions} transactions (seed {args.seed}), rotation every "
             f"{plan.period} nights\n",
             f"Planted: cut line night {plan.cut_night}, bad line (kept) night {plan.bad_night}, "
             f"late credit day {plan.late_day} → night {plan.late_night}, "
             f"dropped order day {plan.dropped_day}, kill night {plan.kill_night}, full disk night {plan.disk_night}, "
             f"ack night {plan.ack_night}, client export stopped from night {plan.stop_night}. Late credit: "
             f"transaction {plan.late_tid}; dropped order: transaction {plan.dropped_tid}.\n",
             "| mode | verdict | nights with a false page | missed pages | findings ≠ single run | records = single run |",
             "|---|---|---|---|---|---|"]
    for r in results:
        diff = len(r["findings_missing"]) + len(r["findings_extra"])
        lines.append(f"| {r['mode']} | {'PASS' if r['pass'] else 'FAIL'} | {len(r['false_page_nights'])} "
                     f"{r['false_page_nights']} | {len(r['missed'])} | {diff} | {r['counts_equal']} |")
    for r in results:
        lines += [f"\n## {r['mode']}: {'PASS' if r['pass'] else 'FAIL'}\n",
                  f"Records: {r['counts']} (single run: {r['single_run_counts']}). Full disk: {r['disk_full']}. "
                  f"Failed runs that removed last night's audit.xlsx (not in the verdict): "
                  f"{r['workbook_removed_nights'] or 'none'}.",
                  f"Findings only in the single run: {r['findings_missing'][:8]}; only in the nightly ledger: "
                  f"{r['findings_extra'][:8]}.", f"Missed: {r['missed']}",
                  f"Nights the planted purchases first paged: {r['planted_pages']}\n",
                  "| night | date | planted | rot. | expected page | exit | s | records in / new / resolved "
                  "| page's reasons | verdict: why |", "|---|---|---|---|---|---|---|---|---|---|"]
        for n in r["nights"]:
            reasons = "; ".join(short(x, 70) for x in n["reasons"]) or "-"
            verdict_text = "FALSE PAGE" if n["false"] else "MISSED" if n["missed"] else "ok"
            why = "; ".join(short(x, 220) for x in n["false"] + n["missed"] + n["notes"])
            c = n["counts"]
            lines.append(f"| {n['number']} | {n['date']} | {','.join(n['events']) or '-'} | {n['rotations']} | "
                         f"{', '.join(n['expected']) or 'none'} | {n['exit']} | {n['seconds']:.1f} | "
                         f"{c.get('records_in')} / {c.get('new')} / {c.get('resolved')} | {reasons} | "
                         f"{verdict_text}{': ' + why if why else ''} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--nights", type=int, default=30)
    parser.add_argument("--modes", default="all")
    parser.add_argument("--without", default="", help="faults left out: " + ",".join(FAULTS))
    parser.add_argument("--transactions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--period", type=int, default=0, help="nights between weekly rotations (default 7, 3 < 21)")
    parser.add_argument("--work", help="scratch folder (default: a temporary one, removed)")
    parser.add_argument("--report", help="write the markdown report here too")
    parser.add_argument("--json", help="write the results as JSON here")
    args = parser.parse_args()
    args.binary = os.path.abspath(args.binary)
    args.without = [x for x in args.without.split(",") if x]
    modes = list(MODES) if args.modes == "all" else args.modes.split(",")
    unknown = [m for m in modes if m not in MODES] + [f for f in args.without if f not in FAULTS]
    if unknown or not 3 <= args.nights <= 30:
        parser.error(f"unknown {unknown} (modes: {', '.join(MODES)}; faults: {', '.join(FAULTS)}); nights 3..30")
    if not os.path.exists("/usr/sbin/logrotate"):
        sys.exit("nights: /usr/sbin/logrotate is absent (apt-get install logrotate)")
    keep = bool(args.work)
    args.work = os.path.abspath(args.work) if args.work else tempfile.mkdtemp(prefix="nights-")
    os.makedirs(args.work, exist_ok=True)
    try:
        gen = os.path.join(args.work, "gen")
        subprocess.run([args.binary, "sample", "--out", gen, "--transactions", str(args.transactions),
                        "--seed", str(args.seed)], check=True, stdout=subprocess.DEVNULL)
        days, base = split_days(gen, args.nights)
        clock = Clock(args.work, base)
        # A first single run without planted problems: the purchases to plant them on have no finding of their own.
        base_args = argparse.Namespace(**{**vars(args), "work": os.path.join(args.work, "base"), "without": FAULTS})
        shutil.copytree(gen, os.path.join(base_args.work, "gen"))
        baseline = single_run(base_args, days, Plan(base_args, days, set()), clock)
        plan = Plan(args, days, baseline["findings"])
        truth = single_run(args, days, plan, clock)
        log(f"single run: {len(truth['findings'])} findings ({len(truth['problems'])} problems), {truth['counts']}")
        results = []
        for mode in modes:
            log(f"mode {mode}: {args.nights} nights")
            results.append(simulate_mode(mode, args, days, plan, truth, clock))
            log(f"mode {mode}: {'PASS' if results[-1]['pass'] else 'FAIL'}")
        text = report(results, args, plan)
        print(text)
        if args.report:
            with open(args.report, "w") as f:
                f.write(text)
        if args.json:
            keys = ("period", "cut_night", "bad_night", "late_day", "late_night", "dropped_day", "kill_night",
                    "disk_night", "ack_night", "stop_night")
            with open(args.json, "w") as f:
                json.dump({"nights": args.nights, "late_credit": plan.late_tid, "dropped": plan.dropped_tid,
                           "plan": {k: getattr(plan, k) for k in keys}, "results": results}, f, indent=1, default=str)
    finally:
        if not keep:
            shutil.rmtree(args.work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
