import Foundation
import IAPAuditModel

/// The facts of one transaction partition, grouped by transaction: what every rule reads
/// (the compact counterpart of the ledger for these transactions). Texts stay in `bytes`.
final class TransactionFacts {
    struct Client {
        var t: Int32
        var order: UInt64
        var fileId: UInt32
        var line: UInt32
        var tsMs: Int64
        var state: ClientState
        var user: FactText?
        var productId: FactText?
        var originalId: FactText?
    }

    struct Revoke {
        var t: Int32
        var order: UInt64
        var fileId: UInt32
        var line: UInt32
        var tsMs: Int64
        var user: FactText?
    }

    /// A request that carried or granted the transaction (made by the request stage).
    struct Carrier {
        var t: Int32
        /// Ledger order of the request's first line.
        var order: UInt64
        var fileId: UInt32
        var line: UInt32
        var requestId: FactText
        var user: FactText?
        var tsMs: Int64
        var latestMs: Int64
        var firstSeenMs: Int64
        var status: Int64?
        var environment: FactText?
        var flags: UInt8
        var unresolved: UInt8
        var unproven: UInt8
        /// Range of `evidence`.
        var evidence: Range<Int32>

        @inline(__always) func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
        var isCarried: Bool { has(CarrierFlags.carried) }
        var isGrant: Bool { has(CarrierFlags.granted) }
        var isProven: Bool { unproven == Grant.proven }
        var isAnswered: Bool { has(CarrierFlags.answered) }
        var isSandboxAnswer: Bool { has(CarrierFlags.sandboxAnswer) }
        var isProductionSuccess: Bool { has(CarrierFlags.productionSuccess) }
        var finalContains: Bool { has(CarrierFlags.finalContains) }
        var restore: Bool { has(CarrierFlags.restore) }
    }

    /// One purchase as one Apple record lists it.
    struct Listing {
        var t: Int32
        /// Ledger order of the Apple record.
        var order: UInt64
        var fact: ListingFacts
        /// The record names a verification request the server log has (`link` facts), of this user.
        var linked = false
        var user: FactText? = nil
    }

    let bytes: PartitionBytes
    /// Each transaction's id (local index → id).
    private(set) var ids: [GlobalId] = []
    private var index: [UInt64: Int32] = [:]
    private var textIndex: [ByteKey: Int32] = [:]
    private var textIds: [String: Int32] = [:]

    private(set) var clients: [Client] = []
    private(set) var revokes: [Revoke] = []
    private(set) var carriers: [Carrier] = []
    private(set) var listings: [Listing] = []
    private(set) var evidence: [(fileId: UInt32, line: UInt32)] = []

    /// Per transaction, the range of each sorted array.
    private(set) var clientRange: [Range<Int>] = []
    private(set) var revokeRange: [Range<Int>] = []
    private(set) var carrierRange: [Range<Int>] = []
    private(set) var listingRange: [Range<Int>] = []

    /// - Parameter divert: facts of transactions reconciled elsewhere (the ids of a billing event with
    ///   several ids are reconciled together): whether an id is one, and where its facts go.
    init(bytes: PartitionBytes, ranks: FileRanks, redeliveries: Set<UInt64>, divert: Divert? = nil) {
        self.bytes = bytes
        var links: [UInt64: FactText?] = [:]
        bytes.forEachFact { r, chunkFile in
            let factStart = r.at
            func keep(_ id: FactId) -> Bool {
                guard let divert, divert.test(id, bytes) else { return true }
                divert.take(UnsafeRawBufferPointer(start: bytes.base + factStart, count: r.at - factStart), chunkFile)
                return false
            }
            switch FactKind(rawValue: r.u8()) {
            case .client?:
                let file = r.u32()
                let fileId = file == 0 ? chunkFile : file
                let line = r.u32()
                let ts = r.i64()
                let id = r.id()!
                let state = ClientState.allCases[Int(r.u8())]
                let user = r.text()
                let product = r.text()
                let original = r.text()
                guard keep(id) else { return }
                clients.append(
                    Client(
                        t: local(id), order: ranks.order(fileId, line), fileId: fileId, line: line, tsMs: ts, state: state, user: user,
                        productId: product, originalId: original))
            case .revoke?:
                let file = r.u32()
                let fileId = file == 0 ? chunkFile : file
                let line = r.u32()
                let ts = r.i64()
                let id = r.id()!
                let user = r.text()
                guard keep(id) else { return }
                revokes.append(Revoke(t: local(id), order: ranks.order(fileId, line), fileId: fileId, line: line, tsMs: ts, user: user))
            case .listing?:
                let fact = ListingFacts.read(&r, chunkFile: chunkFile)
                guard keep(fact.id), !redeliveries.contains(fact.key) else { return }
                listings.append(Listing(t: local(fact.id), order: ranks.order(fact.fileId, fact.line), fact: fact))
            case .link?:
                let id = r.id()!
                let file = r.u32()
                let line = r.u32()
                let user = r.text()
                guard keep(id) else { return }
                links[recordKey(file, line)] = user
            case .carrier?:
                let id = r.id()!
                let fileId = r.u32()
                let line = r.u32()
                let requestId = r.text()!
                let user = r.text()
                let ts = r.i64()
                let latest = r.i64()
                let firstSeen = r.i64()
                let status = r.optionalInt()
                let environment = r.text()
                let flags = r.u8()
                let unresolved = r.u8()
                let unproven = r.u8()
                let start = Int32(evidence.count)
                for _ in 0..<r.varint() {
                    let f = r.u32()
                    evidence.append((f, r.u32()))
                }
                guard keep(id) else {
                    evidence.removeSubrange(Int(start)...)
                    return
                }
                carriers.append(
                    Carrier(
                        t: local(id), order: ranks.order(fileId, line), fileId: fileId, line: line, requestId: requestId, user: user,
                        tsMs: ts, latestMs: latest, firstSeenMs: firstSeen, status: status, environment: environment, flags: flags,
                        unresolved: unresolved, unproven: unproven, evidence: start..<Int32(evidence.count)))
            default: preconditionFailure("a transaction-stream fact of another kind")
            }
        }
        for i in listings.indices {
            if let user = links[listings[i].fact.key] {
                listings[i].linked = true
                listings[i].user = user
            }
        }
        clientRange = Self.group(&clients, count: ids.count, t: { $0.t }, order: { $0.order })
        revokeRange = Self.group(&revokes, count: ids.count, t: { $0.t }, order: { $0.order })
        carrierRange = Self.group(&carriers, count: ids.count, t: { $0.t }, order: { $0.order })
        listingRange = Self.group(&listings, count: ids.count, t: { $0.t }, order: { $0.order })
    }

    /// The local index of an id (made on first sight).
    private func local(_ id: FactId) -> Int32 {
        switch id {
        case .number(let n):
            if let i = index[n] { return i }
            let i = Int32(ids.count)
            index[n] = i
            ids.append(.number(n))
            return i
        case .text(let t):
            let key = ByteKey(bytes, t)
            if let i = textIndex[key] { return i }
            let i = Int32(ids.count)
            let text = bytes.string(t)!
            textIndex[key] = i
            textIds[text] = i
            ids.append(.text(text))
            return i
        }
    }

    /// Sorts `facts` by (transaction, ledger order) — a counting sort by transaction, then each
    /// transaction's few facts by order — and returns each transaction's range.
    @inline(__always)
    private static func group<F>(_ facts: inout [F], count: Int, t: (F) -> Int32, order: (F) -> UInt64) -> [Range<Int>] {
        var starts = [Int](repeating: 0, count: count + 1)
        for f in facts { starts[Int(t(f)) + 1] += 1 }
        for i in 0..<count { starts[i + 1] += starts[i] }
        var ranges = (0..<count).map { starts[$0]..<starts[$0 + 1] }
        guard !facts.isEmpty else { return ranges }
        var next = starts
        var sorted = [F]()
        sorted.reserveCapacity(facts.count)
        var slots = [Int](repeating: 0, count: facts.count)
        for (i, f) in facts.enumerated() {
            let k = Int(t(f))
            slots[next[k]] = i
            next[k] += 1
        }
        for i in slots { sorted.append(facts[i]) }
        for k in 0..<count where ranges[k].count > 1 { sorted[ranges[k]].sort { order($0) < order($1) } }
        facts = sorted
        ranges = (0..<count).map { starts[$0]..<starts[$0 + 1] }
        return ranges
    }

    var count: Int { ids.count }

    /// Where facts of some transactions go instead.
    struct Divert {
        let test: (FactId, PartitionBytes) -> Bool
        let take: (UnsafeRawBufferPointer, _ chunkFile: UInt32) -> Void
    }

    /// The local index of a global id, if this partition has it.
    func local(of id: GlobalId) -> Int32? {
        switch id {
        case .number(let n): return index[n]
        case .text(let s): return textIds[s]
        }
    }

    func clients(_ t: Int32) -> ArraySlice<Client> { clients[clientRange[Int(t)]] }
    func revokes(_ t: Int32) -> ArraySlice<Revoke> { revokes[revokeRange[Int(t)]] }
    func carriers(_ t: Int32) -> ArraySlice<Carrier> { carriers[carrierRange[Int(t)]] }
    func listings(_ t: Int32) -> ArraySlice<Listing> { listings[listingRange[Int(t)]] }
    func evidence(_ c: Carrier) -> ArraySlice<(fileId: UInt32, line: UInt32)> {
        evidence[Int(c.evidence.lowerBound)..<Int(c.evidence.upperBound)]
    }
}
