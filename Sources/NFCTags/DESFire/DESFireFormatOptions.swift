/// How ``DESFireTag/formatTypeFour(_:)`` formats a DESFire and ``DESFireTag/lockTypeFour(applicationKey:planning:)``
/// locks it: the PICC master key, the NDEF application's key 0, the NDEF file size, whether
/// other applications may stay beside the NDEF one, and whether a write plan answers the writes.
///
/// The keys never appear in ``description`` or a debugger's dump.
public struct DESFireFormatOptions: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The PICC master key (DES, 2K3DES, 3K3DES or AES); the factory key, DES zeros, by default.
    public var piccKey: DESFireKey
    /// The NDEF application's key 0, which `lock` authenticates with; the factory DES key
    /// AN11004's formatting gives it by default.
    public var applicationKey: DESFireKey
    /// Whether a write plan (`--plan`) answers the writes: EV1 sessions then take its unMACed
    /// `91 00` (``DESFireEV1Session/plannedWrites``).
    public var planning = false
    /// The NDEF file's size, length field included; nil: as much as free memory allows (at
    /// most ``DESFire/TypeFourMapping/maximumNDEFFileSize``).
    public var ndefFileSize: Int?
    /// Whether a DESFire holding other applications gets the NDEF application beside them
    /// (they are never deleted); without it such a DESFire is refused, nothing written.
    public var force: Bool

    /// The factory PICC master key: DES, eight zero bytes.
    public static let factoryPICCMasterKey = [UInt8](repeating: 0, count: 8)

    /// Options; by default the factory keys, the largest NDEF file, not forced.
    public init(piccKey: DESFireKey = .factoryDES, applicationKey: DESFireKey = .factoryDES, ndefFileSize: Int? = nil, force: Bool = false) {
        self.piccKey = piccKey
        self.applicationKey = applicationKey
        self.ndefFileSize = ndefFileSize
        self.force = force
    }

    /// Options with a DES (8 bytes) or 2K3DES (16 bytes) PICC master key; another length is
    /// taken as the factory key.
    public init(piccMasterKey: [UInt8], ndefFileSize: Int? = nil, force: Bool = false) {
        let key = (try? DESFireKey(piccMasterKey.count == 8 ? .des : .tripleDES2K, piccMasterKey)) ?? .factoryDES
        self.init(piccKey: key, ndefFileSize: ndefFileSize, force: force)
    }

    /// The PICC master key's bytes.
    public var piccMasterKey: [UInt8] { piccKey.bytes }

    /// Says whether the keys are the factory ones and their types, never a key.
    public var description: String {
        func name(_ key: DESFireKey) -> String { key == .factoryDES ? "factory" : "given \(key.type.rawValue.uppercased())" }
        return "DESFire format (\(name(piccKey)) PICC master key, \(name(applicationKey)) application key, NDEF file \(ndefFileSize.map(String.init) ?? "from free memory"))"
    }
    /// As ``description``.
    public var debugDescription: String { description }
    /// No children: a dump shows ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension DESFireFormatOptions {
    /// The longest key file text read: 4 KiB.
    public static let maximumKeyTextLength = 4096

    /// The keys of a key file (``keys(fromText:)``): the PICC master key and the NDEF
    /// application's key 0, each when the file names it.
    public struct KeyFile: Sendable, Hashable, CustomStringConvertible {
        /// The PICC master key.
        public var picc: DESFireKey?
        /// The NDEF application's key 0.
        public var application: DESFireKey?
        /// The PICC master key's version (`version N` on its line), when the file gives one.
        public var piccVersion: UInt8?
        /// The application key's version, when the file gives one.
        public var applicationVersion: UInt8?

        /// A key file's keys.
        public init(picc: DESFireKey? = nil, application: DESFireKey? = nil, piccVersion: UInt8? = nil, applicationVersion: UInt8? = nil) {
            self.picc = picc
            self.application = application
            self.piccVersion = piccVersion
            self.applicationVersion = applicationVersion
        }

        /// Names the roles and types, never a key.
        public var description: String {
            "KeyFile(picc: \(picc.map(\.type.rawValue) ?? "none"), application: \(application.map(\.type.rawValue) ?? "none"))"
        }
    }

    /// The keys a key file's text holds. Each key: an optional role (`picc`, the default, or
    /// `application`), an optional type (`des`, `2k3des`, `3k3des`, `aes`) and its hex digits;
    /// words, spaces, colons and line breaks between digits ignored, lines from `#` on
    /// comments. Without a type, 16 digits are DES, 32 2K3DES, 48 3K3DES; AES needs `aes`.
    /// `version N` (decimal, 0 to 255) gives the key's version, for `protect` to set.
    /// A role starts a new key; digits on the lines after it continue it. For example:
    ///
    ///     # PICC master key, then the NDEF application key
    ///     picc aes 00112233445566778899AABBCCDDEEFF
    ///     application aes F0E1D2C3B4A5968778695A4B3C2D1E0F
    ///
    /// - Throws: ``DESFireError`` `invalidParameter` naming the line and what is wrong, never a
    ///   digit of a key.
    public static func keys(fromText text: String) throws(DESFireError) -> KeyFile {
        guard text.utf8.count <= maximumKeyTextLength else {
            throw DESFireError(.invalidParameter, "the key file is longer than \(maximumKeyTextLength) bytes")
        }
        enum Role: String { case picc, application }
        var digits: [Role: [UInt8]] = [:], types: [Role: DESFireKey.KeyType] = [:], seen: [Role] = []
        var versions: [Role: UInt8] = [:], expectsVersion = false
        var role = Role.picc
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.prefix(while: { $0 != "#" })
            for word in content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }) {
                let lower = word.lowercased()
                if expectsVersion {
                    guard word.utf8.count <= 3, word.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let value = UInt8(word) else {
                        throw DESFireError(.invalidParameter, "line \(number + 1) of the key file: 'version' takes a decimal number, 0 to 255")
                    }
                    versions[role] = value
                    expectsVersion = false
                    continue
                }
                if lower == "version" {
                    guard versions[role] == nil else { throw DESFireError(.invalidParameter, "line \(number + 1) of the key file gives the \(role.rawValue) key a second version") }
                    expectsVersion = true
                    continue
                }
                if let named = Role(rawValue: lower) {
                    guard !seen.contains(named) else { throw DESFireError(.invalidParameter, "line \(number + 1) of the key file names the \(lower) key a second time") }
                    role = named
                    seen.append(named)
                    continue
                }
                if let type = DESFireKey.KeyType(rawValue: lower) {
                    guard types[role] == nil else { throw DESFireError(.invalidParameter, "line \(number + 1) of the key file gives the \(role.rawValue) key a second type") }
                    types[role] = type
                    continue
                }
                for character in word.utf8 {
                    switch character {
                    case UInt8(ascii: ":"): continue
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): digits[role, default: []].append(character - UInt8(ascii: "0"))
                    case UInt8(ascii: "a")...UInt8(ascii: "f"): digits[role, default: []].append(character - UInt8(ascii: "a") + 10)
                    case UInt8(ascii: "A")...UInt8(ascii: "F"): digits[role, default: []].append(character - UInt8(ascii: "A") + 10)
                    default:
                        throw DESFireError(.invalidParameter, "line \(number + 1) of the key file holds a word that is neither a role (picc, application), a key type (des, 2k3des, 3k3des, aes), 'version' nor hex digits")
                    }
                }
            }
        }
        func key(_ role: Role) throws(DESFireError) -> DESFireKey? {
            let found = digits[role] ?? []
            guard !found.isEmpty || types[role] != nil || seen.contains(role) else { return nil }
            let type: DESFireKey.KeyType
            if let given = types[role] {
                type = given
            } else {
                switch found.count {
                case 16: type = .des
                case 32: type = .tripleDES2K
                case 48: type = .tripleDES3K
                default:
                    throw DESFireError(.invalidParameter, "the \(role.rawValue) key has \(found.count) hex digits; a DES key has 16, 2K3DES 32, 3K3DES 48, AES 32 (with the word aes)")
                }
            }
            guard found.count == 2 * type.keyLength else {
                throw DESFireError(.invalidParameter, "the \(role.rawValue) key has \(found.count) hex digits; a \(type.rawValue.uppercased()) key has \(2 * type.keyLength)")
            }
            return try DESFireKey(type, stride(from: 0, to: found.count, by: 2).map { found[$0] << 4 | found[$0 + 1] })
        }
        guard !expectsVersion else { throw DESFireError(.invalidParameter, "the key file ends after 'version': a decimal number, 0 to 255, follows it") }
        let file = KeyFile(picc: try key(.picc), application: try key(.application), piccVersion: versions[.picc], applicationVersion: versions[.application])
        guard file.picc != nil || file.application != nil else {
            throw DESFireError(.invalidParameter, "the key file holds no key: 16 hex digits (DES), 32 (2K3DES), 48 (3K3DES), or aes and 32")
        }
        return file
    }

    /// A PICC master key from a key file's text (``keys(fromText:)``): its bytes.
    /// - Throws: ``DESFireError`` `invalidParameter` as ``keys(fromText:)``, and for a file
    ///   that names only the application key.
    public static func piccMasterKey(fromText text: String) throws(DESFireError) -> [UInt8] {
        guard let key = try keys(fromText: text).picc else { throw DESFireError(.invalidParameter, "the key file names no PICC master key") }
        return key.bytes
    }
}
