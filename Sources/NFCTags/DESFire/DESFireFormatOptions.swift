/// How ``DESFireTag/formatTypeFour(_:)`` formats a DESFire: the PICC master key, the NDEF file
/// size, and whether other applications may stay beside the NDEF one.
///
/// The key never appears in ``description`` or a debugger's dump.
public struct DESFireFormatOptions: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The PICC master key (8-byte DES or 16-byte 2K3DES); the factory key, eight zero bytes,
    /// by default.
    public var piccMasterKey: [UInt8]
    /// The NDEF file's size, length field included; nil: as much as free memory allows (at
    /// most ``DESFire/TypeFourMapping/maximumNDEFFileSize``).
    public var ndefFileSize: Int?
    /// Whether a DESFire holding other applications gets the NDEF application beside them
    /// (they are never deleted); without it such a DESFire is refused, nothing written.
    public var force: Bool

    /// The factory PICC master key: DES, eight zero bytes.
    public static let factoryPICCMasterKey = [UInt8](repeating: 0, count: 8)

    /// Options; by default the factory key, the largest NDEF file, not forced.
    public init(piccMasterKey: [UInt8] = Self.factoryPICCMasterKey, ndefFileSize: Int? = nil, force: Bool = false) {
        self.piccMasterKey = piccMasterKey
        self.ndefFileSize = ndefFileSize
        self.force = force
    }

    /// Says whether the key is the factory one, never the key.
    public var description: String {
        "DESFire format (\(piccMasterKey == Self.factoryPICCMasterKey ? "factory" : "given") PICC master key, NDEF file \(ndefFileSize.map(String.init) ?? "from free memory"))"
    }
    /// As ``description``.
    public var debugDescription: String { description }
    /// No children: a dump shows ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension DESFireFormatOptions {
    /// The longest key file text read: 4 KiB.
    public static let maximumKeyTextLength = 4096

    /// A PICC master key from a key file's text: 16 hex digits (DES) or 32 (2K3DES), spaces,
    /// colons and line breaks between them ignored, lines from `#` on comments.
    /// - Throws: ``DESFireError`` `invalidParameter` naming the line and what is wrong, never
    ///   a digit of the key.
    public static func piccMasterKey(fromText text: String) throws(DESFireError) -> [UInt8] {
        guard text.utf8.count <= maximumKeyTextLength else {
            throw DESFireError(.invalidParameter, "the key file is longer than \(maximumKeyTextLength) bytes")
        }
        var digits: [UInt8] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for character in line.prefix(while: { $0 != "#" }).utf8 {
                switch character {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ":"), UInt8(ascii: "\r"): continue
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(character - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digits.append(character - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digits.append(character - UInt8(ascii: "A") + 10)
                default: throw DESFireError(.invalidParameter, "line \(number + 1) of the key file holds a character that is not a hex digit")
                }
            }
        }
        guard digits.count == 16 || digits.count == 32 else {
            throw DESFireError(.invalidParameter, "the key file holds \(digits.count) hex digits; a DES key has 16, a 2K3DES key 32")
        }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }
}
