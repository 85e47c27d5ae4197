import NFCCore
import CPCSCLite
import NFCTags

// The ACR122U's direct transmit: raw frames through its PN532 (InCommunicateThru).

extension PCSCReader {
    /// A frame through the ACR122U's direct transmit (ACR122U API, "Direct Transmit": `FF 00 00
    /// 00 Lc` + a PN532 command, answered by the PN532's answer and `90 00`) as PN532
    /// InCommunicateThru with the chip's CRC handling off, so that a tag's 4-bit ACK or NAK
    /// arrives as such (with the CRC check on, the CIU finds no CRC in 4 bits and reports status
    /// 02, a CRC error, for ACK and NAK alike). Per frame, as libnfc's raw mode does with the
    /// same registers (PN532 user manual §7.2.4–7.2.5, CIU registers of the PN532 data sheet):
    /// WriteRegister TxMode and RxMode without ``PN532Register/crcEnable``, InCommunicateThru of
    /// the frame and its CRC_A, ReadRegister CIU_Control (RxLastBits: 4 for an ACK/NAK nibble),
    /// WriteRegister TxMode and RxMode back (the ACR122U's own pseudo-APDUs need the CRC on).
    /// The registers' values are read once per card. An ACK answers `0A`; a NAK throws `nak`
    /// with its nibble; a full answer's CRC_A is checked and removed; status 01 is a timeout.
    func directTransmit(_ frame: [UInt8]) throws(NFCReaderDeviceError) -> Bytes {
        typealias A = PCSCPart3.ACR122U
        typealias R = PN532Register
        let modes: (tx: UInt8, rx: UInt8)
        if let known = ciuModes {
            modes = known
        } else {
            let values = try pn532(A.readRegister, Self.addresses([R.txMode, R.rxMode]), what: "ReadRegister TxMode, RxMode")
            guard values.count == 2 else {
                throw NFCReaderDeviceError(.rfError, "ReadRegister through \(name) answered \(values.count) values, not 2")
            }
            modes = (values[0], values[1])
            ciuModes = modes
        }
        _ = try pn532(
            A.writeRegister, Self.addresses([R.txMode], values: [modes.tx & ~R.crcEnable]) + Self.addresses([R.rxMode], values: [modes.rx & ~R.crcEnable]),
            what: "WriteRegister (CRC off)")
        let answer: Result<[UInt8], NFCReaderDeviceError>
        do {
            let thru = try pn532(A.inCommunicateThru, ISO14443ACRC.appending(to: frame), what: "InCommunicateThru")
            let control = try pn532(A.readRegister, Self.addresses([R.control]), what: "ReadRegister CIU_Control")
            answer = .success(thru + [control.first ?? 0])
        } catch {
            answer = .failure(error)
        }
        // The CRC back on, whatever happened: the reader's own commands rely on it.
        let restored = Result { () throws(NFCReaderDeviceError) in
            try pn532(A.writeRegister, Self.addresses([R.txMode], values: [modes.tx]) + Self.addresses([R.rxMode], values: [modes.rx]), what: "WriteRegister (CRC on)")
        }
        let data = try answer.get()
        _ = try restored.get()
        // data: status, the card's bytes, then CIU_Control.
        guard let status = data.first, let control = data.last, data.count >= 2 else {
            throw NFCReaderDeviceError(.rfError, "InCommunicateThru through \(name) answered without a status byte")
        }
        let received = Array(data.dropFirst().dropLast())
        switch status & 0x3F {
        case A.statusSuccess:
            if control & R.lastBitsMask == 4, received.count == 1 {
                let nibble = received[0] & 0x0F
                if nibble == NTAGAcknowledge.ack { return Bytes([NTAGAcknowledge.ack]) }
                // The tag refused and went to IDLE (NTAG21x, MF0ULx1: "NAK"): a reset wakes it.
                leaveWithReset = true
                throw NFCReaderDeviceError(.nak, "the tag answered NAK \(nibble) (through \(name))", detail: nibble)
            }
            guard ISO14443ACRC.isValid(received) else {
                throw NFCReaderDeviceError(.rfError, "the tag's answer through \(name) has a wrong CRC_A: \(Hex.encode(received))")
            }
            return Bytes(Array(received.dropLast(2)))
        case A.statusTimeout: throw NFCReaderDeviceError(.timeout, "the tag did not answer (PN532 status 01 through \(name))")
        case A.statusCRCError: throw NFCReaderDeviceError(.rfError, "PN532 status 02 through \(name): a CRC error")
        default: throw NFCReaderDeviceError(.chip, "PN532 status \(Hex.encode([status])) through \(name)")
        }
    }

    /// A Type 1 frame through the ACR122U's direct transmit as PN532 InDataExchange to target 1
    /// (ACS's ACR122 manuals, "Basic program flow for NFC Forum Type 1 tag applications"): the
    /// whole NFC Forum frame, UID included, as nfcpy's `clf/pn532.py` gives it; the firmware
    /// frames it (first byte in 7 bits, CRC_B) and answers status and data (a byte command's
    /// data byte alone). Only the commands the firmware knows: RID, RALL, READ, WRITE-E and
    /// WRITE-NE (``NFCTags/Type1Command/needsDynamicCommandSet(_:)`` names the rest).
    func type1DataExchange(_ frame: [UInt8]) throws(NFCReaderDeviceError) -> Bytes {
        typealias A = PCSCPart3.ACR122U
        let what = commandName(frame, .type1)
        let answer = try pn532(A.inDataExchange, [A.firstTarget] + frame, what: "InDataExchange of \(what)")
        guard let status = answer.first else {
            throw NFCReaderDeviceError(.rfError, "InDataExchange of \(what) through \(name) answered without a status byte")
        }
        switch status & 0x3F {
        case A.statusSuccess: return Bytes(Array(answer.dropFirst()))
        case A.statusTimeout: throw NFCReaderDeviceError(.timeout, "the tag did not answer \(what) (PN532 status 01 through \(name))")
        case A.statusCRCError: throw NFCReaderDeviceError(.rfError, "\(what): PN532 status 02 through \(name), a CRC error")
        case A.statusCommandNotAcceptable:
            throw NFCReaderDeviceError(.notSupported, "\(what): the PN532 in \(name) does not carry it to a Type 1 tag (status 27)")
        default: throw NFCReaderDeviceError(.chip, "\(what): PN532 status \(Hex.encode([status])) through \(name)")
        }
    }

    /// One PN532 command through the ACR122U's direct transmit: its answer after `D5` and the
    /// answer code (command + 1).
    func pn532(_ command: UInt8, _ parameters: [UInt8], what: String) throws(NFCReaderDeviceError) -> [UInt8] {
        typealias A = PCSCPart3.ACR122U
        let body = [A.hostToPN532, command] + parameters
        guard body.count <= 0xFF else { throw NFCReaderDeviceError(.invalidArgument, "\(what): \(body.count) bytes are more than a direct transmit holds") }
        let (data, sw) = try transmit(A.directTransmit + [UInt8(body.count)] + body)
        guard sw == PCSCPart3.StatusWord.success else { throw Self.statusError(sw, "direct transmit (FF 00 00 00) of \(what)", reader: name) }
        guard data.count >= 2, data[0] == A.pn532ToHost, data[1] == command &+ 1 else {
            throw NFCReaderDeviceError(.rfError, "direct transmit of \(what): the reader \(name) answered \(Hex.encode(data)), not the PN532's answer (D5 \(Hex.encode([command &+ 1])))")
        }
        return Array(data.dropFirst(2))
    }

    /// Register addresses high byte first, each followed by its value when given (ReadRegister
    /// and WriteRegister parameters).
    static func addresses(_ registers: [UInt16], values: [UInt8] = []) -> [UInt8] {
        registers.enumerated().flatMap { index, address in
            [UInt8(address >> 8), UInt8(address & 0xFF)] + (index < values.count ? [values[index]] : [])
        }
    }
}
