#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

/* SHA-256 of `length` bytes into `digest` (32 bytes): OpenSSL's libcrypto, already loaded by libpq
   and libcurl. Returns 1 on success. */
static inline int pulse_sha256(const void *bytes, size_t length, unsigned char digest[32]) {
    return EVP_Digest(bytes, length, digest, NULL, EVP_sha256(), NULL);
}

/* HMAC computed piece by piece, for WebSub's X-Hub-Signature over a body that arrives in chunks.
   `algorithm` 1 = SHA-1, 256, 384, 512 = SHA-2. begin returns NULL for another algorithm or on
   failure; finish writes the MAC (at most 64 bytes), frees the context and returns the MAC's
   length (0 on failure); a context not finished is freed with pulse_hmac_discard. */
static inline EVP_MAC_CTX *pulse_hmac_begin(int algorithm, const void *key, size_t key_length) {
    const char *digest = algorithm == 1 ? "SHA1" : algorithm == 256 ? "SHA256"
                       : algorithm == 384 ? "SHA384" : algorithm == 512 ? "SHA512" : NULL;
    if (digest == NULL) return NULL;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (context == NULL) return NULL;
    OSSL_PARAM params[2] = { OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)digest, 0),
                             OSSL_PARAM_construct_end() };
    if (!EVP_MAC_init(context, key, key_length, params)) { EVP_MAC_CTX_free(context); return NULL; }
    return context;
}

static inline int pulse_hmac_update(EVP_MAC_CTX *context, const void *bytes, size_t length) {
    return EVP_MAC_update(context, bytes, length);
}

static inline size_t pulse_hmac_finish(EVP_MAC_CTX *context, unsigned char mac[64]) {
    size_t length = 0;
    int ok = EVP_MAC_final(context, mac, &length, 64);
    EVP_MAC_CTX_free(context);
    return ok ? length : 0;
}

static inline void pulse_hmac_discard(EVP_MAC_CTX *context) { EVP_MAC_CTX_free(context); }

/* Constant-time comparison (0 when equal): a signature check must not leak how much matched. */
static inline int pulse_memcmp_const(const void *a, const void *b, size_t length) {
    return CRYPTO_memcmp(a, b, length);
}
