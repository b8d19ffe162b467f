#!/usr/bin/env python3
"""Makes the sample's test-only certificate authority: Sources/IAPAuditSample/SampleCA.swift.

`iap-audit sample` signs its App Store Server API style transactions (ES256, x5c) with the leaf of a
chain root -> intermediate -> leaf (EC P-256; Apple's marker OIDs on the intermediate
1.2.840.113635.100.6.2.1 and the leaf 1.2.840.113635.100.6.11.1, so the chain passes the checks Apple's
own chains pass; valid 2025-01-01 to 2045-12-31) and writes the three certificates and the three keys
into the sample folder (test-ca/), the root named in config.json's jws_trust_anchors. The keys are
published on purpose: they sign test data only and must never be trusted for anything else.

Run it again only to replace the CA: it makes new keys, so every signature of the sample changes
(regenerate sample-data afterwards).
    python3 scripts/make-sample-ca.py
Needs python3 (standard library only) and openssl.
"""
import importlib.util
import os
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "Sources", "IAPAuditSample", "SampleCA.swift")

# The openssl configuration (extensions with Apple's marker OIDs) and runner of the test fixtures' signer.
_spec = importlib.util.spec_from_file_location(
    "make_signed_case", os.path.join(ROOT, "Tests", "IAPAuditTests", "Fixtures", "signing", "make-signed-case.py"))
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)
CONFIG, openssl = _fixtures.CONFIG, _fixtures.openssl

NAMES = {
    "root": "iap-audit Sample Root CA - TEST ONLY",
    "intermediate": "iap-audit Sample Intermediate - TEST ONLY",
    "leaf": "iap-audit Sample Signing - TEST ONLY",
}


def main():
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "openssl.cnf"), "w") as f:
            f.write(CONFIG)
        open(os.path.join(folder, "index.txt"), "w").close()
        with open(os.path.join(folder, "serial"), "w") as f:
            f.write("01\n")
        dates = ["-startdate", "20250101000000Z", "-enddate", "20451231235959Z"]
        for name, issuer, ext in [("root", None, "root_ext"), ("intermediate", "root", "intermediate_ext"), ("leaf", "intermediate", "leaf_ext")]:
            openssl(folder, "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", f"{name}.key")
            openssl(folder, "req", "-new", "-config", "openssl.cnf", "-key", f"{name}.key", "-subj",
                    f"/CN={NAMES[name]}", "-out", f"{name}.csr")
            signer = ["-selfsign", "-keyfile", "root.key"] if issuer is None else ["-cert", f"{issuer}.pem", "-keyfile", f"{issuer}.key"]
            openssl(folder, "ca", "-batch", "-config", "openssl.cnf", "-extfile", "openssl.cnf", "-extensions", ext, *dates, *signer,
                    "-in", f"{name}.csr", "-out", f"{name}.pem", "-notext")
        texts = {}
        for name in NAMES:
            texts[f"{name}Certificate"] = open(os.path.join(folder, f"{name}.pem")).read().strip()
            texts[f"{name}Key"] = open(os.path.join(folder, f"{name}.key")).read().strip()
    with open(OUT, "w") as f:
        f.write(swift_source(texts))


def swift_source(texts):
    """SampleCA.swift: each PEM as its label and its base64 on one line, which `pem` wraps again as openssl did."""
    lines = [
        "// Written by scripts/make-sample-ca.py: do not edit.",
        "",
        "/// The sample's certificate authority, TEST ONLY: root → intermediate → leaf (EC P-256, Apple's marker OIDs",
        "/// on the intermediate and the leaf, valid 2025-01-01 to 2045-12-31). The leaf signs the sample's JWS; the",
        "/// keys are published with the sample on purpose and must never be trusted for anything but test data.",
        "enum SampleCA {",
    ]
    for name in ["rootCertificate", "intermediateCertificate", "leafCertificate", "rootKey", "intermediateKey", "leafKey"]:
        pem = texts[name].splitlines()
        label = pem[0].removeprefix("-----BEGIN ").removesuffix("-----")
        assert pem[-1] == f"-----END {label}-----" and all(len(line) == 64 for line in pem[1:-2]), name
        lines.append(f"    static let {name} = pem(\"{label}\", \"{''.join(pem[1:-1])}\")")
    lines += [
        "",
        "    /// PEM text as openssl writes it, without the last newline: `-----BEGIN label-----`, `base64` in lines of 64",
        "    /// characters, `-----END label-----`.",
        "    private static func pem(_ label: String, _ base64: String) -> String {",
        "        var lines = [\"-----BEGIN \\(label)-----\"]",
        "        var rest = Substring(base64)",
        "        while !rest.isEmpty {",
        "            lines.append(String(rest.prefix(64)))",
        "            rest = rest.dropFirst(64)",
        "        }",
        "        return (lines + [\"-----END \\(label)-----\"]).joined(separator: \"\\n\")",
        "    }",
        "}",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
