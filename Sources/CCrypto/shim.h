// OpenSSL's libcrypto as Swift sees it: the AES-128 block cipher (EIDs), PBKDF2-HMAC-SHA256 and
// a constant-time compare (the technician PIN).
#ifndef NEARCAST_CCRYPTO_SHIM_H
#define NEARCAST_CCRYPTO_SHIM_H

#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/crypto.h>

#endif
