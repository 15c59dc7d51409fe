#ifndef TOKENCALL_CCRYPTO_SHIM_H
#define TOKENCALL_CCRYPTO_SHIM_H
/* SHA256_Init and friends are deprecated in OpenSSL 3 but stay the fastest way to a
   one-shot HMAC: HMAC() and EVP_MAC fetch the algorithm from a provider on every call. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <time.h>

/* HMAC-SHA256 (RFC 2104) of msg under key, into out[32]. */
static inline void tc_hmac_sha256(const uint8_t *key, size_t key_len,
                                  const uint8_t *msg, size_t msg_len,
                                  uint8_t *out) {
    uint8_t block[64] = {0};
    if (key_len > sizeof block) {
        SHA256(key, key_len, block);
    } else if (key_len > 0) {
        memcpy(block, key, key_len);
    }
    uint8_t pad[64];
    uint8_t inner[32];
    SHA256_CTX ctx;
    for (int i = 0; i < 64; i++) pad[i] = block[i] ^ 0x36;
    SHA256_Init(&ctx);
    SHA256_Update(&ctx, pad, sizeof pad);
    SHA256_Update(&ctx, msg, msg_len);
    SHA256_Final(inner, &ctx);
    for (int i = 0; i < 64; i++) pad[i] = block[i] ^ 0x5c;
    SHA256_Init(&ctx);
    SHA256_Update(&ctx, pad, sizeof pad);
    SHA256_Update(&ctx, inner, sizeof inner);
    SHA256_Final(out, &ctx);
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(pad, sizeof pad);
}

/* 1 when the n bytes at a and b are equal, in time independent of where they differ. */
static inline int tc_equal_constant_time(const uint8_t *a, const uint8_t *b, size_t n) {
    return CRYPTO_memcmp(a, b, n) == 0;
}

/* ---- TLS: what Swift cannot call (macros) and the few steps easier said in C. ---- */

/* The first certificate the chain check refused, and why; kept in the SSL's app data by tc_tls_verify. */
typedef struct {
    int error;
    X509 *cert;
} tc_tls_refusal;

static inline int tc_tls_verify_callback(int ok, X509_STORE_CTX *store) {
    if (!ok) {
        SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
        tc_tls_refusal *refusal = ssl ? (tc_tls_refusal *)SSL_get_app_data(ssl) : NULL;
        X509 *cert = X509_STORE_CTX_get_current_cert(store);
        if (refusal && refusal->cert == NULL && cert && X509_up_ref(cert)) {
            refusal->cert = cert;
            refusal->error = X509_STORE_CTX_get_error(store);
        }
    }
    return ok;
}

/* Verifies the peer's chain, recording the first refusal in `refusal` (owned by the caller). */
static inline void tc_tls_verify(SSL *ssl, tc_tls_refusal *refusal) {
    SSL_set_app_data(ssl, refusal);
    SSL_set_verify(ssl, SSL_VERIFY_PEER, tc_tls_verify_callback);
}

static inline int tc_tls_min_version_1_2(SSL_CTX *ctx) { return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION); }
static inline int tc_tls_max_version(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_max_proto_version(ctx, version); }
static inline int tc_tls_server_name(SSL *ssl, const char *name) { return (int)SSL_set_tlsext_host_name(ssl, name); }
static inline long tc_bio_pending(BIO *bio) { return (long)BIO_ctrl_pending(bio); }
/* Empties the thread's error queue, as SSL_read, SSL_write and SSL_do_handshake need before SSL_get_error can be
   trusted. ERR_clear_error wipes all of the queue's slots on every call; an empty queue needs nothing. */
static inline void tc_err_clear(void) { if (ERR_peek_error() != 0) ERR_clear_error(); }
static inline int tc_err_reason(unsigned long error) { return ERR_GET_REASON(error); }
static inline int tc_err_is_ssl(unsigned long error) { return ERR_GET_LIB(error) == ERR_LIB_SSL; }

/* The certificate's end of validity as "YYYY-MM-DD HH:MM:SS UTC" into out. */
static inline void tc_x509_not_after(const X509 *cert, char *out, size_t length) {
    struct tm when;
    out[0] = 0;
    if (ASN1_TIME_to_tm(X509_get0_notAfter(cert), &when)) strftime(out, length, "%Y-%m-%d %H:%M:%S UTC", &when);
}

/* The names the certificate is for (its DNS and IP subject alternative names), comma-separated, into out, as many
   whole names as fit; its subject's common name when it has none. */
static inline void tc_x509_names(const X509 *cert, char *out, size_t length) {
    size_t used = 0;
    out[0] = 0;
    GENERAL_NAMES *names = X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
    for (int i = 0; names && i < sk_GENERAL_NAME_num(names); i++) {
        const GENERAL_NAME *name = sk_GENERAL_NAME_value(names, i);
        char text[256] = {0};
        if (name->type == GEN_DNS) {
            if (ASN1_STRING_length(name->d.dNSName) >= (int)sizeof text) continue; /* longer than any DNS name */
            snprintf(text, sizeof text, "%.*s", ASN1_STRING_length(name->d.dNSName), (const char *)ASN1_STRING_get0_data(name->d.dNSName));
        } else if (name->type == GEN_IPADD) {
            const unsigned char *ip = ASN1_STRING_get0_data(name->d.iPAddress);
            int bytes = ASN1_STRING_length(name->d.iPAddress);
            if (bytes == 4) {
                snprintf(text, sizeof text, "%u.%u.%u.%u", ip[0], ip[1], ip[2], ip[3]);
            } else if (bytes == 16) {
                /* Eight groups in hex, uncompressed: inet_ntop would bring the socket headers into this module,
                   whose headers every importer sees. */
                for (int group = 0, at = 0; group < 8; group++) {
                    at += snprintf(text + at, sizeof text - (size_t)at, "%s%x", group ? ":" : "",
                                   (unsigned)(ip[2 * group] << 8 | ip[2 * group + 1]));
                }
            } else {
                continue;
            }
        } else {
            continue;
        }
        int wrote = snprintf(out + used, length - used, "%s%s", used ? ", " : "", text);
        if (wrote < 0 || (size_t)wrote >= length - used) {
            out[used] = 0; /* snprintf wrote what fitted: a name cut short would be another name */
            break;
        }
        used += (size_t)wrote;
    }
    if (names) GENERAL_NAMES_free(names);
    if (used == 0) X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, out, (int)length);
}

/* The certificate's issuer, or subject, in OpenSSL's one-line form, into out. */
static inline void tc_x509_issuer(const X509 *cert, char *out, int length) { X509_NAME_oneline(X509_get_issuer_name(cert), out, length); }
static inline void tc_x509_subject(const X509 *cert, char *out, int length) { X509_NAME_oneline(X509_get_subject_name(cert), out, length); }

#endif
