import IAPAuditCrypto
import IAPAuditIngest

extension Digest {
    /// The SHA-256 of a mapped file's bytes (an input's import key), its pages released as they are hashed.
    static func sha256Hex(_ mapped: MappedFile) -> String { sha256Hex(mapped.data) { mapped.release(upTo: $0) } }
}
