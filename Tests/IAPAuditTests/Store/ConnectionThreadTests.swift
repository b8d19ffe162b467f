import Foundation
import Synchronization
import XCTest

@testable import IAPAuditStore

/// A connection is opened NOMUTEX: one thread at a time may call into SQLite on it. Debug builds (the tests') check
/// each call (`SQLiteDatabase.calling`), so a second thread's call stops the process instead of corrupting memory (a
/// 1M run crashed inside SQLite when a run's checks read the store while its index builder used it, c1a6755).
final class ConnectionThreadTests: XCTestCase {
    func testASecondThreadsCallIsCaught() throws {
        #if DEBUG
            nonisolated(unsafe) let db = try SQLiteDatabase(path: TestPaths.scratch() + ".sqlite")
            let caught = Mutex<[String]>([])
            let saved = SQLiteDatabase.concurrentUse
            SQLiteDatabase.concurrentUse = { message in caught.withLock { $0.append(message) } }
            defer { SQLiteDatabase.concurrentUse = saved }
            // One after the other, on two threads: allowed.
            try db.execute("CREATE TABLE t (x)")
            DispatchQueue.global().sync { try? db.execute("INSERT INTO t VALUES (1)") }
            XCTAssertEqual(caught.withLock { $0 }, [])
            // At once: the first thread is inside a call while the second makes one (no SQLite call is made by either,
            // so the test itself misuses nothing).
            let (inside, done) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
            DispatchQueue.global().async {
                db.calling {
                    inside.signal()
                    done.wait()
                }
            }
            inside.wait()
            db.calling {}
            done.signal()
            XCTAssertEqual(caught.withLock { $0 }.count, 1)
            XCTAssertTrue(caught.withLock { $0 }.first?.hasPrefix("two threads use one SQLite connection at once") == true)
        #else
            throw XCTSkip("checked in debug builds only")
        #endif
    }
}
