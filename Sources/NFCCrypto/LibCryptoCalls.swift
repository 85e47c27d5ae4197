// Every libcrypto call the NFCCrypto target makes, each wrapped exactly once (after
// swift-system's `Internals/Syscalls.swift`). Nothing above this file sees an OpenSSL type or a raw
// `Int32` result: wrappers hand back Swift values, owned handles or typed errors. Only OpenSSL 3's
// non-deprecated API is used (the shim sets OPENSSL_API_COMPAT to 3.0).
internal import CCrypto

/// An `EVP_PKEY *` this module owns; freed once, by ``libcryptoPKeyFree(_:)``.
struct PKeyHandle {
    fileprivate let pointer: OpaquePointer
}

/// An `EVP_PKEY_CTX *` this module owns; freed once, by ``libcryptoPKeyContextFree(_:)``.
struct PKeyContextHandle {
    fileprivate let pointer: OpaquePointer
}

/// An `ECDSA_SIG *` this module owns; freed once, by ``libcryptoECDSASignatureFree(_:)``.
struct ECDSASignatureHandle {
    fileprivate let pointer: OpaquePointer
}

// MARK: - errors

/// `ERR_get_error` and `ERR_error_string_n`: libcrypto's oldest queued error as text, the queue
/// emptied (`ERR_clear_error`) so that the next failure reports its own; nil when none is queued.
func libcryptoTakeErrors() -> String? {
    let first = ERR_get_error()
    ERR_clear_error()
    guard first != 0 else { return nil }
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(first, &buffer, buffer.count)
    let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: text, as: UTF8.self)
}

/// `OpenSSL_version(OPENSSL_VERSION)`: the library's version text, e.g. `OpenSSL 3.0.19 27 Jan 2026`.
func libcryptoVersion() -> String {
    OpenSSL_version(OPENSSL_VERSION).map { String(cString: $0) } ?? "unknown"
}

// MARK: - public keys

/// `EVP_PKEY_CTX_new_from_name(NULL, name, NULL)`: a context for making keys of the algorithm
/// `name` (`EC`) from data; nil when no provider offers it.
func libcryptoPKeyContextNew(algorithm name: String) -> PKeyContextHandle? {
    EVP_PKEY_CTX_new_from_name(nil, name, nil).map(PKeyContextHandle.init(pointer:))
}

/// `EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL)`: a context for operations (verification) with
/// `key`; nil on allocation failure.
func libcryptoPKeyContextNew(key: PKeyHandle) -> PKeyContextHandle? {
    EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil).map(PKeyContextHandle.init(pointer:))
}

/// `EVP_PKEY_CTX_free`.
func libcryptoPKeyContextFree(_ context: PKeyContextHandle) {
    EVP_PKEY_CTX_free(context.pointer)
}

/// `EVP_PKEY_fromdata_init`: prepares `context` to make a key from parameters; false on failure.
func libcryptoPKeyFromDataInit(_ context: PKeyContextHandle) -> Bool {
    EVP_PKEY_fromdata_init(context.pointer) == 1
}

/// `EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params)` with the parameters
/// `group` = `curve` (`OSSL_PKEY_PARAM_GROUP_NAME`) and `pub` = `point`
/// (`OSSL_PKEY_PARAM_PUB_KEY`, SEC 1 encoding): the EC public key, or nil when the curve is
/// unknown or the point is not on it (libcrypto decodes and checks the point).
func libcryptoPKeyFromPublicPoint(_ context: PKeyContextHandle, curve: String, point: [UInt8]) -> PKeyHandle? {
    var key: OpaquePointer?
    var curveName = Array(curve.utf8CString)
    var pointBytes = point
    // OSSL_PARAM keeps the pointers it is given: every string must outlive EVP_PKEY_fromdata.
    let result: Int32 = OSSL_PKEY_PARAM_GROUP_NAME.withCString { groupKey in
        OSSL_PKEY_PARAM_PUB_KEY.withCString { publicKey in
            curveName.withUnsafeMutableBufferPointer { name in
                pointBytes.withUnsafeMutableBytes { pointBuffer in
                    var parameters = [
                        OSSL_PARAM_construct_utf8_string(groupKey, name.baseAddress, 0),
                        OSSL_PARAM_construct_octet_string(publicKey, pointBuffer.baseAddress, pointBuffer.count),
                        OSSL_PARAM_construct_end(),
                    ]
                    return parameters.withUnsafeMutableBufferPointer { list in
                        EVP_PKEY_fromdata(context.pointer, &key, ccrypto_evp_pkey_public_key, list.baseAddress)
                    }
                }
            }
        }
    }
    guard result == 1, let key else { return nil }
    return PKeyHandle(pointer: key)
}

/// `EVP_PKEY_free`.
func libcryptoPKeyFree(_ key: PKeyHandle) {
    EVP_PKEY_free(key.pointer)
}

// MARK: - ECDSA

/// `EVP_PKEY_verify_init`: prepares `context` for verification; false on failure.
func libcryptoVerifyInit(_ context: PKeyContextHandle) -> Bool {
    EVP_PKEY_verify_init(context.pointer) == 1
}

/// The answer of `EVP_PKEY_verify`.
enum VerifyResult {
    /// 1: the signature is valid for the data.
    case valid
    /// 0: the signature is well formed and does not match.
    case invalid
    /// A negative value: libcrypto could not check (a malformed DER signature, an error).
    case failed
}

/// `EVP_PKEY_verify(ctx, sig, siglen, tbs, tbslen)`: checks the DER `ECDSA-Sig-Value`
/// `signature` over `data` taken as the digest itself (no hashing: no signature digest is set on
/// the context).
func libcryptoVerify(_ context: PKeyContextHandle, signature: [UInt8], data: [UInt8]) -> VerifyResult {
    let result = signature.withUnsafeBufferPointer { sig in
        data.withUnsafeBufferPointer { tbs in
            EVP_PKEY_verify(context.pointer, sig.baseAddress, sig.count, tbs.baseAddress, tbs.count)
        }
    }
    switch result {
    case 1: return .valid
    case 0: return .invalid
    default: return .failed
    }
}

/// `ECDSA_SIG_new`, `BN_bin2bn` twice and `ECDSA_SIG_set0`: a signature object holding the
/// big-endian integers `r` and `s` (ownership of both numbers passes to it); nil on allocation
/// failure.
func libcryptoECDSASignature(r: [UInt8], s: [UInt8]) -> ECDSASignatureHandle? {
    guard let signature = ECDSA_SIG_new() else { return nil }
    let rNumber = r.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
    let sNumber = s.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
    guard let rNumber, let sNumber, ECDSA_SIG_set0(signature, rNumber, sNumber) == 1 else {
        BN_free(rNumber)
        BN_free(sNumber)
        ECDSA_SIG_free(signature)
        return nil
    }
    return ECDSASignatureHandle(pointer: signature)
}

/// `d2i_ECDSA_SIG`: a DER `ECDSA-Sig-Value` decoded; nil when `der` is not one (or has bytes
/// after it).
func libcryptoECDSASignature(der: [UInt8]) -> ECDSASignatureHandle? {
    der.withUnsafeBufferPointer { buffer -> ECDSASignatureHandle? in
        guard let start = buffer.baseAddress else { return nil }
        var cursor: UnsafePointer<UInt8>? = start
        guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { return nil }
        guard let end = cursor, end - start == buffer.count else {
            ECDSA_SIG_free(signature)
            return nil
        }
        return ECDSASignatureHandle(pointer: signature)
    }
}

/// `ECDSA_SIG_get0_r`/`ECDSA_SIG_get0_s` and `BN_bn2binpad`: `r` and `s`, each big-endian in
/// `width` bytes; nil when one does not fit.
func libcryptoECDSASignatureComponents(_ signature: ECDSASignatureHandle, width: Int) -> (r: [UInt8], s: [UInt8])? {
    func padded(_ number: OpaquePointer?) -> [UInt8]? {
        guard let number else { return nil }
        var out = [UInt8](repeating: 0, count: width)
        let written = out.withUnsafeMutableBufferPointer { BN_bn2binpad(number, $0.baseAddress, Int32(width)) }
        return written == Int32(width) ? out : nil
    }
    guard let r = padded(ECDSA_SIG_get0_r(signature.pointer)), let s = padded(ECDSA_SIG_get0_s(signature.pointer)) else {
        return nil
    }
    return (r, s)
}

/// `i2d_ECDSA_SIG`: the DER `ECDSA-Sig-Value` encoding; nil on failure.
func libcryptoECDSASignatureDER(_ signature: ECDSASignatureHandle) -> [UInt8]? {
    var output: UnsafeMutablePointer<UInt8>?
    let length = i2d_ECDSA_SIG(signature.pointer, &output)
    guard length > 0, let output else { return nil }
    defer { CRYPTO_free(output, #fileID, #line) }
    return Array(UnsafeBufferPointer(start: output, count: Int(length)))
}

/// `ECDSA_SIG_free`.
func libcryptoECDSASignatureFree(_ signature: ECDSASignatureHandle) {
    ECDSA_SIG_free(signature.pointer)
}

// MARK: - symmetric ciphers

/// An `EVP_CIPHER *` fetched from a provider; freed once, by ``libcryptoCipherFree(_:)``.
struct CipherHandle {
    fileprivate let pointer: OpaquePointer
}

/// An `EVP_CIPHER_CTX *`; freed once, by ``libcryptoCipherContextFree(_:)``.
struct CipherContextHandle {
    fileprivate let pointer: OpaquePointer
}

/// `EVP_CIPHER_fetch(NULL, name, NULL)`: the cipher `name` (`AES-128-ECB`, `AES-128-CBC`); nil
/// when no provider offers it.
func libcryptoCipherFetch(_ name: String) -> CipherHandle? {
    EVP_CIPHER_fetch(nil, name, nil).map(CipherHandle.init(pointer:))
}

/// `EVP_CIPHER_free`.
func libcryptoCipherFree(_ cipher: CipherHandle) {
    EVP_CIPHER_free(cipher.pointer)
}

/// `EVP_CIPHER_CTX_new`: nil on allocation failure.
func libcryptoCipherContextNew() -> CipherContextHandle? {
    EVP_CIPHER_CTX_new().map(CipherContextHandle.init(pointer:))
}

/// `EVP_CIPHER_CTX_free`.
func libcryptoCipherContextFree(_ context: CipherContextHandle) {
    EVP_CIPHER_CTX_free(context.pointer)
}

/// `EVP_CipherInit_ex2(ctx, cipher, key, iv, enc, NULL)`: prepares to encrypt (`encrypt`) or
/// decrypt with `key` and `iv` (nil for ECB); false on failure.
func libcryptoCipherInit(_ context: CipherContextHandle, _ cipher: CipherHandle, key: [UInt8], iv: [UInt8]?, encrypt: Bool) -> Bool {
    key.withUnsafeBufferPointer { keyBuffer in
        if let iv {
            return iv.withUnsafeBufferPointer { ivBuffer in
                EVP_CipherInit_ex2(context.pointer, cipher.pointer, keyBuffer.baseAddress, ivBuffer.baseAddress, encrypt ? 1 : 0, nil) == 1
            }
        }
        return EVP_CipherInit_ex2(context.pointer, cipher.pointer, keyBuffer.baseAddress, nil, encrypt ? 1 : 0, nil) == 1
    }
}

/// `EVP_CIPHER_CTX_set_padding(ctx, 0)`: no padding (the data is whole blocks); false on failure.
func libcryptoCipherDisablePadding(_ context: CipherContextHandle) -> Bool {
    EVP_CIPHER_CTX_set_padding(context.pointer, 0) == 1
}

/// `EVP_CipherUpdate`: the output for `input` (as many bytes, whole blocks without padding);
/// nil on failure.
func libcryptoCipherUpdate(_ context: CipherContextHandle, _ input: [UInt8]) -> [UInt8]? {
    var output = [UInt8](repeating: 0, count: input.count + 16)
    var written: Int32 = 0
    let ok = output.withUnsafeMutableBufferPointer { out in
        input.withUnsafeBufferPointer { inp in
            EVP_CipherUpdate(context.pointer, out.baseAddress, &written, inp.baseAddress, Int32(inp.count)) == 1
        }
    }
    guard ok, written >= 0 else { return nil }
    return Array(output.prefix(Int(written)))
}

/// `EVP_CipherFinal_ex`: what remains (nothing without padding); nil on failure (data that is
/// not whole blocks).
func libcryptoCipherFinal(_ context: CipherContextHandle) -> [UInt8]? {
    var output = [UInt8](repeating: 0, count: 32)
    var written: Int32 = 0
    let ok = output.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(context.pointer, $0.baseAddress, &written) == 1 }
    guard ok, written >= 0 else { return nil }
    return Array(output.prefix(Int(written)))
}

// MARK: - MAC

/// An `EVP_MAC *`; freed once, by ``libcryptoMACFree(_:)``.
struct MACHandle {
    fileprivate let pointer: OpaquePointer
}

/// An `EVP_MAC_CTX *`; freed once, by ``libcryptoMACContextFree(_:)``.
struct MACContextHandle {
    fileprivate let pointer: OpaquePointer
}

/// `EVP_MAC_fetch(NULL, name, NULL)`: the MAC algorithm `name` (`CMAC`); nil when absent.
func libcryptoMACFetch(_ name: String) -> MACHandle? {
    EVP_MAC_fetch(nil, name, nil).map(MACHandle.init(pointer:))
}

/// `EVP_MAC_free`.
func libcryptoMACFree(_ mac: MACHandle) {
    EVP_MAC_free(mac.pointer)
}

/// `EVP_MAC_CTX_new`: nil on allocation failure.
func libcryptoMACContextNew(_ mac: MACHandle) -> MACContextHandle? {
    EVP_MAC_CTX_new(mac.pointer).map(MACContextHandle.init(pointer:))
}

/// `EVP_MAC_CTX_free`.
func libcryptoMACContextFree(_ context: MACContextHandle) {
    EVP_MAC_CTX_free(context.pointer)
}

/// `EVP_MAC_init(ctx, key, keylen, params)` with `cipher` = `cipherName`
/// (`OSSL_MAC_PARAM_CIPHER`): prepares a CMAC under `key`; false on failure.
func libcryptoMACInit(_ context: MACContextHandle, key: [UInt8], cipherName: String) -> Bool {
    var name = Array(cipherName.utf8CString)
    return OSSL_MAC_PARAM_CIPHER.withCString { cipherKey in
        name.withUnsafeMutableBufferPointer { nameBuffer in
            let parameters = [OSSL_PARAM_construct_utf8_string(cipherKey, nameBuffer.baseAddress, 0), OSSL_PARAM_construct_end()]
            return parameters.withUnsafeBufferPointer { list in
                key.withUnsafeBufferPointer { EVP_MAC_init(context.pointer, $0.baseAddress, $0.count, list.baseAddress) == 1 }
            }
        }
    }
}

/// `EVP_MAC_update`: adds `data`; false on failure.
func libcryptoMACUpdate(_ context: MACContextHandle, _ data: [UInt8]) -> Bool {
    data.withUnsafeBufferPointer { EVP_MAC_update(context.pointer, $0.baseAddress, $0.count) == 1 }
}

/// `EVP_MAC_final`: the MAC (at most 64 bytes); nil on failure.
func libcryptoMACFinal(_ context: MACContextHandle) -> [UInt8]? {
    var output = [UInt8](repeating: 0, count: 64)
    var written = 0
    let ok = output.withUnsafeMutableBufferPointer { EVP_MAC_final(context.pointer, $0.baseAddress, &written, $0.count) == 1 }
    guard ok else { return nil }
    return Array(output.prefix(written))
}

// MARK: - digests

/// `EVP_Q_digest(NULL, name, NULL, …)`: the digest `name` (`SHA256`) of `data`; nil when
/// libcrypto fails (no provider offers it, out of memory).
func libcryptoDigest(_ name: String, _ data: [UInt8]) -> [UInt8]? {
    var output = [UInt8](repeating: 0, count: 64)
    var written = 0
    let ok = data.withUnsafeBufferPointer { input in
        output.withUnsafeMutableBufferPointer { EVP_Q_digest(nil, name, nil, input.baseAddress, input.count, $0.baseAddress, &written) == 1 }
    }
    guard ok, written <= output.count else { return nil }
    return Array(output.prefix(written))
}

/// `EVP_Q_mac(NULL, "HMAC", NULL, digest, NULL, …)`: HMAC with the digest `digest` (`SHA256`)
/// of `data` under `key` (any length, empty included); nil when libcrypto fails.
func libcryptoHMAC(digest: String, key: [UInt8], _ data: [UInt8]) -> [UInt8]? {
    var output = [UInt8](repeating: 0, count: 64)
    var written = 0
    // An empty key still needs an address: a null one would leave the MAC without a key.
    let keyBytes = key.isEmpty ? [0] : key
    let result = keyBytes.withUnsafeBufferPointer { keyBuffer in
        data.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer {
                EVP_Q_mac(nil, "HMAC", nil, digest, nil, keyBuffer.baseAddress, key.count, input.baseAddress, input.count, $0.baseAddress, $0.count, &written)
            }
        }
    }
    guard result != nil, written <= output.count else { return nil }
    return Array(output.prefix(written))
}
