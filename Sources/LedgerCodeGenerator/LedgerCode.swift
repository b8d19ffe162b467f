import LedgerDeclarations

/// The files made from the declarations (`LedgerDeclarations`): each path from the package root and
/// its contents. `generate-ledger-code` writes them; GeneratedCodeTests fails while one is stale.
public enum LedgerCode {
    public static func files() -> [(path: String, contents: String)] {
        [
            ("Sources/IAPAuditModel/Generated/Records+Generated.swift", RecordEmitter(records: recordDeclarations).emit()),
            ("Sources/IAPAuditModel/Generated/Facts+Generated.swift", FactEmitter(facts: factDeclarations, streams: factStreams).emit()),
            (
                "Sources/IAPAuditModel/Generated/Findings+Generated.swift",
                FindingEmitter(kinds: findingKindDeclarations, fields: findingFieldDeclarations, actions: findingActionCodes).emit()
            ),
            ("Sources/IAPAuditStore/Generated/RecordTables+Generated.swift", TableEmitter(records: recordDeclarations).emit()),
            (
                "Tests/IAPAuditTests/Generated/LedgerValues+Generated.swift",
                TestSupportEmitter(records: recordDeclarations, facts: factDeclarations).emit()
            ),
        ]
    }
}
