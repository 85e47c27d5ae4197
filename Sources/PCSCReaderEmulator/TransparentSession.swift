import NFCTags
import VirtualTags
import NFCCore

/// The reader family a ``GenericPart3Reader`` behaves as (the emulator's `--profile`).
public enum EmulatedReaderProfile: String, Sendable, Hashable, CaseIterable {
    /// Only GET DATA, READ BINARY, UPDATE BINARY and ISO-DEP APDUs.
    case generic
    /// Also the PC/SC Part 3 transparent session with ISO 14443-A (layers 3 and 4) and ISO
    /// 15693 layer 3, as the ACS ACR1552U and Identiv uTrust 3700 F have it.
    case transparentSession = "transparent-session"
    /// Also the ACS ACR122U's direct transmit (`FF 00 00 00` + a PN532 command) with
    /// InCommunicateThru; ISO 14443-A only; and its LED and buzzer (`FF 00 40`).
    case acr122u

    /// Whether `FF C2` is answered.
    public var hasTransparentSession: Bool { self == .transparentSession }

    /// Whether the ACR122U's Bi-color LED and Buzzer Control (`FF 00 40`) is answered: the
    /// ACR122U's profile (the transparent-session profile stands for the ACR1552U, which has no
    /// such command in NFCKit's reader profiles).
    public var hasLEDBuzzer: Bool { self == .acr122u }

    /// The switch protocol standards the profile's front end speaks.
    var standards: Set<UInt8> {
        switch self {
        case .transparentSession: [PCSCPart3.TransparentSession.SwitchStandard.iso14443A, PCSCPart3.TransparentSession.SwitchStandard.iso15693]
        default: []
        }
    }
}

/// What a transparent session has been told: open or not, the protocol switched to, the timer.
public struct TransparentSessionState: Sendable, Hashable {
    /// Whether a session was started and not ended.
    public var isOpen = false
    /// The switch protocol object's standard and layer, once given.
    public var standard: UInt8?
    /// The layer switched to.
    public var layer: UInt8?
    /// The last timer object, in microseconds.
    public var timerMicroseconds: UInt32?

    /// A closed session.
    public init() {}
}

extension GenericPart3Reader {
    private typealias TS = PCSCPart3.TransparentSession

    /// `FF C2 00 P2 Lc objects [Le]`: each data object in turn; the answer starts with the
    /// generic error status `C0 03 XX SW1 SW2` (XX the object at fault, from 1; `00 90 00` when
    /// all went well), then what the objects produced, then `90 00`. The first object that fails
    /// stops the APDU. An APDU whose Lc does not fit its length gets `67 00` alone.
    func transparentSession(_ apdu: [UInt8], tag: any VirtualTag) -> [UInt8] {
        guard apdu.count >= 5 else { return Self.sw(PCSCPart3.StatusWord.wrongLength) }
        let lc = Int(apdu[4])
        guard apdu.count == 5 + lc || apdu.count == 6 + lc else { return Self.sw(PCSCPart3.StatusWord.wrongLength) }
        let function = apdu[3]
        guard [TS.Function.manageSession, TS.Function.transparentExchange, TS.Function.switchProtocol].contains(function) else {
            return Self.sw(PCSCPart3.StatusWord.wrongParameter)
        }
        let objects: [PCSCPart3.DataObject]
        do {
            objects = try PCSCPart3.DataObject.parse(Array(apdu[5..<(5 + lc)]))
        } catch {
            return Self.status(0, TS.ErrorStatus.unexpectedLength) + Self.sw(PCSCPart3.StatusWord.success)
        }
        var produced: [UInt8] = []
        for (index, object) in objects.enumerated() {
            let number = UInt8(truncatingIfNeeded: index + 1)
            let outcome = perform(object, function: function, tag: tag)
            switch outcome {
            case .success(let bytes):
                produced += bytes
            case .failure(let failure):
                return Self.status(number, failure.sw) + produced + failure.partial + Self.sw(PCSCPart3.StatusWord.success)
            }
        }
        return Self.status(0, TS.ErrorStatus.success) + produced + Self.sw(PCSCPart3.StatusWord.success)
    }

    /// A data object that failed: its error status and what it produced anyway (a response
    /// status with an error bit).
    struct ObjectFailure: Error {
        var sw: UInt16
        var partial: [UInt8] = []
    }

    private func perform(_ object: PCSCPart3.DataObject, function: UInt8, tag: any VirtualTag) -> Result<[UInt8], ObjectFailure> {
        func fail(_ sw: UInt16) -> Result<[UInt8], ObjectFailure> { .failure(ObjectFailure(sw: sw)) }
        switch (function, object.tag) {
        case (TS.Function.manageSession, TS.Tag.version):
            guard object.value.isEmpty else { return fail(TS.ErrorStatus.unexpectedLength) }
            // Part 3 version 2.02, build 0.
            return .success(PCSCPart3.DataObject(TS.Tag.version, [0x02, 0x02, 0x00]).bytes)
        case (TS.Function.manageSession, TS.Tag.startSession):
            guard object.value.isEmpty else { return fail(TS.ErrorStatus.unexpectedLength) }
            session = TransparentSessionState()
            session.isOpen = true
            return .success([])
        case (TS.Function.manageSession, TS.Tag.endSession):
            guard object.value.isEmpty else { return fail(TS.ErrorStatus.unexpectedLength) }
            session = TransparentSessionState()
            // The reader goes back to its own protocol handling: the card is activated again.
            if let activatable = tag as? any ActivatableVirtualTag { activatable.activate() } else { tag.powerOn() }
            return .success([])
        case (TS.Function.manageSession, TS.Tag.rfOff):
            guard session.isOpen else { return fail(TS.ErrorStatus.notSupported) }
            tag.halt()
            return .success([])
        case (TS.Function.manageSession, TS.Tag.rfOn):
            guard session.isOpen else { return fail(TS.ErrorStatus.notSupported) }
            tag.powerOn()
            return .success([])
        case (TS.Function.manageSession, TS.Tag.timer), (TS.Function.transparentExchange, TS.Tag.timer):
            guard object.value.count == 4 else { return fail(TS.ErrorStatus.unexpectedLength) }
            session.timerMicroseconds = object.value.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return .success([])
        case (TS.Function.switchProtocol, TS.Tag.switchProtocol):
            guard session.isOpen else { return fail(TS.ErrorStatus.notSupported) }
            guard object.value.count == 2 else { return fail(TS.ErrorStatus.unexpectedLength) }
            let standard = object.value[0], layer = object.value[1]
            guard profile.standards.contains(standard), [TS.SwitchLayer.layer3, TS.SwitchLayer.layer4].contains(layer) else {
                return fail(TS.ErrorStatus.notSupported)
            }
            guard Self.card(tag.targetInfo, speaks: standard, layer: layer) else { return fail(TS.ErrorStatus.noResponseFromCard) }
            session.standard = standard
            session.layer = layer
            return .success([])
        case (TS.Function.transparentExchange, TS.Tag.exchangeFlags):
            guard session.isOpen else { return fail(TS.ErrorStatus.notSupported) }
            guard object.value.count == 2 else { return fail(TS.ErrorStatus.unexpectedLength) }
            // The emulated front end always adds and checks the CRC: other framing is refused.
            guard object.value == [0x00, 0x00] else { return fail(TS.ErrorStatus.unexpectedValue) }
            return .success([])
        case (TS.Function.transparentExchange, TS.Tag.transceive):
            guard session.isOpen, let standard = session.standard, let layer = session.layer else { return fail(TS.ErrorStatus.notSupported) }
            guard !object.value.isEmpty else { return fail(TS.ErrorStatus.unexpectedLength) }
            let answer: FieldAnswer =
                if standard == TS.SwitchStandard.iso14443A && layer == TS.SwitchLayer.layer4 {
                    field.exchange(apdu: object.value)
                } else {
                    field.exchange(frame: object.value)
                }
            let clean = PCSCPart3.DataObject(TS.Tag.responseStatus, [0x00, 0x00]).bytes
            switch answer {
            case .frame(.data(let bytes)), .apdu(let bytes):
                return .success(PCSCPart3.DataObject(TS.Tag.receiveBitFraming, [0x00]).bytes + clean + PCSCPart3.DataObject(TS.Tag.cardResponse, bytes).bytes)
            case .frame(.ack):
                return .success(
                    PCSCPart3.DataObject(TS.Tag.receiveBitFraming, [0x04]).bytes + clean
                        + PCSCPart3.DataObject(TS.Tag.cardResponse, [NTAGAcknowledge.ack]).bytes)
            case .frame(.nak(let nibble)):
                return .success(
                    PCSCPart3.DataObject(TS.Tag.receiveBitFraming, [0x04]).bytes + clean
                        + PCSCPart3.DataObject(TS.Tag.cardResponse, [nibble & 0x0F]).bytes)
            case .rfError:
                return .failure(
                    ObjectFailure(sw: TS.ErrorStatus.failed, partial: PCSCPart3.DataObject(TS.Tag.responseStatus, [TS.ResponseStatusBit.crcError, 0x00]).bytes))
            case .frame(.silence), .noTag, .authenticated:
                return fail(TS.ErrorStatus.noResponseFromCard)
            }
        default:
            return fail(TS.ErrorStatus.notSupported)
        }
    }

    /// Whether the card in the field answers at this standard and layer.
    static func card(_ info: TargetInfo, speaks standard: UInt8, layer: UInt8) -> Bool {
        switch info {
        case .iso14443A(let a):
            guard standard == TS.SwitchStandard.iso14443A else { return false }
            return layer == TS.SwitchLayer.layer4 ? a.supportsISODEP : !a.supportsISODEP
        case .iso15693:
            return standard == TS.SwitchStandard.iso15693 && layer == TS.SwitchLayer.layer3
        case .jewel:
            // A Type 1 tag at ISO 14443-A layer 3: the front end frames its commands (first byte
            // in 7 bits, CRC_B) as it does for the Type 1 tags it polls (the model's choice:
            // Part 3 names no Type 1 framing of its own).
            return standard == TS.SwitchStandard.iso14443A && layer == TS.SwitchLayer.layer3
        default:
            return false
        }
    }

    /// The generic error status object.
    static func status(_ object: UInt8, _ sw: UInt16) -> [UInt8] {
        PCSCPart3.DataObject(TS.Tag.errorStatus, [object, UInt8(sw >> 8), UInt8(sw & 0xFF)]).bytes
    }

    /// `FF 00 00 00 Lc D4 …`: a PN532 command through the ACR122U's direct transmit, answered
    /// `D5 <command + 1> … 90 00` (PN532 user manual): ReadRegister (`06`) and WriteRegister
    /// (`08`) of the CIU registers (``ciuRegisters``), and InCommunicateThru (`42`) framed as
    /// TxMode and RxMode say: with ``PN532Register/crcEnable`` the chip adds and checks the CRC
    /// (a 4-bit ACK/NAK then fails the check: status 02, as the CIU finds no CRC in 4 bits);
    /// without, the frame must end with its CRC_A (else the tag ignores it: status 01), answers
    /// come with theirs, and an ACK/NAK comes as one byte with RxLastBits 4 in CIU_Control.
    /// 14443-A only. InDataExchange (`40`) carries Type 1 commands (``type1DataExchange(_:tag:)``).
    /// Other PN532 commands get `63 00`.
    func directTransmit(_ apdu: [UInt8], tag: any VirtualTag) -> [UInt8] {
        typealias A = PCSCPart3.ACR122U
        typealias R = PN532Register
        guard apdu.count >= 5, apdu.count == 5 + Int(apdu[4]) else { return Self.sw(PCSCPart3.StatusWord.wrongLength) }
        let command = Array(apdu[5...])
        guard command.count >= 2, command[0] == A.hostToPN532 else { return Self.sw(PCSCPart3.StatusWord.noInformation) }
        let parameters = Array(command.dropFirst(2))
        let header = [A.pn532ToHost, command[1] &+ 1]
        let ok = Self.sw(PCSCPart3.StatusWord.success)
        switch command[1] {
        case A.readRegister:
            guard !parameters.isEmpty, parameters.count.isMultiple(of: 2) else { return Self.sw(PCSCPart3.StatusWord.noInformation) }
            let values = stride(from: 0, to: parameters.count, by: 2).map { ciuRegisters[UInt16(parameters[$0]) << 8 | UInt16(parameters[$0 + 1])] ?? 0 }
            return header + values + ok
        case A.writeRegister:
            guard !parameters.isEmpty, parameters.count.isMultiple(of: 3) else { return Self.sw(PCSCPart3.StatusWord.noInformation) }
            for i in stride(from: 0, to: parameters.count, by: 3) {
                ciuRegisters[UInt16(parameters[i]) << 8 | UInt16(parameters[i + 1])] = parameters[i + 2]
            }
            return header + ok
        case A.inCommunicateThru:
            break
        case A.inDataExchange:
            return header + type1DataExchange(parameters, tag: tag) + ok
        default:
            return Self.sw(PCSCPart3.StatusWord.noInformation)
        }
        let txCRC = (ciuRegisters[R.txMode] ?? 0) & R.crcEnable != 0
        let rxCRC = (ciuRegisters[R.rxMode] ?? 0) & R.crcEnable != 0
        ciuRegisters[R.control] = (ciuRegisters[R.control] ?? 0) & ~R.lastBitsMask
        var frame = parameters
        guard !frame.isEmpty, case .iso14443A(let a) = tag.targetInfo, !a.supportsISODEP else {
            return header + [A.statusTimeout] + ok
        }
        if !txCRC {
            guard ISO14443ACRC.isValid(frame) else { return header + [A.statusTimeout] + ok }
            frame.removeLast(2)
        }
        let status: [UInt8]
        switch field.exchange(frame: frame) {
        case .frame(.data(let bytes)): status = [A.statusSuccess] + (rxCRC ? bytes : ISO14443ACRC.appending(to: bytes))
        case .frame(.ack): status = fourBitAnswer(NTAGAcknowledge.ack, rxCRC: rxCRC)
        case .frame(.nak(let code)): status = fourBitAnswer(code & 0x0F, rxCRC: rxCRC)
        case .rfError: status = [A.statusCRCError]
        default: status = [A.statusTimeout]
        }
        return header + status + ok
    }

    /// InDataExchange (`D4 40 Tg frame`) to the Type 1 tag the ACR122U selected: status and data
    /// as its PN532's firmware gives them (``VirtualTags/PN53xType1Firmware``): a command the
    /// firmware does not carry, another target number or another kind of card gets status 27h
    /// (command not acceptable: the PN532 emulator's choice too), silence 01.
    func type1DataExchange(_ parameters: [UInt8], tag: any VirtualTag) -> [UInt8] {
        guard parameters.count >= 2, parameters[0] == PCSCPart3.ACR122U.firstTarget, case .jewel(let jewel) = tag.targetInfo,
              let full = PN53xType1Firmware.frame(for: Array(parameters.dropFirst()), uid: jewel.id.array)
        else { return [PCSCPart3.ACR122U.statusCommandNotAcceptable] }
        switch field.exchange(frame: full) {
        case .frame(.data(let data)): return [PCSCPart3.ACR122U.statusSuccess] + PN53xType1Firmware.hostData(data, command: parameters[1])
        case .rfError: return [PCSCPart3.ACR122U.statusCRCError]
        default: return [PCSCPart3.ACR122U.statusTimeout]
        }
    }

    /// A 4-bit answer's status and data: with the CRC check on, status 02 (no CRC in 4 bits);
    /// without, the nibble in one byte and RxLastBits 4 in CIU_Control.
    private func fourBitAnswer(_ nibble: UInt8, rxCRC: Bool) -> [UInt8] {
        guard !rxCRC else { return [PCSCPart3.ACR122U.statusCRCError] }
        ciuRegisters[PN532Register.control] = ((ciuRegisters[PN532Register.control] ?? 0) & ~PN532Register.lastBitsMask) | 4
        return [PCSCPart3.ACR122U.statusSuccess, nibble]
    }
}
