/// Records read from one stretch of an input file, as rows ready for the store: every text in one
/// arena (`TextArena`), every row a flat value. The fast JSON Lines readers fill it directly; records
/// read as Swift values (`ClientReport`, `ServerRequest`, `AppleRecord`) are appended with
/// `append(_:)`. Rows keep their input order; `line` is 1-based within the file.
package struct RecordBatch: Sendable {
    package var arena = TextArena()
    package var clients: [ClientRow] = []
    package var servers: [ServerRow] = []
    package var responses: [AppleRecordRow] = []
    package var items: [AppleTransactionRow] = []
    package var renewals: [PendingRenewalRow] = []
    /// Ids of `ServerRow.transactionIds` / `creditedTransactionIds`.
    package var ids: [TextRef] = []
    package var rejections: [Rejection] = []
    /// The reconciliation facts of these rows, once encoded (`FactEncoder`); nil until then.
    package var facts: FactSet? = nil

    package init() {}

    /// Encodes the facts of these rows (where the work is spread: the parsing threads).
    package mutating func encodeFacts() {
        var set = FactSet()
        FactEncoder.add(self, to: &set)
        facts = set
    }

    /// Records imported (rejections not counted).
    package var recordCount: Int { clients.count + servers.count + responses.count }

    package func text(_ ref: TextRef) -> String? { arena.string(ref) }
}
