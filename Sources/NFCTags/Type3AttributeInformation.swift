/// The attribute information block of an NFC Forum Type 3 Tag: block 0 of the NDEF service
/// (NFC Forum Type 3 Tag Operation Specification 1.x, "Attribute Information Format").
///
/// ```
/// byte  0     Ver     mapping version, major in the upper nibble (10h = 1.0)
/// byte  1     Nbr     most blocks one Read Without Encryption may ask for
/// byte  2     Nbw     most blocks one Write Without Encryption may carry
/// bytes 3–4   Nmaxb   blocks available for NDEF data (big-endian)
/// bytes 5–8   RFU     00
/// byte  9     WriteF  00h: no write in progress; 0Fh: a write in progress
/// byte  10    RWFlag  00h: read-only; 01h: read/write
/// bytes 11–13 Ln      length of the stored NDEF message in bytes (big-endian)
/// bytes 14–15 Checksum  sum of bytes 0–13 (big-endian)
/// ```
public struct Type3AttributeInformation: Sendable, Hashable {
    /// The block number of the attribute information block in the NDEF services.
    public static let blockNumber: UInt16 = 0
    /// Mapping version 1.0, the one this mapping writes.
    public static let version10: UInt8 = 0x10
    /// WriteF `00`: no write in progress.
    public static let writeDone: UInt8 = 0x00
    /// WriteF `0F`: a write in progress (or interrupted).
    public static let writeInProgress: UInt8 = 0x0F
    /// RWFlag `00`: read-only.
    public static let readOnly: UInt8 = 0x00
    /// RWFlag `01`: read/write.
    public static let readWrite: UInt8 = 0x01

    /// Byte offsets of the fields, for error offsets.
    public enum Offset {
        /// Ver.
        public static let version = 0
        /// Nbr.
        public static let nbr = 1
        /// Nbw.
        public static let nbw = 2
        /// Nmaxb.
        public static let nmaxb = 3
        /// WriteF.
        public static let writeFlag = 9
        /// RWFlag.
        public static let rwFlag = 10
        /// Ln.
        public static let length = 11
        /// Checksum.
        public static let checksum = 14
    }

    /// Ver: the mapping version (major in the upper nibble).
    public var version: UInt8
    /// Nbr: blocks per read command.
    public var nbr: UInt8
    /// Nbw: blocks per write command.
    public var nbw: UInt8
    /// Nmaxb: blocks available for NDEF data (blocks 1…Nmaxb).
    public var nmaxb: UInt16
    /// Bytes 5–8, reserved (kept as read so that the checksum still holds when re-encoded).
    public var reserved: [UInt8]
    /// WriteF: ``writeDone`` or ``writeInProgress``.
    public var writeFlag: UInt8
    /// RWFlag: ``readWrite`` or ``readOnly``.
    public var rwFlag: UInt8
    /// Ln: the stored message's length in bytes.
    public var length: Int

    /// A block's fields; `length` is kept to 24 bits when encoded.
    public init(
        version: UInt8 = Self.version10, nbr: UInt8, nbw: UInt8, nmaxb: UInt16, writeFlag: UInt8 = Self.writeDone,
        rwFlag: UInt8 = Self.readWrite, length: Int = 0, reserved: [UInt8] = [0, 0, 0, 0]
    ) {
        self.version = version
        self.nbr = nbr
        self.nbw = nbw
        self.nmaxb = nmaxb
        self.writeFlag = writeFlag
        self.rwFlag = rwFlag
        self.length = length
        self.reserved = reserved
    }

    /// Parses block 0, every field checked (T3T 1.x, NDEF detection).
    /// - Throws: ``NFCTagError`` with the byte offset in block 0:
    ///   - `notNDEFFormatted` — not 16 bytes (offset: the length), a checksum that does not
    ///     match (14; a blank or non-NDEF block 0), or a mapping major version other than 1 (0);
    ///   - `malformedTag` — Nbr 0 (1), Nbw 0 (2), Nmaxb 0 (3), WriteF neither 00 nor 0F (9),
    ///     RWFlag neither 00 nor 01 (10), Ln beyond Nmaxb × 16 (11).
    public init(parsing block: [UInt8]) throws(NFCTagError) {
        guard block.count == Type3Command.blockSize else {
            throw NFCTagError(.notNDEFFormatted, at: block.count, "attribute information block of \(block.count) bytes, not 16")
        }
        let sum = block[0..<14].reduce(0) { $0 + Int($1) }
        let stored = Int(block[14]) << 8 | Int(block[15])
        guard sum == stored else {
            throw NFCTagError(
                .notNDEFFormatted, at: Offset.checksum,
                "attribute information checksum is \(hexByte(block[14]))\(hexByte(block[15])), the sum of bytes 0–13 is \(String(format4: sum))")
        }
        guard block[0] >> 4 == 1 else {
            throw NFCTagError(.notNDEFFormatted, at: Offset.version, "mapping version \(block[0] >> 4).\(block[0] & 0x0F) is not 1.x")
        }
        guard block[1] > 0 else { throw NFCTagError(.malformedTag, at: Offset.nbr, "Nbr is 0: no block could be read") }
        guard block[2] > 0 else { throw NFCTagError(.malformedTag, at: Offset.nbw, "Nbw is 0: no block could be written") }
        let nmaxb = UInt16(block[3]) << 8 | UInt16(block[4])
        guard nmaxb > 0 else { throw NFCTagError(.malformedTag, at: Offset.nmaxb, "Nmaxb is 0: no block for NDEF data") }
        guard block[9] == Self.writeDone || block[9] == Self.writeInProgress else {
            throw NFCTagError(.malformedTag, at: Offset.writeFlag, "WriteF is \(hexByte(block[9])), neither 00 nor 0F")
        }
        guard block[10] == Self.readOnly || block[10] == Self.readWrite else {
            throw NFCTagError(.malformedTag, at: Offset.rwFlag, "RWFlag is \(hexByte(block[10])), neither 00 nor 01")
        }
        let length = Int(block[11]) << 16 | Int(block[12]) << 8 | Int(block[13])
        guard length <= Int(nmaxb) * Type3Command.blockSize else {
            throw NFCTagError(
                .malformedTag, at: Offset.length, "Ln of \(length) bytes exceeds the \(Int(nmaxb) * Type3Command.blockSize) bytes of Nmaxb = \(nmaxb) blocks")
        }
        self.init(
            version: block[0], nbr: block[1], nbw: block[2], nmaxb: nmaxb, writeFlag: block[9], rwFlag: block[10],
            length: length, reserved: Array(block[5..<9]))
    }

    /// The 16-byte block, checksum computed.
    public var encoded: [UInt8] {
        var block: [UInt8] = [version, nbr, nbw, UInt8(nmaxb >> 8), UInt8(nmaxb & 0xFF)]
        block += (0..<4).map { $0 < reserved.count ? reserved[$0] : 0 }
        block += [writeFlag, rwFlag, UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
        let sum = block.reduce(0) { $0 + Int($1) }
        return block + [UInt8((sum >> 8) & 0xFF), UInt8(sum & 0xFF)]
    }

    /// Bytes available for the NDEF message: Nmaxb × 16.
    public var capacity: Int { Int(nmaxb) * Type3Command.blockSize }

    /// Whether RWFlag allows writing.
    public var isWritable: Bool { rwFlag == Self.readWrite }

    /// Whether WriteF says a write began and did not finish.
    public var isWriteInterrupted: Bool { writeFlag == Self.writeInProgress }

    /// The data blocks holding the message: 1…⌈Ln / 16⌉.
    public var messageBlocks: ClosedRange<Int>? {
        length == 0 ? nil : 1...((length + Type3Command.blockSize - 1) / Type3Command.blockSize)
    }
}

extension String {
    /// Four upper-case hexadecimal digits of the low 16 bits.
    fileprivate init(format4 value: Int) {
        self = hexByte(UInt8((value >> 8) & 0xFF)) + hexByte(UInt8(value & 0xFF))
    }
}
