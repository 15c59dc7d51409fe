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

#endif
