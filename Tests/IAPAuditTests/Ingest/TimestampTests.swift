import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

final class TimestampTests: XCTestCase {
    func testISO8601Forms() {
        XCTAssertEqual(Timestamp.parseMs("2026-10-01T00:00:00Z"), 1_790_812_800_000)
        XCTAssertEqual(Timestamp.parseMs("2026-10-01T00:00:00"), 1_790_812_800_000, "no zone = UTC")
        XCTAssertEqual(Timestamp.parseMs("2026-10-01 00:00:00"), 1_790_812_800_000)
        XCTAssertEqual(Timestamp.parseMs("2026-10-01T00:00:00.250Z"), 1_790_812_800_250)
        XCTAssertEqual(Timestamp.parseMs("2026-10-01T08:00:00+08:00"), 1_790_812_800_000)
        XCTAssertEqual(Timestamp.parseMs("2026-09-30T19:00:00-0500"), 1_790_812_800_000)
    }

    /// Offsets in use run from -12:00 to +14:00; past ±14:00 is a typo, not a time.
    func testOffsetsBeyondFourteenHoursAreRejected() {
        XCTAssertEqual(Timestamp.parseMs("2026-10-01T14:00:00+14:00"), 1_790_812_800_000)
        XCTAssertEqual(Timestamp.parseMs("2026-09-30T10:00:00-14:00"), 1_790_812_800_000)
        for text in ["2026-10-01T14:30:00+14:30", "2026-10-01T00:00:00-1401", "2026-10-01T00:00:00+15:00", "2026-10-01T00:00:00+08:60"] {
            XCTAssertNil(Timestamp.parseMs(text), text)
        }
    }

    func testEpochMilliseconds() {
        XCTAssertEqual(Timestamp.parseMs("1790812800000"), 1_790_812_800_000)
        XCTAssertEqual(Timestamp.parseMs("-1000"), -1000)
    }

    func testAppleEtcGMT() {
        XCTAssertEqual(Timestamp.parseMs("2020-07-14 19:33:26 Etc/GMT"), 1_594_755_206_000)
    }

    /// US daylight saving ends 2026-11-01 at 02:00 PDT; the _pst text changes offset there.
    func testLosAngelesAcrossDaylightSavingEnd() {
        // 2026-10-31 12:00 PDT (UTC-7) = 19:00Z
        XCTAssertEqual(Timestamp.parseMs("2026-10-31 12:00:00 America/Los_Angeles"), Timestamp.parseMs("2026-10-31T19:00:00Z"))
        // 2026-11-02 12:00 PST (UTC-8) = 20:00Z
        XCTAssertEqual(Timestamp.parseMs("2026-11-02 12:00:00 America/Los_Angeles"), Timestamp.parseMs("2026-11-02T20:00:00Z"))
        // The repeated hour is read as daylight time (the earlier instant).
        XCTAssertEqual(Timestamp.parseMs("2026-11-01 01:30:00 America/Los_Angeles"), Timestamp.parseMs("2026-11-01T08:30:00Z"))
        XCTAssertEqual(Timestamp.parseMs("2026-11-01 02:30:00 America/Los_Angeles"), Timestamp.parseMs("2026-11-01T10:30:00Z"))
        // Spring forward 2026-03-08: 01:59 PST, 03:00 PDT.
        XCTAssertEqual(Timestamp.parseMs("2026-03-08 01:59:00 America/Los_Angeles"), Timestamp.parseMs("2026-03-08T09:59:00Z"))
        XCTAssertEqual(Timestamp.parseMs("2026-03-08 03:00:00 America/Los_Angeles"), Timestamp.parseMs("2026-03-08T10:00:00Z"))
        // Before 2007: first Sunday of April to last Sunday of October.
        XCTAssertEqual(Timestamp.parseMs("2006-04-01 12:00:00 America/Los_Angeles"), Timestamp.parseMs("2006-04-01T20:00:00Z"))
        XCTAssertEqual(Timestamp.parseMs("2006-04-03 12:00:00 America/Los_Angeles"), Timestamp.parseMs("2006-04-03T19:00:00Z"))
    }

    /// The RevenueCat sample's _pst and _ms fields agree.
    func testAppleTextMatchesMilliseconds() {
        XCTAssertEqual(Timestamp.parseMs("2020-07-14 12:33:26 America/Los_Angeles"), 1_594_755_206_000)
    }

    func testRejectsGarbage() {
        XCTAssertNil(Timestamp.parseMs("yesterday"))
        XCTAssertNil(Timestamp.parseMs("2026-13-01T00:00:00Z"))
        XCTAssertNil(Timestamp.parseMs("2026-10-01T00:00:00 Mars/Olympus"))
        XCTAssertNil(Timestamp.parseMs(""))
        XCTAssertNil(Timestamp.parseMs("2026-02-30T00:00:00Z"), "no 30 February")
        XCTAssertNotNil(Timestamp.parseMs("2024-02-29T00:00:00Z"))
        XCTAssertNil(Timestamp.parseMs("2026-10-01T00:00:00+25:00"))
        XCTAssertNil(Timestamp.parseMs("9223372036854775807"), "outside 1900–2200")
        XCTAssertNil(Timestamp.parseMs("-9223372036854775808"))
        XCTAssertNil(Timestamp.parseMs("0001-01-01T00:00:00Z"))
    }

    func testFormatsISO() {
        XCTAssertEqual(Timestamp.iso(1_790_812_800_250), "2026-10-01T00:00:00.250Z")
        XCTAssertEqual(Timestamp.iso(-1), "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(Timestamp.day(1_790_899_199_999), "2026-10-01")
        // No record's instant (a damaged ledger's): the nearest end of years 0–9999, never a trap (SIGILL in floorDiv).
        XCTAssertEqual(Timestamp.iso(Int64.min), "0000-01-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp.iso(Int64.max), "9999-12-31T23:59:59.999Z")
        XCTAssertEqual(Timestamp.iso(-86_400_000), "1969-12-31T00:00:00.000Z")
    }
}
