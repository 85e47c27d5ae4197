public import NFCCore
public import NFCTags

/// The in-process reader over a ``VirtualField``: the embedded default (`--device sim:…`).
/// Behaves as a reader with a tag on it would: polling selects the tag in the field, commands
/// reach it as frames or (ISO-DEP, standard mode) APDUs, and its answers come back the way
/// libnfc reports them.
///
/// A stack of tags is handed out one by one: with ``removesTagOnDeselect`` (the default for
/// stacks of `sim:`), ``deselect()`` takes the current tag away as an operator would, and the
/// next ``poll(for:timeout:)`` presents the next tag.
public actor SimulatedReader: NFCReader {
    /// `simulator (ntag215)`.
    public let name: String
    /// The connection string that made it (`sim:ntag215`).
    public let connectionString: String
    /// All modulations, ISO 15693 included.
    public nonisolated var supportedModulations: [Modulation] { Modulation.allCases }
    /// Whether ``deselect()`` takes the current tag out of the field (so the next poll presents
    /// the next tag of a stack) rather than only halting it.
    public let removesTagOnDeselect: Bool
    /// The longest a poll waits when no tag is in the field (the smaller of this and the poll's
    /// own timeout); `.zero` answers nil at once.
    public let emptyFieldWait: Duration
    /// How ``isTargetPresent()`` answers.
    public let presence: PresenceCheck

    /// How a reader answers a presence check: readers differ, and code waiting for a tag to
    /// leave must cope with each.
    public enum PresenceCheck: Sendable, Hashable {
        /// As a PN532 through libnfc: the selected tag is there and answers; false once it is
        /// deselected (the next poll finds it again).
        case selectedTag
        /// As many PC/SC readers: a card is in the field, deselected or not (the next poll finds
        /// it again at once).
        case anyTag
        /// A reader that cannot tell: always false; only polling finds the tag again.
        case never
    }

    private let field: VirtualField
    /// Polls so far: to check that waiting for a tag does not poll in a busy loop.
    public private(set) var pollCount = 0
    private var isClosed = false
    private var selected = false

    /// A reader over `field`.
    public init(
        field: sending VirtualField, name: String = "simulator", connectionString: String = "sim:",
        removesTagOnDeselect: Bool = false, emptyFieldWait: Duration = .seconds(1), presence: PresenceCheck = .selectedTag
    ) {
        self.field = field
        self.presence = presence
        self.name = name
        self.connectionString = connectionString
        self.removesTagOnDeselect = removesTagOnDeselect
        self.emptyFieldWait = emptyFieldWait
    }

    /// A reader over a new field holding `tags` (the first presented at once).
    public init(
        tags: sending [any VirtualTag], faultPlan: FaultPlan = .none, name: String = "simulator",
        connectionString: String = "sim:", removesTagOnDeselect: Bool = false, emptyFieldWait: Duration = .seconds(1),
        presence: PresenceCheck = .selectedTag
    ) {
        self.init(
            field: VirtualField(tags: tags, faultPlan: faultPlan), name: name, connectionString: connectionString,
            removesTagOnDeselect: removesTagOnDeselect, emptyFieldWait: emptyFieldWait, presence: presence)
    }

    /// Runs `body` on the field inside the actor: to inspect tags, present or remove one, or
    /// change the fault plan.
    public func withField<R: Sendable>(_ body: @Sendable (VirtualField) throws -> R) rethrows -> R {
        try body(field)
    }

    /// Commands sent to tags so far.
    public var commandCount: Int { field.commandCount }

    /// Polls that selected a tag, so far.
    public private(set) var selectingPollCount = 0
    /// Polls that found no tag answering, so far (counted when the poll returns): a test waits
    /// for one ("the watcher has seen the field empty") instead of assuming how long a poll takes.
    public private(set) var emptyPollCount = 0

    /// Presents the next tag if the field is empty (powering it on), selects it (``ActivatableVirtualTag/activate()``,
    /// else ``VirtualTag/powerOn()``), and returns its target information when its modulation is
    /// asked for.
    /// - Returns: nil after up to `timeout` (capped by ``emptyFieldWait``) when the field has no
    ///   tag answering `modulations`.
    /// - Throws: ``NFCReaderDeviceError`` `closed`.
    public func poll(for modulations: [Modulation], timeout: Duration) async throws(NFCReaderDeviceError) -> TargetInfo? {
        try checkOpen()
        pollCount += 1
        if field.currentTag == nil { field.presentNext() }
        // Several tags in the field: anticollision takes the same one each time (the first that
        // came), whichever was selected last.
        if let first = field.tagsInField.first { field.focus(on: first) }
        if let tag = field.currentTag, tag.answersPoll, modulations.contains(tag.targetInfo.modulation)
            || (tag.targetInfo.modulation == .felica212 && modulations.contains(.felica424))
        {
            if let activatable = tag as? any ActivatableVirtualTag { activatable.activate() } else { tag.powerOn() }
            selected = true
            selectingPollCount += 1
            return tag.targetInfo
        }
        selected = false
        let wait = min(timeout, emptyFieldWait)
        if wait > .zero { try? await Task.sleep(for: wait) }
        emptyPollCount += 1
        return nil
    }

    /// True: the field may hold several tags (`sim:A+B`).
    public nonisolated var listsSeveralTargets: Bool { true }

    /// Lists the tags in the field that answer `modulations` (several ISO 14443-A tags
    /// together, as a PN532 does; one of any other type), up to `limit`, and selects the first.
    /// - Returns: empty after up to `timeout` (capped by ``emptyFieldWait``) when none answers.
    /// - Throws: ``NFCReaderDeviceError`` `closed`.
    public func listTargets(for modulations: [Modulation], limit: Int, timeout: Duration) async throws(NFCReaderDeviceError)
        -> [TargetInfo]
    {
        guard let first = try await poll(for: modulations, timeout: timeout) else { return [] }
        guard case .iso14443A = first, let selectedTag = field.currentTag else { return [first] }
        var listed: [TargetInfo] = [first]
        for tag in field.companionTags where listed.count < limit {
            if case .iso14443A = tag.targetInfo, modulations.contains(.iso14443A) { listed.append(tag.targetInfo) }
        }
        field.focus(on: selectedTag)
        return Array(listed.prefix(max(limit, 1)))
    }

    /// The ISO 14443-A tags in the field with `selected`, the tag the last poll selected, up to
    /// `limit`, `selected` first and in the order they came after it, without polling again
    /// (a second tag with the same UID counts); `selected` stays (or is again) selected.
    /// Another modulation lists `selected` alone.
    /// - Throws: ``NFCReaderDeviceError`` `tagLost` when `selected` is no longer in the field,
    ///   `closed`.
    public func listTargets(alongside selected: TargetInfo, limit: Int) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        try checkOpen()
        let inField = field.tagsInField
        guard let tag = inField.first(where: { $0.targetInfo.identifier == selected.identifier }) else { throw lost() }
        guard case .iso14443A = selected else { return [selected] }
        var listed = [selected]
        for other in inField where listed.count < limit && ObjectIdentifier(other) != ObjectIdentifier(tag) {
            if case .iso14443A = other.targetInfo { listed.append(other.targetInfo) }
        }
        if !self.selected || field.currentTag.map(ObjectIdentifier.init) != ObjectIdentifier(tag) { try await select(selected) }
        return listed
    }

    /// Selects the tag of the field whose identifier is `target`'s, so commands go to it.
    /// - Throws: ``NFCReaderDeviceError`` `tagLost` when it is not in the field, `closed`.
    public func select(_ target: TargetInfo) async throws(NFCReaderDeviceError) {
        try checkOpen()
        guard let tag = field.tagsInField.first(where: { $0.targetInfo.identifier == target.identifier }) else { throw lost() }
        field.focus(on: tag)
        if let activatable = tag as? any ActivatableVirtualTag { activatable.activate() } else { tag.powerOn() }
        selected = true
    }

    /// Sends `command` to the selected tag. Standard mode sends APDUs to ISO-DEP tags and frames
    /// to others; raw mode always sends frames. ACK comes back as `0A`.
    /// - Throws: ``NFCReaderDeviceError`` `closed`, `tagLost` (no tag, or it left), `timeout` (the tag
    ///   did not answer), `nak` (NAK nibble in `detail`), `rfError` (fault plan), `io` (a tag
    ///   file could not be saved).
    public func transceive(_ command: Bytes, mode: TransceiveMode, timeout: Duration) async throws(NFCReaderDeviceError)
        -> Bytes
    {
        try checkOpen()
        guard selected, let tag = field.currentTag else { throw lost() }
        let answer: FieldAnswer =
            if mode == .standard, tag is any ISODEPVirtualTag {
                field.exchange(apdu: command.array)
            } else {
                field.exchange(frame: command.array)
            }
        return try delivered(answer)
    }

    /// Sends an ISO 15693 frame to the tag in the field, polled or not (presenting the next one
    /// when the field is empty): how a chip that answers no inventory is reached.
    /// - Throws: ``NFCReaderDeviceError`` `closed`; `timeout` when no ISO 15693 tag is in the
    ///   field or it does not answer; as ``transceive(_:mode:timeout:)`` otherwise.
    public func transceiveUnselected(_ frame: Bytes, timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes {
        try checkOpen()
        if field.currentTag == nil { field.presentNext() }
        guard let tag = field.currentTag, case .iso15693 = tag.targetInfo else {
            throw NFCReaderDeviceError(.timeout, "no ISO 15693 tag answered")
        }
        return try delivered(field.exchange(frame: frame.array))
    }

    /// What the field carried back, as a reader gives it.
    private func delivered(_ answer: FieldAnswer) throws(NFCReaderDeviceError) -> Bytes {
        if let error = field.lastSaveError { throw NFCReaderDeviceError(.io, error.reason) }
        switch answer {
        case .frame(.data(let bytes)), .apdu(let bytes): return Bytes(bytes)
        case .frame(.ack): return Bytes([NTAGAcknowledge.ack])
        case .frame(.nak(let nibble)):
            throw NFCReaderDeviceError(.nak, "the tag answered NAK \(nibble)", detail: nibble)
        case .frame(.silence): throw NFCReaderDeviceError(.timeout, "the tag did not answer")
        case .authenticated: throw NFCReaderDeviceError(.chip, "unexpected answer")
        case .noTag: throw lost()
        case .rfError: throw NFCReaderDeviceError(.rfError, "RF transmission error (injected)")
        }
    }

    /// Authenticates a MIFARE Classic sector of the selected tag.
    /// - Throws: ``NFCReaderDeviceError`` `authenticationFailed` (wrong key, or not a Classic tag),
    ///   `tagLost`, `rfError`, `closed`.
    public func authenticateClassic(block: UInt8, keyType: ClassicKeyType, key: Bytes, uid: Bytes)
        async throws(NFCReaderDeviceError)
    {
        try checkOpen()
        guard selected else { throw lost() }
        switch field.authenticate(block: block, keyType: keyType, key: key.array) {
        case .authenticated(true): return
        case .noTag: throw lost()
        case .rfError: throw NFCReaderDeviceError(.rfError, "RF transmission error (injected)")
        default: throw NFCReaderDeviceError(.authenticationFailed, "the tag refused the key for block \(block)")
        }
    }

    /// Whether the tag is there, as ``presence`` says: by default whether a tag is in the field
    /// and selected.
    public func isTargetPresent() async -> Bool {
        guard !isClosed else { return false }
        switch presence {
        case .selectedTag: return selected && field.isTagPresent
        case .anyTag: return field.isTagPresent
        case .never: return false
        }
    }

    /// Halts the selected tag; with ``removesTagOnDeselect`` also takes it out of the field.
    /// - Throws: ``NFCReaderDeviceError`` `closed`.
    public func deselect() async throws(NFCReaderDeviceError) {
        try checkOpen()
        selected = false
        field.currentTag?.halt()
        if removesTagOnDeselect { field.removeTag() }
    }

    /// Closes the reader; later calls fail with `closed`.
    public func close() async { isClosed = true }

    private func checkOpen() throws(NFCReaderDeviceError) {
        if isClosed { throw NFCReaderDeviceError(.closed, "the simulated reader is closed") }
    }

    private func lost() -> NFCReaderDeviceError {
        selected = false
        return NFCReaderDeviceError(.tagLost, "no tag in the simulated field")
    }
}
