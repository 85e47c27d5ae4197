/// A MIFARE DESFire key: its type and bytes. DES (8 bytes, or 16 with equal halves as the chip
/// stores it), 2K3DES (16), 3K3DES (24) or AES-128 (16), as the EV1 command set knows them.
///
/// The bytes never appear in ``description`` or a debugger's dump.
public struct DESFireKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The cipher a key is for.
    public enum KeyType: String, Sendable, Hashable, CaseIterable {
        /// Single DES (8 bytes).
        case des
        /// Two-key 3DES (16 bytes).
        case tripleDES2K = "2k3des"
        /// Three-key 3DES (24 bytes).
        case tripleDES3K = "3k3des"
        /// AES-128 (16 bytes).
        case aes

        /// The key's length in bytes.
        public var keyLength: Int {
            switch self {
            case .des: 8
            case .tripleDES2K, .aes: 16
            case .tripleDES3K: 24
            }
        }

        /// The cipher's block length: 8 for DES and 3DES, 16 for AES.
        public var blockLength: Int { self == .aes ? 16 : 8 }

        /// RndA and RndB's length in the authentication: 8 for DES / 2K3DES, 16 for 3K3DES and AES.
        public var randomLength: Int { self == .tripleDES3K || self == .aes ? 16 : 8 }

        /// The key-type bits (7–6) of CreateApplication's number-of-keys byte and of ChangeKey's
        /// key number at the PICC level: `00` DES / 2K3DES, `40` 3K3DES, `80` AES.
        public var typeBits: UInt8 {
            switch self {
            case .des, .tripleDES2K: 0x00
            case .tripleDES3K: 0x40
            case .aes: 0x80
            }
        }

        /// The key types a number-of-keys byte's bits 7–6 allow (DES and 2K3DES share `00`);
        /// nil for `C0`.
        public static func family(ofTypeBits bits: UInt8) -> [KeyType]? {
            switch bits & DESFire.KeyCount.keyTypeMask {
            case 0x00: [.des, .tripleDES2K]
            case 0x40: [.tripleDES3K]
            case 0x80: [.aes]
            default: nil
            }
        }
    }

    /// The type.
    public let type: KeyType
    /// The bytes: ``KeyType/keyLength`` of them.
    public let bytes: [UInt8]

    /// A key.
    /// - Throws: ``DESFireError`` `invalidParameter` when `bytes` is not the type's length
    ///   (a DES key may also be 16 bytes with equal halves, kept as its 8).
    public init(_ type: KeyType, _ bytes: [UInt8]) throws(DESFireError) {
        if type == .des, bytes.count == 16, bytes[0..<8] == bytes[8..<16] {
            self.type = type
            self.bytes = Array(bytes[0..<8])
            return
        }
        guard bytes.count == type.keyLength else {
            throw DESFireError(.invalidParameter, "a \(type.rawValue.uppercased()) key has \(type.keyLength) bytes, got \(bytes.count)")
        }
        self.type = type
        self.bytes = bytes
    }

    /// The factory key of a type: all zeros.
    public static func factory(_ type: KeyType) -> DESFireKey {
        // The length is the type's own: this cannot fail.
        (try? DESFireKey(type, [UInt8](repeating: 0, count: type.keyLength))) ?? factoryDES
    }

    /// The factory PICC master key: DES, eight zero bytes.
    public static let factoryDES: DESFireKey = {
        guard let key = try? DESFireKey(.des, [UInt8](repeating: 0, count: 8)) else { preconditionFailure("8 zero bytes are a DES key") }
        return key
    }()

    /// The key as a 3DES cipher takes it: DES doubled to 16 bytes, 2K3DES and 3K3DES as they are
    /// (AES: as it is).
    public var cipherKey: [UInt8] { type == .des ? bytes + bytes : bytes }

    /// The key as ChangeKey sends it: DES as 16 bytes (doubled), the others as they are.
    public var changeKeyBytes: [UInt8] { cipherKey }

    /// Whether this is a DES-family key the legacy Authenticate (`0A`) takes.
    public var isLegacyCapable: Bool { type == .des || type == .tripleDES2K }

    /// Names the type, never the bytes.
    public var description: String { "DESFireKey(\(type.rawValue), redacted)" }
    /// As ``description``.
    public var debugDescription: String { description }
    /// No children: a dump shows ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
