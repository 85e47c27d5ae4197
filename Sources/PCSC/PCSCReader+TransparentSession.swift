import NFCCore
import CPCSCLite
import NFCTags

// The PC/SC Part 3 transparent session (ACR1552U, uTrust 3700 F): raw frames to the card.

extension PCSCReader {
    typealias TS = PCSCPart3.TransparentSession

    /// A frame through the transparent session: the session is started and switched to the
    /// card's standard at layer 3 on first use and kept, for every later command of the card,
    /// until a deselect or the next poll; every transceive carries a timer object with `timeout`. The answer's
    /// `97` object is the card's answer; a 4-bit answer (`92 01 04`) is the ACK `0A` or a NAK.
    func transparentTransceive(_ frame: [UInt8], kind: PCSCCardKind, timeout: Duration) throws(NFCReaderDeviceError) -> Bytes {
        let standard = kind == .iso15693 ? TS.SwitchStandard.iso15693 : TS.SwitchStandard.iso14443A
        if session.map({ $0.standard != standard || $0.layer != TS.SwitchLayer.layer3 }) ?? true {
            endSession()
            _ = try sessionAPDU(TS.Function.manageSession, [PCSCPart3.DataObject(TS.Tag.startSession)], what: "start transparent session")
            session = (standard, TS.SwitchLayer.layer3)
            _ = try sessionAPDU(
                TS.Function.switchProtocol, [PCSCPart3.DataObject(TS.Tag.switchProtocol, [standard, TS.SwitchLayer.layer3])],
                what: "switch protocol to \(kind == .iso15693 ? "ISO 15693" : "ISO 14443-A") layer 3")
        }
        let micros = UInt32(clamping: timeout.components.seconds * 1_000_000 + timeout.components.attoseconds / 1_000_000_000_000)
        let timer = [UInt8(micros & 0xFF), UInt8(micros >> 8 & 0xFF), UInt8(micros >> 16 & 0xFF), UInt8(micros >> 24)]
        let answer = try sessionAPDU(
            TS.Function.transparentExchange,
            [PCSCPart3.DataObject(TS.Tag.timer, timer), PCSCPart3.DataObject(TS.Tag.transceive, frame)],
            what: commandName(frame, kind) + " (transceive)")
        if let status = answer.first(where: { $0.tag == TS.Tag.responseStatus }), let bits = status.value.first, bits != 0 {
            throw NFCReaderDeviceError(.rfError, "\(commandName(frame, kind)): the reader \(name) reports a response status \(Hex.encode(status.value)) (CRC, collision, parity or framing error)")
        }
        guard let data = answer.first(where: { $0.tag == TS.Tag.cardResponse })?.value else {
            throw NFCReaderDeviceError(.rfError, "\(commandName(frame, kind)): the reader \(name) answered without the card's response object (97)")
        }
        let validBits = answer.first(where: { $0.tag == TS.Tag.receiveBitFraming })?.value.first ?? 0
        if validBits == 4, data.count == 1, kind != .type1 {
            if data[0] & 0x0F == NTAGAcknowledge.ack { return Bytes([NTAGAcknowledge.ack]) }
            leaveWithReset = true
            throw NFCReaderDeviceError(.nak, "the tag answered NAK \(data[0] & 0x0F)", detail: data[0] & 0x0F)
        }
        return Bytes(data)
    }

    /// One `FF C2 00 function` APDU; its answer's data objects after the error status was
    /// checked.
    func sessionAPDU(_ function: UInt8, _ objects: [PCSCPart3.DataObject], what: String) throws(NFCReaderDeviceError) -> [PCSCPart3.DataObject] {
        let body = objects.flatMap(\.bytes)
        guard body.count <= 0xFF else { throw NFCReaderDeviceError(.invalidArgument, "\(what): \(body.count) bytes of data objects, more than a short APDU holds") }
        let (data, sw) = try transmit([PCSCPart3.pseudoClass, TS.instruction, 0x00, function, UInt8(body.count)] + body + [0x00])
        guard sw == PCSCPart3.StatusWord.success else {
            if function != TS.Function.manageSession || objects.first?.tag != TS.Tag.endSession { session = nil }
            throw Self.statusError(sw, "\(what) (FF C2)", reader: name)
        }
        let answer: [PCSCPart3.DataObject]
        do {
            answer = try PCSCPart3.DataObject.parse(data)
        } catch {
            throw NFCReaderDeviceError(.rfError, "\(what): the reader \(name) answered data objects that do not parse: \(error.reason)")
        }
        guard let status = answer.first(where: { $0.tag == TS.Tag.errorStatus }), status.value.count == 3 else {
            throw NFCReaderDeviceError(.rfError, "\(what): the reader \(name) answered without the generic error status object (C0)")
        }
        let errorSW = UInt16(status.value[1]) << 8 | UInt16(status.value[2])
        if errorSW != TS.ErrorStatus.success {
            let text = "\(what): the reader \(name) reports \(Hex.encode([status.value[1], status.value[2]]).uppercased()) for data object \(status.value[0])"
            switch errorSW {
            case TS.ErrorStatus.noResponseFromCard: throw NFCReaderDeviceError(.timeout, text + " (no answer from the card)")
            case TS.ErrorStatus.notSupported: throw NFCReaderDeviceError(.notSupported, text + " (not supported)")
            case TS.ErrorStatus.unexpectedLength, TS.ErrorStatus.unexpectedValue: throw NFCReaderDeviceError(.invalidArgument, text)
            default: throw NFCReaderDeviceError(.chip, text)
            }
        }
        return answer
    }

    /// Ends an open transparent session (best effort: the card may be gone).
    func endSession() {
        guard session != nil, card != nil else {
            session = nil
            return
        }
        session = nil
        _ = try? sessionAPDU(TS.Function.manageSession, [PCSCPart3.DataObject(TS.Tag.endSession)], what: "end transparent session")
    }
}
