// OpenSSL 3's libcrypto (Debian: libssl-dev): EVP public keys and ECDSA signatures. Only the
// non-deprecated API is used, so OPENSSL_API_COMPAT marks everything deprecated as unavailable.
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/params.h>

// EVP_PKEY_PUBLIC_KEY is a macro of macros, which Swift does not import: the selection for
// EVP_PKEY_fromdata, as a constant.
static const int ccrypto_evp_pkey_public_key = EVP_PKEY_PUBLIC_KEY;
