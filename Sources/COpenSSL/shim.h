#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/bn.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>

// Function-like macros that Swift cannot import.
static inline void hap2mqtt_openssl_free(void *p) { OPENSSL_free(p); }
static inline int hap2mqtt_bn_num_bytes(const BIGNUM *bn) { return BN_num_bytes(bn); }

// HKDF-SHA512 with a KDF fetched once by the caller: the parameters' names must outlive the call, so they
// are C string literals here rather than Swift strings. An empty salt or info is left out (RFC 5869's
// defaults). Returns 1 on success.
static inline int hap2mqtt_hkdf_sha512(
    EVP_KDF *kdf, const unsigned char *key, size_t key_length, const unsigned char *salt, size_t salt_length,
    const unsigned char *info, size_t info_length, unsigned char *out, size_t out_length) {
    EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(kdf);
    if (ctx == NULL) return 0;
    OSSL_PARAM params[5];
    OSSL_PARAM *p = params;
    *p++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA512", 0);
    *p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)key, key_length);
    if (salt_length > 0) *p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_length);
    if (info_length > 0) *p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_length);
    *p = OSSL_PARAM_construct_end();
    int status = EVP_KDF_derive(ctx, out, out_length, params);
    EVP_KDF_CTX_free(ctx);
    return status;
}
#endif
