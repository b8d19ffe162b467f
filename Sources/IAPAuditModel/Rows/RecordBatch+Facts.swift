extension RecordBatch {
    /// Encodes the facts of these rows (where the work is spread: the parsing threads).
    package mutating func encodeFacts() {
        var set = FactSet()
        FactEncoder.add(self, to: &set)
        facts = set
    }

    /// The text of `ref`; nil for `.null`.
    package func text(_ ref: TextRef) -> String? { arena.string(ref) }
}
