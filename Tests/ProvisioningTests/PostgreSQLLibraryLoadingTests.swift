import Testing
@testable import Provisioning

/// libpq is loaded with dlopen on the first PostgreSQL connection (PostgreSQLCalls.swift), not
/// linked: a library that cannot be loaded, or lacks a function, is a typed error naming it.
@Suite("libpq is loaded when a PostgreSQL ledger is opened", .timeLimit(.minutes(1)))
struct PostgreSQLLibraryLoadingTests {
    @Test("a library that is not installed: a PostgreSQLError saying libpq is needed and how to install it")
    func missingLibrary() {
        let result = PQ.Library.load("libpq-not-installed.so.5")
        #expect(throws: PostgreSQLError.self) { try result.get() }
        if case .failure(let error) = result {
            #expect(error.description.contains("a PostgreSQL ledger needs libpq, which cannot be loaded"))
            #expect(error.description.contains("libpq-not-installed.so.5"))
            #expect(error.description.contains("apt install libpq5"))
            #expect(!error.isConnectionLoss && error.sqlState == nil)
        }
    }

    @Test("a library without libpq's functions: the error names the first one missing")
    func libraryWithoutTheFunctions() {
        let result = PQ.Library.load("libc.so.6")
        if case .failure(let error) = result {
            #expect(error.description.contains("has no PQconnectdbParams"))
        } else {
            Issue.record("libc.so.6 loaded as libpq")
        }
    }

    @Test("the installed libpq.so.5 loads, with every function this package calls")
    func installedLibrary() throws {
        let library = try PQ.Library.shared.get()
        #expect(library.libVersion() >= 90100)
        #expect(try PQ.libraryVersion() == Int(library.libVersion()))
    }
}
