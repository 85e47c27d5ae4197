/// The capability container of an NFC Forum Type 5 Tag, at byte 0 of block 0 (NFC Forum Type 5
/// Tag 1.0, 4.3.1 "Capability Container"; ICODE SLIX2 data sheet SL2S2602, "NDEF").
///
/// Byte 0 is the magic number: `E1` (blocks addressed with 1 byte) or `E2` (2-byte block
/// numbers: the extended commands). Byte 1 holds the mapping version (bits 7–6 major, 5–4
/// minor), the read access (bits 3–2) and the write access (bits 1–0) conditions. Byte 2 is
/// MLEN, the size of the T5T area — the TLV area that follows the CC — in 8-byte units; MLEN 0
/// announces the 8-byte form, where bytes 4–5 are RFU and bytes 6–7 hold MLEN big-endian (areas
/// beyond 2040 bytes). Byte 3 lists features: bit 0 Read Multiple Blocks supported, bit 3 Lock
/// Block supported, bit 4 special frame needed for write-alike commands.
public struct Type5CapabilityContainer: Sendable, Hashable {
    /// Magic `E1`: 1-byte block numbers.
    public static let magicOneByteAddress: UInt8 = 0xE1
    /// Magic `E2`: 2-byte block numbers (extended commands).
    public static let magicTwoByteAddress: UInt8 = 0xE2
    /// Mapping version 1.0 in bits 7–4 of byte 1 (`40`).
    public static let version10: UInt8 = 0x40
    /// Access condition `00`: granted.
    public static let accessGranted: UInt8 = 0x0
    /// Write access `11`b: never (read-only, Type 5 Tag 1.0, 4.3.1).
    public static let writeAccessNever: UInt8 = 0x3
    /// Feature bit 0: Read Multiple Blocks supported.
    public static let featureReadMultipleBlocks: UInt8 = 0x01
    /// Feature bit 3: Lock Block supported.
    public static let featureLockBlock: UInt8 = 0x08
    /// Feature bit 4: special frame for write-alike commands.
    public static let featureSpecialFrame: UInt8 = 0x10
    /// The largest T5T area the 4-byte form can state: MLEN `FF` × 8.
    public static let largestFourByteArea = 0xFF * 8

    /// Byte 0: `E1` or `E2`.
    public var magic: UInt8
    /// Byte 1, all of it: version, read access, write access.
    public var versionAndAccess: UInt8
    /// The T5T area size in bytes: MLEN × 8.
    public var areaSize: Int
    /// Byte 3: feature flags.
    public var features: UInt8
    /// 4 or 8: the form of the CC, which is also where the T5T area starts.
    public var size: Int

    /// The major mapping version (bits 7–6 of byte 1).
    public var majorVersion: UInt8 { versionAndAccess >> 6 }
    /// The read access condition (bits 3–2 of byte 1).
    public var readAccess: UInt8 { (versionAndAccess >> 2) & 0x3 }
    /// The write access condition (bits 1–0 of byte 1).
    public var writeAccess: UInt8 { versionAndAccess & 0x3 }
    /// Whether writing is granted (write access `00`b); `01`, `10` (proprietary) and `11` are
    /// read-only for this mapping.
    public var isWritable: Bool { writeAccess == Self.accessGranted }
    /// Whether Read Multiple Blocks may be used.
    public var supportsReadMultipleBlocks: Bool { features & Self.featureReadMultipleBlocks != 0 }
    /// Whether the tag claims Lock Block.
    public var supportsLockBlock: Bool { features & Self.featureLockBlock != 0 }
    /// Whether write-alike commands need the special frame.
    public var needsSpecialFrame: Bool { features & Self.featureSpecialFrame != 0 }
    /// Whether block numbers take 2 bytes (magic `E2`).
    public var usesExtendedCommands: Bool { magic == Self.magicTwoByteAddress }
    /// The byte address just past the T5T area.
    public var areaEnd: Int { size + areaSize }

    /// A capability container; the form is 4 bytes when `areaSize` ≤ 2040, else 8.
    public init(
        magic: UInt8 = Type5CapabilityContainer.magicOneByteAddress, versionAndAccess: UInt8 = Type5CapabilityContainer.version10,
        areaSize: Int, features: UInt8 = 0
    ) {
        self.magic = magic
        self.versionAndAccess = versionAndAccess
        self.areaSize = areaSize
        self.features = features
        self.size = areaSize <= Self.largestFourByteArea ? 4 : 8
    }

    /// The CC for a chip of `memorySize` bytes (from Get system information): the largest T5T area
    /// that fits after the CC, in whole 8-byte units (4-byte form while it is ≤ 2040 bytes).
    public static func forMemory(size memorySize: Int, features: UInt8) -> Type5CapabilityContainer {
        var cc = Type5CapabilityContainer(areaSize: (memorySize - 4) / 8 * 8, features: features)
        if cc.size == 8 { cc.areaSize = min((memorySize - 8) / 8, 0xFFFF) * 8 }
        return cc
    }

    /// The CC's bytes, 4 or 8.
    public var bytes: [UInt8] {
        if size == 4 { return [magic, versionAndAccess, UInt8(areaSize / 8), features] }
        let mlen = areaSize / 8
        return [magic, versionAndAccess, 0x00, features, 0x00, 0x00, UInt8(mlen >> 8), UInt8(mlen & 0xFF)]
    }

    /// Decodes the CC at the start of `memory` (byte 0 = block 0 byte 0).
    /// - Throws: ``NFCTagError`` `notNDEFFormatted` when the magic is not `E1`/`E2` (offset 0),
    ///   the major version is not 1 or read access is not granted (offset 1); `malformedTag` when
    ///   memory ends before the CC (offset = where it ends) or the 8-byte form's MLEN is 0
    ///   (offset 6).
    public init(memory: some Collection<UInt8>) throws(NFCTagError) {
        switch Self.parse(Array(memory.prefix(8))) {
        case .success(let cc): self = cc
        case .failure(let error): throw error
        case .needMore(let address):
            throw NFCTagError(.malformedTag, at: address, "capability container needs \(address + 1) bytes, memory ends at \(address)")
        }
    }

    static func parse(_ cc: [UInt8]) -> PartialParse<Type5CapabilityContainer> {
        guard cc.count >= 4 else { return .needMore(cc.count) }
        guard cc[0] == magicOneByteAddress || cc[0] == magicTwoByteAddress else {
            return .failure(NFCTagError(.notNDEFFormatted, at: 0, "CC byte 0 is \(hexByte(cc[0])), not the NDEF magic number E1 or E2"))
        }
        let access = cc[1]
        guard access >> 6 == 1 else {
            return .failure(NFCTagError(.notNDEFFormatted, at: 1, "mapping version \(access >> 6).\((access >> 4) & 3) is not 1.x"))
        }
        guard (access >> 2) & 0x3 == accessGranted else {
            return .failure(NFCTagError(.notNDEFFormatted, at: 1, "read access \((access >> 2) & 0x3) is not granted (CC byte 1 = \(hexByte(access)))"))
        }
        if cc[2] != 0 {
            var result = Type5CapabilityContainer(magic: cc[0], versionAndAccess: access, areaSize: Int(cc[2]) * 8, features: cc[3])
            result.size = 4
            return .success(result)
        }
        guard cc.count >= 8 else { return .needMore(cc.count) }
        let mlen = Int(cc[6]) << 8 | Int(cc[7])
        guard mlen != 0 else {
            return .failure(NFCTagError(.malformedTag, at: 6, "8-byte capability container with MLEN 0"))
        }
        var result = Type5CapabilityContainer(magic: cc[0], versionAndAccess: access, areaSize: mlen * 8, features: cc[3])
        result.size = 8
        return .success(result)
    }
}

/// TLV block types of the T5T area (NFC Forum Type 5 Tag 1.0, 4.4): the values and names of
/// Type 2 (NULL 00, NDEF 03, Proprietary FD, Terminator FE, 3-byte length marker FF).
public typealias Type5TLVType = Type2TLVType

/// The T5T area as the NDEF detection procedure finds it (Type 5 Tag 1.0, 4.4 and 7.5.1): the
/// capability container, where the NDEF TLV starts and how long its message is.
///
/// The area runs from the end of the CC for MLEN × 8 bytes. NULL TLVs are skipped, Proprietary
/// and unknown TLVs are stepped over by their length, the first NDEF TLV ends the search; a
/// Terminator before any NDEF TLV means no NDEF.
public struct Type5TLVArea: Sendable, Hashable {
    /// The capability container.
    public var capabilityContainer: Type5CapabilityContainer
    /// The byte address of the NDEF TLV's T byte.
    public var ndefTLVAddress: Int
    /// 1 or 3: the size of the stored L field.
    public var lengthFieldSize: Int
    /// The stored message's length (the L field).
    public var messageLength: Int
    /// Where the memory NDEF may use ends, when the chip is known: the T5T area is cut there
    /// even when the CC's MLEN reaches further (an ICODE SLIX2 formatted by Android carries MLEN
    /// `28`, the whole 320 bytes, counter block included, and 4 bytes past the memory).
    public var memoryEnd: Int?

    /// Creates an area.
    public init(capabilityContainer: Type5CapabilityContainer, ndefTLVAddress: Int, lengthFieldSize: Int, messageLength: Int) {
        self.capabilityContainer = capabilityContainer
        self.ndefTLVAddress = ndefTLVAddress
        self.lengthFieldSize = lengthFieldSize
        self.messageLength = messageLength
    }

    /// Bytes from the NDEF TLV's T byte to the end of the T5T area (or of ``memoryEnd`` when
    /// that comes first): where a new NDEF TLV goes.
    public var usableBytes: Int { max(0, min(capabilityContainer.areaEnd, memoryEnd ?? Int.max) - ndefTLVAddress) }

    /// The longest message that fits: the usable bytes less the T byte and a 1-byte length (up to
    /// 254 bytes of message) or a 3-byte length (255 and more); the Terminator TLV is written only
    /// when a byte is left, so it costs nothing (as ``Type2TLVArea/capacity(usableBytes:)``).
    public var capacity: Int { Type2TLVArea.capacity(usableBytes: usableBytes) }

    /// The byte addresses of the stored message (V field).
    public var messageAddresses: Range<Int> {
        let start = ndefTLVAddress + 1 + lengthFieldSize
        return start..<(start + messageLength)
    }

    /// Parses tag memory from address 0 (block 0 first).
    /// - Throws: ``NFCTagError`` from ``Type5CapabilityContainer/init(memory:)``;
    ///   `notNDEFFormatted` when the area holds no NDEF TLV (a Terminator, or its end, comes
    ///   first); `malformedTag` with the byte address for a TLV whose length runs past the area
    ///   or memory that ends before the TLVs do.
    /// - Parameter memoryEnd: where the chip's memory for NDEF ends, when the chip is known
    ///   (``memoryEnd``): the TLV walk stops there even when MLEN reaches further (a CC may
    ///   overstate the area, as Android's formatting of a SLIX2 does), and a TLV whose value runs
    ///   past it is `malformedTag` — nothing past the chip's memory is read as NDEF data.
    public static func parse(memory: [UInt8], memoryEnd: Int? = nil) throws(NFCTagError) -> Type5TLVArea {
        try parseOrNeedMore(memory: memory, memoryEnd: memoryEnd).get(memoryCount: memory.count)
    }

    static func parseOrNeedMore(memory: [UInt8], memoryEnd: Int? = nil) -> PartialParse<Type5TLVArea> {
        let cc: Type5CapabilityContainer
        switch Type5CapabilityContainer.parse(Array(memory.prefix(8))) {
        case .success(let found): cc = found
        case .failure(let error): return .failure(error)
        case .needMore(let address): return .needMore(address)
        }
        var address = cc.size
        // The area as the CC states it, cut at the chip's memory.
        let end = min(cc.areaEnd, memoryEnd ?? Int.max)
        while address < end {
            guard address < memory.count else { return .needMore(address) }
            let type = memory[address]
            if type == Type5TLVType.null {
                address += 1
                continue
            }
            if type == Type5TLVType.terminator {
                return .failure(NFCTagError(.notNDEFFormatted, at: address, "Terminator TLV before any NDEF TLV"))
            }
            // A TLV with a length field.
            guard address + 1 < end else {
                return .failure(NFCTagError(.malformedTag, at: address, "TLV \(hexByte(type)) has no length byte before the area ends at \(end)"))
            }
            guard address + 1 < memory.count else { return .needMore(address + 1) }
            var length = Int(memory[address + 1])
            var lengthSize = 1
            if memory[address + 1] == Type5TLVType.threeByteLengthMarker {
                guard address + 3 < end else {
                    return .failure(NFCTagError(.malformedTag, at: address + 1, "3-byte length runs past the area end \(end)"))
                }
                guard address + 3 < memory.count else { return .needMore(address + 3) }
                length = Int(memory[address + 2]) << 8 | Int(memory[address + 3])
                lengthSize = 3
                guard length != 0xFFFF else {
                    return .failure(NFCTagError(.malformedTag, at: address + 2, "TLV length FFFF is reserved"))
                }
            }
            let valueEnd = address + 1 + lengthSize + length
            guard valueEnd <= end else {
                return .failure(NFCTagError(
                    .malformedTag, at: address + 1,
                    "TLV \(hexByte(type)) of \(length) bytes runs \(valueEnd - end) bytes past the area end \(end)"))
            }
            if type == Type5TLVType.ndefMessage {
                var area = Type5TLVArea(capabilityContainer: cc, ndefTLVAddress: address, lengthFieldSize: lengthSize, messageLength: length)
                area.memoryEnd = memoryEnd
                return .success(area)
            }
            address = valueEnd
        }
        return .failure(NFCTagError(.notNDEFFormatted, at: min(address, end), "no NDEF TLV in the T5T area"))
    }
}
