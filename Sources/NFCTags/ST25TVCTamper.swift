import NFCCore

/// STMicroelectronics ST25TV02KC / ST25TV512C (IC reference `08`): the tamper detection status
/// register, read with READ CONFIGURATION (``ST25Command/readConfiguration``, `A0`), which on
/// these chips takes a feature identifier (FID) and a parameter identifier (PID) instead of the
/// ST25TV02K's 1-byte pointer.
///
/// Sources: ST's st25tags library (`st25tvc.h`/`st25tvc.c`, STMicroelectronics MMY Ecosystem,
/// 2022): FID `03` tamper detect, PID `06` TD_STATUS (3 bytes), the messages TD_SHORT_MSG
/// (PID `04`) and TD_OPEN_MSG (PID `05`) of 1 byte each, END_MEM `4F` (80 blocks) on the
/// ST25TV02KC; ST's community answer "How to get the tamper status of ST25TV02KC RFID chip?"
/// (2022): the exact frame `22 A0 02 <UID> 03 06` answered `00 30 30 63` by an ST25TV02KC-T
/// without any password presented, `63` being the factory message of a closed (shorted) loop,
/// captured when the chip powers up; TheKiwil/CheckTamper (Flipper Zero app): the same FID/PID,
/// the third byte `63` closed and `6F` open. What the first two bytes mean is not stated by
/// these sources: they are reported as read, not interpreted. The ST25TV02KC data sheet
/// (DS13304) says the tamper interface exists on ST25TV02KC-T only, not on the -A or the
/// ST25TV512C.
public enum ST25TVCRegister {
    /// The IC reference of GET SYSTEM INFORMATION (ST25TV02KC and ST25TV512C; st25tags
    /// `ST25TAGS_TVC_PRODUCT_CODE`).
    public static let icReference: UInt8 = 0x08
    /// The ST25TV02KC's block count (END_MEM `4F`; the ST25TV512C's is `0F`, 16 blocks).
    public static let st25tv02kcBlockCount = 0x50
    /// Feature identifier of the tamper detection registers.
    public static let tamperDetectFeature: UInt8 = 0x03
    /// Parameter identifier of TD_STATUS.
    public static let tdStatus: UInt8 = 0x06
    /// TD_STATUS's length in bytes.
    public static let tdStatusLength = 3
    /// The factory TD_SHORT_MSG, `c`: the loop was closed when the chip powered up.
    public static let factoryShortMessage: UInt8 = 0x63
    /// The factory TD_OPEN_MSG, `o`: the loop was open when the chip powered up.
    public static let factoryOpenMessage: UInt8 = 0x6F
}

/// TD_STATUS of an ST25TV02KC-T as read (``ST25TVCRegister``): its 3 bytes, and the tamper loop
/// when its third byte is one of the factory messages.
public struct ST25TVCTamperStatus: Sendable, Hashable {
    /// The tamper loop's state at the chip's last power-up.
    public enum Loop: String, Sendable, Hashable {
        /// The loop was closed (TD_SHORT_MSG, factory `63`).
        case closed
        /// The loop was open (TD_OPEN_MSG, factory `6F`).
        case open
    }

    /// TD_STATUS, as the chip answered it.
    public let bytes: [UInt8]

    /// Parses the answer to READ CONFIGURATION of TD_STATUS.
    /// - Throws: ``NFCTagError`` `tagResponse` when it is not 3 bytes.
    public init(bytes: [UInt8]) throws(NFCTagError) {
        guard bytes.count == ST25TVCRegister.tdStatusLength else {
            throw NFCTagError(.tagResponse, "TD_STATUS is \(ST25TVCRegister.tdStatusLength) bytes; the chip answered \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// The loop's state, or nil when the third byte is neither factory message (the messages
    /// can be changed, and are then not known here).
    public var loop: Loop? {
        switch bytes[2] {
        case ST25TVCRegister.factoryShortMessage: .closed
        case ST25TVCRegister.factoryOpenMessage: .open
        default: nil
        }
    }

    /// TD_STATUS in hex, upper case, bytes apart.
    public var hex: String { Hex.encode(bytes, uppercase: true, separator: " ") }

    /// `open`, `closed`, or `unknown (…)` naming the byte that is neither factory message.
    public var summary: String {
        if let loop { return loop.rawValue }
        return "unknown (TD_STATUS byte 3 is \(hexByte(bytes[2])), not the factory message 63 or 6F)"
    }
}

extension ISO15693Tag {
    /// Whether the chip is an ST25TV02KC (UID maker `02`, IC reference `08`, 80 blocks), the one
    /// of the two IC-reference-`08` chips whose -T version has the tamper loop.
    public var hasST25TVCTamperDetect: Bool {
        icManufacturerCode == ST25Command.manufacturerCode && identity.icReference == ST25TVCRegister.icReference
            && identity.blockCount == ST25TVCRegister.st25tv02kcBlockCount
    }

    /// READ CONFIGURATION of TD_STATUS (FID `03`, PID `06`), no password: the frame of ST's
    /// community answer (``ST25TVCRegister``).
    /// - Throws: ``NFCTagError`` `notSupported` (not an ST25TV02KC; nothing sent); `tagResponse`
    ///   (refused, or not 3 bytes); `connectionLost`.
    public func st25tvcTamperStatus() async throws(NFCTagError) -> ST25TVCTamperStatus {
        guard hasST25TVCTamperDetect else {
            throw NFCTagError(.notSupported, "the tamper status is an ST25TV02KC's; this is a \(identity.model)")
        }
        let answer = try await send(
            ST25Command.readConfiguration, [ST25TVCRegister.tamperDetectFeature, ST25TVCRegister.tdStatus],
            manufacturerCode: ST25Command.manufacturerCode, what: "READ CONFIGURATION TD_STATUS")
        return try ST25TVCTamperStatus(bytes: answer)
    }
}
