#!/usr/bin/env python3
"""Makes the signed inputs of Fixtures/cases/refund-reversed-in-notification-history and
Fixtures/cases/order-id-lookup-lost-order.

A throw-away chain (root -> intermediate -> leaf, EC P-256, Apple's marker OIDs on the intermediate
1.2.840.113635.100.6.2.1 and the leaf 1.2.840.113635.100.6.11.1, valid 2020-01-01 to 2049-12-31) is
made with the openssl command line in a scratch folder; its root goes to throwaway-root.pem beside
this script (the case's config.json names it in jws_trust_anchors) and its keys are thrown away.
Then the first case's Get Notification History page and the second's wrapped Look Up Order ID answer
are written with every JWS signed by the leaf.

Run it again only to change a case: it makes a new chain, so it rewrites the root and both inputs.
    python3 Tests/IAPAuditTests/Fixtures/signing/make-signed-case.py
Needs python3 (standard library only) and openssl.
"""
import base64
import json
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASE = os.path.join(HERE, "..", "cases", "refund-reversed-in-notification-history")
ORDER_CASE = os.path.join(HERE, "..", "cases", "order-id-lookup-lost-order")

CONFIG = """
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
default_ca = throwaway
[throwaway]
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = any
copy_extensions = none
unique_subject = no
[any]
commonName = supplied
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
[leaf_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
authorityKeyIdentifier = keyid
1.2.840.113635.100.6.11.1 = ASN1:NULL
"""


def openssl(folder, *args):
    subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)


def make_chain(folder):
    with open(os.path.join(folder, "openssl.cnf"), "w") as f:
        f.write(CONFIG)
    open(os.path.join(folder, "index.txt"), "w").close()
    with open(os.path.join(folder, "serial"), "w") as f:
        f.write("01\n")
    dates = ["-startdate", "20200101000000Z", "-enddate", "20491231235959Z"]
    for name, issuer, ext in [("root", None, "root_ext"), ("intermediate", "root", "intermediate_ext"), ("leaf", "intermediate", "leaf_ext")]:
        openssl(folder, "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", f"{name}.key")
        openssl(folder, "req", "-new", "-config", "openssl.cnf", "-key", f"{name}.key", "-subj", f"/CN=Throwaway {name} (iap-audit test)", "-out", f"{name}.csr")
        signer = ["-selfsign", "-keyfile", "root.key"] if issuer is None else ["-cert", f"{issuer}.pem", "-keyfile", f"{issuer}.key"]
        openssl(folder, "ca", "-batch", "-config", "openssl.cnf", "-extfile", "openssl.cnf", "-extensions", ext, *dates, *signer,
                "-in", f"{name}.csr", "-out", f"{name}.pem", "-notext")
        openssl(folder, "x509", "-in", f"{name}.pem", "-outform", "DER", "-out", f"{name}.der")
    return [base64.b64encode(open(os.path.join(folder, f"{n}.der"), "rb").read()).decode() for n in ["leaf", "intermediate", "root"]]


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def raw_signature(der):
    """DER ECDSA-Sig-Value -> r || s, 32 bytes each."""
    i = 2
    out = b""
    for _ in range(2):
        length = der[i + 1]
        integer = der[i + 2:i + 2 + length].lstrip(b"\0")
        out += integer.rjust(32, b"\0")
        i += 2 + length
    return out


def sign(folder, x5c, payload):
    header = b64url(json.dumps({"alg": "ES256", "x5c": x5c}, separators=(",", ":")).encode())
    body = b64url(json.dumps(payload, separators=(",", ":")).encode())
    with open(os.path.join(folder, "input"), "wb") as f:
        f.write(f"{header}.{body}".encode())
    openssl(folder, "dgst", "-sha256", "-sign", "leaf.key", "-out", "signature.der", "input")
    return f"{header}.{body}.{b64url(raw_signature(open(os.path.join(folder, 'signature.der'), 'rb').read()))}"


def transaction(tid, signed, revoked=None, product="com.example.gems60", purchased=1790845200000, price=990):
    t = {"transactionId": tid, "originalTransactionId": tid, "bundleId": "com.example.app", "productId": product,
         "purchaseDate": purchased, "originalPurchaseDate": purchased, "quantity": 1, "type": "Consumable",
         "inAppOwnershipType": "PURCHASED", "signedDate": signed, "environment": "Production", "transactionReason": "PURCHASE",
         "storefront": "USA", "price": price, "currency": "USD"}
    if revoked:
        t.update({"revocationDate": revoked, "revocationReason": 0, "revocationType": "REFUND_FULL"})
    return t


def notification(folder, x5c, kind, uuid, signed, tx):
    payload = {"notificationType": kind, "notificationUUID": uuid, "version": "2.0", "signedDate": signed,
               "data": {"appAppleId": 1234567890, "bundleId": "com.example.app", "bundleVersion": "1", "environment": "Production",
                        "signedTransactionInfo": sign(folder, x5c, tx)}}
    return {"sendAttempts": [{"attemptDate": signed + 1000, "sendAttemptResult": "SUCCESS"}], "signedPayload": sign(folder, x5c, payload)}


def main():
    with tempfile.TemporaryDirectory() as folder:
        x5c = make_chain(folder)
        with open(os.path.join(HERE, "throwaway-root.pem"), "w") as f:
            f.write(open(os.path.join(folder, "root.pem")).read())
        # 2026-10-03: both purchases refunded; 2026-10-06: Apple reverses the refund of ...001 only.
        history = [
            notification(folder, x5c, "REFUND", "0b5e7c1e-1111-4cdb-936d-000000000001", 1791021600000,
                         transaction("2000000400000001", 1791021600000, revoked=1791021000000)),
            notification(folder, x5c, "REFUND", "0b5e7c1e-1111-4cdb-936d-000000000002", 1791021700000,
                         transaction("2000000400000002", 1791021700000, revoked=1791021100000)),
            notification(folder, x5c, "REFUND_REVERSED", "0b5e7c1e-1111-4cdb-936d-000000000003", 1791280800000,
                         transaction("2000000400000001", 1791280800000)),
        ]
        page = {"notificationHistory": history, "hasMore": False, "paginationToken": "57715481-805a-4283-8499-1c19b5d6b20a"}
        with open(os.path.join(CASE, "notification-history.json"), "w") as f:
            json.dump(page, f, indent=2)
            f.write("\n")
        # The support ticket: order MK5TTTVWJH of 2026-10-12 holds the gems60 credited at 09:00:00 and a
        # gems300 bought at 09:03:00 that the app never reported; support asked Apple on 2026-10-14.
        lookup = {"order_id": "MK5TTTVWJH", "received_at": "2026-10-14T10:00:00Z", "response": {"status": 0, "signedTransactions": [
            sign(folder, x5c, transaction("2000000400000101", 1791972000000, purchased=1791795600000)),
            sign(folder, x5c, transaction("2000000400000102", 1791972000000, product="com.example.gems300", purchased=1791795780000,
                                          price=4990)),
        ]}}
        with open(os.path.join(ORDER_CASE, "order-lookup.jsonl"), "w") as f:
            f.write(json.dumps(lookup) + "\n")


if __name__ == "__main__":
    main()
