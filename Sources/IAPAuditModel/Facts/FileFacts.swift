extension FileFacts: Equatable {
    /// Nothing counted yet.
    package init() {
        self.init(
            clientReports: 0, serverRecords: 0, appleRecords: 0, signedAppleRecords: 0, appleItems: 0, environmentConflicts: 0,
            environmentUnknown: 0, newestClient: nil,
            newestServer: nil, newestReceived: nil, oldestClient: nil, oldestServer: nil, statusCounts: [:], latencyCounts: [:])
    }

    package static func == (a: FileFacts, b: FileFacts) -> Bool {
        (a.clientReports, a.serverRecords, a.appleRecords, a.signedAppleRecords, a.appleItems)
            == (b.clientReports, b.serverRecords, b.appleRecords, b.signedAppleRecords, b.appleItems)
            && (a.environmentConflicts, a.environmentUnknown) == (b.environmentConflicts, b.environmentUnknown)
            && a.statusCounts == b.statusCounts && a.latencyCounts == b.latencyCounts
            && a.newestClient?.ms == b.newestClient?.ms && a.newestClient?.line == b.newestClient?.line
            && a.newestServer?.ms == b.newestServer?.ms && a.newestServer?.line == b.newestServer?.line
            && a.newestReceived?.ms == b.newestReceived?.ms && a.newestReceived?.line == b.newestReceived?.line
            && a.oldestClient?.ms == b.oldestClient?.ms && a.oldestClient?.line == b.oldestClient?.line
            && a.oldestServer?.ms == b.oldestServer?.ms && a.oldestServer?.line == b.oldestServer?.line
    }

    /// Keeps the newer timestamp; on a tie the earlier line (this summary's records come first).
    package static func newer(_ a: (ms: Int64, line: UInt32)?, _ b: (ms: Int64, line: UInt32)?) -> (ms: Int64, line: UInt32)? {
        guard let a else { return b }
        guard let b else { return a }
        return b.ms > a.ms ? b : a
    }

    /// Keeps the older timestamp; on a tie the earlier line (this summary's records come first).
    package static func older(_ a: (ms: Int64, line: UInt32)?, _ b: (ms: Int64, line: UInt32)?) -> (ms: Int64, line: UInt32)? {
        guard let a else { return b }
        guard let b else { return a }
        return b.ms < a.ms ? b : a
    }

    /// This summary followed by `other` (the records after these).
    package mutating func add(_ other: FileFacts) {
        clientReports += other.clientReports
        serverRecords += other.serverRecords
        appleRecords += other.appleRecords
        signedAppleRecords += other.signedAppleRecords
        appleItems += other.appleItems
        environmentConflicts += other.environmentConflicts
        environmentUnknown += other.environmentUnknown
        statusCounts.merge(other.statusCounts, uniquingKeysWith: +)
        latencyCounts.merge(other.latencyCounts, uniquingKeysWith: +)
        newestClient = Self.newer(newestClient, other.newestClient)
        newestServer = Self.newer(newestServer, other.newestServer)
        newestReceived = Self.newer(newestReceived, other.newestReceived)
        oldestClient = Self.older(oldestClient, other.oldestClient)
        oldestServer = Self.older(oldestServer, other.oldestServer)
    }

    package var isEmpty: Bool { clientReports == 0 && serverRecords == 0 && appleRecords == 0 }

    /// The summary fact's bytes.
    package func encoded() -> [UInt8] {
        var w = FactWriter()
        Self.write(
            &w, clientReports: clientReports, serverRecords: serverRecords, appleRecords: appleRecords,
            signedAppleRecords: signedAppleRecords, appleItems: appleItems, environmentConflicts: environmentConflicts,
            environmentUnknown: environmentUnknown, newestClient: newestClient, newestServer: newestServer,
            newestReceived: newestReceived, oldestClient: oldestClient, oldestServer: oldestServer, statusCounts: statusCounts,
            latencyCounts: latencyCounts)
        return w.bytes
    }

    /// Reads a stored summary fact (its kind byte first).
    package init(encoded r: inout FactReader) {
        _ = r.u8()
        self = Self.read(&r)
    }

    /// The summary stored in `raw` (a chunk of the summary stream of file `fileId`); throws `FactDecodingError` when it
    /// cannot be decoded (bytes past its end, or not a summary).
    package init(decoding raw: UnsafeRawBufferPointer, fileId: UInt32) throws {
        guard let base = raw.baseAddress, raw.count > 0 else {
            throw FactDecodingError("an empty summary of file id \(fileId)", fileId: fileId)
        }
        var r = FactReader(base.assumingMemoryBound(to: UInt8.self), count: raw.count)
        guard r.u8() == FactKind.summary.rawValue else { throw FactDecodingError("the summary of file id \(fileId)", fileId: fileId) }
        self = Self.read(&r)
        guard !r.damaged else { throw FactDecodingError("the summary of file id \(fileId)", fileId: fileId) }
    }
}
