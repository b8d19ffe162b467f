// swift-tools-version:6.0
import PackageDescription

// Layers, each a target, so that a wrong-way import does not compile (docs/architecture.md):
//
//   iap-audit (main.swift) → IAPAuditCLI → IAPAuditPipeline, IAPAuditReport (trace's rendering), IAPAuditSample,
//     IAPAuditAppleAPI (`ask-apple`: the one part that goes on the network, only when a user runs it)
//   IAPAuditAppleAPI → IAPAuditCrypto (it signs its token), IAPAuditModel; FoundationNetworking (libcurl4)
//   IAPAuditSample → IAPAuditCrypto (it signs its synthetic JWS)
//   IAPAuditPipeline → IAPAuditIngest, IAPAuditCrypto, IAPAuditStore, IAPAuditReconcile, IAPAuditReport
//   each of those → IAPAuditModel (the bottom: records, facts, findings; no C, no I/O)
//
// C libraries from Debian stay behind one wrapper target each: CSQLite in IAPAuditStore,
// CXLSXWriter in IAPAuditReport, COpenSSL in IAPAuditCrypto, CZlib in IAPAuditIngest (gzip inputs).
let package = Package(
    name: "iap-audit",
    products: [
        .executable(name: "iap-audit", targets: ["iap-audit"]),
        // Benchmark tooling (bench/run.sh): our JSON Lines readers' speed on one thread.
        .executable(name: "iap-audit-json-probe", targets: ["iap-audit-json-probe"]),
        // A seeded mutation driver for the readers (scripts/fuzz.sh, docs/security.md: Fuzzing).
        .executable(name: "iap-audit-fuzz", targets: ["iap-audit-fuzz"]),
    ],
    targets: [
        // System libraries from Debian: libsqlite3-dev, libxlsxwriter-dev, libssl-dev (libcrypto: SHA-256), zlib1g-dev.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CXLSXWriter", path: "Sources/CXLSXWriter", providers: [.apt(["libxlsxwriter-dev"])]),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),

        // Every record and fact kind declared once; generate-ledger-code writes the code made from them
        // (checked in; GeneratedCodeTests fails while it is stale).
        .target(name: "LedgerDeclarations", path: "Sources/LedgerDeclarations"),
        .target(name: "LedgerCodeGenerator", dependencies: ["LedgerDeclarations"], path: "Sources/LedgerCodeGenerator"),
        .executableTarget(name: "generate-ledger-code", dependencies: ["LedgerCodeGenerator"], path: "Sources/generate-ledger-code"),

        .target(name: "IAPAuditModel", path: "Sources/IAPAuditModel"),
        .target(name: "IAPAuditCrypto", dependencies: ["IAPAuditModel", "COpenSSL"], path: "Sources/IAPAuditCrypto"),
        .target(name: "IAPAuditIngest", dependencies: ["IAPAuditModel", "CZlib"], path: "Sources/IAPAuditIngest"),
        .target(name: "IAPAuditStore", dependencies: ["IAPAuditModel", "CSQLite"], path: "Sources/IAPAuditStore"),
        .target(name: "IAPAuditReconcile", dependencies: ["IAPAuditModel"], path: "Sources/IAPAuditReconcile"),
        .target(name: "IAPAuditReport", dependencies: ["IAPAuditModel", "CXLSXWriter"], path: "Sources/IAPAuditReport"),
        .target(
            name: "IAPAuditPipeline",
            dependencies: ["IAPAuditModel", "IAPAuditCrypto", "IAPAuditIngest", "IAPAuditStore", "IAPAuditReconcile", "IAPAuditReport"],
            path: "Sources/IAPAuditPipeline"),
        .target(name: "IAPAuditSample", dependencies: ["IAPAuditModel", "IAPAuditCrypto"], path: "Sources/IAPAuditSample"),
        .target(name: "IAPAuditAppleAPI", dependencies: ["IAPAuditModel", "IAPAuditCrypto"], path: "Sources/IAPAuditAppleAPI"),
        .target(
            name: "IAPAuditCLI", dependencies: ["IAPAuditPipeline", "IAPAuditReport", "IAPAuditSample", "IAPAuditAppleAPI"],
            path: "Sources/IAPAuditCLI"),
        .executableTarget(name: "iap-audit", dependencies: ["IAPAuditCLI"], path: "Sources/iap-audit"),
        .executableTarget(name: "iap-audit-json-probe", dependencies: ["IAPAuditIngest"], path: "Sources/iap-audit-json-probe"),
        .executableTarget(
            name: "iap-audit-fuzz", dependencies: ["IAPAuditModel", "IAPAuditCrypto", "IAPAuditIngest"], path: "Sources/iap-audit-fuzz"),

        .testTarget(
            name: "IAPAuditTests",
            dependencies: [
                "IAPAuditModel", "IAPAuditCrypto", "IAPAuditIngest", "IAPAuditStore", "IAPAuditReconcile", "IAPAuditReport",
                "IAPAuditPipeline", "IAPAuditSample", "IAPAuditCLI", "IAPAuditAppleAPI", "LedgerCodeGenerator",
            ],
            path: "Tests/IAPAuditTests", exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
