// Written by scripts/make-sample-ca.py: do not edit.

/// The sample's certificate authority, TEST ONLY: root → intermediate → leaf (EC P-256, Apple's marker OIDs
/// on the intermediate and the leaf, valid 2025-01-01 to 2045-12-31). The leaf signs the sample's JWS; the
/// keys are published with the sample on purpose and must never be trusted for anything but test data.
enum SampleCA {
    static let rootCertificate = pem("CERTIFICATE", "MIIBjzCCATWgAwIBAgIBATAKBggqhkjOPQQDAjAvMS0wKwYDVQQDDCRpYXAtYXVkaXQgU2FtcGxlIFJvb3QgQ0EgLSBURVNUIE9OTFkwHhcNMjUwMTAxMDAwMDAwWhcNNDUxMjMxMjM1OTU5WjAvMS0wKwYDVQQDDCRpYXAtYXVkaXQgU2FtcGxlIFJvb3QgQ0EgLSBURVNUIE9OTFkwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQI/mO4X1SBadk2aueZmK4zNM9A90f8HBt4wZp89EQtIW7FzGsaEoxiV5PPM9/0exnOtImdTbJW1vDXb9xFN4Tbo0IwQDAPBgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB/wQEAwIBBjAdBgNVHQ4EFgQUaGVgJzbn8EM5DyJKwolbu1CEJuYwCgYIKoZIzj0EAwIDSAAwRQIgWay+GtP32eZssBFrD3gpob6iLPtPbp4SvOstamYOOrMCIQC2H7g747UkwygqlEwAg+rfRl4VkhQMN0ggDR1gFPkNew==")
    static let intermediateCertificate = pem("CERTIFICATE", "MIIByzCCAXCgAwIBAgIBAjAKBggqhkjOPQQDAjAvMS0wKwYDVQQDDCRpYXAtYXVkaXQgU2FtcGxlIFJvb3QgQ0EgLSBURVNUIE9OTFkwHhcNMjUwMTAxMDAwMDAwWhcNNDUxMjMxMjM1OTU5WjA0MTIwMAYDVQQDDClpYXAtYXVkaXQgU2FtcGxlIEludGVybWVkaWF0ZSAtIFRFU1QgT05MWTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABPAwaUlS2Y3eQvN0aW1KAYtBrQvXEWnRJsNW0BnL4VwYOipkQYwo9hPfoGUyfa08tONEThjNPEIGn2cfKzbhFNqjeDB2MBIGA1UdEwEB/wQIMAYBAf8CAQAwDgYDVR0PAQH/BAQDAgEGMB0GA1UdDgQWBBQSkk51wuJXCm/BScXHl6NO8jVQXjAfBgNVHSMEGDAWgBRoZWAnNufwQzkPIkrCiVu7UIQm5jAQBgoqhkiG92NkBgIBBAIFADAKBggqhkjOPQQDAgNJADBGAiEA9/tKg1AVMnwx92Nvs4DU1KVOln4SBSceNSHuOlcZhl0CIQC2yBozIdX2tivYTyMUgn/0yZmuD/TQsvHHntZ+EVR3jQ==")
    static let leafCertificate = pem("CERTIFICATE", "MIIBxDCCAWqgAwIBAgIBAzAKBggqhkjOPQQDAjA0MTIwMAYDVQQDDClpYXAtYXVkaXQgU2FtcGxlIEludGVybWVkaWF0ZSAtIFRFU1QgT05MWTAeFw0yNTAxMDEwMDAwMDBaFw00NTEyMzEyMzU5NTlaMC8xLTArBgNVBAMMJGlhcC1hdWRpdCBTYW1wbGUgU2lnbmluZyAtIFRFU1QgT05MWTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABHKIeXgEZ/oofHuspIH0hcMZQ3TInyMAJ7E2bwfeXq93urYTWeiNg9a6G/FlKZbNg9vme+PzSPIMPxR5PKN5KOmjcjBwMAwGA1UdEwEB/wQCMAAwDgYDVR0PAQH/BAQDAgeAMB8GA1UdIwQYMBaAFBKSTnXC4lcKb8FJxceXo07yNVBeMBAGCiqGSIb3Y2QGCwEEAgUAMB0GA1UdDgQWBBTVrIEoCymeknCYJKanF4dwRPTPbTAKBggqhkjOPQQDAgNIADBFAiBoGiWkviSU8nNnyyki79J8SSaxOMxY4hMM0tKpQH9kxgIhAM52CViFpQhJ4OfQ0HcHRw++778tqBlO3GqzzcG1K/m8")
    static let rootKey = pem("PRIVATE KEY", "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgQ413r7dDYp9r8hOuAw220ZRO4skpnSHrYW+n90vXYd2hRANCAAQI/mO4X1SBadk2aueZmK4zNM9A90f8HBt4wZp89EQtIW7FzGsaEoxiV5PPM9/0exnOtImdTbJW1vDXb9xFN4Tb")
    static let intermediateKey = pem("PRIVATE KEY", "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgfjUYmqKRBSLGoJx4lGQ9Ma3rqsXM0WuIWbIpRrjaxuChRANCAATwMGlJUtmN3kLzdGltSgGLQa0L1xFp0SbDVtAZy+FcGDoqZEGMKPYT36BlMn2tPLTjRE4YzTxCBp9nHys24RTa")
    static let leafKey = pem("PRIVATE KEY", "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg3ag/l7q2lVgnrQnTWkpTF6/66crDZq1Dm/6x99/IXuihRANCAARyiHl4BGf6KHx7rKSB9IXDGUN0yJ8jACexNm8H3l6vd7q2E1nojYPWuhvxZSmWzYPb5nvj80jyDD8UeTyjeSjp")

    /// PEM text as openssl writes it, without the last newline: `-----BEGIN label-----`, `base64` in lines of 64
    /// characters, `-----END label-----`.
    private static func pem(_ label: String, _ base64: String) -> String {
        var lines = ["-----BEGIN \(label)-----"]
        var rest = Substring(base64)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(64)))
            rest = rest.dropFirst(64)
        }
        return (lines + ["-----END \(label)-----"]).joined(separator: "\n")
    }
}
