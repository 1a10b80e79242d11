#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

/* SHA-256 of `length` bytes into `digest` (32 bytes): OpenSSL's libcrypto, already loaded by libpq
   and libcurl. Returns 1 on success. */
static inline int pulse_sha256(const void *bytes, size_t length, unsigned char digest[32]) {
    return EVP_Digest(bytes, length, digest, NULL, EVP_sha256(), NULL);
}

/* HMAC of `length` bytes with `key` into `mac` (at least 64 bytes), for WebSub's X-Hub-Signature.
   `algorithm` 1 = SHA-1, 256, 384, 512 = SHA-2. Returns the MAC's length, 0 on failure. */
static inline unsigned int pulse_hmac(int algorithm, const void *key, int key_length, const unsigned char *bytes,
                                      size_t length, unsigned char mac[64]) {
    const EVP_MD *md = algorithm == 1 ? EVP_sha1() : algorithm == 256 ? EVP_sha256()
                     : algorithm == 384 ? EVP_sha384() : algorithm == 512 ? EVP_sha512() : NULL;
    unsigned int out = 0;
    if (md == NULL || HMAC(md, key, key_length, bytes, length, mac, &out) == NULL) return 0;
    return out;
}

/* Constant-time comparison (0 when equal): a signature check must not leak how much matched. */
static inline int pulse_memcmp_const(const void *a, const void *b, size_t length) {
    return CRYPTO_memcmp(a, b, length);
}
