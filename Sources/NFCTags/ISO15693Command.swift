public import NFCCore

/// ISO/IEC 15693-3 command codes (ISO/IEC 15693-3, "Mandatory commands", "Optional commands";
/// the extended commands `30`–`3C` of ISO/IEC 15693-3:2019 take 2-byte block numbers). The
/// NXP ICODE SLIX2 (SL2S2602 data sheet, command set) answers `01`–`2C` but none of the
/// extended commands and not Write multiple blocks `24`.
public enum ISO15693Command {
    /// The commands that change the tag: writes and locks of blocks, AFI and DSFID, plain and
    /// extended (what `--plan` holds back).
    public static let writeClass: Set<UInt8> = [
        writeSingleBlock, lockBlock, writeMultipleBlocks, writeAFI, lockAFI, writeDSFID, lockDSFID,
        extendedWriteSingleBlock, extendedLockBlock, extendedWriteMultipleBlocks,
    ]
    /// Inventory `01`.
    public static let inventory: UInt8 = 0x01
    /// Stay quiet `02` (addressed only; no answer).
    public static let stayQuiet: UInt8 = 0x02
    /// Read single block `20`.
    public static let readSingleBlock: UInt8 = 0x20
    /// Write single block `21`.
    public static let writeSingleBlock: UInt8 = 0x21
    /// Lock block `22`.
    public static let lockBlock: UInt8 = 0x22
    /// Read multiple blocks `23`: first block, number of blocks − 1.
    public static let readMultipleBlocks: UInt8 = 0x23
    /// Write multiple blocks `24`: first block, number of blocks − 1, data.
    public static let writeMultipleBlocks: UInt8 = 0x24
    /// Select `25`.
    public static let select: UInt8 = 0x25
    /// Reset to ready `26`.
    public static let resetToReady: UInt8 = 0x26
    /// Write AFI `27`.
    public static let writeAFI: UInt8 = 0x27
    /// Lock AFI `28`.
    public static let lockAFI: UInt8 = 0x28
    /// Write DSFID `29`.
    public static let writeDSFID: UInt8 = 0x29
    /// Lock DSFID `2A`.
    public static let lockDSFID: UInt8 = 0x2A
    /// Get system information `2B`.
    public static let getSystemInformation: UInt8 = 0x2B
    /// Get multiple block security status `2C`.
    public static let getMultipleBlockSecurityStatus: UInt8 = 0x2C
    /// Extended read single block `30` (2-byte block number, least significant byte first).
    public static let extendedReadSingleBlock: UInt8 = 0x30
    /// Extended write single block `31`.
    public static let extendedWriteSingleBlock: UInt8 = 0x31
    /// Extended lock block `32`.
    public static let extendedLockBlock: UInt8 = 0x32
    /// Extended read multiple blocks `33`.
    public static let extendedReadMultipleBlocks: UInt8 = 0x33
    /// Extended write multiple blocks `34`.
    public static let extendedWriteMultipleBlocks: UInt8 = 0x34
    /// Extended get system information `3B` (one parameter byte: which fields are wanted).
    public static let extendedGetSystemInformation: UInt8 = 0x3B
    /// Extended get multiple block security status `3C`.
    public static let extendedGetMultipleBlockSecurityStatus: UInt8 = 0x3C
    /// First custom command code (`A0`); custom commands carry the IC manufacturer code.
    public static let firstCustom: UInt8 = 0xA0
    /// Last custom command code (`DF`).
    public static let lastCustom: UInt8 = 0xDF
    /// NXP custom READ SIGNATURE `BD` (ICODE SLIX2 and ICODE DNA datasheets, "READ SIGNATURE"):
    /// framed with manufacturer code `04`, answered by the 32-byte originality signature.
    public static let nxpReadSignature: UInt8 = 0xBD
    /// NXP's IC manufacturer code (`04`, ISO/IEC 7816-6), which its custom commands carry.
    public static let nxpManufacturerCode: UInt8 = 0x04
}

/// Request flags (ISO/IEC 15693-3, 7.3.1, Tables 3–5).
public enum ISO15693RequestFlag {
    /// Bit 1: two subcarriers.
    public static let subcarrier: UInt8 = 0x01
    /// Bit 2: high data rate.
    public static let dataRate: UInt8 = 0x02
    /// Bit 3: this is an Inventory request (bits 5–8 then take Table 5's meaning).
    public static let inventory: UInt8 = 0x04
    /// Bit 4: protocol format extension.
    public static let protocolExtension: UInt8 = 0x08
    /// Bit 5 (not inventory): only a tag in the selected state answers.
    public static let select: UInt8 = 0x10
    /// Bit 6 (not inventory): the request carries the UID after the command code.
    public static let address: UInt8 = 0x20
    /// Bit 7: option flag (reads: security status byte before each block's data; writes and
    /// locks: answer after the reader's EOF, which some chips such as TI Tag-it require and
    /// ICODE chips do not: SL2S2602 executes write-alike commands as with the flag at 0).
    public static let option: UInt8 = 0x40
    /// Bit 5 (inventory): an AFI byte follows the command code.
    public static let afi: UInt8 = 0x10
    /// Bit 6 (inventory): one slot instead of 16.
    public static let oneSlot: UInt8 = 0x20
}

/// Response flags (ISO/IEC 15693-3, 7.4.1, Table 6).
public enum ISO15693ResponseFlag {
    /// Bit 1: the error flag; an error code byte follows.
    public static let error: UInt8 = 0x01
}

/// Response error codes (ISO/IEC 15693-3, 7.4.2, Table 7): an error response is flags with
/// bit 1 set, followed by one of these.
public enum ISO15693Error {
    /// `01`: the command is not supported.
    public static let commandNotSupported: UInt8 = 0x01
    /// `02`: the command is not recognized, e.g. a format error.
    public static let commandNotRecognized: UInt8 = 0x02
    /// `03`: the option is not supported.
    public static let optionNotSupported: UInt8 = 0x03
    /// `0F`: unknown error.
    public static let unknown: UInt8 = 0x0F
    /// `10`: the block is not available (does not exist).
    public static let blockNotAvailable: UInt8 = 0x10
    /// `11`: the block is already locked and cannot be locked again.
    public static let alreadyLocked: UInt8 = 0x11
    /// `12`: the block is locked, its content cannot be changed.
    public static let lockedBlockCannotBeChanged: UInt8 = 0x12
    /// `13`: the block was not successfully programmed.
    public static let programmingFailed: UInt8 = 0x13
    /// `14`: the block was not successfully locked.
    public static let lockFailed: UInt8 = 0x14

    /// The meaning of an error code, as ISO/IEC 15693-3 Table 7 names it; `A0`–`DF` are custom
    /// (manufacturer-defined), the rest reserved.
    public static func meaning(of code: UInt8) -> String {
        switch code {
        case commandNotSupported: "command not supported"
        case commandNotRecognized: "command not recognised"
        case optionNotSupported: "option not supported"
        case unknown: "unknown error"
        case blockNotAvailable: "block not available"
        case alreadyLocked: "block already locked"
        case lockedBlockCannotBeChanged: "block locked, its content cannot be changed"
        case programmingFailed: "block not successfully programmed"
        case lockFailed: "block not successfully locked"
        case 0xA0...0xDF: "custom (manufacturer) error"
        default: "reserved error code"
        }
    }

    /// The tag-layer error for an error response: ``NFCTagError/Code/readOnly`` for `12`,
    /// ``NFCTagError/Code/tagResponse`` for any other code; the reason names the command and the
    /// ISO 15693 code (`… answered ISO 15693 error 10 (block not available)`).
    public static func tagError(_ code: UInt8, during what: String, at offset: Int? = nil) -> NFCTagError {
        NFCTagError(
            code == lockedBlockCannotBeChanged ? .readOnly : .tagResponse, at: offset,
            "\(what) answered ISO 15693 error \(hexByte(code)) (\(meaning(of: code)))")
    }

    /// The ISO 15693 error code a ``tagError(_:during:at:)`` reason carries, if any.
    public static func code(in error: NFCTagError) -> UInt8? {
        guard let range = error.reason.firstRange(of: "ISO 15693 error ") else { return nil }
        let digits = error.reason[range.upperBound...].prefix(2)
        return UInt8(digits, radix: 16)
    }
}

/// What Get system information (`2B`) answers (ISO/IEC 15693-3, "Get system information"):
/// the info flags say which of DSFID, AFI, memory size and IC reference follow the UID.
public struct ISO15693SystemInfo: Sendable, Hashable {
    /// Info flag bit 1: DSFID present.
    public static let dsfidPresent: UInt8 = 0x01
    /// Info flag bit 2: AFI present.
    public static let afiPresent: UInt8 = 0x02
    /// Info flag bit 3: memory size present (block count − 1, then block size − 1 in 5 bits).
    public static let memorySizePresent: UInt8 = 0x04
    /// Info flag bit 4: IC reference present.
    public static let icReferencePresent: UInt8 = 0x08

    /// The info flags byte as answered.
    public var infoFlags: UInt8
    /// The UID, most significant byte first.
    public var uid: Bytes
    /// Data storage format identifier, when present.
    public var dsfid: UInt8?
    /// Application family identifier, when present.
    public var afi: UInt8?
    /// Number of blocks, when the memory size is present.
    public var blockCount: Int?
    /// Bytes per block, when the memory size is present.
    public var blockSize: Int?
    /// The IC reference byte, when present.
    public var icReference: UInt8?

    /// Creates system information.
    public init(
        infoFlags: UInt8, uid: Bytes, dsfid: UInt8? = nil, afi: UInt8? = nil, blockCount: Int? = nil,
        blockSize: Int? = nil, icReference: UInt8? = nil
    ) {
        self.infoFlags = infoFlags
        self.uid = uid
        self.dsfid = dsfid
        self.afi = afi
        self.blockCount = blockCount
        self.blockSize = blockSize
        self.icReference = icReference
    }

    /// Memory size in bytes, when known.
    public var memorySize: Int? {
        guard let blockCount, let blockSize else { return nil }
        return blockCount * blockSize
    }

    /// Decodes the answer of Get system information without its response flags byte: info
    /// flags, UID (least significant byte first, as on the air), then the fields the flags
    /// announce, in order. Flag bits 5–8 are reserved and must be 0.
    /// - Throws: ``NFCTagError`` `tagResponse` with the offset (in the answer, the flags byte
    ///   excluded) of a missing byte, a reserved flag, or trailing bytes.
    public init(answer: some Collection<UInt8>) throws(NFCTagError) {
        var reader = SystemInfoAnswer(answer, name: "system information")
        func take(_ count: Int, _ what: String) throws(NFCTagError) -> [UInt8] { try reader.take(count, what) }
        let flags = try take(1, "info flags")[0]
        guard flags & 0xF0 == 0 else {
            throw NFCTagError(.tagResponse, at: 0, "system information info flags \(hexByte(flags)) set reserved bits")
        }
        let uid = Bytes(try take(8, "UID").reversed())
        self.init(infoFlags: flags, uid: uid)
        if flags & Self.dsfidPresent != 0 { dsfid = try take(1, "DSFID")[0] }
        if flags & Self.afiPresent != 0 { afi = try take(1, "AFI")[0] }
        if flags & Self.memorySizePresent != 0 {
            let size = try take(2, "memory size")
            blockCount = Int(size[0]) + 1
            blockSize = Int(size[1] & 0x1F) + 1
        }
        if flags & Self.icReferencePresent != 0 { icReference = try take(1, "IC reference")[0] }
        try reader.finish()
    }

    /// Encodes the answer (without the response flags byte): the inverse of ``init(answer:)``.
    public var answer: [UInt8] {
        var bytes = [infoFlags] + uid.array.reversed()
        if let dsfid { bytes.append(dsfid) }
        if let afi { bytes.append(afi) }
        if let blockCount, let blockSize { bytes += [UInt8(truncatingIfNeeded: blockCount - 1), UInt8((blockSize - 1) & 0x1F)] }
        if let icReference { bytes.append(icReference) }
        return bytes
    }
}

/// What Extended get system information (`3B`) answers (ISO/IEC 15693-3:2019, "Extended get
/// system information"): like ``ISO15693SystemInfo`` with a 2-byte block count, plus the memory
/// organisation indicator and the VICC command list.
public struct ISO15693ExtendedSystemInfo: Sendable, Hashable {
    /// Info flag bit 1: DSFID present.
    public static let dsfidPresent: UInt8 = 0x01
    /// Info flag bit 2: AFI present.
    public static let afiPresent: UInt8 = 0x02
    /// Info flag bit 3: memory size present (3 bytes: block count − 1 least significant byte
    /// first, then block size − 1 in 5 bits).
    public static let memorySizePresent: UInt8 = 0x04
    /// Info flag bit 4: IC reference present.
    public static let icReferencePresent: UInt8 = 0x08
    /// Info flag bit 5: memory organisation indicator (no data: 2-byte block addressing when set).
    public static let twoByteAddressing: UInt8 = 0x10
    /// Info flag bit 6: the 4-byte VICC command list follows.
    public static let commandListPresent: UInt8 = 0x20
    /// Info flag bit 7: cryptographic suite information follows (not decoded here).
    public static let cryptoSuitesPresent: UInt8 = 0x40
    /// Info flag bit 8: the info flags field is extended (not decoded here).
    public static let infoFlagsExtended: UInt8 = 0x80
    /// The request byte asking for everything decoded here (bits 1–6).
    public static let decodableRequest: UInt8 = 0x3F

    /// The info flags byte as answered.
    public var infoFlags: UInt8
    /// The UID, most significant byte first.
    public var uid: Bytes
    /// Data storage format identifier, when present.
    public var dsfid: UInt8?
    /// Application family identifier, when present.
    public var afi: UInt8?
    /// Number of blocks (up to 65536), when the memory size is present.
    public var blockCount: Int?
    /// Bytes per block, when the memory size is present.
    public var blockSize: Int?
    /// The IC reference byte, when present.
    public var icReference: UInt8?
    /// The VICC command list (4 bytes, a bit per optional command), when present.
    public var commandList: Bytes?

    /// Whether blocks take 2-byte numbers (the memory organisation indicator).
    public var usesTwoByteAddressing: Bool { infoFlags & Self.twoByteAddressing != 0 }

    /// Decodes the answer without its response flags byte: info flags, UID (least significant
    /// byte first), then the announced fields in order.
    /// - Throws: ``NFCTagError`` `tagResponse` with the offset (in the answer) of a missing byte,
    ///   trailing bytes, or flags announcing cryptographic suites or extended flags, which are
    ///   not decoded.
    public init(answer: some Collection<UInt8>) throws(NFCTagError) {
        var reader = SystemInfoAnswer(answer, name: "extended system information")
        func take(_ count: Int, _ what: String) throws(NFCTagError) -> [UInt8] { try reader.take(count, what) }
        let flags = try take(1, "info flags")[0]
        guard flags & (Self.cryptoSuitesPresent | Self.infoFlagsExtended) == 0 else {
            throw NFCTagError(.tagResponse, at: 0, "extended system information flags \(hexByte(flags)) announce fields not decoded here")
        }
        infoFlags = flags
        uid = Bytes(try take(8, "UID").reversed())
        if flags & Self.dsfidPresent != 0 { dsfid = try take(1, "DSFID")[0] }
        if flags & Self.afiPresent != 0 { afi = try take(1, "AFI")[0] }
        if flags & Self.memorySizePresent != 0 {
            let size = try take(3, "memory size")
            blockCount = (Int(size[0]) | Int(size[1]) << 8) + 1
            blockSize = Int(size[2] & 0x1F) + 1
        }
        if flags & Self.icReferencePresent != 0 { icReference = try take(1, "IC reference")[0] }
        if flags & Self.commandListPresent != 0 { commandList = Bytes(try take(4, "command list")) }
        try reader.finish()
    }
}

/// Reads the fields of a (extended) Get system information answer in order, failing with the
/// offset of a missing byte or of trailing bytes.
private struct SystemInfoAnswer {
    let bytes: [UInt8]
    let name: String
    var index = 0

    init(_ answer: some Collection<UInt8>, name: String) {
        bytes = Array(answer)
        self.name = name
    }

    /// The next `count` bytes, the field being `what`.
    mutating func take(_ count: Int, _ what: String) throws(NFCTagError) -> [UInt8] {
        guard bytes.count - index >= count else {
            throw NFCTagError(.tagResponse, at: bytes.count, "\(name) ends before its \(what) (\(bytes.count) bytes)")
        }
        defer { index += count }
        return Array(bytes[index..<index + count])
    }

    /// Throws unless every byte was read.
    func finish() throws(NFCTagError) {
        guard index == bytes.count else {
            throw NFCTagError(.tagResponse, at: index, "\(name) has \(bytes.count - index) trailing bytes")
        }
    }
}
