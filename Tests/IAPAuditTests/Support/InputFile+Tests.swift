import Foundation

@testable import IAPAuditCrypto
@testable import IAPAuditIngest

extension InputFile {
    /// An input held in memory, hashed as the pipeline hashes a file on disk.
    init(path: String, data: Data) { self.init(path: path, data: data, sha256: Digest.sha256Hex(data)) }

    static func sha256Hex(_ data: Data) -> String { Digest.sha256Hex(data) }
}
