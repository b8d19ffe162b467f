import IAPAuditModel
import IAPAuditPipeline
import IAPAuditSample

/// Help and usage texts of the command line.
enum HelpText {
    static let main = """
        iap-audit — audits Apple In-App Purchase money flows offline.

        USAGE: iap-audit <command> [options]

        COMMANDS:
          run       Import client reports, server logs and Apple verifyReceipt responses,
                    reconcile them, and write audit.sqlite and audit.xlsx.
          close     The monthly close: revenue, refunds and losses of a period, priced, and the
                    bridge to App Store Connect's Sales and Financial reports.
          trace     One id's timeline across every record of the ledger a run left, and the
                    verdict: Apple's confirmation, the findings, the next action.
          ack       Mark a finding of the ledger known: kept in the reports, out of alerts.
          resolve   Record what a person did about a purchase (credited, refused, revoked,
                    refunded): evidence the next run and every trace read.
          ask-apple Ask Apple's App Store Server API about the open claims only Apple can
                    decide (the one command that goes online); saves the answers as evidence.
          sample    Generate sample inputs with planted anomalies and their answer key.

        OPTIONS:
          -h, --help     Show this help (or `iap-audit <command> --help`).
          --version      Print the version.

        Exit status: 0 the run completed (even with findings and rejected lines),
        1 it could not complete, 2 trace found no record of the id, 3 it completed and alerts
        (run --fail-on, --fail-on-stale, --fail-on-stale-runs, --fail-on-rejected), 4 trace was given
        an id that looks spreadsheet-mangled, 64 usage error, 75 another run, close or ack holds the
        folder (nothing failed: try again later). Scheduling it nightly:
        docs/operations.md. Every command, option and warning code: docs/reference.md.
        """

    static let run = """
        USAGE: iap-audit run [PATH ...] [--out DIR] [--ledger FILE] [--forget-missing] [--json] [--as-of TIME] [--from WHEN] [--to WHEN]
                             [--reread FILE] [--grace HOURS] [--config FILE] [--jws-root FILE] [--receipt-root FILE] [--signatures-at signed_date|now|TIME]
                             [--fail-on new|any|KIND[,KIND...]] [--fail-on-stale HOURS] [--fail-on-stale-runs N] [--fail-on-rejected]
                             [--redact [--redact-key FILE] [--redact-ledger]] [--limit NAME=VALUE ...]

        Imports every file under the PATHs (files, or folders searched recursively; hidden
        files skipped). Each file's kind is detected from its content:
          client reports        JSON Lines or CSV: ts, user_id, device_id, transaction_id, state, …
          server log            JSON Lines or CSV: ts, request_id, user_id, transaction_ids, granted, …
          verifyReceipt         {"request_id", "received_at", "response": {…}} lines, or Apple's bare
                                response documents (one per file or per line)
          signed transactions   compact JWS (one per line), {"request_id", "received_at",
                                "signed_transaction"} lines, or decoded payload JSON
          Server API            transaction/refund history pages, transaction info, statuses,
                                order lookup, notification history, error bodies
          notifications         V2 {"signedPayload"} bodies (or the JWS alone), V1 bodies
          app receipts          PKCS#7 (base64 per line, or DER), iOS 6 transaction receipts,
                                {"request_id", "received_at", "receipt_data"}, Unity wrappers
          App Store Connect     Sales and Trends, financial reports and the payments summary,
                                by column name (stored line by line; not transaction evidence)
        Signatures are verified offline (see --jws-root). Certificates and StoreKit configurations
        are listed as skipped, not evidence, with the reason. Every record is imported or rejected
        with file:line and a reason (stderr, table `rejection`, sheet Rejected).

        ARGUMENTS:
          PATH                  Files or folders (default: sample-data/, with
                                sample-data/config.json as --config when present).
        OPTIONS:
          --out DIR             Output folder (default: reports/). Writes DIR/audit.xlsx and the ledger
                                DIR/audit.sqlite, which only grows: every record ever imported, each
                                file's content once (a copy, gzipped or not, adds nothing); unchanged
                                files are not read again; re-running changes nothing.
          --ledger FILE         The ledger (default: DIR/audit.sqlite); the workbook still goes to DIR.
          --forget-missing      Drop the records of files the ledger holds that this run is not given
                                (by default they are kept, and the first run without them names them).
          --reread FILE         Read this input file again from its first line, replacing its records in
                                the ledger (nothing is lost). The repair a run names when it finds the
                                ledger inconsistent about a file (exit 1, the file named).
          --json                Print the summary as one JSON object instead of text (warnings as
                                {"code", "message", "file"}); on failure {"error": "...", "exit": N}.
                                Stdout holds only that object; progress and warnings go to stderr.
          --as-of TIME          Audit instant, ISO 8601 (UTC unless a zone is given) or epoch ms
                                (default: the newest timestamp in the input).
          --from WHEN           The audit window (both inclusive): a date (2026-10-01: its whole UTC
          --to WHEN             day), ISO 8601 or epoch ms. A purchase dated outside it is info
                                outside_window, never a dropped order. Default: from the earliest
                                client or server log ts, for purchases only Apple lists; no end.
          --grace HOURS         How long a request may wait for Apple before it is a verification
                                backlog (default: 24).
          --config FILE         JSON: {"bundle_ids": [...], "sandbox_allowlist": [...],
                                "products": {"com.example.gems60": "consumable", ...}}; types are
                                consumable, non_consumable, auto_renewable, non_renewing;
                                "jws_trust_anchors": [FILE], "receipt_trust_anchors": [FILE],
                                "signatures_checked_at": "signed_date" | "now" | TIME.
                                Without it, the one config at the top of a PATH folder is used
                                (and said so); several there are none (a warning names them).
          --jws-root FILE       Trust anchor for JWS x5c chains (DER or PEM; default:
                                certs/AppleRootCA-G3.cer when present: Apple Root CA - G3).
          --receipt-root FILE   Trust anchor for PKCS#7 app receipts (default:
                                certs/AppleIncRootCertificate.cer when present).
          --signatures-at WHEN  Check every certificate chain at this instant instead of each
                                payload's signedDate (receipt: creation date); `now` for today.
          --fail-on WHICH       Exit 3 when such findings exist: `new` (new or reopened since the last
                                run), `any` (open), or kinds (dropped_order,duplicate_credit). Problem
                                findings only; acknowledged ones (iap-audit ack) never alert.
          --fail-on-stale HOURS Exit 3 when the newest client report, server-log line or Apple record
                                is older than HOURS by this machine's clock (an export stopped),
                                records dated after the clock left out, or when a feed the ledger
                                held records of holds none now. Run daily: give less than 24 and
                                more than a normal night's age (20 for yesterday's logs at 06:30).
          --fail-on-stale-runs N
                                Exit 3 when a feed brought records to each of the last N recorded
                                runs and none to this one (once: not again while it stays silent).
          --fail-on-rejected    Exit 3 when the files this run brought (new, changed or grown) hold
                                rejected lines (a line cut mid-write, a gzip archive cut short),
                                a file that held records holds none now (a failed export), or
                                one none of whose records has a user_id (a renamed field), or a
                                path that held records is given but unreadable (a dangling link).
          --redact              Show user ids (and app account tokens) as u_<16 hex>, device ids as
                                d_<16 hex> (HMAC-SHA256 under a key: the same id, the same token) in
                                audit.xlsx, the close workbook, --json and stderr; rejected lines'
                                text is not shown. The ledger keeps the ids (docs/operations.md, Redaction).
          --redact-key FILE     The key (at least 16 bytes; a file other users cannot read);
                                default: the environment variable IAP_AUDIT_REDACT_KEY.
          --redact-ledger       Store the tokens in the ledger too (implies --redact); such a ledger
                                is used only with --redact-ledger and the same key.
          --limit NAME=VALUE    Raise (or lower) a limit on what is read of one file (repeatable;
                                docs/security.md, Limits). Past a limit the rest of the file is one
                                rejected line naming it; the other files are read. Limits (default):
                                inflated-bytes   a gzip file's inflated content (16GiB)
                                inflation-ratio  inflated / compressed bytes of a gzip member or
                                                 file, once past 64 MiB (200): a bomb stops fast
                                line-bytes       one line (16MiB)
                                depth            JSON nesting of one record (128)
                                fields           keys of one JSON object (10000)
                                records          lines of one file (100000000)
                                Byte values take K, M, G, T (KiB… too): --limit line-bytes=64M.
          -h, --help            Show this help.

        Each run is numbered in the ledger; the summary, --json and the Changes sheet say what is new,
        still open, resolved since the last run and reopened. A re-run on the same inputs and
        parameters records nothing and says that run's changes again.

        A failed run leaves the last good audit.xlsx as it was (the new one is written to
        audit.xlsx.partial and renamed over it when complete).

        Exit status: 0 completed (findings and rejected lines included), 1 could not complete
        (unreadable path, bad config, unwritable output), 3 completed and alerts (--fail-on,
        --fail-on-stale, --fail-on-stale-runs, --fail-on-rejected: the reasons on stderr), 64 usage
        error, 75 another run, close or ack holds DIR (try again later).
        """

    static let close = """
        USAGE: iap-audit close --period PERIOD [--calendar gregorian|apple-fiscal] [--tz ZONE] [--prices FILE]
                               [--out DIR] [--json] [PATH ...] [run's options]

        The monthly close (docs/close.md): imports the inputs as `run` does (App Store Connect's Sales and
        Financial reports among them) and audits the period (the audit window set to it) for the close
        only: the ledger's findings, audit.xlsx and run history stay the last run's, and the next run
        judges what the close imported. It prices each
        purchase (JWS price of verified records, else --prices, marked estimated, else unpriced), and
        bridges the ledger's sales to Apple's reports: per product and currency, the variance split into
        explained buckets and an unexplained remainder that lists the purchases behind it.
        Writes DIR/close-PERIOD.xlsx and the close tables of DIR/audit.sqlite.

        OPTIONS:
          --period PERIOD       2026-10 (a month), 2026-Q1, 2026 (a year), FY2026 (apple-fiscal).
          --calendar NAME       gregorian (default) or apple-fiscal (Apple's fiscal months, from the rule;
                                Start/End dates read from a Financial report win).
          --tz ZONE             UTC (default) or an IANA name such as America/Los_Angeles.
          --prices FILE         CSV: product_id,storefront_or_currency,price,valid_from.
          --json                Print the period, totals per currency and bridges as one JSON object
                                (amounts in milliunits).
          -h, --help            Show this help.
        The run's options (--out, --ledger, --as-of, --grace, --config, --jws-root, --receipt-root,
        --signatures-at, --redact, --redact-key, --redact-ledger, --limit) work as for `run`;
        --forget-missing is refused (dropping files from the ledger is the nightly run's decision).

        Exit status: 0 closed (a provisional close too), 1 could not complete (unreadable path, bad
        config or price list, unwritable output), 64 usage error, 75 a run or ack holds DIR (try
        again later).
        """

    static let trace = """
        USAGE: iap-audit trace ID [--out DIR | --ledger FILE] [--format text|json|xlsx] [--redact [--redact-key FILE]] [--exact]
               iap-audit trace --user USER [--product PRODUCT] [--at TIME [--within DURATION]] [--price AMOUNT]
                               [--out DIR | --ledger FILE] [--format text|json|xlsx] [--redact [--redact-key FILE]]

        Answers a support ticket ("I paid on Oct 12 and got nothing; here is my Apple order id") from the
        ledger a run left (DIR/audit.sqlite; run `iap-audit run … --out DIR` first). ID is any of: a
        transaction id, an original transaction id, an Apple order id (from Look Up Order ID answers kept
        as {"order_id", "received_at", "response"}), a user id, a device id, a request id, a web order
        line item id. For each transaction it leads to (a user or device id, an original or order id can
        lead to several: each is traced) it prints one timeline of client reports, server requests and
        revokes, Apple's answers, signed transactions, notifications and receipts — time (UTC), source,
        file:line, what it says — then the verdict: the findings on it, whether Apple confirms the
        payment and by which record, who was credited, any refund, and the next action in words.
        An unknown id says which tables and columns were searched, and near matches if any; a product
        id or a user id says so, with the search that finds one purchase.

        Without the id, --user finds the purchase from what the customer knows ("980 gems, Oct 23
        around 05:30"): the user's purchases (by client reports, server requests and the Apple records
        answering them), filtered, at most 20, nearest to --at first (else newest first), each with its
        verdict in a few words and the command that traces it.

        An id a spreadsheet may have mangled is never traced, not even when it matches: a float
        (2000000400072794.0), scientific notation (2.00000040007279E+15, 2E+15), or 16+ digits ending
        in zeros with at most 15 significant (2000000400072790: Excel keeps 15 digits). It lists every
        ledger id it may be (the 15 kept digits as prefix), with user, product and time; exit 4.

        OPTIONS:
          --out DIR             The run's output folder (default: reports/): reads DIR/audit.sqlite.
          --ledger FILE         The ledger itself, instead of --out.
          --format FORMAT       text (default); json: the same as one JSON object; xlsx: also writes
                                trace-<ID>.xlsx beside the ledger (Trace, Verdicts, Timeline, Findings).
          --redact              Show every user and device id as its token (u_…, d_…: HMAC-SHA256 under
                                the key, as run --redact shows them), the ID too; ID may be an original
                                id or a token. Transaction, order and request ids stay.
          --redact-key FILE     The key (a file other users cannot read); else the environment variable
                                IAP_AUDIT_REDACT_KEY.
          --redact-ledger       Refused (a usage error): run's; trace never changes the ledger.
          --exact               Trace ID as given even when it looks spreadsheet-mangled (a real id
                                ending in 0).
          --user USER           Search the user's purchases instead of tracing an ID. With an ID that
                                looks mangled: list that user's candidates first.
          --product PRODUCT     Only purchases of this product id.
          --at TIME             Near this time: ISO-8601 (2026-10-23T05:30:00Z) or YYYY-MM-DD HH:MM, UTC.
          --within DURATION     How far from --at: 30m, 2h, 1d (default: 6h).
          --price AMOUNT        Only purchases at this price (9.99, in the currency's unit), by Apple's
                                verified signed transaction; those whose price is unknown are kept, and
                                said.
          -h, --help            Show this help.
        A ledger made with run --redact-ledger holds tokens: trace a user or device by its token, or by
        its original id with --redact and the same key (another key is refused).

        Exit status: 0 traced (a search: candidates listed); 2 no record holds the id (the output says
        what was searched, and the rejected lines holding it; JSON "found": false; a search: no
        candidate); 4 the id looks spreadsheet-mangled: not traced, its candidates listed; 1 could not
        complete (the ledger missing or of another version, the workbook not written); 64 usage error;
        75 a run has held the ledger for over 10 minutes (try again later).
        A guide to each verdict: docs/trace.md.
        """

    static let ack = """
        USAGE: iap-audit ack ID --note TEXT [--by NAME] [--out DIR] [--ledger FILE] [--json]

        Marks finding ID of the ledger DIR/audit.sqlite known: its status becomes acknowledged, the note
        and the time are kept (table finding_state) and a row is added to finding_history. It stays in
        audit.xlsx and the summaries, and out of run --fail-on's alerts until it is resolved; if it comes
        back after that, it is reopened and alerts again. An unknown ID is an error naming the nearest ids.

        ARGUMENTS:
          ID                    kind:transaction_id, as the Changes sheet, the finding sheets
                                (finding_id) and table finding show it: dropped_order:2000000400594083.
        OPTIONS:
          --note TEXT           Why it is known (required).
          --by NAME             Who acknowledges it (default: the login name, USER or LOGNAME).
          --out DIR             The ledger's folder (default: reports/).
          --ledger FILE         The ledger, when run was given --ledger FILE.
          --json                Print what was acknowledged as one JSON object.
          -h, --help            Show this help.

        Exit status: 0 acknowledged, 1 no ledger, unknown or resolved ID, 64 usage error, 75 a run is
        writing DIR (try again later).
        """

    static let resolve = """
        USAGE: iap-audit resolve TRANSACTION_ID --credited|--refused|--revoked|--refunded --note TEXT
                                 [--by NAME] [--quantity N] [--user USER] [--at TIME]
                                 [--out DIR] [--ledger FILE] [--json]

        Records what a person did about a purchase in table manual_action of DIR/audit.sqlite. The row is
        never changed or deleted. Every trace shows it at once; the next run reads it as evidence
        (docs/semantics.md rule 25): a dropped order credited by hand is resolved, and a credit by the
        server of the same purchase is then a duplicate_credit (manual_and_automatic). `ack` only says a
        finding is known; resolve says what was done. An ID no record or finding names is refused.

        ARGUMENTS:
          TRANSACTION_ID        The purchase's transaction id, as trace shows it.
        OPTIONS:
          --credited            The customer was credited by hand.
          --refused             The claim was refused (a claim Apple confirms stays open).
          --revoked             A credit was taken back by hand.
          --refunded            The customer was paid back outside the App Store.
          --note TEXT           What was done and why: the ticket (required).
          --by NAME             Who did it (default: the login name, USER or LOGNAME).
          --quantity N          Units credited or taken back (default: not said; counts as one).
          --user USER           The account acted on (default: the one account the ledger ties to the
                                purchase); one the ledger does not tie to it is refused.
          --at TIME             When it was done, ISO 8601 (default: now).
          --out DIR             The ledger's folder (default: reports/).
          --ledger FILE         The ledger, when run was given --ledger FILE.
          --json                Print what was recorded as one JSON object.
          -h, --help            Show this help.

        Exit status: 0 recorded, 1 no ledger, an unknown ID or another account, 64 usage error, 75 a
        run is writing DIR (try again later).
        """

    static let askApple = """
        USAGE: iap-audit ask-apple --key FILE --key-id ID --issuer-id ID --bundle-id ID --evidence DIR
                                   [--out DIR | --ledger FILE] [TRANSACTION_ID ...] [--order-id ORDER_ID ...]
                                   [--rate N] [--base-url URL] [--sandbox-base-url URL] [--json]

        Asks Apple's App Store Server API about every open finding of DIR/audit.sqlite whose action
        is ask_apple (Get Transaction Info), and the ids given: production first, then the sandbox
        when production says 4040010 (not found). Apple's answers go to a new file,
        EVIDENCE/ask-apple-YYYYMMDDTHHMMSSZ.jsonl; run again with that folder among the inputs.
        The key, the token and the Authorization header are never printed nor written.

        ARGUMENTS:
          TRANSACTION_ID        A transaction id to ask about too (Get Transaction Info).
        OPTIONS:
          --key FILE            The App Store Connect API key (AuthKey_XXXX.p8); chmod 600.
          --key-id ID           The key's id (the token's kid).
          --issuer-id ID        The issuer id of App Store Connect's Keys page (iss).
          --bundle-id ID        The app's bundle id (bid).
          --evidence DIR        Where the answers file is written (made if missing).
          --out DIR             The ledger's folder (default: reports/, read when no id is given).
          --ledger FILE         The ledger, when run was given --ledger FILE.
          --order-id ORDER_ID   An order id of a customer's invoice (Look Up Order ID); repeatable.
          --rate N              At most N requests a second, retries included (default: 10).
          --base-url URL        The production API (default: https://api.storekit.itunes.apple.com).
          --sandbox-base-url URL
                                The sandbox API (default: https://api.storekit-sandbox.itunes.apple.com).
          --json                Print the outcome as one JSON object.
          -h, --help            Show this help.

        A 429 or 5xx answer, or none, is retried 3 times (Retry-After, else 1 s, 2 s, 4 s); then the id
        failed and nothing of it is saved. Exit status: 0 every id answered (or nothing to ask),
        1 an id failed (the others' answers are saved), the key is unreadable or readable by group or
        others, or no ledger; 64 usage error; 75 a run has held the ledger for over 10 minutes.
        """

    static let sample = """
        USAGE: iap-audit sample --out DIR [--transactions N] [--seed S]

        Writes a month of evidence into DIR: client.jsonl, client.csv, server.jsonl,
        verify.jsonl, signed.jsonl (App Store Server API answers: price, currency,
        storefront), history.jsonl, notifications.jsonl; App Store Connect's reports of
        October 2026 in app-store-connect/ (Summary Sales per day, fiscal October's
        Financial reports per region, the payments summary); prices.csv (for close
        --prices); test-ca/ (the TEST-ONLY CA that signs the JWS, named in config.json);
        config.json; and answer-key.json (every planted finding, and the close of
        2026-10: its bridge rows and totals). The same seed gives the same bytes.

        OPTIONS:
          --transactions N      Client transactions to generate (default: 2000), and the
                                support ticket's purchase on top (2001 in all).
          --seed S              Random seed, an unsigned integer (default: 1).
          --out DIR             Output folder (required; the committed sample is made with
                                --transactions 2000 --seed 1 --out sample-data).
          -h, --help            Show this help.

        Exit status: 0 written, 1 the folder could not be written, 64 usage error.
        """
}
