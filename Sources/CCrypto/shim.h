// OpenSSL's libcrypto as Swift sees it: the AES-128 block cipher (EIDs), PBKDF2-HMAC-SHA256 and
// a constant-time compare (the technician PIN).
#ifndef NEARCAST_CCRYPTO_SHIM_H
#define NEARCAST_CCRYPTO_SHIM_H

// The EID maths needs single AES-128 block encryptions, nothing else. OpenSSL 3 marks the
// low-level AES_* calls deprecated in favour of EVP, but EVP's first use starts the provider
// machinery (config, provider tables, error strings): 3.3 MB of resident memory measured on
// this daemon, a quarter of its budget. AES_encrypt runs the same assembly cores (AES-NI,
// ARMv8 Crypto Extensions) without it. The deprecation is silenced here only.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/aes.h>
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/crypto.h>

/// Encrypts one 16-byte block under a 16-byte AES-128 key (ECB, no padding).
/// Returns 0 on success, -1 when libcrypto rejects the key.
static inline int nearcast_aes128_encrypt_block(const unsigned char key[16], const unsigned char in[16],
                                                unsigned char out[16]) {
    AES_KEY schedule;
    if (AES_set_encrypt_key(key, 128, &schedule) != 0) return -1;
    AES_encrypt(in, out, &schedule);
    OPENSSL_cleanse(&schedule, sizeof schedule);  // the key schedule is key material
    return 0;
}

#endif
