import Foundation
import IAPAuditModel

#if canImport(Glibc)
    import Glibc
#endif

/// A file mapped read-only into memory: its bytes are read from the page cache as they are touched,
/// and `release(upTo:)` hands pages already processed back to the kernel, so a multi-GB input never
/// stays resident (peak RSS is bounded by the batch being read, not the file size).
///
/// Sendable by hand (a raw pointer is not): the mapping is read-only and never changes after `init`;
/// `release(upTo:)` only tells the kernel which pages may go (`madvise`), safe from any thread.
package final class MappedFile: @unchecked Sendable {
    let base: UnsafeMutableRawPointer?
    let count: Int
    /// The bytes, without a copy (valid while this object lives).
    package let data: Data
    /// Its entry in `MappingGuard` (a truncation while read is an error, not a crash).
    private let guardSlot: Int?

    /// Throws `AuditError.unreadablePath` when the file cannot be opened or mapped.
    package convenience init(path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw AuditError.unreadablePath(path, String(cString: strerror(errno))) }
        defer { close(fd) }
        try self.init(descriptor: fd, path: path)
    }

    /// Maps the whole file open on `fd` (which may be closed afterwards: the mapping stays); `path`
    /// names it in errors. Throws `AuditError.unreadablePath` when it cannot be examined or mapped.
    init(descriptor fd: Int32, path: String) throws {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw AuditError.unreadablePath(path, String(cString: strerror(errno))) }
        count = Int(info.st_size)
        if count == 0 {
            base = nil
            guardSlot = nil
            data = Data()
            return
        }
        guard let mapped = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw AuditError.unreadablePath(path, "cannot map the file: \(String(cString: strerror(errno)))")
        }
        base = mapped
        guardSlot = MappingGuard.register(base: mapped, count: count, path: path)
        madvise(mapped, count, MADV_SEQUENTIAL)
        data = Data(bytesNoCopy: mapped, count: count, deallocator: .none)
    }

    /// Drops the resident pages of bytes before `offset` (they are read again from the file if touched).
    package func release(upTo offset: Int) {
        guard let base else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let end = min(offset, count) / page * page
        if end > 0 { madvise(base, end, MADV_DONTNEED) }
    }

    deinit {
        if let base { munmap(base, count) }
        if let guardSlot { MappingGuard.unregister(guardSlot) }
    }
}
