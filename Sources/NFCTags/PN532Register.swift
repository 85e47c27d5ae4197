/// PN532 register addresses NFCKit gives meaning to (the PN532 emulator, and the ACR122U's
/// direct transmit): the CIU registers of the PN532's contactless
/// interface unit, mapped at `0x6301…0x633F` in XRAM (UM0701-02 §7.2.4 and the PN532 data sheet
/// §8.6.23 "CIU memory map"; the names are the data sheet's and libnfc's `PN53X_REG_CIU_*`).
public enum PN532Register {
    /// CIU_Mode, 0x6301.
    public static let mode: UInt16 = 0x6301
    /// CIU_TxMode, 0x6302: bit 7 TxCRCEn (the CIU appends CRC), bits 4–6 speed, 0–1 framing.
    public static let txMode: UInt16 = 0x6302
    /// CIU_RxMode, 0x6303: bit 7 RxCRCEn (the CIU checks and strips CRC).
    public static let rxMode: UInt16 = 0x6303
    /// CIU_TxControl, 0x6304: bits 0–1 Tx1RFEn/Tx2RFEn, the RF field (read by nfcpy).
    public static let txControl: UInt16 = 0x6304
    /// CIU_TxAuto, 0x6305: bit 6 Force100ASK.
    public static let txAuto: UInt16 = 0x6305
    /// CIU_ManualRCV, 0x630D: bit 4 ParityDisable.
    public static let manualRCV: UInt16 = 0x630D
    /// CIU_Status2, 0x6338: bit 3 MFCrypto1On.
    public static let status2: UInt16 = 0x6338
    /// CIU_FIFOData, 0x6339 (read by nfcpy).
    public static let fifoData: UInt16 = 0x6339
    /// CIU_Control, 0x633C: bit 4 Initiator, bits 0–2 RxLastBits of the last frame received.
    public static let control: UInt16 = 0x633C
    /// CIU_BitFraming, 0x633D: bits 0–2 TxLastBits of the next frame sent.
    public static let bitFraming: UInt16 = 0x633D

    /// TxMode/RxMode bit 7: CRC generated / checked by the CIU.
    public static let crcEnable: UInt8 = 0x80
    /// ManualRCV bit 4: parity generation and check disabled.
    public static let parityDisable: UInt8 = 0x10
    /// Control / BitFraming bits 0–2: the number of valid bits in the last byte (0 = 8).
    public static let lastBitsMask: UInt8 = 0x07
    /// TxControl bits 0–1: both antenna drivers on, i.e. the RF field is on.
    public static let rfFieldOn: UInt8 = 0x03
}
