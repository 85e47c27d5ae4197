import Foundation
import NFCCore

/// Why a template or manifest was refused: a reason and where (a character offset in a template,
/// a line and column in a manifest).
public struct ProvisioningInputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A human explanation.
    public var reason: String
    /// The character offset in a template, or the 1-based line of a manifest.
    public var line: Int?
    /// The 0-based character offset (template) or 1-based column (manifest).
    public var offset: Int?

    /// Creates an error.
    public init(_ reason: String, line: Int? = nil, offset: Int? = nil) {
        self.reason = reason
        self.line = line
        self.offset = offset
    }

    /// `reason (line L, column C)` or `reason (at offset N)`.
    public var description: String {
        switch (line, offset) {
        case let (line?, column?): "\(reason) (line \(line), column \(column))"
        case let (line?, nil): "\(reason) (line \(line))"
        case let (nil, offset?): "\(reason) (at offset \(offset))"
        default: reason
        }
    }
}

/// A text with placeholders filled per tag: `https://ex.io/t/{uid}`.
///
/// Placeholders: `{uid}` (upper-case hex), `{uid:lower}`, `{n}` (the counter), `{n:05}` (zero
/// padded to 5 digits; any width 1…20), `{hmac:KEYFILE}` (HMAC-SHA-256 of the UID bytes under the
/// key in KEYFILE, first 16 hex digits; `{hmac:KEYFILE:N}` for N = 8…64 digits), and `{{` / `}}`
/// for literal braces.
public struct ProvisioningTemplate: Sendable, Hashable {
    /// One piece of the template.
    public enum Segment: Sendable, Hashable {
        /// Text copied as is.
        case literal(String)
        /// The UID in hex.
        case uid(lowercase: Bool)
        /// The counter, zero-padded to `width` digits (0: no padding).
        case counter(width: Int)
        /// The HMAC of the UID, `digits` hex digits.
        case hmac(key: [UInt8], digits: Int)
    }

    /// The pieces, in order.
    public let segments: [Segment]
    /// The template as written.
    public let text: String

    /// Whether `{n}` appears: a counter must be allocated per tag.
    public var usesCounter: Bool {
        segments.contains { if case .counter = $0 { true } else { false } }
    }

    /// Parses `text`; `loadKey` reads a key file (by default its bytes, a trailing newline
    /// dropped).
    /// - Throws: ``ProvisioningInputError`` with the offset of the faulty placeholder.
    public init(_ text: String, loadKey: (String) throws -> [UInt8] = ProvisioningTemplate.readKeyFile) throws(ProvisioningInputError) {
        self.text = text
        var segments: [Segment] = []
        var literal = ""
        let characters = Array(text)
        var i = 0
        while i < characters.count {
            let c = characters[i]
            if c == "{", i + 1 < characters.count, characters[i + 1] == "{" {
                literal.append("{"); i += 2; continue
            }
            if c == "}", i + 1 < characters.count, characters[i + 1] == "}" {
                literal.append("}"); i += 2; continue
            }
            if c == "}" { throw ProvisioningInputError("'}' without '{' (write '}}' for a brace)", offset: i) }
            guard c == "{" else { literal.append(c); i += 1; continue }
            guard let close = characters[(i + 1)...].firstIndex(of: "}") else {
                throw ProvisioningInputError("'{' is never closed", offset: i)
            }
            let body = String(characters[(i + 1)..<close])
            if !literal.isEmpty { segments.append(.literal(literal)); literal = "" }
            segments.append(try Self.placeholder(body, at: i, loadKey: loadKey))
            i = close + 1
        }
        if !literal.isEmpty { segments.append(.literal(literal)) }
        self.segments = segments
    }

    private static func placeholder(_ body: String, at offset: Int, loadKey: (String) throws -> [UInt8]) throws(ProvisioningInputError) -> Segment {
        let parts = body.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        switch parts[0] {
        case "uid":
            if parts.count == 1 { return .uid(lowercase: false) }
            if parts.count == 2, parts[1] == "lower" { return .uid(lowercase: true) }
            if parts.count == 2, parts[1] == "upper" { return .uid(lowercase: false) }
            throw ProvisioningInputError("{uid} takes ':lower' or ':upper', not '\(parts.dropFirst().joined(separator: ":"))'", offset: offset)
        case "n":
            if parts.count == 1 { return .counter(width: 0) }
            guard parts.count == 2, parts[1].hasPrefix("0"), let width = Int(parts[1].dropFirst()), (1...20).contains(width) else {
                throw ProvisioningInputError("{n} takes a width such as ':05' (zero, then 1 to 20)", offset: offset)
            }
            return .counter(width: width)
        case "hmac":
            guard parts.count >= 2, !parts[1].isEmpty else {
                throw ProvisioningInputError("{hmac:KEYFILE} needs a key file", offset: offset)
            }
            var digits = 16
            if parts.count == 3 {
                guard let n = Int(parts[2]), (8...64).contains(n) else {
                    throw ProvisioningInputError("{hmac:KEYFILE:N} takes N from 8 to 64 hex digits", offset: offset)
                }
                digits = n
            }
            let key: [UInt8]
            do {
                key = try loadKey(parts[1])
            } catch {
                throw ProvisioningInputError("cannot read the key file '\(parts[1])': \(error is FileAccessError ? String(describing: error) : error.localizedDescription)", offset: offset)
            }
            guard key.count >= 16 else {
                throw ProvisioningInputError("the key in '\(parts[1])' has \(key.count) bytes; use at least 16", offset: offset)
            }
            return .hmac(key: key, digits: digits)
        default:
            throw ProvisioningInputError("unknown placeholder '{\(body)}' (known: {uid}, {uid:lower}, {n}, {n:05}, {hmac:KEYFILE})", offset: offset)
        }
    }

    /// A template without placeholders: `text` as it is, braces included.
    public init(literal text: String) {
        self.text = text
        self.segments = text.isEmpty ? [] : [.literal(text)]
    }

    /// The most a key file may hold (64 KiB): a key is tens of bytes.
    public static let keyFileLimit = 64 << 10

    /// The default key loader: the file's bytes (at most ``keyFileLimit``), without one
    /// trailing newline.
    /// - Throws: ``FileAccessError`` saying what happened (no such file, a directory, too large).
    public static func readKeyFile(_ path: String) throws -> [UInt8] {
        var bytes = try FileAccess.read(path, limit: keyFileLimit)
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        return bytes
    }

    /// The text for a tag with `uid` and, when the template uses it, `counter`.
    public func render(uid: [UInt8], counter: Int?) -> String {
        var out = ""
        for segment in segments {
            switch segment {
            case .literal(let text): out += text
            case .uid(let lowercase): out += Hex.encode(uid, uppercase: !lowercase)
            case .counter(let width):
                let digits = String(counter ?? 0)
                out += String(repeating: "0", count: max(0, width - digits.count)) + digits
            case .hmac(let key, let digits):
                out += String(Hex.encode(SHA256.hmac(key: key, message: uid)).prefix(digits))
            }
        }
        return out
    }

    /// The longest text a tag can get (UID of `uidLength` bytes, counters up to `maxCounter`),
    /// to check capacity before the first tag.
    public func maximumLength(uidLength: Int, maxCounter: Int) -> Int {
        segments.reduce(0) { total, segment in
            switch segment {
            case .literal(let text): total + text.utf8.count
            case .uid: total + 2 * uidLength
            case .counter(let width): total + max(width, String(maxCounter).count)
            case .hmac(_, let digits): total + digits
            }
        }
    }
}
