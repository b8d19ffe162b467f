/// Everything reconciliation reads, loaded from the store in a deterministic order
/// (file path, then line).
public struct Ledger: Sendable {
    public var clientReports: [ClientReport] = []
    public var serverRequests: [ServerRequest] = []
    public var appleRecords: [AppleRecord] = []

    public init(clientReports: [ClientReport] = [], serverRequests: [ServerRequest] = [], appleRecords: [AppleRecord] = []) {
        self.clientReports = clientReports
        self.serverRequests = serverRequests
        self.appleRecords = appleRecords
    }
}
