public import NFCCore
public import NFCTags

/// A reader driven through libnfc: a PN532 on a serial port, a PN533 or ACR122 on USB, or the
/// PN532 emulator on a pseudo-terminal.
///
/// One actor per open device, running on a thread of its own (libnfc blocks), so libnfc is
/// never entered for this device from two threads at once. Open it with ``open(_:)``.
public actor LibNFCReader: NFCReader {
    /// The reader's thread.
    private let executor: DeviceThreadExecutor
    /// Where this actor's jobs run.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private var device: DeviceHandle?
    private var selected: TargetHandle?
    /// What was selected, for framing: FeliCa frames carry a length byte on the wire.
    private var selectedInfo: TargetInfo?
    /// The UIDs of ISO 14443-A tags this reader halted (HLTA, or S(DESELECT) for ISO-DEP) since
    /// the field was last switched off, and not found since. A halted tag answers no listing
    /// while another tag does, so ``listTargets(alongside:limit:)`` asks for each by its UID:
    /// only this reader halts tags in its field, and a tag that leaves the field loses power
    /// and answers again when it comes back.
    private var haltedUIDs: [Bytes] = []
    /// The libnfc device name, e.g. `pn532_uart:/dev/pts/3` or `ACS / ACR122U PICC Interface`.
    public let name: String
    /// The connection string it was opened with (or libnfc's default device's).
    public let connectionString: String
    /// What libnfc says the device can poll with. Never ISO 15693: libnfc 1.8.0 has no such
    /// modulation.
    public let supportedModulations: [Modulation]

    private init(device: DeviceHandle, connectionString: String, executor: DeviceThreadExecutor) {
        self.device = device
        self.executor = executor
        self.connectionString = connectionString
        self.name = libnfcDeviceGetName(device) ?? connectionString
        var modulations: [Modulation] = []
        for type in libnfcSupportedModulationTypes(device) {
            switch type {
            case .iso14443A: modulations.append(.iso14443A)
            case .iso14443B: modulations.append(.iso14443B)
            case .felica: modulations += [.felica212, .felica424]
            case .jewel: modulations.append(.jewel)
            case .dep, .other: break
            }
        }
        self.supportedModulations = modulations
    }

    /// Opens a reader by libnfc connection string (`pn532_uart:/dev/ttyUSB0`, `pn53x_usb:`,
    /// `acr122_usb:`), or libnfc's default device when `nil`, and puts it in reader mode.
    /// - Throws: ``NFCReaderDeviceError`` `deviceNotFound` when libnfc cannot open it, or the error of
    ///   initializing it.
    public static func open(_ connectionString: String?, context: LibNFCContext = .shared) async throws(NFCReaderDeviceError) -> LibNFCReader {
        let device: DeviceHandle
        do {
            device = try await context.openDevice(connectionString)
        } catch {
            throw NFCReaderDeviceError(.deviceNotFound, error.reason)
        }
        let reader = LibNFCReader(device: device, connectionString: connectionString ?? "default device",
                                  executor: DeviceThreadExecutor(name: "libnfc \(connectionString ?? "default")"))
        // A PN532 on a serial line can miss a frame right after its wake-up, and a busy host can
        // read its answer late: initialization is tried again before the reader is given up.
        var attempt = 1
        while true {
            do throws(NFCReaderDeviceError) {
                try await reader.configure()
                return reader
            } catch where attempt < initializationAttempts && (error.code == .timeout || error.code == .io) {
                attempt += 1
            } catch {
                await reader.close()
                throw error
            }
        }
    }

    /// How often ``open(_:context:)`` tries to put a device in reader mode before it fails.
    public static let initializationAttempts = 3

    /// Initiator mode; selection returns at once when no tag answers; ISO-DEP tags activated.
    private func configure() throws(NFCReaderDeviceError) {
        let device = try openDevice()
        do {
            try libnfcInitiatorInit(device)
            try libnfcSetProperty(device, .infiniteSelect, false)
            try libnfcSetProperty(device, .autoISO14443_4, true)
            try libnfcSetProperty(device, .easyFraming, true)
        } catch {
            throw Self.readerError(error)
        }
    }

    public func poll(for modulations: [Modulation], timeout: Duration) async throws(NFCReaderDeviceError) -> TargetInfo? {
        var device = try openDevice()
        if modulations.contains(.iso15693) && modulations.count == 1 {
            throw NFCReaderDeviceError(.notSupported, "this reader cannot poll ISO 15693: libnfc 1.8.0 has no such modulation")
        }
        let wanted = modulations.filter { $0 != .iso15693 }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        selected = nil
        selectedInfo = nil
        while true {
            for modulation in wanted {
                let attempt: TargetHandle?
                do {
                    switch modulation {
                    case .iso14443A: attempt = try libnfcSelectPassiveTarget(device, .iso14443A, bitRate: 106, initData: [])
                    case .iso14443B: attempt = try libnfcSelectPassiveTarget(device, .iso14443B, bitRate: 106, initData: [0x00])
                    // FeliCa Polling: any system code (FFFF), request code 01 (system code), one slot.
                    case .felica212: attempt = try libnfcSelectPassiveTarget(device, .felica, bitRate: 212, initData: [0x00, 0xFF, 0xFF, 0x01, 0x00])
                    case .felica424: attempt = try libnfcSelectPassiveTarget(device, .felica, bitRate: 424, initData: [0x00, 0xFF, 0xFF, 0x01, 0x00])
                    case .jewel: attempt = try libnfcSelectPassiveTarget(device, .jewel, bitRate: 106, initData: [])
                    case .iso15693: attempt = nil
                    }
                } catch where error.code == .timeout || error.code == .radioFrequencyTransmission {
                    attempt = nil
                } catch {
                    throw Self.readerError(error)
                }
                if let attempt, let info = Self.targetInfo(attempt) {
                    selected = attempt
                    selectedInfo = info
                    noteFound(info)
                    return info
                }
                // No type A tag answered, halted ones included (the firmware wakes halted tags
                // when no other answers, as the emulator models it): none is left halted.
                if modulation == .iso14443A { haltedUIDs = [] }
            }
            if clock.now >= deadline || Task.isCancelled { return nil }
            // Selection returns at once without a tag: wait a little before the next round.
            try? await Task.sleep(for: min(.milliseconds(50), deadline - clock.now))
            // The reader may have been closed while this poll slept: never use a freed device.
            device = try openDevice()
        }
    }

    /// True: a PN532 lists the ISO 14443-A tags in its field.
    public nonisolated var listsSeveralTargets: Bool { true }

    /// Polls as ``poll(for:timeout:)``; when an ISO 14443-A tag answers, switches the field off
    /// and on (tags halted by an earlier deselect answer again, as `nfc_initiator_init` does
    /// before `nfc-list` lists), lists every ISO 14443-A tag in the field through
    /// `nfc_initiator_list_passive_targets` (up to `limit`) and selects the first again by its
    /// UID.
    public func listTargets(for modulations: [Modulation], limit: Int, timeout: Duration) async throws(NFCReaderDeviceError)
        -> [TargetInfo]
    {
        guard limit > 0, let first = try await poll(for: modulations, timeout: timeout) else { return [] }
        guard limit > 1, case .iso14443A = first else { return [first] }
        let device = try openDevice()
        let handles: [TargetHandle]
        selected = nil
        selectedInfo = nil
        do {
            try libnfcSetProperty(device, .activateField, false)
            haltedUIDs = []
            try libnfcSetProperty(device, .activateField, true)
            handles = try libnfcListPassiveTargets(device, .iso14443A, bitRate: 106, limit: limit)
        } catch {
            throw Self.readerError(error)
        }
        var listed: [TargetInfo] = [first]
        for info in handles.compactMap(Self.targetInfo) where !listed.contains(where: { $0.identifier == info.identifier }) {
            listed.append(info)
        }
        // libnfc's listing halts every tag it lists but the last.
        for info in listed.dropFirst() { noteHalted(info) }
        try await select(first)
        return Array(listed.prefix(limit))
    }

    /// Selects `target` again: an ISO 14443-A tag by its UID (`nfc_initiator_select_passive_target`
    /// with the UID as initiator data), others by polling their modulation.
    public func select(_ target: TargetInfo) async throws(NFCReaderDeviceError) {
        let device = try openDevice()
        guard case .iso14443A(let a) = target else {
            let found = try await poll(for: [target.modulation], timeout: .milliseconds(500))
            guard found?.identifier == target.identifier else {
                throw NFCReaderDeviceError(.tagLost, "the tag \(target.identifier) no longer answers")
            }
            return
        }
        selected = nil
        selectedInfo = nil
        let handle: TargetHandle?
        do {
            handle = try libnfcSelectPassiveTarget(device, .iso14443A, bitRate: 106, initData: a.uid.array)
        } catch where error.code == .timeout || error.code == .radioFrequencyTransmission {
            handle = nil
        } catch {
            throw Self.readerError(error)
        }
        guard let handle, let info = Self.targetInfo(handle), info.identifier == target.identifier else {
            throw NFCReaderDeviceError(.tagLost, "the tag \(target.identifier) no longer answers")
        }
        selected = handle
        selectedInfo = info
        noteFound(info)
    }

    /// Lists the ISO 14443-A tags in the field with `selected`, the tag the last poll selected,
    /// without polling for it again or switching the field off and on: the selected tag is
    /// halted (InDeselect, so that it answers no listing while another tag does); each tag this
    /// reader halted earlier and has not found since is asked for by its UID (one
    /// InListPassiveTarget each, answered at once when it has gone); then the field is listed
    /// one tag at a time (InListPassiveTarget, then InDeselect of what it found) until a tag
    /// already listed answers again (only halted tags were left, and the firmware wakes them)
    /// or `limit` tags are listed. `selected` ends selected, selected again by its UID only when
    /// the last listing found another tag. For one tag that this reader found without halting
    /// anything before: InDeselect and one InListPassiveTarget, which selects it again.
    /// Another target than the selected one, or another modulation, is selected first by UID
    /// (type A) or listed alone.
    public func listTargets(alongside selected: TargetInfo, limit: Int) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        guard limit > 1, case .iso14443A(let wanted) = selected else { return [selected] }
        if self.selected == nil || selectedInfo?.identifier != selected.identifier { try await select(selected) }
        let device = try openDevice()
        var listed: [TargetInfo] = [selected]
        try halt(device)
        // Tags halted earlier, which no listing finds while another answers: by their UIDs.
        for uid in haltedUIDs where uid != wanted.uid && listed.count < limit {
            if let found = try selectTypeA(device, uid: uid.array) {
                listed.append(found)
                try halt(device)
            } else {
                haltedUIDs.removeAll { $0 == uid }
            }
        }
        // Awake tags, one at a time, until a listed tag comes again.
        while listed.count < limit, let found = try selectTypeA(device, uid: []) {
            if listed.contains(where: { $0.identifier == found.identifier }) { break }
            listed.append(found)
            if listed.count < limit { try halt(device) }
        }
        if selectedInfo?.identifier != selected.identifier { try await select(selected) }
        return listed
    }

    /// Selects an ISO 14443-A tag (by `uid`, or any when empty); nil when none answers.
    private func selectTypeA(_ device: DeviceHandle, uid: [UInt8]) throws(NFCReaderDeviceError) -> TargetInfo? {
        self.selected = nil
        selectedInfo = nil
        let handle: TargetHandle?
        do {
            handle = try libnfcSelectPassiveTarget(device, .iso14443A, bitRate: 106, initData: uid)
        } catch where error.code == .timeout || error.code == .radioFrequencyTransmission {
            handle = nil
        } catch {
            throw Self.readerError(error)
        }
        guard let handle, let info = Self.targetInfo(handle) else { return nil }
        self.selected = handle
        selectedInfo = info
        noteFound(info)
        return info
    }

    /// Halts the selected tag (InDeselect) and notes it halted.
    private func halt(_ device: DeviceHandle) throws(NFCReaderDeviceError) {
        let halted = selectedInfo
        self.selected = nil
        selectedInfo = nil
        do { try libnfcDeselect(device) } catch { throw Self.readerError(error) }
        if let halted { noteHalted(halted) }
    }

    /// A type A tag found by a selection is no longer halted.
    private func noteFound(_ info: TargetInfo) {
        if case .iso14443A(let a) = info { haltedUIDs.removeAll { $0 == a.uid } }
    }

    /// A type A tag deselected (HLTA / S(DESELECT)) is halted until it is found again or the
    /// field goes off.
    private func noteHalted(_ info: TargetInfo) {
        if case .iso14443A(let a) = info, !haltedUIDs.contains(a.uid) { haltedUIDs.append(a.uid) }
    }

    public func transceive(_ command: Bytes, mode: TransceiveMode, timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes {
        let device = try openDevice()
        guard selected != nil else { throw NFCReaderDeviceError(.tagLost, "no tag is selected: poll first") }
        let milliseconds = Int32(clamping: max(1, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
        // FeliCa (JIS X 6319-4) frames start with their length byte, which the PN532 leaves to
        // the host: NFCKit's seam carries frames without it, as the chip models do.
        let isFeliCa: Bool
        if case .felica = selectedInfo, mode == .standard { isFeliCa = true } else { isFeliCa = false }
        guard !isFeliCa || command.count < 255 else {
            throw NFCReaderDeviceError(.invalidArgument, "a FeliCa frame holds at most 254 bytes, not \(command.count)")
        }
        let frame = isFeliCa ? [UInt8(command.count + 1)] + command.array : command.array
        let answer: [UInt8]
        do {
            if mode == .raw { try libnfcSetProperty(device, .easyFraming, false) }
            defer { if mode == .raw { try? libnfcSetProperty(device, .easyFraming, true) } }
            answer = try libnfcTransceive(device, frame, timeoutMilliseconds: milliseconds)
        } catch {
            if error.code == .radioFrequencyTransmission, mode == .standard, case .iso14443A(let a)? = selectedInfo, !a.supportsISODEP {
                throw classifyRFFailure(device, a, error)
            }
            throw Self.readerError(error)
        }
        guard isFeliCa else { return Bytes(answer) }
        guard let length = answer.first, Int(length) == answer.count else {
            throw NFCReaderDeviceError(.rfError, "a FeliCa answer whose length byte does not match its \(answer.count) bytes")
        }
        return Bytes(answer.dropFirst())
    }

    /// READ page 0 (`30 00`), libnfc's own presence ping for Ultralight-class tags.
    static let presencePing: [UInt8] = [0x30, 0x00]

    /// Tells what an NFC_ERFTRANS from a MIFARE / Type 2 command was. The PN532 reports a tag's
    /// 4-bit NAK as status 13 (invalid received frame), a lost answer as 01 (time out) or 02
    /// (CRC error), and libnfc 1.8 maps all three to NFC_ERFTRANS without telling which. A
    /// refusing tag goes to IDLE (NTAG21x and MF0ULx1 datasheets, "NAK"; MIFARE Classic after
    /// a refused READ/WRITE), a tag whose answer was lost stays ACTIVE: so READ page 0 answered
    /// means the answer was lost (`rfError`); no answer, but the tag re-selected by its UID
    /// means it refused (`nak`, without the nibble, which the PN532 keeps; the tag is selected
    /// again); neither means it left (`tagLost`).
    private func classifyRFFailure(_ device: DeviceHandle, _ target: ISO14443ATarget, _ error: LibNFCError) -> NFCReaderDeviceError {
        if (try? libnfcTransceive(device, Self.presencePing, timeoutMilliseconds: 100)) != nil {
            return NFCReaderDeviceError(.rfError, error.description)
        }
        if let handle = try? libnfcSelectPassiveTarget(device, .iso14443A, bitRate: 106, initData: target.uid.array),
           case .iso14443A(let again)? = Self.targetInfo(handle), again.uid == target.uid {
            selected = handle
            return NFCReaderDeviceError(.nak, "the tag refused the command (a NAK, which the PN532 reports as an invalid received frame); it was selected again")
        }
        selected = nil
        selectedInfo = nil
        return NFCReaderDeviceError(.tagLost, "the tag no longer answers: \(error.description)")
    }

    public func authenticateClassic(block: UInt8, keyType: ClassicKeyType, key: Bytes, uid: Bytes) async throws(NFCReaderDeviceError) {
        guard key.count == 6 else { throw NFCReaderDeviceError(.invalidArgument, "a MIFARE Classic key is 6 bytes, not \(key.count)") }
        guard uid.count >= 4 else { throw NFCReaderDeviceError(.invalidArgument, "the UID must have at least 4 bytes") }
        let frame = Bytes([keyType.rawValue, block] + key.array + uid.array.suffix(4))
        do {
            _ = try await transceive(frame, mode: .standard, timeout: .seconds(1))
        } catch where error.code != .closed && error.code != .tagLost {
            throw NFCReaderDeviceError(.authenticationFailed, "the tag refused key \(keyType == .a ? "A" : "B") for block \(block): \(error.reason)")
        }
    }

    /// Refuses the Type 1 block commands (READ8, WRITE-E8, WRITE-NE8, RSEG) to a Jewel target:
    /// every libnfc 1.8 driver talks to a PN53x, whose firmware carries only RID, RALL, READ,
    /// WRITE-E and WRITE-NE to Type 1 tags (nfcpy's `clf/pn532.py` drives the chip's
    /// contactless unit register by register for the others, which libnfc does not offer).
    /// - Throws: ``NFCReaderDeviceError`` `notSupported` for those commands.
    public func checkCanSend(_ command: Bytes, mode: TransceiveMode) async throws(NFCReaderDeviceError) {
        guard case .jewel = selectedInfo, let code = command.first, Type1Command.needsDynamicCommandSet(code) else { return }
        throw NFCReaderDeviceError(
            .notSupported, "a PN53x through libnfc carries no Type 1 block command (READ8, WRITE-E8, WRITE-NE8, RSEG)")
    }

    public func isTargetPresent() async -> Bool {
        guard let device, let selected else { return false }
        return libnfcTargetIsPresent(device, selected)
    }

    public func deselect() async throws(NFCReaderDeviceError) {
        try halt(try openDevice())
    }

    public func close() async {
        if let device { libnfcClose(device) }
        device = nil
        selected = nil
        selectedInfo = nil
        haltedUIDs = []
    }

    /// The thread ends with the reader, not at ``close()``: calls after closing must still run
    /// (and fail with ``NFCReaderDeviceError/Code/closed``) rather than wait on a stopped thread.
    deinit {
        if let device { libnfcClose(device) }
        executor.stop()
    }

    /// The reader's chip and firmware as its driver describes them (`PN532 v1.6`): the `chip:`
    /// line of `nfc_device_get_information_about`, which asks a PN53x for its firmware version.
    /// Nil when the reader is closed or the driver says nothing. For a trace's header.
    public func firmware() -> String? {
        guard let device, let information = libnfcDeviceGetInformationAbout(device) else { return nil }
        for line in information.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("chip:") {
                let chip = trimmed.dropFirst("chip:".count).trimmingCharacters(in: .whitespaces)
                return chip.isEmpty ? nil : chip
            }
        }
        return nil
    }

    func openDevice() throws(NFCReaderDeviceError) -> DeviceHandle {
        guard let device else { throw NFCReaderDeviceError(.closed, "the reader \(connectionString) is closed") }
        return device
    }

    /// libnfc's target description as NFCKit's.
    private static func targetInfo(_ handle: TargetHandle) -> TargetInfo? {
        switch libnfcDecodeTarget(handle) {
        case .iso14443A(let atqa, let sak, let uid, let atsWithoutTL):
            // libnfc keeps the ATS without its length byte TL; NFCKit keeps the whole ATS.
            let ats = atsWithoutTL.isEmpty ? [] : [UInt8(atsWithoutTL.count + 1)] + atsWithoutTL
            // libnfc (like the PN532) keeps SENS_RES most significant byte first; NFCKit keeps
            // the bytes in the order they arrive over the air.
            return .iso14443A(ISO14443ATarget(uid: Bytes(uid), atqa: Bytes(atqa.reversed()), sak: sak, ats: Bytes(ats)))
        case .felica(let idm, let pmm, let systemCode, let bitRate):
            let code = systemCode.count == 2 ? UInt16(systemCode[0]) << 8 | UInt16(systemCode[1]) : nil
            return .felica(FeliCaTarget(idm: Bytes(idm), pmm: Bytes(pmm), systemCode: code, bitRate: bitRate))
        case .iso14443B(let pupi, let applicationData, let protocolInfo):
            return .iso14443B(ISO14443BTarget(pupi: Bytes(pupi), applicationData: Bytes(applicationData), protocolInfo: Bytes(protocolInfo)))
        case .jewel(let sensRes, let id):
            return .jewel(JewelTarget(sensRes: Bytes(sensRes), id: Bytes(id)))
        case .other:
            return nil
        }
    }

    /// libnfc's error as the reader seam's.
    static func readerError(_ error: LibNFCError) -> NFCReaderDeviceError {
        let code: NFCReaderDeviceError.Code
        switch error.code {
        case .timeout: code = .timeout
        case .targetReleased: code = .tagLost
        case .radioFrequencyTransmission: code = .rfError
        case .mifareClassicAuthenticationFailed: code = .authenticationFailed
        case .notSupportedByDevice, .notImplemented: code = .notSupported
        case .noSuchDevice: code = .deviceNotFound
        case .invalidArgument: code = .invalidArgument
        case .bufferOverflow: code = .overflow
        case .operationAborted: code = .aborted
        case .chip: code = .chip
        case .inputOutput, .software, .unrecognized: code = .io
        }
        return NFCReaderDeviceError(code, error.description)
    }
}
