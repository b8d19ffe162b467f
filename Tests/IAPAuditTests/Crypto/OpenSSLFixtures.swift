import Foundation

/// Throw-away EC P-256 certificate chains, JWS and PKCS#7 made at test time with the `openssl` command
/// line tool in a scratch folder (nothing is stored in the repository).
///
/// A chain is root → intermediate → leaf, valid from the moment it is made. The intermediate carries
/// Apple's marker extension 1.2.840.113635.100.6.2.1 and the leaf 1.2.840.113635.100.6.11.1, unless
/// asked not to (both as non-critical `ASN1:NULL`, as Apple does).
struct OpenSSLFixtures {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// One chain's certificates as DER, and the file name prefix of its keys and PEM files.
    struct Chain {
        let name: String
        let root: Data
        let intermediate: Data
        let leaf: Data
        /// `x5c` order: leaf, intermediate, root.
        var x5c: [Data] { [leaf, intermediate, root] }
    }

    let folder: String

    init(folder: String) throws {
        self.folder = folder
        try Data(Self.config.utf8).write(to: URL(fileURLWithPath: folder + "/openssl.cnf"))
    }

    /// Makes a root, an intermediate and a leaf named `<name>-root`, `<name>-intermediate`, `<name>-leaf`.
    /// - Parameter leafDays: the leaf's validity in days from now (the others get 10 years).
    func makeChain(_ name: String, leafOID: Bool = true, intermediateOID: Bool = true, leafDays: Int = 3650) throws -> Chain {
        let root = "\(name)-root", intermediate = "\(name)-intermediate", leaf = "\(name)-leaf"
        try run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "\(root).key"])
        try run([
            "req", "-new", "-x509", "-config", "openssl.cnf", "-extensions", "root_ext", "-key", "\(root).key",
            "-subj", "/CN=Throwaway Root \(name)", "-days", "3650", "-sha256", "-out", "\(root).pem",
        ])
        try issue(
            intermediate, by: root, extensions: intermediateOID ? "intermediate_ext" : "intermediate_plain_ext", days: 3650, serial: 2)
        try issue(leaf, by: intermediate, extensions: leafOID ? "leaf_ext" : "leaf_plain_ext", days: leafDays, serial: 3)
        return Chain(name: name, root: try der(root), intermediate: try der(intermediate), leaf: try der(leaf))
    }

    /// Signs `header.payload` with ES256 by the chain's leaf key; returns the compact JWS.
    /// `openssl dgst -sign` gives a DER `ECDSA-Sig-Value`, converted to JWS's raw `r || s`.
    func signJWS(header: [String: Any], payload: [String: Any], by chain: Chain) throws -> String {
        func encode(_ object: [String: Any]) throws -> String {
            TestJWS.base64URLEncode(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let signingInput = "\(try encode(header)).\(try encode(payload))"
        try Data(signingInput.utf8).write(to: URL(fileURLWithPath: folder + "/jws-input"))
        try run(["dgst", "-sha256", "-sign", "\(chain.name)-leaf.key", "-out", "jws-signature.der", "jws-input"])
        let raw = try Self.rawSignature(der: try read("jws-signature.der"))
        return signingInput + "." + TestJWS.base64URLEncode(raw)
    }

    /// A DER PKCS#7 signed-data over `content`, signed by the chain's leaf, embedding the intermediate
    /// and the root; the content is attached unless `detached`.
    func signPKCS7(_ content: Data, by chain: Chain, detached: Bool = false) throws -> Data {
        try content.write(to: URL(fileURLWithPath: folder + "/pkcs7-content"))
        let certificates = try read("\(chain.name)-intermediate.pem") + read("\(chain.name)-root.pem")
        try certificates.write(to: URL(fileURLWithPath: folder + "/pkcs7-certificates.pem"))
        try run(
            ["smime", "-sign", "-binary", "-md", "sha256", "-outform", "DER", "-in", "pkcs7-content"]
                + (detached ? [] : ["-nodetach"])
                + [
                    "-signer", "\(chain.name)-leaf.pem", "-inkey", "\(chain.name)-leaf.key",
                    "-certfile", "pkcs7-certificates.pem", "-out", "pkcs7.der",
                ])
        return try read("pkcs7.der")
    }

    func read(_ file: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file)) }

    /// Converts a DER `SEQUENCE { INTEGER r, INTEGER s }` to 64 bytes: r and s, 32 bytes each,
    /// left-padded with zeros (DER integers drop leading zeros and may add one for the sign).
    static func rawSignature(der: Data) throws -> Data {
        let bytes = [UInt8](der)
        var index = 2  // SEQUENCE tag and a short length: P-256 signatures are under 128 bytes
        var raw = Data()
        for _ in 0..<2 {
            guard index + 2 <= bytes.count, bytes[index] == 0x02 else { throw Failure(description: "not an ECDSA DER signature") }
            let length = Int(bytes[index + 1])
            var integer = Array(bytes[(index + 2)..<(index + 2 + length)])
            while integer.count > 32 && integer.first == 0 { integer.removeFirst() }
            raw += Data(repeating: 0, count: 32 - integer.count) + integer
            index += 2 + length
        }
        return raw
    }

    private func issue(_ name: String, by issuer: String, extensions: String, days: Int, serial: Int) throws {
        try run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "\(name).key"])
        try run(["req", "-new", "-config", "openssl.cnf", "-key", "\(name).key", "-subj", "/CN=\(name)", "-out", "\(name).csr"])
        try run([
            "x509", "-req", "-in", "\(name).csr", "-CA", "\(issuer).pem", "-CAkey", "\(issuer).key", "-set_serial", "\(serial)",
            "-days", "\(days)", "-sha256", "-extfile", "openssl.cnf", "-extensions", extensions, "-out", "\(name).pem",
        ])
    }

    private func der(_ name: String) throws -> Data {
        try run(["x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"])
        return try read("\(name).der")
    }

    /// Runs `openssl <arguments>` in the folder; throws with its standard error when it fails.
    @discardableResult
    private func run(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")): \(String(decoding: err, as: UTF8.self))")
        }
        return out
    }

    private static let config = """
        [req]
        distinguished_name = dn
        prompt = no
        [dn]
        CN = unused
        [root_ext]
        basicConstraints = critical, CA:TRUE
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash
        [intermediate_ext]
        basicConstraints = critical, CA:TRUE, pathlen:0
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid
        1.2.840.113635.100.6.2.1 = ASN1:NULL
        [intermediate_plain_ext]
        basicConstraints = critical, CA:TRUE, pathlen:0
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid
        [leaf_ext]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        authorityKeyIdentifier = keyid
        1.2.840.113635.100.6.11.1 = ASN1:NULL
        [leaf_plain_ext]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        authorityKeyIdentifier = keyid

        """
}
