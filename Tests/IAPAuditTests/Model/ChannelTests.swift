import Foundation
import XCTest

@testable import IAPAuditModel

/// `Channel`: items in order, closing, and a channel dropped with items still queued (a run that failed
/// while the next files were being hashed) is freed without trapping.
final class ChannelTests: XCTestCase {
    func testItemsComeOutInOrderAndCloseDrainsWhatIsLeft() {
        let channel = Channel<Int>(capacity: 3)
        let sender = Background { for i in 1...10 { channel.send(i) } }
        var received: [Int] = []
        for _ in 1...10 { received.append(channel.receive()!) }
        XCTAssertNoThrow(try sender.wait())
        XCTAssertEqual(received, Array(1...10))
        channel.send(11)
        channel.close()
        XCTAssertFalse(channel.send(12), "a closed channel drops what it is given")
        XCTAssertEqual(channel.receive(), 11)
        XCTAssertNil(channel.receive())
        XCTAssertNil(channel.receive())
    }

    /// libdispatch traps when a semaphore is freed below the value it was made with: a channel made
    /// full-capacity and dropped with items queued used to end the process (`Illegal instruction`) on
    /// a disk-full error during an import.
    func testAChannelDroppedWithItemsQueuedIsFreed() {
        for queued in 0...4 {
            var channel: Channel<Int>? = Channel<Int>(capacity: 4)
            for i in 0..<queued { channel?.send(i) }
            channel?.close()
            channel = nil
            XCTAssertNil(channel)
        }
        var partly: Channel<String>? = Channel<String>(capacity: 2)
        partly?.send("a")
        partly?.send("b")
        XCTAssertEqual(partly?.receive(), "a")
        partly = nil
        XCTAssertNil(partly)
    }
}
