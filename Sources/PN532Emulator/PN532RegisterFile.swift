import NFCTags
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
