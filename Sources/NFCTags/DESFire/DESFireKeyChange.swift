/// What ``DESFireTag/changeKeys(_:)`` changes on a DESFire formatted as NXP AN11004 describes:
/// the PICC master key and/or the NDEF application's key 0, from the keys they hold now.
///
/// The keys never appear in ``description`` or a debugger's dump.
public struct DESFireKeyChange: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The PICC master key the chip holds now; the factory DES key by default.
    public var currentPICCKey: DESFireKey
    /// The NDEF application's key 0 the chip holds now; the factory DES key by default.
    public var currentApplicationKey: DESFireKey
    /// The new PICC master key (any type: ChangeKey at the PICC level carries the type), or nil
    /// to leave it.
    public var newPICCKey: DESFireKey?
    /// The new key 0 of the NDEF application, or nil to leave it. Its type must be of the
    /// application's key family (DES and 2K3DES share one): an application's key type is fixed
    /// when it is created (libfreefare's `mifare_desfire_change_key` says the same).
    public var newApplicationKey: DESFireKey?
    /// The new PICC master key's version (AES: the version byte ChangeKey carries; the DES
    /// family: the parity bits, ``DESFireKey/withVersion(_:)``); nil keeps the key as given.
    public var piccKeyVersion: UInt8?
    /// The new application key's version, as ``piccKeyVersion``.
    public var applicationKeyVersion: UInt8?
    /// Whether a write plan (`--plan`) answers the writes (``DESFireEV1Session/plannedWrites``);
    /// the confirming authentications with the new keys are then left out.
    public var planning = false

    /// A change; by default from the factory keys, nothing asked.
    public init(
        currentPICCKey: DESFireKey = .factoryDES, currentApplicationKey: DESFireKey = .factoryDES,
        newPICCKey: DESFireKey? = nil, newApplicationKey: DESFireKey? = nil, piccKeyVersion: UInt8? = nil, applicationKeyVersion: UInt8? = nil
    ) {
        self.currentPICCKey = currentPICCKey
        self.currentApplicationKey = currentApplicationKey
        self.newPICCKey = newPICCKey
        self.newApplicationKey = newApplicationKey
        self.piccKeyVersion = piccKeyVersion
        self.applicationKeyVersion = applicationKeyVersion
    }

    /// Names the roles and types, never a key.
    public var description: String {
        func name(_ key: DESFireKey?) -> String { key.map { "to \($0.type.rawValue.uppercased())" } ?? "unchanged" }
        return "DESFireKeyChange(PICC master key \(name(newPICCKey)), application key \(name(newApplicationKey)))"
    }
    /// As ``description``.
    public var debugDescription: String { description }
    /// No children: a dump shows ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// What became of each key.
    public enum Step: String, Sendable, Hashable, Codable {
        /// Not asked for.
        case unchanged
        /// Changed by this run.
        case changed
        /// The chip refused the current key and took the new one: an earlier run (cut after its
        /// ChangeKey) had changed it already.
        case alreadyChanged = "already-changed"
    }

    /// What ``DESFireTag/changeKeys(_:)`` did.
    public struct Outcome: Sendable, Hashable {
        /// The NDEF application's key 0.
        public var application: Step
        /// The PICC master key.
        public var picc: Step

        /// An outcome.
        public init(application: Step, picc: Step) {
            self.application = application
            self.picc = picc
        }
    }
}

extension DESFireKey {
    /// The key with its version set as the DESFire keeps a DES-family key's version: in the
    /// least significant (parity) bit of its first eight bytes, version bit 7 in byte 0 (a
    /// DES key doubled keeps equal halves; a 2K3DES key's second half takes the inverted bits, so
    /// it never turns into a DES key), as libfreefare's `mifare_desfire_key_set_version` sets it.
    /// An AES key is returned as it is: ChangeKey carries its version in a byte of its own.
    public func withVersion(_ version: UInt8) -> DESFireKey {
        guard type != .aes else { return self }
        var bytes = self.bytes
        for index in 0..<8 {
            let bit = (version >> (7 - index)) & 1
            bytes[index] = bytes[index] & 0xFE | bit
            if type == .tripleDES2K { bytes[index + 8] = bytes[index + 8] & 0xFE | (bit ^ 1) }
        }
        return (try? DESFireKey(type, bytes)) ?? self
    }

    /// A DES-family key's version as GetKeyVersion answers it: the least significant bits of
    /// its first eight bytes, byte 0's in bit 7 (nil for AES, whose version is stored apart).
    public var parityVersion: UInt8? {
        guard type != .aes else { return nil }
        return (0..<8).reduce(0) { $0 | (bytes[$1] & 1) << (7 - $1) }
    }
}
