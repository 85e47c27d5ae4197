import CommandLineKit
import NDEF
import NFCTags
import Provisioning

// The few places where a layer's typed error becomes a command error: its stable code and
// offset go along, for the JSON error object (`--json`) a script matches on.

extension CommandError {
    /// A tag error's exit status (``TagCommandSupport/exitCode(_:)``), code and offset, with
    /// `message` (default: the error's own description).
    static func tag(_ error: NFCTagError, message: String? = nil) -> CommandError {
        CommandError(message ?? error.description, exitCode: TagCommandSupport.exitCode(error.code), code: error.code.rawValue, offset: error.offset)
    }

    /// An NTAG 424 DNA error: exit status and message as its ``NTAG424Error/tagError`` maps
    /// them, unless `exitCode` is given; its own code (`macMismatch`, `integrity`) and offset,
    /// or the code of the tag error underneath when the tag or reader failed.
    static func ntag424(_ error: NTAG424Error, message: String? = nil, exitCode: ExitCode? = nil) -> CommandError {
        let mapped = TagCommandSupport.map(error.tagError)
        let typed = error.underlying.map { (code: $0.code.rawValue, offset: $0.offset) } ?? (code: error.code.rawValue, offset: error.offset)
        return CommandError(message ?? mapped.message, exitCode: exitCode ?? mapped.exitCode, code: typed.code, offset: typed.offset)
    }

    /// A data error (65) for bytes that are not an NDEF message: the decoder's code
    /// (`lengthPastEnd`) and byte offset.
    static func ndef(_ message: String, _ error: NDEFError) -> CommandError {
        .dataError(message, code: error.code.rawValue, offset: error.offset)
    }

    /// A ledger's failure (exit 1 unless `exitCode` is given): code `ledgerBusy` when another
    /// connection holds a SQLite ledger, `ledgerUnavailable` when a server cannot be reached,
    /// else `ledger`. An error of another type (where a closure's errors are untyped) is a
    /// failure with its description alone.
    static func ledger(_ error: any Error, message: String? = nil, exitCode: ExitCode = .failure) -> CommandError {
        guard let error = error as? LedgerError else { return CommandError(message ?? "\(error)", exitCode: exitCode) }
        let code = error.isLockContention ? "ledgerBusy" : error.isUnavailable ? "ledgerUnavailable" : "ledger"
        return CommandError(message ?? error.description, exitCode: exitCode, code: code)
    }
}
