/// What a virtual tag remembers between runs, in the form a tag file stores it (JSON):
/// `{"model": "ntag215", "uid": "04…", "memory": "hex…", …}`. Volatile state (authentication,
/// a selected file) is never part of it.
public struct TagState: Codable, Sendable, Hashable {
    /// The model's registry name (``TagModel``): `ntag215`, `type4`.
    public var model: String
    /// The UID, hex.
    public var uid: String
    /// All memory, hex: every page of a Type 2 chip (PWD and PACK included), the NDEF file of a
    /// Type 4 tag.
    public var memory: String
    /// Type 2: the NTAG21x NFC counter, or the three Ultralight EV1 counters.
    public var counters: [UInt32]?
    /// Type 2: the count of wrong passwords since the last right one (AUTHLIM).
    public var authenticationFailures: Int?
    /// Type 4: whether the NDEF file is read-only (write access `FF` in the CC).
    public var readOnly: Bool?
    /// Model-specific state no other field holds (e.g. a FeliCa MAC key, ISO 15693 AFI/DSFID),
    /// as text values under names the model chooses.
    public var attributes: [String: String]?

    /// Creates a state.
    public init(
        model: String, uid: String, memory: String, counters: [UInt32]? = nil,
        authenticationFailures: Int? = nil, readOnly: Bool? = nil, attributes: [String: String]? = nil
    ) {
        self.model = model
        self.uid = uid
        self.memory = memory
        self.counters = counters
        self.authenticationFailures = authenticationFailures
        self.readOnly = readOnly
        self.attributes = attributes
    }
}

/// A virtual tag whose memory can be saved to a tag file and restored from one.
public protocol PersistentVirtualTag: VirtualTag {
    /// What to save now.
    var tagState: TagState { get }
    /// Grows by one each time persistent state changes (a successful write, a counter
    /// increment, a wrong password): a host saves the tag when it differs from what it saved.
    var stateRevision: Int { get }
}

/// A tag that tells re-selection in the field (REQA/WUPA, e.g. after HLTA or a NAK) from
/// entering the field: ``activate()`` resets what selection resets but keeps what lasts while
/// the tag is powered (the NTAG21x "first read since power-on" of the NFC counter). Hosts call it
/// when re-selecting a tag that is already in the field, and ``VirtualTag/powerOn()`` when it
/// enters.
public protocol ActivatableVirtualTag: VirtualTag {
    /// The tag is selected again without leaving the field.
    func activate()
}
