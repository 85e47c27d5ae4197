import Testing
@testable import Provisioning

/// SQLite is loaded with dlopen when the first SQLite ledger is opened (SQLiteCalls.swift), not
/// linked: a library that cannot be loaded, or lacks a function, is a typed error naming it.
@Suite("SQLite is loaded when a SQLite ledger is opened", .timeLimit(.minutes(1)))
struct SQLiteLibraryLoadingTests {
    @Test("a library that is not installed: a LedgerError saying SQLite is needed and how to install it")
    func missingLibrary() {
        let result = SQLiteLibrary.load("libsqlite3-not-installed.so.0")
        #expect(throws: LedgerError.self) { try result.get() }
        if case .failure(let error) = result {
            #expect(error.message.contains("a SQLite ledger needs SQLite, which cannot be loaded"))
            #expect(error.message.contains("libsqlite3-not-installed.so.0"))
            #expect(error.message.contains("apt install libsqlite3-0"))
            #expect(error.code == 0 && !error.isLockContention)
        }
    }

    @Test("a library without SQLite's functions: the error names the first one missing")
    func libraryWithoutTheFunctions() {
        let result = SQLiteLibrary.load("libc.so.6")
        if case .failure(let error) = result {
            #expect(error.message.contains("has no sqlite3_open_v2"))
        } else {
            Issue.record("libc.so.6 loaded as SQLite")
        }
    }

    @Test("the installed libsqlite3.so.0 loads, with every function this package calls")
    func installedLibrary() throws {
        _ = try SQLiteLibrary.shared.get()
    }
}
