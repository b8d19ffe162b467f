import Foundation
import IAPAuditModel
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Holds what the process writes to its standard error (file descriptor 2) between `start` and `stop`:
/// libxlsxwriter prints its own `[ERROR] …` lines there, which must reach the user as part of our
/// message (`XLSXError.diagnostics`), never raw.
///
/// The descriptor is the process's: while a capture runs, every thread's stderr goes to it (a run writes
/// nothing else there while the workbook is written: the progress line is drawn before, warnings after).
/// The text goes through a pipe drained by a thread of its own, so no disk is needed (the disk may be full).
final class StandardErrorCapture {
    private let saved: Int32
    private let reader: Background?
    private let text = Collected()
    /// Bytes kept at most (libxlsxwriter says a few lines; a flood is cut).
    static let limit = 64 << 10

    /// Starts sending stderr to the capture; when that cannot be arranged (no descriptors left), stderr
    /// is left as it is and `stop` returns nothing.
    init() {
        var ends: [Int32] = [0, 0]
        fflush(nil)  // every stdio stream (stderr is unbuffered; others may hold text)
        let saved = dup(2)
        guard saved >= 0, pipe(&ends) == 0 else {
            if saved >= 0 { close(saved) }
            (self.saved, reader) = (-1, nil)
            return
        }
        dup2(ends[1], 2)
        close(ends[1])
        let readEnd = ends[0]
        let text = text
        self.saved = saved
        reader = Background {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(readEnd, &buffer, buffer.count)
                if n <= 0 { break }
                text.bytes.withLock { if $0.count < Self.limit { $0.append(contentsOf: buffer[0..<n]) } }
            }
            close(readEnd)
        }
    }

    /// Gives stderr back and returns the lines written to it meanwhile (empty lines left out).
    func stop() -> [String] {
        guard let reader else { return [] }
        fflush(nil)  // every stdio stream (stderr is unbuffered; others may hold text)
        dup2(saved, 2)  // the pipe's last write end closes: the reader sees its end
        close(saved)
        try? reader.wait()
        let bytes = text.bytes.withLock { $0 }
        return String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
    }
}

/// The bytes read from the pipe, shared by the reading thread and `stop`.
private final class Collected: Sendable {
    let bytes = Mutex<[UInt8]>([])
}
