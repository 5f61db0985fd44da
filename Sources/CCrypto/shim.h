// OpenSSL's libcrypto as Swift sees it: the AES-128 block cipher (EIDs), PBKDF2-HMAC-SHA256 and
// a constant-time compare (the technician PIN), and the Eddystone-EID registration's key
// agreement (X25519 + HKDF-SHA256).
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
#include <openssl/kdf.h>
#include <string.h>

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

/// Eddystone-EID registration, the beacon's side (eddystone-eid/eid-computation.md): makes a fresh
/// X25519 key pair, agrees a secret with the service's public key, and derives the identity key as
/// the first 16 bytes of HKDF-SHA256(secret, salt = service public key || beacon public key, no
/// info). Writes the beacon's public key (to send) and the identity key (to keep); the private key
/// is wiped. Returns 0, -1 when libcrypto fails, -2 for a low-order service key (an all-zero
/// secret, RFC 7748 section 6.1).
///
/// EVP is used here and only here: its first use costs megabytes of resident memory (see above),
/// so the daemon runs this in a short-lived child process (`nearcast hub-identity`).
static inline int nearcast_eddystone_identity(const unsigned char service_public[32],
                                              unsigned char beacon_public[32], unsigned char identity_key[16]) {
    int result = -1;
    EVP_PKEY *beacon = NULL, *service = NULL;
    EVP_PKEY_CTX *keygen = NULL, *agreement = NULL, *hkdf = NULL;
    unsigned char secret[32], okm[32], salt[64];
    size_t length = 32;
    unsigned char any = 0;
    keygen = EVP_PKEY_CTX_new_id(EVP_PKEY_X25519, NULL);
    if (!keygen || EVP_PKEY_keygen_init(keygen) <= 0 || EVP_PKEY_keygen(keygen, &beacon) <= 0) goto done;
    if (EVP_PKEY_get_raw_public_key(beacon, beacon_public, &length) <= 0 || length != 32) goto done;
    service = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, service_public, 32);
    if (!service) goto done;
    agreement = EVP_PKEY_CTX_new(beacon, NULL);
    length = 32;
    if (!agreement || EVP_PKEY_derive_init(agreement) <= 0) goto done;
    // OpenSSL itself refuses a low-order peer key (when the peer is set, or as an all-zero result).
    if (EVP_PKEY_derive_set_peer(agreement, service) <= 0 ||
        EVP_PKEY_derive(agreement, secret, &length) <= 0 || length != 32) { result = -2; goto done; }
    for (int i = 0; i < 32; i++) any |= secret[i];
    if (!any) { result = -2; goto done; }
    memcpy(salt, service_public, 32);
    memcpy(salt + 32, beacon_public, 32);
    hkdf = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
    length = 32;
    if (!hkdf || EVP_PKEY_derive_init(hkdf) <= 0 || EVP_PKEY_CTX_set_hkdf_md(hkdf, EVP_sha256()) <= 0 ||
        EVP_PKEY_CTX_set1_hkdf_salt(hkdf, salt, 64) <= 0 || EVP_PKEY_CTX_set1_hkdf_key(hkdf, secret, 32) <= 0 ||
        EVP_PKEY_derive(hkdf, okm, &length) <= 0 || length != 32) goto done;
    memcpy(identity_key, okm, 16);
    result = 0;
done:
    OPENSSL_cleanse(secret, sizeof secret);
    OPENSSL_cleanse(okm, sizeof okm);
    EVP_PKEY_CTX_free(hkdf);
    EVP_PKEY_CTX_free(agreement);
    EVP_PKEY_CTX_free(keygen);
    EVP_PKEY_free(service);
    EVP_PKEY_free(beacon);   // frees (and clears) the private key
    return result;
}

#endif
