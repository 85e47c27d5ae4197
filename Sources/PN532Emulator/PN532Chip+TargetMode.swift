import NFCTags
import VirtualTags

/// Target mode: TgInitAsTarget, TgGetData, TgSetData and the virtual external reader
/// (UM0701 §7.3.14–7.3.17).
extension PN532Chip {
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


    /// TgInitAsTarget (UM0701 §7.3.14): Mode, MifareParams (SENS_RES 2, NFCID1t 3, SEL_RES 1),
    /// FeliCaParams (18), NFCID3t (10), LenGt, Gt, LenTk, Tk → Mode, InitiatorCommand.
    func tgInitAsTarget(_ p: [UInt8]) -> [UInt8]? {
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
    func tgGetData(_ p: [UInt8]) -> [UInt8]? {
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
    func tgSetData(_ p: [UInt8]) -> [UInt8]? {
        guard isActivatedAsTarget, let reader = externalReader else { return status(.targetReleased) }
        reader.receive(p)
        return status(.success)
    }

    func delay(_ tagTime: Duration) {
        if delayModel == .datasheet { responseDelay += tagTime }
    }
}
