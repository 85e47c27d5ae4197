// OpenSSL 3's libcrypto (Debian: libssl-dev): EVP public keys and ECDSA signatures. Only the
// non-deprecated API is used, so OPENSSL_API_COMPAT marks everything deprecated as unavailable.
// The header is used for its types and constants only: nothing is linked. NFCCrypto's
// LibCryptoCalls.swift loads libcrypto.so.3 with dlopen on the first cryptographic call and
// resolves each function below from that handle, typed by the pointer types declared here.
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/params.h>

// EVP_PKEY_PUBLIC_KEY is a macro of macros, which Swift does not import: the selection for
// EVP_PKEY_fromdata, as a constant.
static const int ccrypto_evp_pkey_public_key = EVP_PKEY_PUBLIC_KEY;

// A pointer to each function LibCryptoCalls.swift resolves, typed from the header's own
// declaration (so a resolved symbol is called with exactly its C signature): ccrypto_fn_NAME.
#define CCRYPTO_FUNCTION(name) typedef __typeof__(name) *ccrypto_fn_##name;
CCRYPTO_FUNCTION(ERR_get_error)
CCRYPTO_FUNCTION(ERR_clear_error)
CCRYPTO_FUNCTION(ERR_error_string_n)
CCRYPTO_FUNCTION(OpenSSL_version)
CCRYPTO_FUNCTION(CRYPTO_free)
CCRYPTO_FUNCTION(EVP_PKEY_CTX_new_from_name)
CCRYPTO_FUNCTION(EVP_PKEY_CTX_new_from_pkey)
CCRYPTO_FUNCTION(EVP_PKEY_CTX_free)
CCRYPTO_FUNCTION(EVP_PKEY_fromdata_init)
CCRYPTO_FUNCTION(EVP_PKEY_fromdata)
CCRYPTO_FUNCTION(EVP_PKEY_free)
CCRYPTO_FUNCTION(EVP_PKEY_verify_init)
CCRYPTO_FUNCTION(EVP_PKEY_verify)
CCRYPTO_FUNCTION(OSSL_PARAM_construct_utf8_string)
CCRYPTO_FUNCTION(OSSL_PARAM_construct_octet_string)
CCRYPTO_FUNCTION(OSSL_PARAM_construct_end)
CCRYPTO_FUNCTION(ECDSA_SIG_new)
CCRYPTO_FUNCTION(ECDSA_SIG_set0)
CCRYPTO_FUNCTION(ECDSA_SIG_free)
CCRYPTO_FUNCTION(ECDSA_SIG_get0_r)
CCRYPTO_FUNCTION(ECDSA_SIG_get0_s)
CCRYPTO_FUNCTION(d2i_ECDSA_SIG)
CCRYPTO_FUNCTION(i2d_ECDSA_SIG)
CCRYPTO_FUNCTION(BN_bin2bn)
CCRYPTO_FUNCTION(BN_bn2binpad)
CCRYPTO_FUNCTION(BN_free)
CCRYPTO_FUNCTION(EVP_CIPHER_fetch)
CCRYPTO_FUNCTION(EVP_CIPHER_free)
CCRYPTO_FUNCTION(EVP_CIPHER_CTX_new)
CCRYPTO_FUNCTION(EVP_CIPHER_CTX_free)
CCRYPTO_FUNCTION(EVP_CipherInit_ex2)
CCRYPTO_FUNCTION(EVP_CIPHER_CTX_set_padding)
CCRYPTO_FUNCTION(EVP_CipherUpdate)
CCRYPTO_FUNCTION(EVP_CipherFinal_ex)
CCRYPTO_FUNCTION(EVP_MAC_fetch)
CCRYPTO_FUNCTION(EVP_MAC_free)
CCRYPTO_FUNCTION(EVP_MAC_CTX_new)
CCRYPTO_FUNCTION(EVP_MAC_CTX_free)
CCRYPTO_FUNCTION(EVP_MAC_init)
CCRYPTO_FUNCTION(EVP_MAC_update)
CCRYPTO_FUNCTION(EVP_MAC_final)
CCRYPTO_FUNCTION(EVP_Q_digest)
CCRYPTO_FUNCTION(EVP_Q_mac)
#undef CCRYPTO_FUNCTION
