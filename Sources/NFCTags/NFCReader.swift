public import NFCCore

/// The seam every reader implements: libnfc hardware (`LibNFC`) and the in-process simulator
/// (`VirtualTags`) alike. Tag platforms are written against this protocol only.
///
/// A reader is an actor: one owner per device, so commands never interleave. At most one target
/// is selected at a time; ``transceive(_:mode:timeout:)`` talks to it.
public protocol NFCReader: Actor {
    /// A human name: the libnfc device name, or `simulator (ntag215)`.
    var name: String { get }
    /// The connection string that opened it: `pn532_uart:/dev/pts/3`, `sim:ntag215`.
    var connectionString: String { get }
    /// The modulations this reader can poll with.
    var supportedModulations: [Modulation] { get }

    /// Waits up to `timeout` for a tag answering one of `modulations`, selects it and returns
    /// what was learned. ISO-DEP capable type A tags are activated (RATS) so `ats` is filled.
    /// - Returns: `nil` when no tag came within the timeout.
    /// - Throws: ``NFCReaderDeviceError`` `notSupported` for a modulation the reader lacks (named in
    ///   the reason), or a reader failure.
    func poll(for modulations: [Modulation], timeout: Duration) async throws(NFCReaderDeviceError) -> TargetInfo?

    /// Sends `command` to the selected target and returns its answer.
    /// - Throws: ``NFCReaderDeviceError`` `timeout` (no answer), `nak` (a 4-bit NAK, in `detail`),
    ///   `tagLost`, `rfError`.
    func transceive(_ command: Bytes, mode: TransceiveMode, timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes

    /// Sends an ISO 15693 request (without CRC) to whatever chip is in the field, with no poll
    /// or selection first: for a chip that answers no inventory, as an NXP ICODE chip in privacy
    /// mode, which still takes unaddressed GET RANDOM NUMBER and SET PASSWORD (SL2S2602 "Privacy
    /// mode"; Proxmark3 and Flipper leave privacy the same way). The default refuses: a reader
    /// whose firmware polls by itself (PC/SC) reports no card for such a chip and has no place
    /// to send a frame to it.
    /// - Throws: ``NFCReaderDeviceError`` `notSupported` (the reader cannot), `timeout` (nothing
    ///   answered), `closed`.
    func transceiveUnselected(_ frame: Bytes, timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes

    /// Authenticates a MIFARE Classic sector through the reader (the PN532 does Crypto-1 in
    /// firmware): later READ/WRITE of that sector's blocks go through ``transceive(_:mode:timeout:)``.
    /// - Throws: ``NFCReaderDeviceError`` `authenticationFailed` when the tag refuses the key.
    func authenticateClassic(block: UInt8, keyType: ClassicKeyType, key: Bytes, uid: Bytes) async throws(NFCReaderDeviceError)

    /// Whether the selected target still answers (to wait until a tag is taken away).
    func isTargetPresent() async -> Bool

    /// Waits up to `timeout` for the selected target to leave the field.
    ///
    /// Readers that are told when a card comes and goes wait for that event without sending
    /// anything (PC/SC: `SCardGetStatusChange`, which also reports a card swapped for another
    /// in between as removed). The default, for readers that must ask (libnfc, the simulator),
    /// checks ``isTargetPresent()`` every `checkInterval`, the first check after one interval;
    /// event-driven readers ignore `checkInterval`.
    /// - Returns: ``RemovalResult/removed`` as soon as the target is gone (at once when none is
    ///   selected), ``RemovalResult/stillPresent`` when `timeout` passed with it in the field,
    ///   ``RemovalResult/cancelled`` when the task was cancelled or the reader closed meanwhile.
    func waitForRemoval(timeout: Duration, checkInterval: Duration) async -> RemovalResult

    /// Checks, without sending anything, that this reader can carry `command` to the selected
    /// target: a multi-step operation asks before its first irreversible step (e.g. Type 5
    /// lock before it writes the CC), so a reader that cannot do a later step leaves the tag
    /// unchanged. Readers that carry any frame (libnfc, the simulator) keep the default, which
    /// never throws.
    /// - Throws: ``NFCReaderDeviceError`` `notSupported` naming the reader's limit.
    func checkCanSend(_ command: Bytes, mode: TransceiveMode) async throws(NFCReaderDeviceError)

    /// Deselects the current target (HLTA / DESELECT); polling can find it again.
    func deselect() async throws(NFCReaderDeviceError)

    /// Waits up to `timeout` for tags answering one of `modulations` and lists every one in the
    /// field at once, up to `limit` (a PN532 lists ISO 14443-A tags together; other tag types,
    /// one). The first listed is left selected, as ``poll(for:timeout:)`` leaves its tag.
    /// The default polls, so it lists at most one tag.
    /// - Returns: the tags found, in the order the reader took them; empty when none came.
    /// - Throws: as ``poll(for:timeout:)``.
    func listTargets(for modulations: [Modulation], limit: Int, timeout: Duration) async throws(NFCReaderDeviceError) -> [TargetInfo]

    /// Every tag in the field together with `selected`, the tag the last ``poll(for:timeout:)``
    /// found and left selected, up to `limit`, `selected` first, without polling for it again:
    /// what ``tagsInField(with:limit:)`` asks before a write. `selected` is left selected. The
    /// default lists the field with ``listTargets(for:limit:timeout:)`` (which polls again) and
    /// selects `selected` again when the reader took another tag first; readers that can start
    /// from the selected tag do so (libnfc: halt it and list the rest, no second poll, no field
    /// off and on).
    /// - Throws: the reader's ``NFCReaderDeviceError``; `tagLost` when `selected` no longer answers.
    func listTargets(alongside selected: TargetInfo, limit: Int) async throws(NFCReaderDeviceError) -> [TargetInfo]

    /// Whether ``listTargets(for:limit:timeout:)`` can find more than one tag (a PN532 through
    /// libnfc, the simulator). False (the default) for readers that show one card whatever is
    /// in the field (PC/SC: the reader's firmware picks one), where listing would only poll again.
    nonisolated var listsSeveralTargets: Bool { get }

    /// Why the card the last ``poll(for:timeout:)`` saw was not reported as a tag, when the
    /// reader presents one NFCKit does not handle (a PC/SC card name it does not know:
    /// "unsupported card (Topaz) on …"); nil otherwise (the default).
    var unsupportedCardReason: String? { get async }

    /// Selects `target`, one of the tags ``listTargets(for:limit:timeout:)`` listed, so later
    /// commands go to it. The default polls `target`'s modulation and checks the tag found is it.
    /// - Throws: ``NFCReaderDeviceError`` `tagLost` when the tag no longer answers.
    func select(_ target: TargetInfo) async throws(NFCReaderDeviceError)

    /// What the reader can show its operator for ``signal(_:)`` ("the ACR122U's LED and
    /// buzzer, FF 00 40"), or nil when it has nothing NFCKit drives (the default: libnfc's
    /// readers, generic PC/SC readers, the simulator).
    nonisolated var feedback: String? { get }

    /// Shows `outcome` on the reader: a beep and an LED (docs/hardware.md, "Reader feedback").
    /// Sent after the tag's result is recorded; it changes nothing on the tag.
    /// - Returns: false when the reader has no feedback (``feedback`` is nil): nothing was sent.
    /// - Throws: ``NFCReaderDeviceError`` when the reader has feedback but the command failed
    ///   (it refused it, or the card it goes through has left).
    func signal(_ outcome: ReaderSignal) async throws(NFCReaderDeviceError) -> Bool

    /// Closes the reader; every later call fails with ``NFCReaderDeviceError/Code/closed``.
    func close() async
}

/// How ``NFCReader/waitForRemoval(timeout:checkInterval:)`` ended.
public enum RemovalResult: Sendable, Hashable {
    /// The target left the field (or another card took its place).
    case removed
    /// The timeout passed with the target still in the field.
    case stillPresent
    /// The waiting task was cancelled, or the reader closed, before either.
    case cancelled
}

/// How ``NFCReader/transceive(_:mode:timeout:)`` frames a command.
public enum TransceiveMode: Sendable, Hashable {
    /// What the tag type expects: type A commands with CRC added and checked by the reader
    /// (NTAG READ, WRITE…), ISO-DEP APDUs framed in I-blocks by the reader for 14443-4 tags,
    /// FeliCa and ISO 15693 frames with their length/CRC handled by the reader.
    case standard
    /// The bytes as given, without ISO-DEP framing: needed for commands outside the reader's
    /// protocol handling (e.g. NTAG GET_VERSION on a PN532, sent with InCommunicateThru).
    case raw
}

/// Which MIFARE Classic key authenticates.
public enum ClassicKeyType: UInt8, Sendable, Hashable {
    /// Key A: command 0x60.
    case a = 0x60
    /// Key B: command 0x61.
    case b = 0x61
}

extension NFCReader {
    /// Every command can be carried: the default for readers that send any frame.
    public func checkCanSend(_ command: Bytes, mode: TransceiveMode) async throws(NFCReaderDeviceError) {}

    /// Refuses (`notSupported`): the reader sends frames only to a tag its poll found.
    public func transceiveUnselected(_ frame: Bytes, timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes {
        throw NFCReaderDeviceError(
            .notSupported, "\(name) sends frames only to a tag its poll found; a chip that answers no inventory cannot be reached through it")
    }

    /// Checks ``isTargetPresent()`` every `checkInterval` (at least 1 ms; the first check after
    /// one interval) until the target is gone or `timeout` has passed: the default for readers
    /// that are not told when a tag leaves.
    public func waitForRemoval(timeout: Duration, checkInterval: Duration) async -> RemovalResult {
        await waitForRemovalByChecking(timeout: timeout, checkInterval: checkInterval)
    }

    /// ``waitForRemoval(timeout:checkInterval:)`` checking every 100 ms where the reader must ask.
    public func waitForRemoval(timeout: Duration) async -> RemovalResult {
        await waitForRemoval(timeout: timeout, checkInterval: .milliseconds(100))
    }

    /// The default ``waitForRemoval(timeout:checkInterval:)``: ``isTargetPresent()`` every
    /// `checkInterval` (at least 1 ms, a pause first) until the target is gone or `timeout` has
    /// passed. Readers that wrap another pass the wait on instead.
    public func waitForRemovalByChecking(timeout: Duration, checkInterval: Duration) async -> RemovalResult {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            do {
                try await Task.sleep(for: max(checkInterval, .milliseconds(1)))
            } catch {
                return .cancelled
            }
            guard await isTargetPresent() else { return .removed }
            if clock.now >= deadline { return .stillPresent }
            if Task.isCancelled { return .cancelled }
        }
    }

    /// Nil: the reader reports every card it can handle as a tag.
    public var unsupportedCardReason: String? { get async { nil } }

    /// Nil: no feedback NFCKit drives.
    public nonisolated var feedback: String? { nil }

    /// False: no feedback, nothing sent.
    public func signal(_ outcome: ReaderSignal) async throws(NFCReaderDeviceError) -> Bool { false }

    /// False: the reader shows one tag at a time.
    public nonisolated var listsSeveralTargets: Bool { false }

    /// One tag: what ``poll(for:timeout:)`` finds.
    public func listTargets(for modulations: [Modulation], limit: Int, timeout: Duration) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        guard limit > 0, let found = try await poll(for: modulations, timeout: timeout) else { return [] }
        return [found]
    }

    /// Lists the field with ``listTargets(for:limit:timeout:)`` (a poll of `selected`'s
    /// modulation, up to 500 ms) and selects `selected` again when the reader took another tag
    /// first: every listed tag but `selected` itself (once; a second tag with the same UID
    /// counts) follows it.
    public func listTargets(alongside selected: TargetInfo, limit: Int) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        let listed = try await listTargets(for: [selected.modulation], limit: limit, timeout: .milliseconds(500))
        var others = listed
        if let index = others.firstIndex(where: { $0.identifier == selected.identifier }) { others.remove(at: index) }
        if listed.first?.identifier != selected.identifier {
            // The reader took another tag first (or lost this one): commands go to `selected`.
            try await select(selected)
        }
        return Array(([selected] + others).prefix(max(limit, 1)))
    }

    /// Polls `target`'s modulation briefly and checks that the tag selected is `target`.
    public func select(_ target: TargetInfo) async throws(NFCReaderDeviceError) {
        let found = try await poll(for: [target.modulation], timeout: .milliseconds(500))
        guard let found, found.identifier == target.identifier else {
            throw NFCReaderDeviceError(.tagLost, "the tag \(target.identifier) no longer answers")
        }
    }

    /// ``transceive(_:mode:timeout:)`` with the standard framing and a 1-second timeout.
    public func transceive(_ command: Bytes) async throws(NFCReaderDeviceError) -> Bytes {
        try await transceive(command, mode: .standard, timeout: .seconds(1))
    }
}
