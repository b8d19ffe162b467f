#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/hmac.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

// Function forms of OpenSSL macros that Swift cannot import (used by Sources/IAPAudit/Crypto/).

static inline STACK_OF(X509) *iap_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int iap_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate) { return sk_X509_push(stack, certificate); }
static inline int iap_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *iap_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
/// Frees the stack only; the certificates stay owned by whoever owned them.
static inline void iap_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
/// Frees the stack and drops one reference to each certificate (for X509_STORE_CTX_get1_chain).
static inline void iap_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }

static inline int iap_PKCS7_type_is_signed(const PKCS7 *p7) { return PKCS7_type_is_signed(p7); }
/// 1 when the signed-data has no embedded content (a detached signature).
static inline long iap_PKCS7_get_detached(PKCS7 *p7) { return PKCS7_get_detached(p7); }
/// The certificates embedded in a signed-data PKCS#7 (owned by it); NULL for other types.
static inline STACK_OF(X509) *iap_PKCS7_certificates(const PKCS7 *p7) {
    return PKCS7_type_is_signed(p7) && p7->d.sign != NULL ? p7->d.sign->cert : NULL;
}
