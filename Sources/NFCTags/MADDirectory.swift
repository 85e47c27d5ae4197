/// An application identifier of the MIFARE Application Directory (NXP AN10787, 3.1): a function
/// cluster code and an application code, stored application code first.
public struct MADApplicationIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The function cluster code (the high byte of the AID): `E1` for NFC Forum data.
    public var functionClusterCode: UInt8
    /// The application code (the low byte): `03` for NDEF.
    public var applicationCode: UInt8

    /// Creates an AID.
    public init(functionClusterCode: UInt8, applicationCode: UInt8) {
        self.functionClusterCode = functionClusterCode
        self.applicationCode = applicationCode
    }

    /// A free sector (`0000`, AN10787 3.1.1 administration codes).
    public static let free = MADApplicationIdentifier(functionClusterCode: 0x00, applicationCode: 0x00)
    /// A defect sector (`0001`): keys destroyed or unknown.
    public static let defect = MADApplicationIdentifier(functionClusterCode: 0x00, applicationCode: 0x01)
    /// A reserved sector (`0002`).
    public static let reserved = MADApplicationIdentifier(functionClusterCode: 0x00, applicationCode: 0x02)
    /// A sector beyond the card's memory (`0005`, "not applicable").
    public static let notApplicable = MADApplicationIdentifier(functionClusterCode: 0x00, applicationCode: 0x05)
    /// The NFC AID (`E103`: function cluster `E1`, application `03`), stored as the bytes
    /// `03 E1`: a sector holding NDEF data (AN1304, "NDEF Management").
    public static let ndef = MADApplicationIdentifier(functionClusterCode: 0xE1, applicationCode: 0x03)

    /// The two bytes as stored in the MAD: application code, then function cluster code.
    public var bytes: [UInt8] { [applicationCode, functionClusterCode] }

    /// `E103`-style: function cluster code then application code, in hex.
    public var description: String { hexByte(functionClusterCode) + hexByte(applicationCode) }
}

/// The MIFARE Application Directory (NXP AN10787): which application each sector holds. MAD1
/// lives in sector 0 (blocks 1–2: CRC, info byte, 15 AIDs for sectors 1–15); MAD2, on a 4K card,
/// adds sector 16 (blocks 64–66: CRC, info byte, 23 AIDs for sectors 17–39). The MAD sectors are
/// read with the public key A `A0 A1 A2 A3 A4 A5`; their trailer's general purpose byte says
/// whether a MAD is there and which version.
public struct MADDirectory: Sendable, Hashable {
    /// MAD1 or MAD2.
    public enum Version: Int, Sendable, Hashable {
        /// MAD1: sector 0 only (sectors 1–15).
        case mad1 = 1
        /// MAD2: sectors 0 and 16 (sectors 1–39 of a 4K card).
        case mad2 = 2
    }

    /// The public key A of the MAD sectors (AN10787, 3.6): `A0 A1 A2 A3 A4 A5`.
    public static let publicKeyA: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
    /// The CRC-8 preset (AN10787, 3.7: `E3` with its bits mirrored, as libfreefare notes): `C7`.
    public static let crcPreset: UInt8 = 0xC7
    /// The CRC-8 polynomial x⁸ + x⁴ + x³ + x² + 1: `1D` (bits processed most significant first,
    /// no final XOR).
    public static let crcPolynomial: UInt8 = 0x1D
    /// GPB bit 7, DA: a MAD is available.
    public static let gpbMADAvailable: UInt8 = 0x80
    /// GPB bit 6, MA: multi-application card.
    public static let gpbMultiApplication: UInt8 = 0x40
    /// The byte address of MAD1 in card memory (block 1).
    public static let mad1Address = 16
    /// The byte address of MAD2 in card memory (block 64).
    public static let mad2Address = 64 * 16
    /// AIDs held by MAD1 (sectors 1–15).
    public static let mad1Entries = 15
    /// AIDs held by MAD2 (sectors 17–39).
    public static let mad2Entries = 23

    /// The version.
    public var version: Version
    /// Sector 0's info byte (bits 5–0 point to the card publisher sector; 0 = none).
    public var infoByte: UInt8
    /// Sector 16's info byte (MAD2 only).
    public var infoByte2: UInt8
    /// The AID of each sector, index = sector number: entry 0 (sector 0, the MAD itself) and
    /// entry 16 (MAD2's own sector) are ``MADApplicationIdentifier/reserved``. 16 entries for
    /// MAD1, 40 for MAD2.
    public var applications: [MADApplicationIdentifier]

    /// Creates a MAD; `applications` is padded with free sectors (or cut) to 16 or 40 entries.
    public init(version: Version, infoByte: UInt8 = 0, infoByte2: UInt8 = 0, applications: [MADApplicationIdentifier]) {
        self.version = version
        self.infoByte = infoByte
        self.infoByte2 = infoByte2
        let count = version == .mad1 ? 16 : 40
        var entries = Array(applications.prefix(count))
        entries += Array(repeating: .free, count: count - entries.count)
        entries[0] = .reserved
        if version == .mad2 { entries[16] = .reserved }
        self.applications = entries
    }

    /// The CRC-8 of AN10787 3.7 over `bytes` (the info byte and the AIDs, in stored order).
    public static func crc(_ bytes: some Sequence<UInt8>) -> UInt8 {
        var crc = crcPreset
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ crcPolynomial : crc << 1 }
        }
        return crc
    }

    /// The general purpose byte of the MAD sector trailer: DA, MA and the version (`C1` for
    /// MAD1, `C2` for MAD2).
    public var generalPurposeByte: UInt8 { Self.gpbMADAvailable | Self.gpbMultiApplication | UInt8(version.rawValue) }

    /// The MAD version a general purpose byte announces: nil when DA is clear or the version
    /// (bits 1–0) is neither 1 nor 2.
    public static func version(generalPurposeByte gpb: UInt8) -> Version? {
        guard gpb & gpbMADAvailable != 0 else { return nil }
        return Version(rawValue: Int(gpb & 0x03))
    }

    /// Decodes blocks 1–2 (32 bytes) and, for MAD2, blocks 64–66 (48 bytes).
    /// - Throws: ``NFCTagError`` `malformedTag` when a part has the wrong size (offset: its
    ///   start) or its CRC does not match (offset: the CRC byte, 16 or 1024).
    public init(sector0 mad1: [UInt8], sector16: [UInt8]? = nil) throws(NFCTagError) {
        guard mad1.count == 32 else {
            throw NFCTagError(.malformedTag, at: Self.mad1Address, "MAD1 has 32 bytes, not \(mad1.count)")
        }
        let crc1 = Self.crc(mad1[1...])
        guard crc1 == mad1[0] else {
            throw NFCTagError(
                .malformedTag, at: Self.mad1Address, "MAD1 CRC is \(hexByte(mad1[0])), computed \(hexByte(crc1))")
        }
        var apps: [MADApplicationIdentifier] = [.reserved]
        for i in 0..<Self.mad1Entries {
            apps.append(MADApplicationIdentifier(functionClusterCode: mad1[3 + 2 * i], applicationCode: mad1[2 + 2 * i]))
        }
        guard let sector16 else {
            self.init(version: .mad1, infoByte: mad1[1], applications: apps)
            return
        }
        let mad2 = sector16
        guard mad2.count == 48 else {
            throw NFCTagError(.malformedTag, at: Self.mad2Address, "MAD2 has 48 bytes, not \(mad2.count)")
        }
        let crc2 = Self.crc(mad2[1...])
        guard crc2 == mad2[0] else {
            throw NFCTagError(
                .malformedTag, at: Self.mad2Address, "MAD2 CRC is \(hexByte(mad2[0])), computed \(hexByte(crc2))")
        }
        apps.append(.reserved)
        for i in 0..<Self.mad2Entries {
            apps.append(MADApplicationIdentifier(functionClusterCode: mad2[3 + 2 * i], applicationCode: mad2[2 + 2 * i]))
        }
        self.init(version: .mad2, infoByte: mad1[1], infoByte2: mad2[1], applications: apps)
    }

    /// Blocks 1–2 as stored: CRC, info byte, the AIDs of sectors 1–15.
    public var sector0Bytes: [UInt8] {
        let body = [infoByte] + (1...Self.mad1Entries).flatMap { applications[$0].bytes }
        return [Self.crc(body)] + body
    }

    /// Blocks 64–66 as stored (MAD2), nil for MAD1.
    public var sector16Bytes: [UInt8]? {
        guard version == .mad2 else { return nil }
        let body = [infoByte2] + (17..<(17 + Self.mad2Entries)).flatMap { applications[$0].bytes }
        return [Self.crc(body)] + body
    }

    /// The NFC sectors (AN1304 "NDEF Management"): the contiguous run of sectors with the NFC AID
    /// starting at the first one (MAD2's sector 16 does not break the run); empty when there is
    /// none. Sectors after a gap are not part of the NDEF area.
    public var ndefSectors: [Int] {
        guard let first = applications.firstIndex(of: .ndef) else { return [] }
        var run: [Int] = []
        var sector = first
        while sector < applications.count {
            if version == .mad2 && sector == 16 {
                sector += 1
                continue
            }
            guard applications[sector] == .ndef else { break }
            run.append(sector)
            sector += 1
        }
        return run
    }
}

/// The general purpose byte of an NFC sector trailer (byte 9; AN1304, "NFC Sector" GPB): mapping
/// version (major in bits 7–6, minor in 5–4), read access (bits 3–2) and write access (bits 1–0),
/// `00` granted, `11` refused.
public struct ClassicNFCSectorGPB: Sendable, Hashable {
    /// Read-write, mapping version 1.0: `40`.
    public static let readWrite = ClassicNFCSectorGPB(rawValue: 0x40)
    /// Read-only, mapping version 1.0: `43` (write access `11`).
    public static let readOnly = ClassicNFCSectorGPB(rawValue: 0x43)

    /// The byte.
    public var rawValue: UInt8

    /// Wraps a byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The major version (bits 7–6); 1 for the mapping this code implements.
    public var majorVersion: Int { Int(rawValue >> 6) }
    /// The minor version (bits 5–4).
    public var minorVersion: Int { Int(rawValue >> 4 & 0x03) }
    /// Whether read access is granted (bits 3–2 = `00`).
    public var isReadable: Bool { rawValue & 0x0C == 0 }
    /// Whether write access is granted (bits 1–0 = `00`); `11` and the reserved values mean no.
    public var isWritable: Bool { rawValue & 0x03 == 0 }
    /// The same byte with write access refused (`11`).
    public var lockingWrites: ClassicNFCSectorGPB { ClassicNFCSectorGPB(rawValue: rawValue | 0x03) }
}
