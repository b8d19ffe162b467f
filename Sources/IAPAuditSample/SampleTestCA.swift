/// The files of the sample's test CA (`test-ca/`): its certificates, its keys (TEST ONLY, published on
/// purpose so anyone can sign more sample records), and a README saying so. `config.json` names the root
/// in `jws_trust_anchors`.
enum SampleTestCA {
    static let rootFile = "sample-root-ca.TEST-ONLY.pem"

    static let files: [(name: String, text: String)] = [
        (rootFile, SampleCA.rootCertificate + "\n"),
        ("sample-intermediate.TEST-ONLY.pem", SampleCA.intermediateCertificate + "\n"),
        ("sample-signing.TEST-ONLY.pem", SampleCA.leafCertificate + "\n"),
        ("sample-root-ca.TEST-ONLY.key", SampleCA.rootKey + "\n"),
        ("sample-intermediate.TEST-ONLY.key", SampleCA.intermediateKey + "\n"),
        ("sample-signing.TEST-ONLY.key", SampleCA.leafKey + "\n"),
        ("README.txt", readme),
    ]

    static let readme = """
        TEST ONLY: the certificate authority of iap-audit's synthetic sample.

        iap-audit sample signs the sample's App Store Server API style transactions (signed.jsonl,
        history.jsonl, notifications.jsonl) with sample-signing.TEST-ONLY.key: ES256, deterministic
        nonces (RFC 6979), the chain sample-signing -> sample-intermediate -> sample-root-ca in each
        JWS header's x5c. The intermediate and the signing certificate carry Apple's marker OIDs
        (1.2.840.113635.100.6.2.1, 1.2.840.113635.100.6.11.1) so that the chain passes the checks an
        App Store chain passes. ../config.json names sample-root-ca.TEST-ONLY.pem in jws_trust_anchors:
        with it the sample's signed records verify; with Apple's root they would not.

        The private keys are published on purpose. Never trust this CA for anything but test data.
        Made by scripts/make-sample-ca.py (valid 2025-01-01 to 2045-12-31).

        """
}
