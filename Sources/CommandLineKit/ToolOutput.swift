import Foundation
import NFCCore

// A tool's files and JSON: errors that name the file, JSON that throws rather than print `{}`.

/// Reads a whole file, or fails with a message that names it.
public func readFileBytes(_ path: String, what: String) throws(CommandError) -> [UInt8] {
    do {
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    } catch {
        throw .failure("cannot read \(what) '\(path)': \(describeFileError(error))")
    }
}

/// Writes a whole file atomically (a reader never sees half of it).
public func writeFileBytes(_ bytes: [UInt8], to path: String) throws(CommandError) {
    do {
        try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        throw .failure("cannot write '\(path)': \(describeFileError(error))")
    }
}

private func describeFileError(_ error: any Error) -> String {
    let ns = error as NSError
    if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
       let message = strerror(Int32(underlying.code)) {
        return String(cString: message)
    }
    if ns.domain == NSCocoaErrorDomain {
        switch ns.code {
        case NSFileReadNoSuchFileError, NSFileNoSuchFileError: return "no such file"
        case NSFileReadNoPermissionError, NSFileWriteNoPermissionError: return "permission denied"
        default: break
        }
    }
    return ns.localizedDescription
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
