import Foundation
import NFCCore

// A tool's files and JSON: errors that name the file, JSON that throws rather than print `{}`.

/// Reads a whole file, at most `limit` bytes (``FileAccess/read(_:limit:)``), or fails with a
/// message that names it and says what happened: `is a directory`, `No such file or
/// directory`, `Permission denied`. `/dev/null` reads as empty and a FIFO is read to its end.
/// - Throws: ``CommandError``: data error (65) `input larger than …` for more than `limit`
///   bytes; failure (1) when the file cannot be read.
public func readFileBytes(_ path: String, what: String, limit: Int) throws(CommandError) -> [UInt8] {
    do {
        return try FileAccess.read(path, limit: limit)
    } catch {
        if case .tooLarge = error.kind { throw .dataError("\(what) '\(path)': \(error)") }
        throw .failure("cannot read \(what) '\(path)': \(error)")
    }
}

/// Reads a whole file as UTF-8 text, at most `limit` bytes (``readFileBytes(_:what:limit:)``):
/// for files people write (keys, passwords), so that a stray byte is named rather than read as
/// U+FFFD.
/// - Throws: ``CommandError`` as ``readFileBytes(_:what:limit:)``; data error (65) naming the
///   file and the offset of the first byte that is not UTF-8 (never the content).
public func readFileText(_ path: String, what: String, limit: Int) throws(CommandError) -> String {
    let bytes = try readFileBytes(path, what: what, limit: limit)
    switch UnicodeValidation.decodeUTF8(bytes) {
    case .success(let text): return text
    case .failure(let invalid): throw .dataError("\(what) '\(path)': not UTF-8 text (invalid byte at offset \(invalid.offset))")
    }
}

/// Writes a whole file through ``FileAccess/write(_:to:durable:)``: a regular file (or a new
/// one) atomically, through a symbolic link into the file it names (the link stays), a FIFO or
/// a device in place (never replaced); every write and the close checked.
/// - Throws: ``CommandError`` (failure, exit 1) naming the file and what happened (`No space
///   left on device`, `is a directory`).
public func writeFileBytes(_ bytes: [UInt8], to path: String) throws(CommandError) {
    do {
        try FileAccess.write(bytes, to: path)
    } catch {
        throw .failure("cannot write '\(path)': \(error)")
    }
}

extension CommandError {
    /// A data error (65) for input beyond a command's bound: `standard input: input larger
    /// than 1 MiB`.
    public static func inputTooLarge(_ source: String, limit: Int) -> CommandError {
        .dataError("\(source): \(FileAccessError(.tooLarge(limit: limit)))")
    }
}

/// JSON as the tool prints it: keys sorted, slashes unescaped, one value per run.
/// - Throws: ``CommandError`` (failure) when the value cannot be encoded (a non-finite number):
///   never an empty object in place of the answer.
public func toolJSON<T: Encodable>(_ value: T, pretty: Bool = true) throws(CommandError) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    let data: Data
    do {
        data = try encoder.encode(value)
    } catch {
        throw .failure("the result cannot be written as JSON: \(error)")
    }
    // The exact value, with DEL, C1 and bidirectional controls as \uXXXX escapes: safe on a terminal.
    return TerminalSafeText.escapingInJSON(String(decoding: data, as: UTF8.self)) + "\n"
}
