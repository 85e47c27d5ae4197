import Testing
@testable import NFCCrypto

/// libcrypto is loaded with dlopen on the first cryptographic call (LibCryptoCalls.swift), not
/// linked: a library that cannot be loaded, or lacks a function, is a typed error naming it.
@Suite("libcrypto is loaded on the first cryptographic call", .timeLimit(.minutes(1)))
struct LibCryptoLoadingTests {
    @Test("a library that is not installed: a CryptoError saying libcrypto is needed and how to install it")
    func missingLibrary() {
        let result = LibCrypto.load("libcrypto-not-installed.so.3")
        #expect(throws: CryptoError.self) { try result.get() }
        if case .failure(let error) = result {
            #expect(error.code == .library)
            #expect(error.reason.contains("cryptography needs OpenSSL 3's libcrypto, which cannot be loaded"))
            #expect(error.reason.contains("libcrypto-not-installed.so.3"))
            #expect(error.reason.contains("apt install libssl3"))
        }
    }

    @Test("a library without libcrypto's functions: the error names the first one missing")
    func libraryWithoutTheFunctions() {
        let result = LibCrypto.load("libc.so.6")
        if case .failure(let error) = result {
            #expect(error.reason.contains("has no ERR_get_error"))
        } else {
            Issue.record("libc.so.6 loaded as libcrypto")
        }
    }

    @Test("the installed libcrypto.so.3 loads, with every function this package calls")
    func installedLibrary() throws {
        _ = try LibCrypto.shared.get()
        #expect(ECDSA.libraryVersion.hasPrefix("OpenSSL 3"))
    }
}
