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

// Function-like macros that Swift cannot import.
static inline void hap2mqtt_openssl_free(void *p) { OPENSSL_free(p); }
static inline int hap2mqtt_bn_num_bytes(const BIGNUM *bn) { return BN_num_bytes(bn); }
#endif
