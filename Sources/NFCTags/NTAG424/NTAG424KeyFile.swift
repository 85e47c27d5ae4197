public import NFCCore

/// The keys file of NTAG 424 DNA commands (`sun verify`, and `ntag424 setup`): one key a line,
/// `name = 32 hex digits`; blank lines and lines starting with `#` are ignored; `;` also ends
/// an entry, so the same text fits in one environment variable. Lines end in LF or CRLF.
///
/// ```
/// # SUN keys of the w26 stickers
/// sdmMetaRead = 00000000000000000000000000000000
/// sdmFileRead = 00000000000000000000000000000000
/// ```
///
/// Names are letters and digits (`sdmMetaRead`, `sdmFileRead`, `key0`…`key4`), matched without
/// regard to case. Errors name the entry and never show a key's digits.
///
/// A file may instead give master keys to diversify per tag (`key0Master`, `sdmFileReadMaster`,
/// `key3Master`, `key4Master`) and `systemIdentifier = HEX` (1 to 21 bytes, the AN10922 system
/// identifier): see ``NTAG424DiversifiedKeys``.
public struct NTAG424KeyFile: Sendable, Hashable, CustomStringConvertible {
    /// The name of the SDMMetaReadKey entry.
    public static let sdmMetaReadName = "sdmMetaRead"
    /// The name of the SDMFileReadKey entry.
    public static let sdmFileReadName = "sdmFileRead"

    /// The name of the AN10922 system identifier entry (not a key: 1 to 21 bytes in hex).
    public static let systemIdentifierName = "systemIdentifier"
    /// The most bytes a system identifier may have: AN10922's input is at most 31 bytes, the
    /// UID takes 7 and the application identifier 3.
    public static let maximumSystemIdentifierLength = 21

    /// The keys by lower-cased name.
    private let keys: [String: Bytes]
    /// The `systemIdentifier` entry, nil when absent.
    public let systemIdentifier: Bytes?

    /// The names given, lower-cased, sorted.
    public var names: [String] { keys.keys.sorted() }

    /// Parses a keys file.
    /// - Throws: ``NTAG424Error`` `invalidKey` for an entry that is not `name = 32 hex digits` or a
    ///   name given twice; its offset is the entry's line (1-based; the entry's number when
    ///   entries are split by `;`).
    public init(text: String) throws(NTAG424Error) {
        var keys: [String: Bytes] = [:]
        var systemIdentifier: Bytes?
        var lineNumber = 0
        // Split by Unicode scalars, not Characters: `\r\n` is one Character, so a Character split
        // at `\n` would read a CRLF file as one line (a leading comment then hid every key).
        for scalars in text.unicodeScalars.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == ";" }) {
            lineNumber += 1
            let line = Substring(scalars)
            let entry = line.trimmingCharacters(in: " \t\r")
            if entry.isEmpty || entry.hasPrefix("#") { continue }
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingCharacters(in: " \t")
            guard parts.count == 2, !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw NTAG424Error(.invalidKey, at: lineNumber, "line \(lineNumber) is not 'name = 32 hex digits'")
            }
            let value = parts[1].trimmingCharacters(in: " \t")
            let digits = Array(value.utf8)
            if name.lowercased() == Self.systemIdentifierName.lowercased() {
                let limit = 2 * Self.maximumSystemIdentifierLength
                guard !digits.isEmpty, digits.count <= limit, digits.count % 2 == 0, digits.allSatisfy({ Self.isHexDigit($0) }),
                      let bytes = try? Hex.decode(value) else {
                    throw NTAG424Error(.invalidKey, at: lineNumber, "line \(lineNumber) ('\(name)'): a system identifier is 2 to \(limit) hex digits")
                }
                guard systemIdentifier == nil else { throw NTAG424Error(.invalidKey, at: lineNumber, "line \(lineNumber): '\(name)' is given twice") }
                systemIdentifier = Bytes(bytes)
                continue
            }
            guard digits.count == 32, digits.allSatisfy({ Self.isHexDigit($0) }), let bytes = try? Hex.decode(value) else {
                throw NTAG424Error(.invalidKey, at: lineNumber, "line \(lineNumber) ('\(name)'): a key is 32 hex digits (AES-128)")
            }
            guard keys[name.lowercased()] == nil else {
                throw NTAG424Error(.invalidKey, at: lineNumber, "line \(lineNumber): '\(name)' is given twice")
            }
            keys[name.lowercased()] = Bytes(bytes)
        }
        self.keys = keys
        self.systemIdentifier = systemIdentifier
    }

    /// A key file of these keys (names matched without regard to case), no system identifier.
    init(keys: [String: Bytes]) {
        self.keys = Dictionary(keys.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        systemIdentifier = nil
    }

    /// The key named `name` (any case), nil when absent.
    public func key(_ name: String) -> Bytes? { keys[name.lowercased()] }

    /// The SDM keys the file gives (either may be absent).
    /// - Throws: ``NTAG424Error`` `invalidKey` when the file gives neither.
    public func sdmKeys() throws(NTAG424Error) -> SDMKeys {
        let metaRead = key(Self.sdmMetaReadName), fileRead = key(Self.sdmFileReadName)
        guard metaRead != nil || fileRead != nil else {
            throw NTAG424Error(.invalidKey, "no '\(Self.sdmMetaReadName)' or '\(Self.sdmFileReadName)' key is given")
        }
        return try SDMKeys(metaRead: metaRead, fileRead: fileRead)
    }

    /// The names only: never the keys.
    public var description: String { "NTAG424KeyFile(\(names.joined(separator: ", ")))" }

    private static func isHexDigit(_ character: UInt8) -> Bool {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = self
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
