import NFCTestSupport
import Testing
@testable import PCSC

/// pcsc-lite is loaded with dlopen when a PC/SC reader is first listed or opened
/// (PCSCCalls.swift), not linked: a library that cannot be loaded, or lacks a function, is a
/// typed error naming it; the module's own declarations (no pcsc-lite header) are those the
/// library answers to.
@Suite("pcsc-lite is loaded when a PC/SC reader is listed or opened", .tags(.pcsc), .timeLimit(.minutes(1)))
struct PCSCLiteLibraryLoadingTests {
    @Test("a library that is not installed: a PCSCError (SCARD_E_NO_SERVICE) saying pcsc-lite is needed and how to install it")
    func missingLibrary() {
        let result = PCSCLiteLibrary.load("libpcsclite-not-installed.so.1")
        #expect(throws: PCSCError.self) { try result.get() }
        if case .failure(let error) = result {
            #expect(error.code == PCSCError.noService && error.call == "dlopen")
            #expect(error.description.contains("a PC/SC reader needs pcsc-lite, which cannot be loaded"))
            #expect(error.description.contains("libpcsclite-not-installed.so.1"))
            #expect(error.description.contains("apt install libpcsclite1"))
        }
    }

    @Test("a library without pcsc-lite's functions: the error names the first one missing")
    func libraryWithoutTheFunctions() {
        let result = PCSCLiteLibrary.load("libc.so.6")
        if case .failure(let error) = result {
            #expect(error.description.contains("has no SCardEstablishContext"))
        } else {
            Issue.record("libc.so.6 loaded as pcsc-lite")
        }
    }

    @Test("the installed libpcsclite.so.1 loads, with every function this package calls and T=0/T=1's PCI")
    func installedLibrary() throws {
        let library = try PCSCLiteLibrary.shared.get()
        // pcsc-lite's SCARD_PCI_T0/T1: the protocol (SCARD_PROTOCOL_T0 = 1, T1 = 2) and the
        // structure's own size, which checks the shim's SCARD_IO_REQUEST against the library's.
        #expect(library.g_rgSCardT0Pci.pointee.dwProtocol == 1)
        #expect(library.g_rgSCardT1Pci.pointee.dwProtocol == 2)
        #expect(Int(library.g_rgSCardT1Pci.pointee.cbPciLength) == 2 * MemoryLayout<UInt>.size)  // two unsigned longs
    }
}
