import Testing
@testable import LibNFC

/// libnfc is loaded with dlopen when a libnfc reader is first listed or opened
/// (LibNFCCalls.swift), not linked: a library that cannot be loaded, or lacks a function, is a
/// typed error naming it.
@Suite("libnfc is loaded when a libnfc reader is listed or opened", .timeLimit(.minutes(1)))
struct LibNFCLibraryLoadingTests {
    @Test("a library that is not installed: a LibNFCError saying libnfc is needed and how to install it")
    func missingLibrary() {
        let result = LibNFCLibrary.load("libnfc-not-installed.so.6")
        #expect(throws: LibNFCError.self) { try result.get() }
        if case .failure(let error) = result {
            #expect(error.code == .software)
            #expect(error.reason.contains("a libnfc reader needs libnfc, which cannot be loaded"))
            #expect(error.reason.contains("libnfc-not-installed.so.6"))
            #expect(error.reason.contains("apt install libnfc6"))
        }
    }

    @Test("a library without libnfc's functions: the error names the first one missing")
    func libraryWithoutTheFunctions() {
        let result = LibNFCLibrary.load("libc.so.6")
        if case .failure(let error) = result {
            #expect(error.reason.contains("has no nfc_version"))
        } else {
            Issue.record("libc.so.6 loaded as libnfc")
        }
    }

    @Test("the installed libnfc.so.6 loads, with every function this package calls")
    func installedLibrary() throws {
        let library = try LibNFCLibrary.shared.get()
        #expect(library.nfc_version().map { String(cString: $0) } == LibNFCContext.version)
    }
}
