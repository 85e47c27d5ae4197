import NFCTags
import VirtualTags

/// What the chip does with one command frame (UM0701-02 §6.2.1, §7).
public enum PN532Reply: Sendable, Hashable {
    /// A response frame `D5` with this packet data, the response code first.
    case response([UInt8])
    /// The error frame: the command is unknown or its parameters are malformed (UM0701 §6.2.1.5).
    case syntaxError
    /// No answer yet: the chip waits (a poll with infinite retries for a tag to come, or
    /// TgInitAsTarget for an initiator). The host's ACK aborts it (UM0701 §6.2.1.3); a
    /// ``PN532Chip/retryPending()`` after the field changed may complete it.
    case pending
}

/// How long the emulated chip takes to answer.
public enum PN532DelayModel: String, Sendable, Hashable, CaseIterable {
    /// Answer at once (the default: fast tests).
    case none
    /// Approximate a real PN532 on HSU at 115 200 baud with tags as their data sheets say:
    /// 87 µs per byte on the host link, NTAG/MIFARE WRITE 5 ms, READ 1 ms, authentication 2 ms,
    /// ISO-DEP APDU 5 ms, activation 3 ms.
    case datasheet
}

/// The PN532 in initiator (reader/writer) mode, hosting virtual tags: a register file, the
/// parameters of SetParameters and RFConfiguration, the activated target, and the command set
/// libnfc's `pn53x`/`pn532_uart` and nfcpy's `pn532` drivers use (UM0701-02 §7).
///
/// Not thread-safe: one host thread owns the chip, its field and its tags.
public final class PN532Chip {
    /// The chip's answer to GetFirmwareVersion: IC `32` (PN532), Ver `01`, Rev `06`, Support
    /// `07` (ISO 14443-A, 14443-B, ISO 18092) (UM0701 §7.2.2).
    public static let firmwareVersion: [UInt8] = [0x32, 0x01, 0x06, 0x07]

    /// SetParameters bit 4, fAutomaticRATS: the chip sends RATS to ISO-DEP type A tags in
    /// InListPassiveTarget (UM0701 §7.2.9).
    public static let automaticRATS: UInt8 = 0x10

    /// RFConfiguration item 5 MxRtyPassiveActivation / InAutoPoll PollNr `FF`: try for ever
    /// (UM0701 §7.3.1, §7.3.13).
    public static let retryForever: UInt8 = 0xFF

    /// FeliCa Polling command code `00` and its response code `01`; request code `01` asks
    /// for the system code (JIS X 6319-4 §11.2.2.5).
    enum FeliCaPolling {
        static let command: UInt8 = 0x00
        static let response: UInt8 = 0x01
        static let requestSystemCode: UInt8 = 0x01
        /// Polling payload of InAutoPoll: any system code, no request, one time slot.
        static let anySystem: [UInt8] = [0x00, 0xFF, 0xFF, 0x00, 0x00]
    }

    /// The first byte of ATQB, `50` (ISO/IEC 14443-3 §7.9).
    static let atqbCode: UInt8 = 0x50
    /// The CID the PN532 gives a type B card in its ATTRIB (libnfc 1.8 `pn53x.c`: "if on
    /// PN532, CID=1"; its presence check sends R(NAK) `BA 01`). A card that supports CID
    /// (protocol info FO bit 0) answers ATTRIB with it and then takes only blocks carrying it.
    static let typeBCID: UInt8 = 0x01

    /// The field with the tags in front of the antenna.
    public let field: TagField
    /// Registers as ReadRegister/WriteRegister see them.
    public internal(set) var registers = PN532RegisterFile()
    /// The flags of the last SetParameters (UM0701 §7.2.9); after reset fAutomaticATR_RES
    /// (`04`) and fAutomaticRATS (`10`) are set.
    public internal(set) var parameters: UInt8 = 0x14
    /// RFConfiguration item 5, MxRtyPassiveActivation: 0xFF retries for ever (UM0701 §7.3.1).
    public internal(set) var passiveActivationRetries: UInt8 = PN532Chip.retryForever
    /// Whether the RF field is on (RFConfiguration item 1, or switched on by a poll).
    public internal(set) var isFieldOn = false
    /// Whether the field was switched off since the last selection: the tags in it lost power.
    var fieldCycledSinceSelection = false
    /// Whether the host put the chip into power down (PowerDown, UM0701 §7.2.11).
    public internal(set) var isPoweredDown = false
    /// The delay model used for ``responseDelay``.
    public var delayModel: PN532DelayModel

    /// How long the last command's answer should take, per ``delayModel`` (tag side only; the
    /// host adds the link time).
    public internal(set) var responseDelay: Duration = .zero

    struct ActiveTarget {
        enum Kind { case typeA(isoDEP: Bool), felica, typeB(cid: UInt8?), jewel }
        let tag: any VirtualTag
        let kind: Kind
        let generation: Int
        var deselected = false
        /// Released by InRelease of its Tg: commands to it are refused until it is listed again.
        var released = false
    }

    enum Pending {
        case poll([UInt8], giveUpAfter: Duration?)
        case waitForInitiator
    }

    /// The targets of the last InListPassiveTarget (or InAutoPoll), Tg 1 first (UM0701 §7.3.5:
    /// up to two).
    var listedTargets: [ActiveTarget] = []
    /// Which of ``listedTargets`` is selected: the one exchanges go to.
    var currentTargetIndex = 0
    /// Tags halted by InDeselect (HLTA / S(DESELECT)) since they last lost power: they do not
    /// answer the REQA of a listing while another tag in the field does.
    var haltedTags: Set<ObjectIdentifier> = []

    /// The selected target; setting it replaces the selected one (or lists it alone), setting
    /// nil forgets every listed target.
    var target: ActiveTarget? {
        get { listedTargets.indices.contains(currentTargetIndex) ? listedTargets[currentTargetIndex] : nil }
        set {
            if let newValue {
                if listedTargets.indices.contains(currentTargetIndex) {
                    listedTargets[currentTargetIndex] = newValue
                } else {
                    listedTargets = [newValue]
                    currentTargetIndex = 0
                }
            } else {
                listedTargets = []
                currentTargetIndex = 0
            }
        }
    }
    var pending: Pending?
    var lastError: UInt8 = 0
    var tagHalted = false
    /// Whether a frame was exchanged with the selected target since its activation: only then
    /// does an InDeselect hand out the next tag of a stack (`--hand-out deselect`). A deselect
    /// right after an activation is libnfc looking for other tags in the field
    /// (`nfc_initiator_list_passive_targets` selects and deselects each): the operator has not
    /// taken that tag away.
    var exchangedSinceActivation = false
    var blockAdapter = ISODEPBlockAdapter()
    var outgoingChain: [UInt8] = []
    var incomingChain: [UInt8] = []

    /// Status bit 6 / Tg bit 6, MI: more information follows (UM0701 §7.3.8).
    static let moreInformation: UInt8 = 0x40
    /// The most DataIn bytes one InDataExchange response carries: the frame's 264 bytes of
    /// packet data less the response code and the status byte.
    static let maximumDataIn = PN532Frame.maximumInformationLength - 3

    /// The next part of a long response: status with MI while more follows (the host asks for
    /// the rest with InDataExchange carrying only Tg, as libnfc's `pn53x_transceive` does).
    func nextChainedPart() -> [UInt8] {
        let part = Array(incomingChain.prefix(Self.maximumDataIn))
        incomingChain.removeFirst(part.count)
        lastError = PN532Status.success.rawValue
        return [incomingChain.isEmpty ? PN532Status.success.rawValue : Self.moreInformation] + part
    }

    /// Sends a raw type A frame to the tag in the field: through the ISO-DEP block adapter for
    /// models that only answer APDUs, else as is.
    func exchangeRawTypeA(_ frame: [UInt8]) -> FieldAnswer {
        if let dep = field.tagInField as? any ISODEPVirtualTag {
            return blockAdapter.respond(to: frame, tag: dep) { field.field.exchange(apdu: $0) }
        }
        return field.field.exchange(frame: frame)
    }

    /// A chip at reset in front of `field`.
    public init(field: TagField, delayModel: PN532DelayModel = .none) {
        self.field = field
        self.delayModel = delayModel
    }

    /// Whether a command waits for a tag or an initiator.
    public var hasPendingCommand: Bool { pending != nil }

    /// Handles one information frame from the host (TFI and packet data, UM0701 §6.2.1.1).
    public func handle(tfi: UInt8, data: [UInt8]) -> PN532Reply {
        guard tfi == PN532Frame.hostToPN532 else { return .syntaxError }
        return handle(data)
    }

    /// Handles one command (packet data, command code first) and returns the chip's answer.
    public func handle(_ data: [UInt8]) -> PN532Reply {
        responseDelay = .zero
        pending = nil
        guard let code = data.first, let command = PN532Command(rawValue: code) else { return .syntaxError }
        isPoweredDown = false
        let parameters = Array(data.dropFirst())
        guard let payload = execute(command, parameters) else {
            return pending == nil ? .syntaxError : .pending
        }
        return .response([command.responseCode] + payload)
    }

    /// The host's ACK aborts the command in progress (UM0701 §6.2.1.3): no response follows.
    public func abortPending() {
        pending = nil
    }

    /// Tries the waiting command again after the field changed; returns its answer when it
    /// completes now.
    public func retryPending() -> PN532Reply? {
        guard case .poll(let data, let limit)? = pending else { return nil }
        let reply = handle(data)
        if case .pending = reply {
            pending = .poll(data, giveUpAfter: limit)
            return nil
        }
        return reply
    }

    /// How long the waiting command polls before it answers "no target": InAutoPoll with a
    /// finite PollNr polls PollNr × Period × 150 ms per type (UM0701 §7.3.13); nil waits for
    /// ever (a tag or the host's ACK ends it).
    public var pendingTimeLimit: Duration? {
        guard case .poll(_, let limit)? = pending else { return nil }
        return limit
    }

    /// The waiting poll ran out of time: it answers that no target was found.
    public func expirePending() -> PN532Reply? {
        guard case .poll(let data, _)? = pending, let code = data.first else { return nil }
        pending = nil
        return .response([code &+ 1, 0x00])
    }

    // MARK: - Command dispatch

    func execute(_ command: PN532Command, _ p: [UInt8]) -> [UInt8]? {
        switch command {
        case .diagnose: return diagnose(p)
        case .getFirmwareVersion: return Self.firmwareVersion
        case .getGeneralStatus: return generalStatus()
        case .readRegister: return readRegister(p)
        case .writeRegister: return writeRegister(p)
        case .readGPIO: return [0x3F, 0x06, 0x00]
        case .writeGPIO: return p.count == 2 ? [] : nil
        case .setSerialBaudRate: return p.count == 1 && p[0] <= 0x08 ? [] : nil
        case .setParameters:
            guard p.count == 1 else { return nil }
            parameters = p[0]
            return []
        case .samConfiguration:
            guard let mode = p.first, (0x01...0x04).contains(mode) else { return nil }
            return []
        case .powerDown:
            guard !p.isEmpty else { return nil }
            switchField(on: false)
            isPoweredDown = true
            return [PN532Status.success.rawValue]
        case .rfConfiguration: return rfConfiguration(p)
        case .inListPassiveTarget: return inListPassiveTarget(p)
        case .inDataExchange: return inDataExchange(p)
        case .inCommunicateThru: return inCommunicateThru(p)
        case .inDeselect: return inDeselect(p)
        case .inRelease: return inRelease(p)
        case .inSelect: return inSelect(p)
        case .inAutoPoll: return inAutoPoll(p)
        case .tgGetTargetStatus: return [isActivatedAsTarget ? 0x01 : 0x00, 0x00]
        case .tgInitAsTarget: return tgInitAsTarget(p)
        case .tgGetData: return tgGetData(p)
        case .tgSetData: return tgSetData(p)
        case .rfRegulationTest, .inJumpForDEP, .inJumpForPSL, .inATR, .inPSL, .tgSetGeneralBytes,
             .tgSetMetaData, .tgGetInitiatorCommand, .tgResponseToInitiator:
            return status(.commandNotAcceptable)
        }
    }

    func status(_ status: PN532Status) -> [UInt8] {
        lastError = status.rawValue
        return [status.rawValue]
    }

    /// Diagnose (UM0701 §7.2.1): 0x00 communication line test echoes NumTst and the data,
    /// 0x01 ROM and 0x02 RAM tests pass, 0x06 card presence answers the status byte, 0x07
    /// antenna test passes.
    func diagnose(_ p: [UInt8]) -> [UInt8]? {
        guard let test = p.first else { return nil }
        switch test {
        case 0x00: return p
        case 0x01, 0x02: return [0x00]
        case 0x06:
            guard let target, isInField(target) else { return status(.timeout) }
            return status(.success)
        case 0x07: return [0x00]
        default: return nil
        }
    }

    /// GetGeneralStatus (UM0701 §7.2.3): Err, Field, NbTg, per target Tg BrRx BrTx Type, SAM.
    func generalStatus() -> [UInt8] {
        var out: [UInt8] = [lastError, 0x00]
        if let target, !target.deselected {
            let (rate, type): (UInt8, UInt8) = switch target.kind {
            case .typeA, .typeB: (0x00, 0x00)
            case .felica: ((target.tag.targetInfo.modulation == .felica424) ? 0x02 : 0x01, 0x10)
            case .jewel: (0x00, 0x02)
            }
            out += [UInt8(listedTargets.count)]
            for (index, _) in listedTargets.enumerated() { out += [UInt8(index + 1), rate, rate, type] }
        } else {
            out.append(0x00)
        }
        out.append(0x00)
        return out
    }

    func readRegister(_ p: [UInt8]) -> [UInt8]? {
        guard !p.isEmpty, p.count % 2 == 0 else { return nil }
        return stride(from: 0, to: p.count, by: 2).map { registers[UInt16(p[$0]) << 8 | UInt16(p[$0 + 1])] }
    }

    func writeRegister(_ p: [UInt8]) -> [UInt8]? {
        guard !p.isEmpty, p.count % 3 == 0 else { return nil }
        for i in stride(from: 0, to: p.count, by: 3) {
            let address = UInt16(p[i]) << 8 | UInt16(p[i + 1])
            registers[address] = p[i + 2]
            if address == PN532Register.txControl {
                isFieldOn = p[i + 2] & PN532Register.rfFieldOn != 0
                if !isFieldOn { fieldCycledSinceSelection = true }
            }
        }
        return []
    }

    /// RFConfiguration (UM0701 §7.3.1): item 1 field, 2 timings, 4 MaxRtyCOM, 5 retries,
    /// 0x0A–0x0D analog settings.
    func rfConfiguration(_ p: [UInt8]) -> [UInt8]? {
        guard let item = p.first else { return nil }
        let values = p.dropFirst()
        switch item {
        case 0x01:
            guard let flags = values.first else { return nil }
            switchField(on: flags & 0x01 != 0)
        case 0x02: guard values.count == 3 else { return nil }
        case 0x04: guard values.count == 1 else { return nil }
        case 0x05:
            guard values.count == 3 else { return nil }
            passiveActivationRetries = p[3]
        case 0x0A: guard values.count == 11 else { return nil }
        case 0x0B: guard values.count == 8 else { return nil }
        case 0x0C: guard values.count == 3 else { return nil }
        case 0x0D: guard values.count == 9 else { return nil }
        default: return nil
        }
        return []
    }

    func switchField(on: Bool) {
        isFieldOn = on
        registers[PN532Register.txControl] = on
            ? registers[PN532Register.txControl] | PN532Register.rfFieldOn
            : registers[PN532Register.txControl] & ~PN532Register.rfFieldOn
        if !on {
            // The tag loses power: whatever was activated is gone.
            target = nil
            tagHalted = false
            haltedTags = []
            fieldCycledSinceSelection = true
        }
    }

    /// The virtual external reader that comes when the host enters target mode
    /// (`--external-reader`); with none, TgInitAsTarget waits until the host aborts it.
    public var externalReader: ExternalReader?
    /// Whether an external reader activated the chip as a target and has not released it.
    public internal(set) var isActivatedAsTarget = false
}
