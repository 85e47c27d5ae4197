// Every libcrypto call the NFCCrypto target makes, each wrapped exactly once (after
// swift-system's `Internals/Syscalls.swift`). Nothing above this file sees an OpenSSL type or a raw
// `Int32` result: wrappers hand back Swift values, owned handles or typed errors. Only OpenSSL 3's
// non-deprecated API is used (the shim sets OPENSSL_API_COMPAT to 3.0).
//
// libcrypto is not linked: nfctool would map and relocate it (4.7 MB, bound at load) on every
// start, also for the many commands that never verify or encrypt anything. The wrappers that
// start an operation (a digest, a MAC, a cipher, a key, a signature) load it with
// `dlopen("libcrypto.so.3")` on first use and throw a ``CryptoError`` when it cannot be loaded;
// every function is resolved from that handle (``LibCrypto``), typed by the shim's
// `ccrypto_fn_NAME` pointer types. `CCrypto` gives the types and constants only (its module map
// links nothing). The other wrappers take a handle, which exists only once libcrypto is loaded.
internal import CCrypto
internal import NFCCore
#if canImport(Glibc)
internal import Glibc
#endif

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
    guard let lib = LibCrypto.loaded else { return nil }
    let first = lib.ERR_get_error()
    lib.ERR_clear_error()
    guard first != 0 else { return nil }
    var buffer = [CChar](repeating: 0, count: 256)
    lib.ERR_error_string_n(first, &buffer, buffer.count)
    let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: text, as: UTF8.self)
}

/// `OpenSSL_version(OPENSSL_VERSION)`: the library's version text, e.g. `OpenSSL 3.0.19 27 Jan 2026`.
/// Loads libcrypto on first use: throws when it cannot be loaded.
func libcryptoVersion() throws(CryptoError) -> String {
    let lib = try LibCrypto.load()
    return lib.OpenSSL_version(OPENSSL_VERSION).map { String(cString: $0) } ?? "unknown"
}

// MARK: - public keys

/// `EVP_PKEY_CTX_new_from_name(NULL, name, NULL)`: a context for making keys of the algorithm
/// `name` (`EC`) from data; nil when no provider offers it. Loads libcrypto on first use: throws
/// when it cannot be loaded.
func libcryptoPKeyContextNew(algorithm name: String) throws(CryptoError) -> PKeyContextHandle? {
    let lib = try LibCrypto.load()
    return lib.EVP_PKEY_CTX_new_from_name(nil, name, nil).map(PKeyContextHandle.init(pointer:))
}

/// `EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL)`: a context for operations (verification) with
/// `key`; nil on allocation failure.
func libcryptoPKeyContextNew(key: PKeyHandle) -> PKeyContextHandle? {
    guard let lib = LibCrypto.loaded else { return nil }
    return lib.EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil).map(PKeyContextHandle.init(pointer:))
}

/// `EVP_PKEY_CTX_free`.
func libcryptoPKeyContextFree(_ context: PKeyContextHandle) {
    guard let lib = LibCrypto.loaded else { return }
    lib.EVP_PKEY_CTX_free(context.pointer)
}

/// `EVP_PKEY_fromdata_init`: prepares `context` to make a key from parameters; false on failure.
func libcryptoPKeyFromDataInit(_ context: PKeyContextHandle) -> Bool {
    guard let lib = LibCrypto.loaded else { return false }
    return lib.EVP_PKEY_fromdata_init(context.pointer) == 1
}

/// `EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params)` with the parameters
/// `group` = `curve` (`OSSL_PKEY_PARAM_GROUP_NAME`) and `pub` = `point`
/// (`OSSL_PKEY_PARAM_PUB_KEY`, SEC 1 encoding): the EC public key, or nil when the curve is
/// unknown or the point is not on it (libcrypto decodes and checks the point).
func libcryptoPKeyFromPublicPoint(_ context: PKeyContextHandle, curve: String, point: [UInt8]) -> PKeyHandle? {
    guard let lib = LibCrypto.loaded else { return nil }
    var key: OpaquePointer?
    var curveName = Array(curve.utf8CString)
    var pointBytes = point
    // OSSL_PARAM keeps the pointers it is given: every string must outlive EVP_PKEY_fromdata.
    let result: Int32 = OSSL_PKEY_PARAM_GROUP_NAME.withCString { groupKey in
        OSSL_PKEY_PARAM_PUB_KEY.withCString { publicKey in
            curveName.withUnsafeMutableBufferPointer { name in
                pointBytes.withUnsafeMutableBytes { pointBuffer in
                    var parameters = [
                        lib.OSSL_PARAM_construct_utf8_string(groupKey, name.baseAddress, 0),
                        lib.OSSL_PARAM_construct_octet_string(publicKey, pointBuffer.baseAddress, pointBuffer.count),
                        lib.OSSL_PARAM_construct_end(),
                    ]
                    return parameters.withUnsafeMutableBufferPointer { list in
                        lib.EVP_PKEY_fromdata(context.pointer, &key, ccrypto_evp_pkey_public_key, list.baseAddress)
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
    guard let lib = LibCrypto.loaded else { return }
    lib.EVP_PKEY_free(key.pointer)
}

// MARK: - ECDSA

/// `EVP_PKEY_verify_init`: prepares `context` for verification; false on failure.
func libcryptoVerifyInit(_ context: PKeyContextHandle) -> Bool {
    guard let lib = LibCrypto.loaded else { return false }
    return lib.EVP_PKEY_verify_init(context.pointer) == 1
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
    guard let lib = LibCrypto.loaded else { return .failed }
    let result = signature.withUnsafeBufferPointer { sig in
        data.withUnsafeBufferPointer { tbs in
            lib.EVP_PKEY_verify(context.pointer, sig.baseAddress, sig.count, tbs.baseAddress, tbs.count)
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
/// failure. Loads libcrypto on first use: throws when it cannot be loaded.
func libcryptoECDSASignature(r: [UInt8], s: [UInt8]) throws(CryptoError) -> ECDSASignatureHandle? {
    let lib = try LibCrypto.load()
    guard let signature = lib.ECDSA_SIG_new() else { return nil }
    let rNumber = r.withUnsafeBufferPointer { lib.BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
    let sNumber = s.withUnsafeBufferPointer { lib.BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
    guard let rNumber, let sNumber, lib.ECDSA_SIG_set0(signature, rNumber, sNumber) == 1 else {
        lib.BN_free(rNumber)
        lib.BN_free(sNumber)
        lib.ECDSA_SIG_free(signature)
        return nil
    }
    return ECDSASignatureHandle(pointer: signature)
}

/// `d2i_ECDSA_SIG`: a DER `ECDSA-Sig-Value` decoded; nil when `der` is not one (or has bytes
/// after it). Loads libcrypto on first use: throws when it cannot be loaded.
func libcryptoECDSASignature(der: [UInt8]) throws(CryptoError) -> ECDSASignatureHandle? {
    let lib = try LibCrypto.load()
    return der.withUnsafeBufferPointer { buffer -> ECDSASignatureHandle? in
        guard let start = buffer.baseAddress else { return nil }
        var cursor: UnsafePointer<UInt8>? = start
        guard let signature = lib.d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { return nil }
        guard let end = cursor, end - start == buffer.count else {
            lib.ECDSA_SIG_free(signature)
            return nil
        }
        return ECDSASignatureHandle(pointer: signature)
    }
}

/// `ECDSA_SIG_get0_r`/`ECDSA_SIG_get0_s` and `BN_bn2binpad`: `r` and `s`, each big-endian in
/// `width` bytes; nil when one does not fit.
func libcryptoECDSASignatureComponents(_ signature: ECDSASignatureHandle, width: Int) -> (r: [UInt8], s: [UInt8])? {
    guard let lib = LibCrypto.loaded else { return nil }
    func padded(_ number: OpaquePointer?) -> [UInt8]? {
        guard let number else { return nil }
        var out = [UInt8](repeating: 0, count: width)
        let written = out.withUnsafeMutableBufferPointer { lib.BN_bn2binpad(number, $0.baseAddress, Int32(width)) }
        return written == Int32(width) ? out : nil
    }
    guard let r = padded(lib.ECDSA_SIG_get0_r(signature.pointer)), let s = padded(lib.ECDSA_SIG_get0_s(signature.pointer)) else {
        return nil
    }
    return (r, s)
}

/// `i2d_ECDSA_SIG`: the DER `ECDSA-Sig-Value` encoding; nil on failure.
func libcryptoECDSASignatureDER(_ signature: ECDSASignatureHandle) -> [UInt8]? {
    guard let lib = LibCrypto.loaded else { return nil }
    var output: UnsafeMutablePointer<UInt8>?
    let length = lib.i2d_ECDSA_SIG(signature.pointer, &output)
    guard length > 0, let output else { return nil }
    defer { lib.CRYPTO_free(output, #fileID, #line) }
    return Array(UnsafeBufferPointer(start: output, count: Int(length)))
}

/// `ECDSA_SIG_free`.
func libcryptoECDSASignatureFree(_ signature: ECDSASignatureHandle) {
    guard let lib = LibCrypto.loaded else { return }
    lib.ECDSA_SIG_free(signature.pointer)
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
/// when no provider offers it. Loads libcrypto on first use: throws when it cannot be loaded.
func libcryptoCipherFetch(_ name: String) throws(CryptoError) -> CipherHandle? {
    let lib = try LibCrypto.load()
    return lib.EVP_CIPHER_fetch(nil, name, nil).map(CipherHandle.init(pointer:))
}

/// `EVP_CIPHER_free`.
func libcryptoCipherFree(_ cipher: CipherHandle) {
    guard let lib = LibCrypto.loaded else { return }
    lib.EVP_CIPHER_free(cipher.pointer)
}

/// `EVP_CIPHER_CTX_new`: nil on allocation failure.
func libcryptoCipherContextNew() -> CipherContextHandle? {
    guard let lib = LibCrypto.loaded else { return nil }
    return lib.EVP_CIPHER_CTX_new().map(CipherContextHandle.init(pointer:))
}

/// `EVP_CIPHER_CTX_free`.
func libcryptoCipherContextFree(_ context: CipherContextHandle) {
    guard let lib = LibCrypto.loaded else { return }
    lib.EVP_CIPHER_CTX_free(context.pointer)
}

/// `EVP_CipherInit_ex2(ctx, cipher, key, iv, enc, NULL)`: prepares to encrypt (`encrypt`) or
/// decrypt with `key` and `iv` (nil for ECB); false on failure.
func libcryptoCipherInit(_ context: CipherContextHandle, _ cipher: CipherHandle, key: [UInt8], iv: [UInt8]?, encrypt: Bool) -> Bool {
    guard let lib = LibCrypto.loaded else { return false }
    return key.withUnsafeBufferPointer { keyBuffer in
        if let iv {
            return iv.withUnsafeBufferPointer { ivBuffer in
                lib.EVP_CipherInit_ex2(context.pointer, cipher.pointer, keyBuffer.baseAddress, ivBuffer.baseAddress, encrypt ? 1 : 0, nil) == 1
            }
        }
        return lib.EVP_CipherInit_ex2(context.pointer, cipher.pointer, keyBuffer.baseAddress, nil, encrypt ? 1 : 0, nil) == 1
    }
}

/// `EVP_CIPHER_CTX_set_padding(ctx, 0)`: no padding (the data is whole blocks); false on failure.
func libcryptoCipherDisablePadding(_ context: CipherContextHandle) -> Bool {
    guard let lib = LibCrypto.loaded else { return false }
    return lib.EVP_CIPHER_CTX_set_padding(context.pointer, 0) == 1
}

/// `EVP_CipherUpdate`: the output for `input` (as many bytes, whole blocks without padding);
/// nil on failure.
func libcryptoCipherUpdate(_ context: CipherContextHandle, _ input: [UInt8]) -> [UInt8]? {
    guard let lib = LibCrypto.loaded else { return nil }
    var output = [UInt8](repeating: 0, count: input.count + 16)
    var written: Int32 = 0
    let ok = output.withUnsafeMutableBufferPointer { out in
        input.withUnsafeBufferPointer { inp in
            lib.EVP_CipherUpdate(context.pointer, out.baseAddress, &written, inp.baseAddress, Int32(inp.count)) == 1
        }
    }
    guard ok, written >= 0 else { return nil }
    return Array(output.prefix(Int(written)))
}

/// `EVP_CipherFinal_ex`: what remains (nothing without padding); nil on failure (data that is
/// not whole blocks).
func libcryptoCipherFinal(_ context: CipherContextHandle) -> [UInt8]? {
    guard let lib = LibCrypto.loaded else { return nil }
    var output = [UInt8](repeating: 0, count: 32)
    var written: Int32 = 0
    let ok = output.withUnsafeMutableBufferPointer { lib.EVP_CipherFinal_ex(context.pointer, $0.baseAddress, &written) == 1 }
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

/// `EVP_MAC_fetch(NULL, name, NULL)`: the MAC algorithm `name` (`CMAC`); nil when absent. Loads
/// libcrypto on first use: throws when it cannot be loaded.
func libcryptoMACFetch(_ name: String) throws(CryptoError) -> MACHandle? {
    let lib = try LibCrypto.load()
    return lib.EVP_MAC_fetch(nil, name, nil).map(MACHandle.init(pointer:))
}

/// `EVP_MAC_free`.
func libcryptoMACFree(_ mac: MACHandle) {
    guard let lib = LibCrypto.loaded else { return }
    lib.EVP_MAC_free(mac.pointer)
}

/// `EVP_MAC_CTX_new`: nil on allocation failure.
func libcryptoMACContextNew(_ mac: MACHandle) -> MACContextHandle? {
    guard let lib = LibCrypto.loaded else { return nil }
    return lib.EVP_MAC_CTX_new(mac.pointer).map(MACContextHandle.init(pointer:))
}

/// `EVP_MAC_CTX_free`.
func libcryptoMACContextFree(_ context: MACContextHandle) {
    guard let lib = LibCrypto.loaded else { return }
    lib.EVP_MAC_CTX_free(context.pointer)
}

/// `EVP_MAC_init(ctx, key, keylen, params)` with `cipher` = `cipherName`
/// (`OSSL_MAC_PARAM_CIPHER`): prepares a CMAC under `key`; false on failure.
func libcryptoMACInit(_ context: MACContextHandle, key: [UInt8], cipherName: String) -> Bool {
    guard let lib = LibCrypto.loaded else { return false }
    var name = Array(cipherName.utf8CString)
    return OSSL_MAC_PARAM_CIPHER.withCString { cipherKey in
        name.withUnsafeMutableBufferPointer { nameBuffer in
            let parameters = [lib.OSSL_PARAM_construct_utf8_string(cipherKey, nameBuffer.baseAddress, 0), lib.OSSL_PARAM_construct_end()]
            return parameters.withUnsafeBufferPointer { list in
                key.withUnsafeBufferPointer { lib.EVP_MAC_init(context.pointer, $0.baseAddress, $0.count, list.baseAddress) == 1 }
            }
        }
    }
}

/// `EVP_MAC_update`: adds `data`; false on failure.
func libcryptoMACUpdate(_ context: MACContextHandle, _ data: [UInt8]) -> Bool {
    guard let lib = LibCrypto.loaded else { return false }
    return data.withUnsafeBufferPointer { lib.EVP_MAC_update(context.pointer, $0.baseAddress, $0.count) == 1 }
}

/// `EVP_MAC_final`: the MAC (at most 64 bytes); nil on failure.
func libcryptoMACFinal(_ context: MACContextHandle) -> [UInt8]? {
    guard let lib = LibCrypto.loaded else { return nil }
    var output = [UInt8](repeating: 0, count: 64)
    var written = 0
    let ok = output.withUnsafeMutableBufferPointer { lib.EVP_MAC_final(context.pointer, $0.baseAddress, &written, $0.count) == 1 }
    guard ok else { return nil }
    return Array(output.prefix(written))
}

// MARK: - digests

/// `EVP_Q_digest(NULL, name, NULL, …)`: the digest `name` (`SHA256`) of `data`; nil when
/// libcrypto fails (no provider offers it, out of memory). Loads libcrypto on first use: throws
/// when it cannot be loaded.
func libcryptoDigest(_ name: String, _ data: [UInt8]) throws(CryptoError) -> [UInt8]? {
    let lib = try LibCrypto.load()
    var output = [UInt8](repeating: 0, count: 64)
    var written = 0
    let ok = data.withUnsafeBufferPointer { input in
        output.withUnsafeMutableBufferPointer { lib.EVP_Q_digest(nil, name, nil, input.baseAddress, input.count, $0.baseAddress, &written) == 1 }
    }
    guard ok, written <= output.count else { return nil }
    return Array(output.prefix(written))
}

/// `EVP_Q_mac(NULL, "HMAC", NULL, digest, NULL, …)`: HMAC with the digest `digest` (`SHA256`)
/// of `data` under `key` (any length, empty included); nil when libcrypto fails. Loads libcrypto
/// on first use: throws when it cannot be loaded.
func libcryptoHMAC(digest: String, key: [UInt8], _ data: [UInt8]) throws(CryptoError) -> [UInt8]? {
    let lib = try LibCrypto.load()
    var output = [UInt8](repeating: 0, count: 64)
    var written = 0
    // An empty key still needs an address: a null one would leave the MAC without a key.
    let keyBytes = key.isEmpty ? [0] : key
    let result = keyBytes.withUnsafeBufferPointer { keyBuffer in
        data.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer {
                lib.EVP_Q_mac(nil, "HMAC", nil, digest, nil, keyBuffer.baseAddress, key.count, input.baseAddress, input.count, $0.baseAddress, $0.count, &written)
            }
        }
    }
    guard result != nil, written <= output.count else { return nil }
    return Array(output.prefix(written))
}

// MARK: - loading

/// libcrypto's functions, resolved from a `dlopen` handle: loaded once per process, on the first
/// cryptographic call, and never closed (keys, contexts and OpenSSL's own state outlive any one
/// call). Each field is named after, and typed as, the C function (the shim's `ccrypto_fn_NAME`).
struct LibCrypto: Sendable {
    /// The library's file name: its soname, `libcrypto.so.3` for all of OpenSSL 3 (Debian's
    /// package: libssl3, named libssl3t64 since Debian 13 and Ubuntu 24.04).
    static let soname = "libcrypto.so.3"

    /// libcrypto, loaded on first use (thread-safe: a `static let`), or why it could not be.
    static let shared: Result<LibCrypto, CryptoError> = load(soname)

    /// libcrypto, loaded on first use.
    /// - Throws: ``CryptoError`` `library` saying libcrypto cannot be loaded and how to install it.
    static func load() throws(CryptoError) -> LibCrypto { try shared.get() }

    /// libcrypto when it is loaded. Only a handle leads to a call through here, and one exists
    /// only after ``shared`` loaded.
    static var loaded: LibCrypto? { try? shared.get() }

    let ERR_get_error: ccrypto_fn_ERR_get_error
    let ERR_clear_error: ccrypto_fn_ERR_clear_error
    let ERR_error_string_n: ccrypto_fn_ERR_error_string_n
    let OpenSSL_version: ccrypto_fn_OpenSSL_version
    let CRYPTO_free: ccrypto_fn_CRYPTO_free
    let EVP_PKEY_CTX_new_from_name: ccrypto_fn_EVP_PKEY_CTX_new_from_name
    let EVP_PKEY_CTX_new_from_pkey: ccrypto_fn_EVP_PKEY_CTX_new_from_pkey
    let EVP_PKEY_CTX_free: ccrypto_fn_EVP_PKEY_CTX_free
    let EVP_PKEY_fromdata_init: ccrypto_fn_EVP_PKEY_fromdata_init
    let EVP_PKEY_fromdata: ccrypto_fn_EVP_PKEY_fromdata
    let EVP_PKEY_free: ccrypto_fn_EVP_PKEY_free
    let EVP_PKEY_verify_init: ccrypto_fn_EVP_PKEY_verify_init
    let EVP_PKEY_verify: ccrypto_fn_EVP_PKEY_verify
    let OSSL_PARAM_construct_utf8_string: ccrypto_fn_OSSL_PARAM_construct_utf8_string
    let OSSL_PARAM_construct_octet_string: ccrypto_fn_OSSL_PARAM_construct_octet_string
    let OSSL_PARAM_construct_end: ccrypto_fn_OSSL_PARAM_construct_end
    let ECDSA_SIG_new: ccrypto_fn_ECDSA_SIG_new
    let ECDSA_SIG_set0: ccrypto_fn_ECDSA_SIG_set0
    let ECDSA_SIG_free: ccrypto_fn_ECDSA_SIG_free
    let ECDSA_SIG_get0_r: ccrypto_fn_ECDSA_SIG_get0_r
    let ECDSA_SIG_get0_s: ccrypto_fn_ECDSA_SIG_get0_s
    let d2i_ECDSA_SIG: ccrypto_fn_d2i_ECDSA_SIG
    let i2d_ECDSA_SIG: ccrypto_fn_i2d_ECDSA_SIG
    let BN_bin2bn: ccrypto_fn_BN_bin2bn
    let BN_bn2binpad: ccrypto_fn_BN_bn2binpad
    let BN_free: ccrypto_fn_BN_free
    let EVP_CIPHER_fetch: ccrypto_fn_EVP_CIPHER_fetch
    let EVP_CIPHER_free: ccrypto_fn_EVP_CIPHER_free
    let EVP_CIPHER_CTX_new: ccrypto_fn_EVP_CIPHER_CTX_new
    let EVP_CIPHER_CTX_free: ccrypto_fn_EVP_CIPHER_CTX_free
    let EVP_CipherInit_ex2: ccrypto_fn_EVP_CipherInit_ex2
    let EVP_CIPHER_CTX_set_padding: ccrypto_fn_EVP_CIPHER_CTX_set_padding
    let EVP_CipherUpdate: ccrypto_fn_EVP_CipherUpdate
    let EVP_CipherFinal_ex: ccrypto_fn_EVP_CipherFinal_ex
    let EVP_MAC_fetch: ccrypto_fn_EVP_MAC_fetch
    let EVP_MAC_free: ccrypto_fn_EVP_MAC_free
    let EVP_MAC_CTX_new: ccrypto_fn_EVP_MAC_CTX_new
    let EVP_MAC_CTX_free: ccrypto_fn_EVP_MAC_CTX_free
    let EVP_MAC_init: ccrypto_fn_EVP_MAC_init
    let EVP_MAC_update: ccrypto_fn_EVP_MAC_update
    let EVP_MAC_final: ccrypto_fn_EVP_MAC_final
    let EVP_Q_digest: ccrypto_fn_EVP_Q_digest
    let EVP_Q_mac: ccrypto_fn_EVP_Q_mac

    /// Opens `file` (``DynamicLibrary``) and resolves every function this wrapper calls; the error
    /// names the library and what the loader said (the file is missing, a symbol is absent).
    static func load(_ file: String) -> Result<LibCrypto, CryptoError> {
        do throws(DynamicLibraryError) {
            let library = try DynamicLibrary.open(file)
            do throws(DynamicLibraryError) {
                return .success(try LibCrypto(library))
            } catch {
                library.close()  // not the libcrypto wanted
                throw error
            }
        } catch {
            switch error.kind {
            case .notLoadable(let reason):
                return .failure(CryptoError(
                    .library,
                    "cryptography needs OpenSSL 3's libcrypto, which cannot be loaded (\(reason)); install it (Debian: apt install libssl3, or libssl3t64)"))
            case .missingSymbol(let symbol):
                return .failure(CryptoError(
                    .library, "the libcrypto loaded from \(file) has no \(symbol); cryptography needs OpenSSL 3.0 or later"))
            }
        }
    }

    /// Resolves each function from `library`.
    private init(_ library: DynamicLibrary) throws(DynamicLibraryError) {
        ERR_get_error = try library.function("ERR_get_error")
        ERR_clear_error = try library.function("ERR_clear_error")
        ERR_error_string_n = try library.function("ERR_error_string_n")
        OpenSSL_version = try library.function("OpenSSL_version")
        CRYPTO_free = try library.function("CRYPTO_free")
        EVP_PKEY_CTX_new_from_name = try library.function("EVP_PKEY_CTX_new_from_name")
        EVP_PKEY_CTX_new_from_pkey = try library.function("EVP_PKEY_CTX_new_from_pkey")
        EVP_PKEY_CTX_free = try library.function("EVP_PKEY_CTX_free")
        EVP_PKEY_fromdata_init = try library.function("EVP_PKEY_fromdata_init")
        EVP_PKEY_fromdata = try library.function("EVP_PKEY_fromdata")
        EVP_PKEY_free = try library.function("EVP_PKEY_free")
        EVP_PKEY_verify_init = try library.function("EVP_PKEY_verify_init")
        EVP_PKEY_verify = try library.function("EVP_PKEY_verify")
        OSSL_PARAM_construct_utf8_string = try library.function("OSSL_PARAM_construct_utf8_string")
        OSSL_PARAM_construct_octet_string = try library.function("OSSL_PARAM_construct_octet_string")
        OSSL_PARAM_construct_end = try library.function("OSSL_PARAM_construct_end")
        ECDSA_SIG_new = try library.function("ECDSA_SIG_new")
        ECDSA_SIG_set0 = try library.function("ECDSA_SIG_set0")
        ECDSA_SIG_free = try library.function("ECDSA_SIG_free")
        ECDSA_SIG_get0_r = try library.function("ECDSA_SIG_get0_r")
        ECDSA_SIG_get0_s = try library.function("ECDSA_SIG_get0_s")
        d2i_ECDSA_SIG = try library.function("d2i_ECDSA_SIG")
        i2d_ECDSA_SIG = try library.function("i2d_ECDSA_SIG")
        BN_bin2bn = try library.function("BN_bin2bn")
        BN_bn2binpad = try library.function("BN_bn2binpad")
        BN_free = try library.function("BN_free")
        EVP_CIPHER_fetch = try library.function("EVP_CIPHER_fetch")
        EVP_CIPHER_free = try library.function("EVP_CIPHER_free")
        EVP_CIPHER_CTX_new = try library.function("EVP_CIPHER_CTX_new")
        EVP_CIPHER_CTX_free = try library.function("EVP_CIPHER_CTX_free")
        EVP_CipherInit_ex2 = try library.function("EVP_CipherInit_ex2")
        EVP_CIPHER_CTX_set_padding = try library.function("EVP_CIPHER_CTX_set_padding")
        EVP_CipherUpdate = try library.function("EVP_CipherUpdate")
        EVP_CipherFinal_ex = try library.function("EVP_CipherFinal_ex")
        EVP_MAC_fetch = try library.function("EVP_MAC_fetch")
        EVP_MAC_free = try library.function("EVP_MAC_free")
        EVP_MAC_CTX_new = try library.function("EVP_MAC_CTX_new")
        EVP_MAC_CTX_free = try library.function("EVP_MAC_CTX_free")
        EVP_MAC_init = try library.function("EVP_MAC_init")
        EVP_MAC_update = try library.function("EVP_MAC_update")
        EVP_MAC_final = try library.function("EVP_MAC_final")
        EVP_Q_digest = try library.function("EVP_Q_digest")
        EVP_Q_mac = try library.function("EVP_Q_mac")
    }
}
