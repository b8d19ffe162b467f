import Foundation
import Synchronization

/// Standard output and error written with write(2), never trapping: a full disk, a closed descriptor or
/// a broken pipe behind them loses the text (and is remembered for stdout: the run's summary was lost),
/// never the run. Foundation's `FileHandle.write(_:)` traps on such an error.
package enum StandardStreams {
    private static let outputLost = Atomic<Bool>(false)

    /// True when some text for standard output could not be written.
    package static var outputFailed: Bool { outputLost.load(ordering: .relaxed) }

    /// Writes `text` to standard output; false (and `outputFailed`) when it could not.
    @discardableResult
    package static func out(_ text: String) -> Bool {
        let written = write(STDOUT_FILENO, text)
        if !written { outputLost.store(true, ordering: .relaxed) }
        return written
    }

    /// Writes `text` to standard error; false when it could not (nothing else to tell).
    @discardableResult
    package static func err(_ text: String) -> Bool { write(STDERR_FILENO, text) }

    private static func write(_ fd: Int32, _ text: String) -> Bool {
        var bytes = Array(text.utf8)
        var offset = 0
        return bytes.withUnsafeMutableBytes { buffer in
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
    }
}
