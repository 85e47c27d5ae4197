import NFCTags
import VirtualTags

/// Exchanges with a selected target: InDataExchange (ISO-DEP blocks, MIFARE commands, FeliCa)
/// and InCommunicateThru with raw type A frames (UM0701 §7.3.8–7.3.9).
extension PN532Chip {
    // MARK: - Exchanges

    /// InDataExchange (UM0701 §7.3.8): Tg, DataOut → Status, DataIn. The firmware does ISO-DEP
    /// block framing, MIFARE Classic authentication and two-step MIFARE WRITE/value commands.
    func inDataExchange(_ p: [UInt8]) -> [UInt8]? {
        guard let tg = p.first else { return nil }
        let frame = Array(p.dropFirst())
        guard useTarget(tg), let target, !target.deselected else { return status(.commandNotAcceptable) }
        guard isInField(target), !tagHalted else { return status(.timeout) }
        exchangedSinceActivation = true
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
        case .jewel:
            return jewelExchange(target.tag, frame)
        case .typeB:
            return mapped(field.field.exchange(frame: frame))
        }
    }

    /// A Type 1 command through the firmware, as ``VirtualTags/PN53xType1Firmware`` carries it;
    /// a command it does not carry is refused with status 27h (command not acceptable: our
    /// choice; UM0701 does not list Type 1 commands).
    func jewelExchange(_ tag: any VirtualTag, _ frame: [UInt8]) -> [UInt8] {
        guard let command = frame.first, case .jewel(let jewel) = tag.targetInfo else { return status(.invalidParameter) }
        guard let full = PN53xType1Firmware.frame(for: frame, uid: jewel.id.array) else { return status(.commandNotAcceptable) }
        delay(.milliseconds(PN53xType1Firmware.isWrite(command) ? 5 : 1))
        let answer = field.field.exchange(frame: full)
        if case .frame(.data(let data)) = answer {
            return status(.success) + PN53xType1Firmware.hostData(data, command: command)
        }
        return mapped(answer)
    }

    /// InDataExchange to an ISO-DEP target, type A or B: the firmware does the block framing;
    /// the host sees APDUs, chained with MI when long (UM0701 §7.3.8).
    func isoDEPExchange(tg: UInt8, _ frame: [UInt8]) -> [UInt8] {
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
    func mapped(_ answer: FieldAnswer) -> [UInt8] {
        switch answer {
        case .frame(.data(let d)): return status(.success) + d
        case .frame(.ack): return status(.success)
        case .frame(.nak): return status(.invalidReceivedFrame)
        case .rfError: return status(.crcError)
        default: return status(.timeout)
        }
    }

    /// A FeliCa answer with its length byte put back in front.
    func felicaAnswer(_ answer: FieldAnswer) -> [UInt8] {
        switch answer {
        case .frame(.data(let d)): return status(.success) + [UInt8(truncatingIfNeeded: d.count + 1)] + d
        case .rfError: return status(.crcError)
        default: return status(.timeout)
        }
    }

    /// A MIFARE command through the firmware (UM0701 §7.3.8, "MIFARE commands").
    func mifareExchange(_ tag: any VirtualTag, _ frame: [UInt8]) -> [UInt8] {
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
    func inCommunicateThru(_ p: [UInt8]) -> [UInt8]? {
        registers[PN532Register.control] &= ~PN532Register.lastBitsMask
        guard !p.isEmpty, let tag = field.tagInField else { return status(.timeout) }
        exchangedSinceActivation = true
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
    func fourBitAnswer(_ nibble: UInt8, rxCRC: Bool) -> [UInt8] {
        guard !rxCRC else { return status(.crcError) }
        registers[PN532Register.control] = (registers[PN532Register.control] & ~PN532Register.lastBitsMask) | 0x04
        return status(.success) + [nibble]
    }

    /// ANTICOLLISION and SELECT of cascade levels 1–3 (ISO/IEC 14443-3 §6.5.3): the UID part
    /// and BCC, or SAK with CRC per RxMode.
    func anticollision(_ frame: [UInt8], _ a: ISO14443ATarget) -> [UInt8]? {
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
}
