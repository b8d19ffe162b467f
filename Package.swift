// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "iap-audit",
    products: [
        .executable(name: "iap-audit", targets: ["iap-audit"]),
        // Benchmark tooling (bench/run.sh): our JSON Lines readers' speed on one thread.
        .executable(name: "iap-audit-json-probe", targets: ["iap-audit-json-probe"]),
        .library(name: "IAPAudit", targets: ["IAPAudit"]),
    ],
    targets: [
        // System libraries from Debian: libsqlite3-dev, libxlsxwriter-dev, libssl-dev (libcrypto: SHA-256).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CXLSXWriter", path: "Sources/CXLSXWriter", providers: [.apt(["libxlsxwriter-dev"])]),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", providers: [.apt(["libssl-dev"])]),
        .target(name: "IAPAudit", dependencies: ["CSQLite", "CXLSXWriter", "COpenSSL"], path: "Sources/IAPAudit"),
        .executableTarget(name: "iap-audit", dependencies: ["IAPAudit"], path: "Sources/iap-audit"),
        .executableTarget(name: "iap-audit-json-probe", dependencies: ["IAPAudit"], path: "Sources/iap-audit-json-probe"),
        .testTarget(
            name: "IAPAuditTests", dependencies: ["IAPAudit"], path: "Tests/IAPAuditTests",
            exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
