/// Records read from one stretch of an input file, as rows ready for the store: every text in one
/// arena (`TextArena`), every row a flat value. The fast JSON Lines readers fill it directly; records
/// read as Swift values (`ClientReport`, `ServerRequest`, `VerifyResponse`) are appended with
/// `append(_:)`. Rows keep their input order; `line` is 1-based within the file.
struct RecordBatch: Sendable {
    var arena = TextArena()
    var clients: [ClientRow] = []
    var servers: [ServerRow] = []
    var responses: [ResponseRow] = []
    var items: [ItemRow] = []
    var renewals: [RenewalRow] = []
    /// Ids of `ServerRow.transactionIds` / `creditedTransactionIds`.
    var ids: [TextRef] = []
    var rejections: [Rejection] = []
    /// The reconciliation facts of these rows, once encoded (`FactEncoder`); nil until then.
    var facts: FactSet? = nil

    init() {}

    /// Encodes the facts of these rows (where the work is spread: the parsing threads).
    mutating func encodeFacts() {
        var set = FactSet()
        FactEncoder.add(self, to: &set)
        facts = set
    }

    /// Records imported (rejections not counted).
    var recordCount: Int { clients.count + servers.count + responses.count }

    func text(_ ref: TextRef) -> String? { arena.string(ref) }
}
