extension ServerRequest {
    /// Rule 4: the same `request_id` logged twice is one request. The lines are merged: granted
    /// when any line says so; ids are the union in order; the earliest `ts`; the first known
    /// user, device, status and environment.
    func merged(with other: ServerRequest) -> ServerRequest {
        func union(_ a: [String], _ b: [String]) -> [String] { a + b.filter { !a.contains($0) } }
        var merged = self
        merged.tsMs = min(tsMs, other.tsMs)
        merged.userId = userId ?? other.userId
        merged.deviceId = deviceId ?? other.deviceId
        merged.transactionIds = union(transactionIds, other.transactionIds)
        switch (creditedTransactionIds, other.creditedTransactionIds) {
        case let (a?, b?): merged.creditedTransactionIds = union(a, b)
        case let (a, b): merged.creditedTransactionIds = a ?? b
        }
        merged.restore = restore || other.restore
        merged.receiptSha256 = receiptSha256 ?? other.receiptSha256
        merged.verifyStatus = verifyStatus ?? other.verifyStatus
        merged.environment = environment ?? other.environment
        merged.granted = granted || other.granted
        merged.latencyMs = latencyMs ?? other.latencyMs
        return merged
    }
}
