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
    public private(set) var registers = PN532RegisterFile()
    /// The flags of the last SetParameters (UM0701 §7.2.9); after reset fAutomaticATR_RES
    /// (`04`) and fAutomaticRATS (`10`) are set.
    public private(set) var parameters: UInt8 = 0x14
    /// RFConfiguration item 5, MxRtyPassiveActivation: 0xFF retries for ever (UM0701 §7.3.1).
    public private(set) var passiveActivationRetries: UInt8 = PN532Chip.retryForever
    /// Whether the RF field is on (RFConfiguration item 1, or switched on by a poll).
    public private(set) var isFieldOn = false
    /// Whether the host put the chip into power down (PowerDown, UM0701 §7.2.11).
    public private(set) var isPoweredDown = false
    /// The delay model used for ``responseDelay``.
    public var delayModel: PN532DelayModel

    /// How long the last command's answer should take, per ``delayModel`` (tag side only; the
    /// host adds the link time).
    public private(set) var responseDelay: Duration = .zero

    private struct ActiveTarget {
        enum Kind { case typeA(isoDEP: Bool), felica, typeB(cid: UInt8?), jewel }
        let tag: any VirtualTag
        let kind: Kind
        let generation: Int
        var deselected = false
    }

    private enum Pending {
        case poll([UInt8], giveUpAfter: Duration?)
        case waitForInitiator
    }

    private var target: ActiveTarget?
    private var pending: Pending?
    private var lastError: UInt8 = 0
    private var tagHalted = false
    private var blockAdapter = ISODEPBlockAdapter()
    private var outgoingChain: [UInt8] = []
    private var incomingChain: [UInt8] = []

    /// Status bit 6 / Tg bit 6, MI: more information follows (UM0701 §7.3.8).
    static let moreInformation: UInt8 = 0x40
    /// The most DataIn bytes one InDataExchange response carries: the frame's 264 bytes of
    /// packet data less the response code and the status byte.
    static let maximumDataIn = PN532Frame.maximumInformationLength - 3

    /// The next part of a long response: status with MI while more follows (the host asks for
    /// the rest with InDataExchange carrying only Tg, as libnfc's `pn53x_transceive` does).
    private func nextChainedPart() -> [UInt8] {
        let part = Array(incomingChain.prefix(Self.maximumDataIn))
        incomingChain.removeFirst(part.count)
        lastError = PN532Status.success.rawValue
        return [incomingChain.isEmpty ? PN532Status.success.rawValue : Self.moreInformation] + part
    }

    /// Sends a raw type A frame to the tag in the field: through the ISO-DEP block adapter for
    /// models that only answer APDUs, else as is.
    private func exchangeRawTypeA(_ frame: [UInt8]) -> FieldAnswer {
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

    private func execute(_ command: PN532Command, _ p: [UInt8]) -> [UInt8]? {
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

    private func status(_ status: PN532Status) -> [UInt8] {
        lastError = status.rawValue
        return [status.rawValue]
    }

    /// Diagnose (UM0701 §7.2.1): 0x00 communication line test echoes NumTst and the data,
    /// 0x01 ROM and 0x02 RAM tests pass, 0x06 card presence answers the status byte, 0x07
    /// antenna test passes.
    private func diagnose(_ p: [UInt8]) -> [UInt8]? {
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
    private func generalStatus() -> [UInt8] {
        var out: [UInt8] = [lastError, 0x00]
        if let target, !target.deselected {
            let (rate, type): (UInt8, UInt8) = switch target.kind {
            case .typeA, .typeB: (0x00, 0x00)
            case .felica: ((target.tag.targetInfo.modulation == .felica424) ? 0x02 : 0x01, 0x10)
            case .jewel: (0x00, 0x02)
            }
            out += [0x01, 0x01, rate, rate, type]
        } else {
            out.append(0x00)
        }
        out.append(0x00)
        return out
    }

    private func readRegister(_ p: [UInt8]) -> [UInt8]? {
        guard !p.isEmpty, p.count % 2 == 0 else { return nil }
        return stride(from: 0, to: p.count, by: 2).map { registers[UInt16(p[$0]) << 8 | UInt16(p[$0 + 1])] }
    }

    private func writeRegister(_ p: [UInt8]) -> [UInt8]? {
        guard !p.isEmpty, p.count % 3 == 0 else { return nil }
        for i in stride(from: 0, to: p.count, by: 3) {
            let address = UInt16(p[i]) << 8 | UInt16(p[i + 1])
            registers[address] = p[i + 2]
            if address == PN532Register.txControl {
                isFieldOn = p[i + 2] & PN532Register.rfFieldOn != 0
            }
        }
        return []
    }

    /// RFConfiguration (UM0701 §7.3.1): item 1 field, 2 timings, 4 MaxRtyCOM, 5 retries,
    /// 0x0A–0x0D analog settings.
    private func rfConfiguration(_ p: [UInt8]) -> [UInt8]? {
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

    private func switchField(on: Bool) {
        isFieldOn = on
        registers[PN532Register.txControl] = on
            ? registers[PN532Register.txControl] | PN532Register.rfFieldOn
            : registers[PN532Register.txControl] & ~PN532Register.rfFieldOn
        if !on {
            // The tag loses power: whatever was activated is gone.
            target = nil
            tagHalted = false
        }
    }

    // MARK: - Activation

    private func isInField(_ target: ActiveTarget) -> Bool {
        target.generation == field.generation && field.tagInField === target.tag
    }

    /// InListPassiveTarget (UM0701 §7.3.5): MaxTg, BrTy, InitiatorData → NbTg, TargetData.
    private func inListPassiveTarget(_ p: [UInt8]) -> [UInt8]? {
        guard p.count >= 2, (1...2).contains(p[0]),
              let modulation = PN532PassiveModulation(rawValue: p[1]) else { return nil }
        switchField(on: true)
        target = nil
        if let data = activate(modulation, initiatorData: Array(p.dropFirst(2)), automaticRATS: parameters & Self.automaticRATS != 0) {
            return [0x01, 0x01] + data
        }
        if passiveActivationRetries == Self.retryForever {
            pending = .poll([PN532Command.inListPassiveTarget.rawValue] + p, giveUpAfter: nil)
            return nil
        }
        return [0x00]
    }

    /// Activates the tag in the field on `modulation`; returns TargetData after Tg
    /// (UM0701 §7.3.5), or nil when no tag answers.
    private func activate(_ modulation: PN532PassiveModulation, initiatorData: [UInt8], automaticRATS: Bool) -> [UInt8]? {
        guard let tag = field.tagInField else { return nil }
        let data: [UInt8]
        let kind: ActiveTarget.Kind
        switch (modulation, tag.targetInfo) {
        case (.iso14443A106, .iso14443A(let a)):
            let uid = a.uid.array
            if !initiatorData.isEmpty && initiatorData != uid && Self.removingCascadeTags(initiatorData) != uid {
                return nil
            }
            select(tag)
            let atqa = a.atqa.array
            let sensRes: [UInt8] = atqa.count == 2 ? [atqa[1], atqa[0]] : [0x00, 0x00]
            var out = sensRes + [a.sak, UInt8(uid.count)] + uid
            var isoDEP = false
            if automaticRATS, a.supportsISODEP, let dep = tag as? any ISODEPVirtualTag {
                out += dep.ats.isEmpty ? a.ats.array : dep.ats
                isoDEP = true
            }
            data = out
            kind = .typeA(isoDEP: isoDEP)
            responseDelay = delayModel == .datasheet ? .milliseconds(isoDEP ? 5 : 3) : .zero
        case (.felica212, .felica(let f)), (.felica424, .felica(let f)):
            let rate = modulation == .felica212 ? 212 : 424
            guard f.bitRate == rate, initiatorData.count == 5, initiatorData[0] == FeliCaPolling.command else { return nil }
            select(tag)
            let answer: [UInt8]
            // The tag answers the Polling command itself (system code matching is its business);
            // a model that does not model Polling gets an answer from its target information.
            switch tag.respond(to: initiatorData) {
            case .data(let d) where d.first == FeliCaPolling.response && d.count >= 17: answer = d
            case .silence: return nil
            default:
                if let code = f.systemCode {
                    let wanted = (initiatorData[1], initiatorData[2])
                    guard wanted.0 == 0xFF || wanted.0 == UInt8(code >> 8),
                          wanted.1 == 0xFF || wanted.1 == UInt8(code & 0xFF) else { return nil }
                }
                var synthesized = [FeliCaPolling.response] + f.idm.array + f.pmm.array
                if initiatorData[3] == FeliCaPolling.requestSystemCode, let code = f.systemCode {
                    synthesized += [UInt8(code >> 8), UInt8(code & 0xFF)]
                }
                answer = synthesized
            }
            data = [UInt8(answer.count + 1)] + answer
            kind = .felica
        case (.iso14443B106, .iso14443B(let b)):
            // InitiatorData: AFI, and optionally the polling method (UM0701 §7.3.5). AFI 00
            // wakes every card; otherwise the family (high nibble) must match, and the
            // sub-family too unless it is 0 (ISO/IEC 14443-3 §7.9.2).
            guard let afi = initiatorData.first, initiatorData.count <= 2 else { return nil }
            let cardAFI = b.applicationData.first ?? 0
            if afi != 0 {
                guard afi >> 4 == cardAFI >> 4, afi & 0x0F == 0 || afi & 0x0F == cardAFI & 0x0F else { return nil }
            }
            select(tag)
            // TargetData: ATQB (12 bytes), ATTRIB_RES length, ATTRIB_RES (UM0701 §7.3.5; libnfc's
            // pn53x_decode_target_data reads the first ATTRIB_RES byte as the card identifier).
            // ATTRIB_RES byte 1: MBLI 0 (no information) and the CID the card was given, or 0
            // when it does not support CID (ISO/IEC 14443-3 §7.11).
            let cid: UInt8? = b.supportsCID ? Self.typeBCID : nil
            data = [Self.atqbCode] + b.pupi.array + b.applicationData.array + b.protocolInfo.array + [0x01, cid ?? 0x00]
            kind = .typeB(cid: cid)
            responseDelay = delayModel == .datasheet ? .milliseconds(5) : .zero
        case (.jewel106, .jewel(let j)):
            select(tag)
            data = j.sensRes.array + j.id.array
            kind = .jewel
        default:
            return nil
        }
        tagHalted = false
        blockAdapter.reset()
        outgoingChain = []
        incomingChain = []
        registers[PN532Register.status2] &= ~MIFAREExchange.crypto1On
        setFraming(for: modulation)
        target = ActiveTarget(tag: tag, kind: kind, generation: field.generation)
        return data
    }

    /// The firmware sets the CIU's framing and speed for the activated target (TxMode/RxMode
    /// bits 0–1 framing: 00 type A, 10 FeliCa, 11 type B; bits 4–6 speed 106·2^n), keeping
    /// the CRC bits.
    private func setFraming(for modulation: PN532PassiveModulation) {
        let bits: UInt8 = switch modulation {
        case .iso14443A106, .jewel106: 0x00
        case .felica212: 0x12
        case .felica424: 0x22
        case .iso14443B106: 0x03
        }
        for address in [PN532Register.txMode, PN532Register.rxMode] {
            registers[address] = (registers[address] & 0x8C) | bits
        }
    }

    /// Selects a tag that is in the field: ``VirtualTags/ActivatableVirtualTag/activate()``
    /// when the model tells re-selection from power-on (it keeps what lasts while powered),
    /// else ``VirtualTags/VirtualTag/powerOn()``.
    private func select(_ tag: any VirtualTag) {
        if let activatable = tag as? any ActivatableVirtualTag { activatable.activate() } else { tag.powerOn() }
    }

    /// The UID without cascade tags `88` (ISO/IEC 14443-3 §6.5.4), as libnfc may send it.
    static func removingCascadeTags(_ uid: [UInt8]) -> [UInt8] {
        switch uid.count {
        case 8 where uid[0] == ISO14443ACommand.cascadeTag: return Array(uid[1...])
        case 12 where uid[0] == ISO14443ACommand.cascadeTag && uid[4] == ISO14443ACommand.cascadeTag: return Array(uid[1..<4] + uid[5...])
        default: return uid
        }
    }

    /// InAutoPoll (UM0701 §7.3.13): PollNr, Period, Type… → NbTg, [Type, Length, TargetData].
    private func inAutoPoll(_ p: [UInt8]) -> [UInt8]? {
        guard p.count >= 3 else { return nil }
        switchField(on: true)
        target = nil
        for type in p.dropFirst(2) {
            let attempt: (PN532PassiveModulation, [UInt8], Bool)?
            switch type {
            case 0x00, 0x10: attempt = (.iso14443A106, [], false)
            case 0x20: attempt = (.iso14443A106, [], true)
            case 0x01, 0x11: attempt = (.felica212, FeliCaPolling.anySystem, false)
            case 0x02, 0x12: attempt = (.felica424, FeliCaPolling.anySystem, false)
            case 0x03, 0x23: attempt = (.iso14443B106, [0x00], false)
            case 0x04: attempt = (.jewel106, [], false)
            default: attempt = nil
            }
            guard let (modulation, initiatorData, needsISODEP) = attempt else { continue }
            if needsISODEP {
                guard case .iso14443A(let a)? = field.tagInField?.targetInfo, a.supportsISODEP else { continue }
            }
            if let data = activate(modulation, initiatorData: initiatorData, automaticRATS: needsISODEP) {
                let targetData = [0x01] + data
                return [0x01, type, UInt8(targetData.count)] + targetData
            }
        }
        let limit: Duration? = p[0] == Self.retryForever ? nil : .milliseconds(150 * Int(p[0]) * Int(p[1]) * (p.count - 2))
        if limit != .zero {
            pending = .poll([PN532Command.inAutoPoll.rawValue] + p, giveUpAfter: limit)
            return nil
        }
        return [0x00]
    }

    /// InSelect (UM0701 §7.3.12): Tg → Status.
    private func inSelect(_ p: [UInt8]) -> [UInt8]? {
        guard let tg = p.first else { return nil }
        guard tg == 0x01, var target else { return status(.commandNotAcceptable) }
        guard isInField(target) else { return status(.timeout) }
        select(target.tag)
        target.deselected = false
        tagHalted = false
        self.target = target
        return status(.success)
    }

    /// InDeselect (UM0701 §7.3.10): Tg (0 = all) → Status. The tag is halted (HLTA/DESELECT).
    private func inDeselect(_ p: [UInt8]) -> [UInt8]? {
        guard let tg = p.first else { return nil }
        guard tg <= 0x01 else { return status(.commandNotAcceptable) }
        if var target {
            if isInField(target) { target.tag.halt() }
            target.deselected = true
            tagHalted = true
            self.target = target
            // An operator takes the sticker away; the next of the stack comes.
            if field.handsOutOnDeselect, isInField(target) { field.next() }
        }
        return status(.success)
    }

    /// InRelease (UM0701 §7.3.11): Tg (0 = all) → Status. The target's information is dropped;
    /// in target mode it ends the emulation (libnfc's `pn53x_idle` uses it so).
    private func inRelease(_ p: [UInt8]) -> [UInt8]? {
        guard let tg = p.first else { return nil }
        guard tg <= 0x01 else { return status(.commandNotAcceptable) }
        if isActivatedAsTarget {
            externalReader?.interrupt()
            isActivatedAsTarget = false
        }
        if let target, isInField(target) { target.tag.halt() }
        target = nil
        return status(.success)
    }

    // MARK: - Exchanges

    /// InDataExchange (UM0701 §7.3.8): Tg, DataOut → Status, DataIn. The firmware does ISO-DEP
    /// block framing, MIFARE Classic authentication and two-step MIFARE WRITE/value commands.
    private func inDataExchange(_ p: [UInt8]) -> [UInt8]? {
        guard let tg = p.first else { return nil }
        let frame = Array(p.dropFirst())
        guard tg & 0x3F == 0x01, let target, !target.deselected else { return status(.commandNotAcceptable) }
        guard isInField(target), !tagHalted else { return status(.timeout) }
        switch target.kind {
        case .typeA(isoDEP: true):
            return isoDEPExchange(tg: tg, frame)
        case .typeB where target.tag is any ISODEPVirtualTag:
            return isoDEPExchange(tg: tg, frame)
        case .typeA(isoDEP: false):
            return mifareExchange(target.tag, frame)
        case .felica:
            guard frame.count >= 2 else { return status(.invalidParameter) }
            delay(.milliseconds(2))
            return felicaAnswer(field.field.exchange(frame: Array(frame.dropFirst())))
        case .typeB, .jewel:
            return mapped(field.field.exchange(frame: frame))
        }
    }

    /// InDataExchange to an ISO-DEP target, type A or B: the firmware does the block framing;
    /// the host sees APDUs, chained with MI when long (UM0701 §7.3.8).
    private func isoDEPExchange(tg: UInt8, _ frame: [UInt8]) -> [UInt8] {
        if tg & Self.moreInformation != 0 {
            // The host chains a long APDU: keep the part, ask for the next one.
            outgoingChain += frame
            return status(.success)
        }
        if frame.isEmpty, !incomingChain.isEmpty {
            return nextChainedPart()
        }
        let apdu = outgoingChain + frame
        outgoingChain = []
        delay(.milliseconds(5))
        switch field.field.exchange(apdu: apdu) {
        case .apdu(let response):
            incomingChain = response
            return nextChainedPart()
        case .rfError: return status(.crcError)
        default: return status(.timeout)
        }
    }

    /// The status and data InDataExchange returns for a tag's answer: data → 00 and the data,
    /// 4-bit ACK → 00 alone, 4-bit NAK → 13 (invalid received frame: the firmware wanted a
    /// frame or an ACK and got a 4-bit NAK; libnfc's `utils/mifare.c` expects a READ/WRITE
    /// refused after a good selection to come back so, as NFC_ERFTRANS, whereas 14 is what a
    /// refused MIFARE Classic authentication gives), silence or no tag → 01 (time out), an RF error
    /// injected by the field's fault plan → 02 (CRC error).
    private func mapped(_ answer: FieldAnswer) -> [UInt8] {
        switch answer {
        case .frame(.data(let d)): return status(.success) + d
        case .frame(.ack): return status(.success)
        case .frame(.nak): return status(.invalidReceivedFrame)
        case .rfError: return status(.crcError)
        default: return status(.timeout)
        }
    }

    /// A FeliCa answer with its length byte put back in front.
    private func felicaAnswer(_ answer: FieldAnswer) -> [UInt8] {
        switch answer {
        case .frame(.data(let d)): return status(.success) + [UInt8(truncatingIfNeeded: d.count + 1)] + d
        case .rfError: return status(.crcError)
        default: return status(.timeout)
        }
    }

    /// A MIFARE command through the firmware (UM0701 §7.3.8, "MIFARE commands").
    private func mifareExchange(_ tag: any VirtualTag, _ frame: [UInt8]) -> [UInt8] {
        guard let command = frame.first else { return status(.invalidParameter) }
        switch (command, frame.count) {
        case (ClassicKeyType.a.rawValue, MIFAREExchange.authenticationFrameLength),
             (ClassicKeyType.b.rawValue, MIFAREExchange.authenticationFrameLength):
            delay(.milliseconds(2))
            let keyType: ClassicKeyType = command == ClassicKeyType.a.rawValue ? .a : .b
            switch field.field.authenticate(block: frame[1], keyType: keyType, key: Array(frame[2..<8])) {
            case .authenticated(true):
                registers[PN532Register.status2] |= MIFAREExchange.crypto1On
                return status(.success)
            case .rfError:
                return status(.crcError)
            case .noTag:
                return status(.timeout)
            default:
                // A failed authentication leaves the tag halted.
                tag.halt()
                tagHalted = true
                return status(.mifareAuthenticationError)
            }
        case (ClassicCommand.write, 18):
            delay(.milliseconds(5))
            let first = field.field.exchange(frame: Array(frame[0..<2]))
            guard case .frame(.ack) = first else { return mapped(first) }
            return mapped(field.field.exchange(frame: Array(frame[2...])))
        case (ClassicCommand.decrement, 6), (ClassicCommand.increment, 6), (ClassicCommand.restore, 6):
            delay(.milliseconds(2))
            let first = field.field.exchange(frame: Array(frame[0..<2]))
            guard case .frame(.ack) = first else { return mapped(first) }
            _ = field.field.exchange(frame: Array(frame[2...]))
            return status(.success)
        default:
            let isWrite = command == Type2Command.write || command == ClassicCommand.transfer
            delay(.milliseconds(isWrite ? 5 : 1))
            return mapped(exchangeRawTypeA(frame))
        }
    }

    /// InCommunicateThru (UM0701 §7.3.9): DataOut → Status, DataIn, framed per the CIU
    /// registers: TxMode/RxMode CRC enable, BitFraming TxLastBits; RxLastBits of the answer go
    /// to CIU_Control.
    private func inCommunicateThru(_ p: [UInt8]) -> [UInt8]? {
        registers[PN532Register.control] &= ~PN532Register.lastBitsMask
        guard !p.isEmpty, let tag = field.tagInField else { return status(.timeout) }
        let framing = registers[PN532Register.txMode] & 0x03
        let txCRC = registers.isSet(PN532Register.crcEnable, in: PN532Register.txMode)
        let rxCRC = registers.isSet(PN532Register.crcEnable, in: PN532Register.rxMode)
        let txLastBits = registers[PN532Register.bitFraming] & PN532Register.lastBitsMask
        switch tag.targetInfo {
        case .felica:
            guard framing == 0x02, p.count >= 2 else { return status(.timeout) }
            return felicaAnswer(field.field.exchange(frame: Array(p.dropFirst())))
        case .iso14443A(let a):
            guard framing == 0x00 else { return status(.timeout) }
            if txLastBits != 0 {
                // A short frame: REQA (26) or WUPA (52), 7 bits (ISO/IEC 14443-3 §6.3.1).
                guard p.count == 1, txLastBits == ISO14443ACommand.shortFrameBits,
                      p[0] == ISO14443ACommand.reqa || p[0] == ISO14443ACommand.wupa else { return status(.timeout) }
                if p[0] == ISO14443ACommand.reqa && tagHalted { return status(.timeout) }
                if p[0] == ISO14443ACommand.wupa { tagHalted = false }
                select(tag)
                return status(.success) + a.atqa.array
            }
            var frame = p
            if !txCRC && frame.count >= 3 {
                guard ISO14443ACRC.isValid(frame) else { return status(.timeout) }
                frame.removeLast(2)
            }
            if let answer = anticollision(frame, a) {
                return status(.success) + answer
            }
            if frame == ISO14443ACommand.hlta {
                tag.halt()
                tagHalted = true
                return status(.timeout)
            }
            if tagHalted { return status(.timeout) }
            switch exchangeRawTypeA(frame) {
            case .frame(.data(let d)):
                return status(.success) + (rxCRC ? d : ISO14443ACRC.appending(to: d))
            case .frame(.ack):
                return fourBitAnswer(0x0A, rxCRC: rxCRC)
            case .frame(.nak(let code)):
                return fourBitAnswer(code & 0x0F, rxCRC: rxCRC)
            case .rfError:
                return status(.crcError)
            default:
                return status(.timeout)
            }
        case .iso14443B:
            guard framing == 0x03 else { return status(.timeout) }
            // An ISO-DEP card activated by InListPassiveTarget takes blocks; it answers only
            // those carrying the CID it was given (ISO/IEC 14443-4 §7.1.1.2), so other type B
            // discovery frames (B', SRx, CTS, as nfc-list sends them) meet silence, as does a
            // card that was deselected (halted).
            guard let target, isInField(target), !target.deselected, !tagHalted,
                  case .typeB(let cid) = target.kind, let dep = tag as? any ISODEPVirtualTag else { return status(.timeout) }
            if let cid {
                guard p.count >= 2, p[0] & 0x08 != 0, p[1] & 0x0F == cid else { return status(.timeout) }
            }
            switch blockAdapter.respond(to: p, tag: dep, exchange: { field.field.exchange(apdu: $0) }) {
            case .frame(.data(let d)): return status(.success) + d
            case .rfError: return status(.crcError)
            default: return status(.timeout)
            }
        default:
            guard case .frame(.data(let d)) = field.field.exchange(frame: p) else { return status(.timeout) }
            return status(.success) + d
        }
    }

    /// A 4-bit ACK/NAK (ISO/IEC 14443-3 §6.2.4): with RxCRCEn set the CIU finds no CRC and
    /// reports a CRC error (as nfcpy's pn53x driver notes); without, the nibble comes back in
    /// one byte with RxLastBits 4 in CIU_Control.
    private func fourBitAnswer(_ nibble: UInt8, rxCRC: Bool) -> [UInt8] {
        guard !rxCRC else { return status(.crcError) }
        registers[PN532Register.control] = (registers[PN532Register.control] & ~PN532Register.lastBitsMask) | 0x04
        return status(.success) + [nibble]
    }

    /// ANTICOLLISION and SELECT of cascade levels 1–3 (ISO/IEC 14443-3 §6.5.3): the UID part
    /// and BCC, or SAK with CRC per RxMode.
    private func anticollision(_ frame: [UInt8], _ a: ISO14443ATarget) -> [UInt8]? {
        guard frame.count >= 2, let level = ISO14443ACommand.selectCascadeLevels.firstIndex(of: frame[0]) else { return nil }
        let uid = a.uid.array
        let levels = uid.count == 4 ? 1 : uid.count == 7 ? 2 : 3
        guard level < levels else { return nil }
        var part: [UInt8]
        switch (levels, level) {
        case (1, _): part = uid
        case (2, 0): part = [ISO14443ACommand.cascadeTag] + uid[0..<3]
        case (2, _): part = Array(uid[3..<7])
        case (3, 0): part = [ISO14443ACommand.cascadeTag] + uid[0..<3]
        case (3, 1): part = [ISO14443ACommand.cascadeTag] + uid[3..<6]
        default: part = Array(uid[6..<10])
        }
        let bcc = part.reduce(0, ^)
        if frame[1] == ISO14443ACommand.anticollisionNVB { return part + [bcc] }
        guard frame[1] == ISO14443ACommand.selectNVB, frame.count == 7, Array(frame[2..<7]) == part + [bcc] else { return nil }
        let sak: UInt8 = level == levels - 1 ? a.sak : ISO14443ACommand.sakUIDIncomplete
        let rxCRC = registers.isSet(PN532Register.crcEnable, in: PN532Register.rxMode)
        return rxCRC ? [sak] : ISO14443ACRC.appending(to: [sak])
    }

    // MARK: - Target mode

    /// TgInitAsTarget Mode bit 2, PICCOnly: answer only as an ISO/IEC 14443-4 PICC
    /// (UM0701 §7.3.14).
    static let piccOnly: UInt8 = 0x04
    /// SetParameters bit 5, fISO14443-4_PICC: the firmware handles ISO/IEC 14443-4 (RATS,
    /// blocks) in target mode (UM0701 §7.2.9).
    static let iso14443_4PICC: UInt8 = 0x20
    /// The mode byte TgInitAsTarget answers for a 106 kbps type A activation as an ISO/IEC
    /// 14443-4 PICC: baud rate bits 4–6 `000`, bit 3 ISO/IEC 14443-4 PICC, framing `00`
    /// (UM0701 §7.3.14).
    static let activatedPICCMode: UInt8 = 0x08
    /// The first command of the external reader once it selected the target: RATS `E0`, FSDI 8
    /// (256 bytes), CID 0 (ISO/IEC 14443-4 §5.6.1). The firmware answers it itself in PICC mode.
    static let rats: [UInt8] = [0xE0, 0x80]

    /// The virtual external reader that comes when the host enters target mode
    /// (`--external-reader`); with none, TgInitAsTarget waits until the host aborts it.
    public var externalReader: ExternalReader?
    /// Whether an external reader activated the chip as a target and has not released it.
    public private(set) var isActivatedAsTarget = false

    /// TgInitAsTarget (UM0701 §7.3.14): Mode, MifareParams (SENS_RES 2, NFCID1t 3, SEL_RES 1),
    /// FeliCaParams (18), NFCID3t (10), LenGt, Gt, LenTk, Tk → Mode, InitiatorCommand.
    private func tgInitAsTarget(_ p: [UInt8]) -> [UInt8]? {
        guard p.count >= 37 else { return nil }
        let generalBytes = Int(p[35])
        guard p.count >= 37 + generalBytes, p.count == 37 + generalBytes + Int(p[36 + generalBytes]) else { return nil }
        switchField(on: false)
        isActivatedAsTarget = false
        guard let reader = externalReader, !reader.hasCome else {
            // No initiator comes: the chip waits until the host aborts.
            pending = .waitForInitiator
            return nil
        }
        // The PN532 hard-wires the first UID byte to 08 (a random UID, ISO/IEC 14443-3 §6.5.4).
        let uid = [0x08] + Array(p[3...5])
        let sak = p[6]
        guard p[0] & Self.piccOnly != 0, parameters & Self.iso14443_4PICC != 0, sak & 0x20 != 0 else {
            reader.reject("the target is not an ISO/IEC 14443-4 PICC (mode \(TraceLog.hex([p[0]])), parameters \(TraceLog.hex([parameters])), SAK \(TraceLog.hex([sak])))")
            pending = .waitForInitiator
            return nil
        }
        reader.activate(uid: uid, atqa: [p[1], p[2]], sak: sak)
        isActivatedAsTarget = true
        lastError = PN532Status.success.rawValue
        return [Self.activatedPICCMode] + Self.rats
    }

    /// TgGetData (UM0701 §7.3.16): → Status, DataIn: the external reader's next C-APDU, or
    /// status 29 (released) once it left the field.
    private func tgGetData(_ p: [UInt8]) -> [UInt8]? {
        guard p.isEmpty else { return nil }
        guard isActivatedAsTarget, let reader = externalReader else { return status(.commandNotAcceptable) }
        guard let command = reader.nextCommand() else {
            isActivatedAsTarget = false
            return status(.targetReleased)
        }
        delay(.milliseconds(5))
        return status(.success) + command
    }

    /// TgSetData (UM0701 §7.3.17): DataOut → Status: the host's R-APDU goes to the reader.
    private func tgSetData(_ p: [UInt8]) -> [UInt8]? {
        guard isActivatedAsTarget, let reader = externalReader else { return status(.targetReleased) }
        reader.receive(p)
        return status(.success)
    }

    private func delay(_ tagTime: Duration) {
        if delayModel == .datasheet { responseDelay += tagTime }
    }
}
