import Foundation
import IAPAuditModel

/// The facts of one transaction partition, grouped by transaction: what every rule reads
/// (the compact counterpart of the ledger for these transactions). Texts stay in `bytes`.
final class TransactionFacts {
    /// A client report of a transaction (`t`: its local index; `order`: ledger order).
    struct Client {
        var t: Int32
        var order: UInt64
        var fact: ClientFact
    }

    struct Revoke {
        var t: Int32
        var order: UInt64
        var fact: RevokeFact
    }

    /// A request that carried or granted the transaction (made by the request stage).
    struct Carrier {
        var t: Int32
        /// Ledger order of the request's first line.
        var order: UInt64
        var fact: CarrierFact

        var isProven: Bool { fact.unproven == Grant.proven.rawValue }
        /// Why its grant has no proof (rule 13).
        var proof: Grant { Grant(rawValue: fact.unproven) ?? .noVerifyResponse }
    }

    /// One transaction as one Apple record lists it.
    struct Listing {
        var t: Int32
        /// Ledger order of the Apple record.
        var order: UInt64
        var fact: ListingFact
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
    private(set) var evidence: [CarrierFact.Evidence] = []
    /// Apple's answers kept with the id asked (`iap-audit ask-apple`, rule 25), by transaction: few, so a dictionary.
    private(set) var lookups: [Int32: [LookupFact]] = [:]

    /// Per transaction, the range of each sorted array.
    private(set) var clientRange: [Range<Int>] = []
    private(set) var revokeRange: [Range<Int>] = []
    private(set) var carrierRange: [Range<Int>] = []
    private(set) var listingRange: [Range<Int>] = []

    /// - Parameter divert: facts of transactions reconciled elsewhere (the ids of a billing event with
    ///   several ids are reconciled together): whether an id is one, and where its facts go.
    init(bytes: PartitionBytes, ranks: FileRanks, redeliveries: Set<UInt64>, divert: Divert? = nil) throws {
        self.bytes = bytes
        var links: [UInt64: FactText?] = [:]
        var evidence: [CarrierFact.Evidence] = []
        try bytes.forEachFact { r, chunkFile in
            let factStart = r.at
            func keep(_ id: FactId) -> Bool {
                guard let divert, divert.test(id, bytes) else { return true }
                divert.take(UnsafeRawBufferPointer(start: bytes.base + factStart, count: r.at - factStart), chunkFile)
                return false
            }
            switch FactKind(rawValue: r.u8()) {
            case .client?:
                let fact = ClientFact.read(&r, chunkFile: chunkFile)
                guard keep(fact.id) else { return }
                clients.append(Client(t: local(fact.id), order: ranks.order(fact.fileId, fact.line), fact: fact))
            case .revoke?:
                let fact = RevokeFact.read(&r, chunkFile: chunkFile)
                guard keep(fact.id) else { return }
                revokes.append(Revoke(t: local(fact.id), order: ranks.order(fact.fileId, fact.line), fact: fact))
            case .listing?:
                let fact = ListingFact.read(&r, chunkFile: chunkFile)
                guard keep(fact.id), !redeliveries.contains(fact.key) else { return }
                listings.append(Listing(t: local(fact.id), order: ranks.order(fact.fileId, fact.line), fact: fact))
            case .link?:
                let fact = LinkFact.read(&r)
                guard keep(fact.id) else { return }
                links[recordKey(fact.fileId, fact.line)] = fact.userId
            case .lookup?:
                let fact = LookupFact.read(&r, chunkFile: chunkFile)
                guard keep(fact.id) else { return }
                lookups[local(fact.id), default: []].append(fact)
            case .carrier?:
                let start = evidence.count
                let fact = CarrierFact.read(&r, evidence: &evidence)
                guard keep(fact.id) else {
                    evidence.removeSubrange(start...)
                    return
                }
                carriers.append(Carrier(t: local(fact.id), order: ranks.order(fact.fileId, fact.line), fact: fact))
            default: r.fail()  // no transaction-stream fact: damaged
            }
        }
        self.evidence = evidence
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
    func evidence(_ c: Carrier) -> ArraySlice<CarrierFact.Evidence> { evidence[c.fact.evidence] }
    /// Apple's answers about the id T, asked by the id (rule 25), in ledger order.
    func lookups(_ t: Int32) -> [LookupFact] { lookups[t] ?? [] }
}
