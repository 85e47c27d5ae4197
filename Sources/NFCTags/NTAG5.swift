import NFCCore

/// NXP NTAG 5 custom commands beyond the ICODE password set (``ICodeCommand``), framed with
/// NXP's manufacturer code `04` before the UID.
///
/// Codes: NTP5210/NTP53x2/NTA5332 data sheets (command sets); the same codes and the answer of
/// GET NXP SYSTEM INFORMATION in VivoKey `ntag5sensor` (`vicinity/ntag5link.py`) as the second
/// source, with its capture of two real NTAG 5 links (`doc/NXP/config-analysis.txt`).
public enum NTAG5Command {
    /// GET NXP SYSTEM INFORMATION `AB`: protection pointer, protection condition, lock bits and
    /// four feature bytes (``NXPSystemInformation``).
    public static let getNXPSystemInformation: UInt8 = 0xAB
    /// READ CONFIG `C0`: configuration block address, number of blocks − 1.
    public static let readConfig: UInt8 = 0xC0
    /// WRITE CONFIG `C1`: configuration block address, 4 bytes.
    public static let writeConfig: UInt8 = 0xC1
    /// The configuration block holding NFC_PP_AREA_0H (byte 0) and NFC_PPC (byte 1), `58h`
    /// (NXP community answer quoting the NTP5332 configuration; the same address in MikroE's
    /// NTAG 5 link driver, `1058h` from I²C).
    public static let protectionPointerConfigBlock: UInt8 = 0x58
}

/// What GET NXP SYSTEM INFORMATION (`AB`) answers on an NTAG 5 (and ICODE SLIX2/DNA): the
/// protection pointer splitting area 0 into a low and a high part, the protection condition of
/// each part, lock bits and feature flags. Layout as VivoKey `ntag5sensor` decodes it, checked
/// against its capture of a real NTAG 5 link (`FF 00 00 FF F1 07 64`).
public struct NXPSystemInformation: Sendable, Hashable {
    /// The protection pointer (NFC_PP_AREA_0H): blocks from it on form the high part.
    public var protectionPointer: UInt8
    /// The protection condition (NFC_PPC): ``ICodePageProtection`` bits 0/1 read/write of the
    /// low part, 4/5 of the high part.
    public var protectionCondition: UInt8
    /// Lock bits: bit 1 EAS, bit 2 DSFID, bit 3 the protection pointer and condition locked.
    public var lockBits: UInt8
    /// The four feature flag bytes (byte 3: bits 6–5 the host interface, bits 3–0 the number
    /// of keys, bit 7 more flags follow).
    public var featureFlags: [UInt8]

    /// Lock bit 3: the protection pointer and condition are locked (LOCK PAGE PROTECTION
    /// CONDITION).
    public static let protectionLockedBit: UInt8 = 0x08

    /// Whether the protection pointer and condition are locked.
    public var protectionLocked: Bool { lockBits & Self.protectionLockedBit != 0 }

    /// The host interface of feature byte 3, bits 6–5 (`ntag5sensor`'s names): 0 NFC only, 1
    /// GPIO, 3 GPIO and I²C; nil when the feature bytes are missing.
    public var hostInterface: UInt8? { featureFlags.count == 4 ? (featureFlags[3] >> 5) & 0x03 : nil }

    /// Creates it.
    public init(protectionPointer: UInt8, protectionCondition: UInt8, lockBits: UInt8, featureFlags: [UInt8]) {
        self.protectionPointer = protectionPointer
        self.protectionCondition = protectionCondition
        self.lockBits = lockBits
        self.featureFlags = featureFlags
    }

    /// Decodes the answer after the response flags byte: pointer, condition, lock bits, then 4
    /// feature bytes (more, when byte 3 bit 7 says so, are ignored). Total on any bytes.
    /// - Throws: ``NFCTagError`` `tagResponse` when fewer than 7 bytes come or the condition has
    ///   a bit other than 0, 1, 4, 5 (offset of the byte).
    public init(answer: some Collection<UInt8>) throws(NFCTagError) {
        let bytes = Array(answer)
        guard bytes.count >= 7 else {
            throw NFCTagError(.tagResponse, at: bytes.count, "GET NXP SYSTEM INFORMATION answered \(bytes.count) bytes, 7 expected")
        }
        let valid = ICodePageProtection.readLow | ICodePageProtection.writeLow | ICodePageProtection.readHigh | ICodePageProtection.writeHigh
        guard bytes[1] & ~valid == 0 else {
            throw NFCTagError(.tagResponse, at: 1, "protection condition \(hexByte(bytes[1])) has bits outside 0, 1, 4, 5")
        }
        self.init(protectionPointer: bytes[0], protectionCondition: bytes[1], lockBits: bytes[2], featureFlags: Array(bytes[3..<7]))
    }

    /// The answer's bytes after the flags byte (what a virtual chip sends).
    public var bytes: [UInt8] { [protectionPointer, protectionCondition, lockBits] + featureFlags }

    /// The ``ICodeBlockProtection`` byte of each of `blockCount` blocks: read/write protected
    /// by the condition of the part holding it, condition locked when the lock bit says so.
    public func blockStatuses(blockCount: Int) -> [UInt8] {
        (0..<max(0, blockCount)).map { block in
            let high = block >= Int(protectionPointer)
            let read = protectionCondition & (high ? ICodePageProtection.readHigh : ICodePageProtection.readLow) != 0
            let write = protectionCondition & (high ? ICodePageProtection.writeHigh : ICodePageProtection.writeLow) != 0
            var status: UInt8 = 0
            if read { status |= ICodeBlockProtection.readProtected }
            if read || write { status |= ICodeBlockProtection.writeProtected }
            if protectionLocked { status |= ICodeBlockProtection.protectionLocked }
            return status
        }
    }
}

extension ISO15693Tag {
    /// GET NXP SYSTEM INFORMATION (`AB`, NXP manufacturer code), decoded.
    /// - Throws: ``NFCTagError`` `notSupported` for another maker's chip (nothing sent);
    ///   `tagResponse` (an error, or an answer that does not decode); `connectionLost`.
    public func nxpSystemInformation() async throws(NFCTagError) -> NXPSystemInformation {
        try requireNXP()
        let answer = try await send(
            NTAG5Command.getNXPSystemInformation, manufacturerCode: ISO15693Command.nxpManufacturerCode, what: "GET NXP SYSTEM INFORMATION")
        return try NXPSystemInformation(answer: answer)
    }
}
