public import NFCCore
import NFCCrypto

/// Per-tag NTAG 424 DNA keys diversified from master keys with NXP AN10922 (AES-128), so that a
/// key read out of one sticker opens no other.
///
/// A keys file in this form gives master keys, named after the key with `Master` appended, and
/// the keys every tag shares under their plain names:
///
/// ```
/// key0Master        = 00112233445566778899AABBCCDDEEFF
/// sdmFileReadMaster = 1112131415161718191A1B1C1D1E1F20
/// sdmMetaRead       = 0102030405060708090A0B0C0D0E0F10
/// systemIdentifier  = 4E46434B6974   # optional, 1 to 21 bytes
/// ```
///
/// A tag's key is `AN10922(master, UID ‖ systemIdentifier)` (the 7-byte UID, then the system
/// identifier when given). `key0`, `sdmFileRead`, `key3` and `key4` may be diversified;
/// `sdmMetaRead` may not: a server must decrypt the PICC data with it before it knows which
/// tag (which UID) sent the URL, so it is one key for every tag. The SDMMAC, made with the tag's
/// own SDMFileRead key, is what ties a URL to one tag.
///
/// Keys are never shown: ``description``, ``identifiers`` and errors carry names and
/// fingerprints only.
public struct NTAG424DiversifiedKeys: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The diversification scheme's name, as the ledger records it.
    public static let scheme = "AN10922"
    /// What a master key's name ends with (`key0Master`).
    public static let masterSuffix = "Master"
    /// The keys that may be diversified, in the order they are listed.
    public static let diversifiableNames = ["key0", NTAG424KeyFile.sdmFileReadName, "key3", "key4"]
    /// The keys that may only be shared, in the order they are listed.
    static let sharedOnlyNames = [NTAG424KeyFile.sdmMetaReadName]
    /// Hex digits of a key fingerprint.
    public static let fingerprintLength = 8

    /// How one key of a tag is made, for the ledger: never the key.
    public struct Identifier: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The key's name (`key0`, `sdmFileRead`, `sdmMetaRead`…).
        public var name: String
        /// True when the tag's key is diversified from a master key, false when shared.
        public var diversified: Bool
        /// The fingerprint of the master key (diversified) or of the shared key: see
        /// ``NTAG424DiversifiedKeys/fingerprint(_:)``.
        public var fingerprint: String

        /// `key0 AN10922 master 1A2B3C4D` or `sdmMetaRead shared 5E6F7A8B`.
        public var description: String {
            "\(name) \(diversified ? "\(NTAG424DiversifiedKeys.scheme) master" : "shared") \(fingerprint)"
        }
    }

    /// Master keys by canonical name (`key0`, `sdmFileRead`…).
    private let masters: [String: Bytes]
    /// Shared keys by canonical name.
    private let shared: [String: Bytes]
    /// The system identifier appended to the UID (empty when the file gives none).
    public let systemIdentifier: Bytes

    /// Whether `file` gives any master key (`…Master`): then it is a diversifying keys file.
    public static func isDiversifying(_ file: NTAG424KeyFile) -> Bool {
        file.names.contains { $0.hasSuffix(masterSuffix.lowercased()) }
    }

    /// The master and shared keys of `file`.
    /// - Throws: ``NTAG424Error`` `invalidKey` when the file gives no master key, a master key of a
    ///   key that cannot be diversified (`sdmMetaReadMaster`) or of no known key, both a master
    ///   and a plain key of one name, or the same key value twice (two keys diversified from one
    ///   master would be equal on every tag). The reason names entries, never digits.
    public init(_ file: NTAG424KeyFile) throws(NTAG424Error) {
        var masters: [String: Bytes] = [:]
        var shared: [String: Bytes] = [:]
        let canonical = Dictionary(uniqueKeysWithValues: (Self.diversifiableNames + Self.sharedOnlyNames).map { ($0.lowercased(), $0) })
        for name in file.names {
            guard let key = file.key(name) else { continue }
            if name.hasSuffix(Self.masterSuffix.lowercased()) {
                let base = String(name.dropLast(Self.masterSuffix.count))
                if Self.sharedOnlyNames.contains(where: { $0.lowercased() == base }) {
                    throw NTAG424Error(
                        .invalidKey,
                        "'\(canonical[base] ?? base)\(Self.masterSuffix)': \(canonical[base] ?? base) cannot be diversified (a server needs it to learn the UID); give it as '\(canonical[base] ?? base) = HEX'")
                }
                guard let known = canonical[base] else {
                    throw NTAG424Error(.invalidKey, "'\(base)\(Self.masterSuffix)' is not a key that can be diversified (\(Self.diversifiableNames.map { $0 + Self.masterSuffix }.joined(separator: ", ")))")
                }
                masters[known] = key
            } else {
                shared[canonical[name] ?? name] = key
            }
        }
        guard !masters.isEmpty else { throw NTAG424Error(.invalidKey, "the keys file gives no master key ('key0\(Self.masterSuffix) = HEX', ...)") }
        for name in masters.keys where shared[name] != nil {
            throw NTAG424Error(.invalidKey, "'\(name)' is given both as a key and as '\(name)\(Self.masterSuffix)': give one")
        }
        let values = Array(masters.values) + Array(shared.values)
        guard Set(values).count == values.count else {
            throw NTAG424Error(.invalidKey, "two entries of the keys file hold the same key: each master and shared key must differ")
        }
        self.masters = masters
        self.shared = shared
        systemIdentifier = file.systemIdentifier ?? Bytes()
    }

    /// The names of the diversified keys, in ``diversifiableNames`` order.
    public var diversifiedNames: [String] { Self.diversifiableNames.filter { masters[$0] != nil } }

    /// The AN10922 diversification input M of the tag `uid`: UID ‖ system identifier.
    /// - Throws: ``NTAG424Error`` `invalidLength` for a UID that is not 7 bytes.
    public func input(uid: Bytes) throws(NTAG424Error) -> Bytes {
        guard uid.count == NTAG424SDM.uidLength else {
            throw NTAG424Error(.invalidLength, "a diversification UID has \(NTAG424SDM.uidLength) bytes, got \(uid.count)")
        }
        return AN10922.input(uid: uid, systemIdentifier: systemIdentifier)
    }

    /// The keys file of the tag `uid`: every master key replaced by the tag's diversified key,
    /// the shared keys as they are.
    /// - Throws: ``NTAG424Error`` `invalidLength` for a UID that is not 7 bytes; `crypto`.
    public func keys(forUID uid: Bytes) throws(NTAG424Error) -> NTAG424KeyFile {
        let input = try input(uid: uid)
        var keys = shared
        for (name, master) in masters {
            keys[name] = try SDMCrypto.run { () throws(CryptoError) in try AN10922.diversifyAES128(masterKey: master, input: input) }
        }
        return NTAG424KeyFile(keys: keys)
    }

    /// The SDMMetaRead key every tag shares, nil when the file gives none.
    public var sharedMetaReadKey: Bytes? { shared[NTAG424KeyFile.sdmMetaReadName] }

    /// The SDMFileRead key of the tag `uid` (diversified, or shared when the file gives it plain).
    /// - Throws: ``NTAG424Error`` `invalidKey` when the file gives neither; `invalidLength`; `crypto`.
    public func fileReadKey(forUID uid: Bytes) throws(NTAG424Error) -> Bytes {
        let name = NTAG424KeyFile.sdmFileReadName
        if let key = shared[name] { return key }
        guard masters[name] != nil, let key = try keys(forUID: uid).key(name) else {
            throw NTAG424Error(.invalidKey, "no '\(name)\(Self.masterSuffix)' or '\(name)' key is given")
        }
        return key
    }

    /// Checks a SUN URL made by a tag personalized with keys diversified from these: decrypts the
    /// PICC data with the shared SDMMetaRead key, then checks the SDMMAC with the SDMFileRead key
    /// diversified for the UID it holds.
    /// - Throws: as ``SUNVerifier/verify(url:names:keys:)``; `invalidKey` when the URL mirrors
    ///   no UID (a diversified key needs it).
    public func verify(url: String, names: SUNParameterNames = SUNParameterNames()) throws(NTAG424Error) -> SUNTap {
        try SUNVerifier.verify(url: url, names: names, metaReadKey: sharedMetaReadKey) { picc throws(NTAG424Error) in
            guard let uid = picc.uid else {
                throw NTAG424Error(.invalidKey, "the URL mirrors no UID: a diversified SDMFileRead key cannot be found without it")
            }
            return try fileReadKey(forUID: uid)
        }
    }

    /// A key's fingerprint: the first 8 hex digits (upper case) of its AES-CMAC over a block of
    /// 16 zero bytes, in the manner of a key check value (ANSI X9.24-1's AES KCV uses the same
    /// CMAC). It tells two keys apart and says nothing usable about the key.
    /// - Throws: ``NTAG424Error`` `invalidKey` for a key that is not 16 bytes; `crypto`.
    public static func fingerprint(_ key: Bytes) throws(NTAG424Error) -> String {
        let mac = try SDMCrypto.run { () throws(CryptoError) in try AES128.cmac(key: key, SDMCrypto.zeroBlock) }
        return String(Hex.encode(mac, uppercase: true).prefix(fingerprintLength))
    }

    /// How each key is made (diversified keys first, in ``diversifiableNames`` order, then the
    /// shared ones by name): names and fingerprints, never a key.
    /// - Throws: ``NTAG424Error`` `crypto`.
    public func identifiers() throws(NTAG424Error) -> [Identifier] {
        var out: [Identifier] = []
        for name in diversifiedNames {
            guard let master = masters[name] else { continue }
            out.append(Identifier(name: name, diversified: true, fingerprint: try Self.fingerprint(master)))
        }
        for name in shared.keys.sorted() {
            guard let key = shared[name] else { continue }
            out.append(Identifier(name: name, diversified: false, fingerprint: try Self.fingerprint(key)))
        }
        return out
    }

    /// `NTAG424DiversifiedKeys(AN10922: key0, sdmFileRead; shared: sdmMetaRead)`: names only.
    public var description: String {
        "NTAG424DiversifiedKeys(\(Self.scheme): \(diversifiedNames.joined(separator: ", ")); shared: \(shared.keys.sorted().joined(separator: ", ")))"
    }
    /// As ``description``.
    public var debugDescription: String { description }
    /// No children: `dump` and the debugger show no key bytes.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
