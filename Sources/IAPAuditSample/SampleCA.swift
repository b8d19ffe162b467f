// Written by scripts/make-sample-ca.py: do not edit.

/// The sample's certificate authority, TEST ONLY: root → intermediate → leaf (EC P-256, Apple's marker OIDs
/// on the intermediate and the leaf, valid 2025-01-01 to 2045-12-31). The leaf signs the sample's JWS; the
/// keys are published with the sample on purpose and must never be trusted for anything but test data.
enum SampleCA {
    static let rootCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBjzCCATWgAwIBAgIBATAKBggqhkjOPQQDAjAvMS0wKwYDVQQDDCRpYXAtYXVk
        aXQgU2FtcGxlIFJvb3QgQ0EgLSBURVNUIE9OTFkwHhcNMjUwMTAxMDAwMDAwWhcN
        NDUxMjMxMjM1OTU5WjAvMS0wKwYDVQQDDCRpYXAtYXVkaXQgU2FtcGxlIFJvb3Qg
        Q0EgLSBURVNUIE9OTFkwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQI/mO4X1SB
        adk2aueZmK4zNM9A90f8HBt4wZp89EQtIW7FzGsaEoxiV5PPM9/0exnOtImdTbJW
        1vDXb9xFN4Tbo0IwQDAPBgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB/wQEAwIBBjAd
        BgNVHQ4EFgQUaGVgJzbn8EM5DyJKwolbu1CEJuYwCgYIKoZIzj0EAwIDSAAwRQIg
        Way+GtP32eZssBFrD3gpob6iLPtPbp4SvOstamYOOrMCIQC2H7g747UkwygqlEwA
        g+rfRl4VkhQMN0ggDR1gFPkNew==
        -----END CERTIFICATE-----
        """
    static let intermediateCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIByzCCAXCgAwIBAgIBAjAKBggqhkjOPQQDAjAvMS0wKwYDVQQDDCRpYXAtYXVk
        aXQgU2FtcGxlIFJvb3QgQ0EgLSBURVNUIE9OTFkwHhcNMjUwMTAxMDAwMDAwWhcN
        NDUxMjMxMjM1OTU5WjA0MTIwMAYDVQQDDClpYXAtYXVkaXQgU2FtcGxlIEludGVy
        bWVkaWF0ZSAtIFRFU1QgT05MWTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABPAw
        aUlS2Y3eQvN0aW1KAYtBrQvXEWnRJsNW0BnL4VwYOipkQYwo9hPfoGUyfa08tONE
        ThjNPEIGn2cfKzbhFNqjeDB2MBIGA1UdEwEB/wQIMAYBAf8CAQAwDgYDVR0PAQH/
        BAQDAgEGMB0GA1UdDgQWBBQSkk51wuJXCm/BScXHl6NO8jVQXjAfBgNVHSMEGDAW
        gBRoZWAnNufwQzkPIkrCiVu7UIQm5jAQBgoqhkiG92NkBgIBBAIFADAKBggqhkjO
        PQQDAgNJADBGAiEA9/tKg1AVMnwx92Nvs4DU1KVOln4SBSceNSHuOlcZhl0CIQC2
        yBozIdX2tivYTyMUgn/0yZmuD/TQsvHHntZ+EVR3jQ==
        -----END CERTIFICATE-----
        """
    static let leafCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBxDCCAWqgAwIBAgIBAzAKBggqhkjOPQQDAjA0MTIwMAYDVQQDDClpYXAtYXVk
        aXQgU2FtcGxlIEludGVybWVkaWF0ZSAtIFRFU1QgT05MWTAeFw0yNTAxMDEwMDAw
        MDBaFw00NTEyMzEyMzU5NTlaMC8xLTArBgNVBAMMJGlhcC1hdWRpdCBTYW1wbGUg
        U2lnbmluZyAtIFRFU1QgT05MWTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABHKI
        eXgEZ/oofHuspIH0hcMZQ3TInyMAJ7E2bwfeXq93urYTWeiNg9a6G/FlKZbNg9vm
        e+PzSPIMPxR5PKN5KOmjcjBwMAwGA1UdEwEB/wQCMAAwDgYDVR0PAQH/BAQDAgeA
        MB8GA1UdIwQYMBaAFBKSTnXC4lcKb8FJxceXo07yNVBeMBAGCiqGSIb3Y2QGCwEE
        AgUAMB0GA1UdDgQWBBTVrIEoCymeknCYJKanF4dwRPTPbTAKBggqhkjOPQQDAgNI
        ADBFAiBoGiWkviSU8nNnyyki79J8SSaxOMxY4hMM0tKpQH9kxgIhAM52CViFpQhJ
        4OfQ0HcHRw++778tqBlO3GqzzcG1K/m8
        -----END CERTIFICATE-----
        """
    static let rootKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgQ413r7dDYp9r8hOu
        Aw220ZRO4skpnSHrYW+n90vXYd2hRANCAAQI/mO4X1SBadk2aueZmK4zNM9A90f8
        HBt4wZp89EQtIW7FzGsaEoxiV5PPM9/0exnOtImdTbJW1vDXb9xFN4Tb
        -----END PRIVATE KEY-----
        """
    static let intermediateKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgfjUYmqKRBSLGoJx4
        lGQ9Ma3rqsXM0WuIWbIpRrjaxuChRANCAATwMGlJUtmN3kLzdGltSgGLQa0L1xFp
        0SbDVtAZy+FcGDoqZEGMKPYT36BlMn2tPLTjRE4YzTxCBp9nHys24RTa
        -----END PRIVATE KEY-----
        """
    static let leafKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg3ag/l7q2lVgnrQnT
        WkpTF6/66crDZq1Dm/6x99/IXuihRANCAARyiHl4BGf6KHx7rKSB9IXDGUN0yJ8j
        ACexNm8H3l6vd7q2E1nojYPWuhvxZSmWzYPb5nvj80jyDD8UeTyjeSjp
        -----END PRIVATE KEY-----
        """
}
