/// Register addresses the emulator gives meaning to: the CIU registers of the PN532's contactless
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

/// The PN532's register space as ReadRegister/WriteRegister see it (UM0701-02 §7.2.4–7.2.5):
/// any 16-bit address holds a byte; the CIU registers start from their reset values (PN532
/// data sheet §8.6.23, as libnfc and nfcpy rely on them); others read 0x00 until written.
public struct PN532RegisterFile: Sendable, Hashable {
    private var values: [UInt16: UInt8]

    /// The reset values the emulator starts from.
    public static let resetValues: [UInt16: UInt8] = [
        PN532Register.mode: 0x3F,
        PN532Register.txMode: 0x80,
        PN532Register.rxMode: 0x80,
        PN532Register.txControl: 0x80,
        PN532Register.txAuto: 0x40,
        0x6306: 0x10,  // CIU_TxSel
        0x6307: 0x84,  // CIU_RxSel
        0x6308: 0x84,  // CIU_RxThreshold
        0x6309: 0x4D,  // CIU_Demod
        0x630C: 0x62,  // CIU_MifNFC
        PN532Register.manualRCV: 0x00,
        0x6331: 0x20,  // CIU_Command: Idle… the receiver off
        0x6332: 0x80,  // CIU_CommIEn
        0x6334: 0x14,  // CIU_CommIRq
        0x6337: 0x21,  // CIU_Status1
        PN532Register.status2: 0x00,
        PN532Register.fifoData: 0x00,
        0x633B: 0x08,  // CIU_WaterLevel
        PN532Register.control: 0x10,
        PN532Register.bitFraming: 0x00,
        0x633E: 0x80,  // CIU_Coll
    ]

    /// A register file at its reset values.
    public init() {
        values = Self.resetValues
    }

    /// The byte at `address`.
    public subscript(address: UInt16) -> UInt8 {
        get { values[address] ?? 0x00 }
        set { values[address] = newValue }
    }

    /// Whether `bit` of the register at `address` is set.
    public func isSet(_ bit: UInt8, in address: UInt16) -> Bool {
        self[address] & bit != 0
    }
}
