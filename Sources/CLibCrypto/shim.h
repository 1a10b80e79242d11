#include <openssl/evp.h>

/* SHA-256 of `length` bytes into `digest` (32 bytes): OpenSSL's libcrypto, already loaded by libpq
   and libcurl. Returns 1 on success. */
static inline int pulse_sha256(const void *bytes, size_t length, unsigned char digest[32]) {
    return EVP_Digest(bytes, length, digest, NULL, EVP_sha256(), NULL);
}
