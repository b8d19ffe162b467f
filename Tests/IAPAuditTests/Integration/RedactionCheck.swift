import Foundation

@testable import IAPAuditModel

/// An independent look at a `--redact` run's outputs, in Python (openpyxl, sqlite3, hmac): the ids the inputs
/// and the ledger hold, whether any is in a workbook cell (every sheet) or the captured stdout/stderr, the tokens
/// each finding row shows against HMAC-SHA256 computed here, and whether the key's bytes are in any output.
enum RedactionCheck {
    /// A key file (mode 600) holding `key` and a line break, in a fresh scratch folder.
    static func keyFile(_ key: String, mode: mode_t = 0o600, name: String = #function) -> String {
        let path = TestPaths.scratch(name) + "/redact.key"
        TestPaths.write(key + "\n", to: path)
        chmod(path, mode)
        return path
    }

    /// Looks at `out` (audit.sqlite, `workbook`, every other file) after a run given `inputs`; `captured` is the
    /// run's stdout and stderr. Returns the script's JSON object.
    static func look(
        out: String, workbook: String = "audit.xlsx", key: String, inputs: [String], captured: String, ledgerRedacted: Bool = false
    ) throws -> [String: Any] {
        let capturedPath = out + "/../captured-\(UUID().uuidString.prefix(8)).txt"
        TestPaths.write(captured, to: capturedPath)
        defer { try? FileManager.default.removeItem(atPath: capturedPath) }
        return try PythonReader.run(
            PythonReader.xlsxPrelude + script,
            args: [out, workbook, key, capturedPath, ledgerRedacted ? "ledger" : "outputs"] + inputs) as! [String: Any]
    }

    static let script = #"""
        import csv, glob, hashlib, hmac, os, sqlite3
        out, book, key, captured, mode = sys.argv[1:6]
        inputs = sys.argv[6:]
        key_bytes = key.encode()
        def tok(prefix, role, i):
            return prefix + hmac.new(key_bytes, (role + i).encode(), hashlib.sha256).hexdigest()[:16]
        users, devices = set(), set()
        def take(o):
            if isinstance(o, dict):
                for k, v in o.items():
                    n = k.lower().replace("_", "").replace("-", "")
                    if isinstance(v, str) and v.strip() and n in ("userid", "appaccounttoken"): users.add(v.strip())
                    elif isinstance(v, str) and v.strip() and n == "deviceid": devices.add(v.strip())
                    else: take(v)
            elif isinstance(o, list):
                for v in o: take(v)
        for root in inputs:
            for f in (glob.glob(root + "/**/*", recursive=True) if os.path.isdir(root) else [root]):
                if not os.path.isfile(f): continue
                text = open(f, encoding="utf-8", errors="replace").read()
                if f.endswith(".csv"):
                    try:
                        for r in csv.DictReader(text.splitlines()): take(r)
                    except Exception: pass
                    continue
                try: take(json.loads(text)); continue
                except Exception: pass
                for line in text.splitlines():
                    try: take(json.loads(line))
                    except Exception:
                        for m in re.finditer(r'"(user_id|device_id)"\s*:\s*"([^"]*)"', line):
                            (users if m.group(1) == "user_id" else devices).add(m.group(2).strip())
        db = sqlite3.connect(out + "/audit.sqlite")
        if mode == "outputs":
            for (u,) in db.execute("SELECT user_id FROM client_report UNION SELECT user_id FROM server_request "
                                   "UNION SELECT app_account_token FROM apple_transaction"):
                if u: users.add(u)
            for (d,) in db.execute("SELECT device_id FROM client_report UNION SELECT device_id FROM server_request"):
                if d: devices.add(d)
        ids = users | devices
        def leaks(text):
            found = set(w for w in re.split(r'[\s,;():"\[\]{}=]+', text) if w in ids)
            return found | set(i for i in ids if len(i) >= 8 and i in text)
        wb = openpyxl.load_workbook(out + "/" + book)
        leaked, tokens, rows = {}, set(), {}
        for ws in wb.worksheets:
            header = None
            for row in ws.iter_rows(values_only=True):
                for v in row:
                    if isinstance(v, str):
                        tokens.update(re.findall(r'\b[ud]_[0-9a-f]{16}\b', v))
                        found = leaks(v)
                        if found: leaked.setdefault(ws.title, []).extend(sorted(found))
                if row and "finding_id" in row and "user_ids" in row: header = list(row); continue
                if header and len(row) == len(header) and row[header.index("finding_id")]:
                    rows[row[header.index("finding_id")]] = row[header.index("user_ids")] or ""
        mismatched, joined = [], 0
        for fid, uids in db.execute("SELECT finding_id, user_ids FROM finding"):
            uids = json.loads(uids)
            want = ", ".join(uids if mode == "ledger" else [tok("u_", "user:", u) for u in uids])
            if fid in rows:
                joined += 1
                if rows[fid] != want: mismatched.append([fid, rows[fid], want])
        files_with_key = []
        for f in glob.glob(out + "/**/*", recursive=True):
            if not os.path.isfile(f): continue
            data = open(f, "rb").read()
            parts = [data]
            if f.endswith(".xlsx"):
                z = zipfile.ZipFile(f); parts = [z.read(n) for n in z.namelist()]
            if any(key_bytes in p for p in parts): files_with_key.append(f)
        cap = open(captured, encoding="utf-8").read()
        ledger_users = sorted(u for (u,) in db.execute("SELECT DISTINCT user_id FROM client_report WHERE user_id IS NOT NULL"))
        ledger_ids = set(u for (u,) in db.execute(
            "SELECT user_id FROM client_report UNION SELECT device_id FROM client_report UNION SELECT user_id FROM server_request "
            "UNION SELECT device_id FROM server_request UNION SELECT app_account_token FROM apple_transaction "
            "UNION SELECT u.value FROM finding, json_each(finding.user_ids) u") if u)
        raw = open(out + "/audit.sqlite", "rb").read()
        print(json.dumps({
            "users": len(users), "devices": len(devices), "leaked": leaked, "captured_leaks": sorted(leaks(cap)),
            "key_in_captured": key in cap, "files_with_key": files_with_key, "tokens": len(tokens),
            "user_tokens_known": len(tokens & {tok("u_", "user:", u) for u in users}),
            "device_tokens_known": len(tokens & {tok("d_", "device:", d) for d in devices}),
            "finding_rows": joined, "mismatched": mismatched[:5],
            "ledger_users": ledger_users, "ledger_originals": sorted(ledger_ids & ids)[:5],
            "ledger_non_tokens": sorted(i for i in ledger_ids if not re.match(r'^[ud]_[0-9a-f]{16}$', i))[:5],
            "sqlite_holds_long_ids": sorted(i for i in ids if len(i) >= 8 and i.encode() in raw)[:5],
            "token_u1": tok("u_", "user:", "u1"),
        }))
        """#
}
