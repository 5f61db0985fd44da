// OpenSSL's libcrypto (only the AES-128 block cipher is used) as Swift sees it.
#ifndef NEARCAST_CCRYPTO_SHIM_H
#define NEARCAST_CCRYPTO_SHIM_H

#include <openssl/evp.h>
#include <openssl/err.h>

#endif
