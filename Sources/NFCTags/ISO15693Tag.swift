public import NFCCore

/// An ISO 15693 vicinity tag: CoreNFC's `NFCISO15693Tag`, async with a typed error. NDEF goes
/// through the NFC Forum Type 5 mapping (``Type5Tag``).
///
/// Every command is sent with the high data rate flag and, by default, in addressed mode (the
/// UID from the inventory, least significant byte first, follows the command code), so that
/// only this tag answers when several are in the field. A response with the error flag becomes
/// an ``NFCTagError`` naming the ISO 15693 error code (``ISO15693Error/tagError(_:during:at:)``):
/// ``NFCTagError/Code/readOnly`` for `12` (block locked), ``NFCTagError/Code/tagResponse`` for the
/// others.
///
/// libnfc 1.8.0 has no ISO 15693 modulation, so a PN532 driven by libnfc never inventories such
/// a tag: these commands are exercised against the ICODE SLIX2 model through the in-process
/// simulator (`SimulatedReader`, modulation `.iso15693`) only.
public struct ISO15693Tag: Sendable {
    /// The reader that inventoried the tag.
    public let reader: any NFCReader
    /// What the inventory returned (UID, DSFID).
    public let target: ISO15693Target
    /// What identification found.
    public let identity: ChipIdentity
    /// The timeout of each command.
    public var commandTimeout: Duration
    /// Whether requests carry the UID (address flag). On by default; off sends every request
    /// to whichever tag answers (one tag in the field only).
    public var isAddressed = true
    /// Whether writes and locks (`21`, `22`, `24`, `27`–`2A` and their extended forms) set the
    /// option flag. On for a chip identified as a TI Tag-it HF-I (family ``ChipFamily/tagIt``:
    /// AOSP `rw_i93.cc` sets it for every Tag-it product, "Option must be set for TI tag"; FEIG's
    /// reader manuals list "WR-OPTION = 1" for them), off for the others: the ICODE SLIX2 data
    /// sheet (SL2S2602) executes write-alike commands as with the option flag 0.
    public var writeOptionFlag: Bool

    /// Wraps an inventoried target.
    public init(reader: any NFCReader, target: ISO15693Target, identity: ChipIdentity, commandTimeout: Duration = .seconds(1)) {
        self.reader = reader
        self.target = target
        self.identity = identity
        self.commandTimeout = commandTimeout
        self.writeOptionFlag = identity.family == .tagIt
    }

    /// The 8-byte UID, most significant byte first.
    public var identifier: Bytes { target.uid }

    /// The IC manufacturer code: UID byte 2 (ISO/IEC 7816-6 registration; `04` = NXP).
    public var icManufacturerCode: UInt8 { target.uid.count >= 2 ? target.uid[1] : 0 }

    /// The manufacturer's serial number: the UID after `E0` and the manufacturer code (6 bytes).
    public var icSerialNumber: Bytes { target.uid.count > 2 ? target.uid[2..<target.uid.count] : Bytes() }

    /// The NDEF mapping (NFC Forum Type 5) over this tag's commands.
    public var ndefPlatform: any NFCNDEFTag { Type5Tag(tag: self) }

    // MARK: - Mandatory and optional commands

    /// Get system information (`2B`): info flags, UID, DSFID, AFI, block count and size, IC
    /// reference, each when the tag reports it.
    /// - Throws: ``NFCTagError`` `tagResponse` (error response or malformed answer),
    ///   `connectionLost`.
    public func getSystemInfo() async throws(NFCTagError) -> ISO15693SystemInfo {
        let answer = try await send(ISO15693Command.getSystemInformation, what: "GET SYSTEM INFORMATION")
        return try ISO15693SystemInfo(answer: answer)
    }

    /// The data storage format identifier, from Get system information.
    /// - Throws: ``NFCTagError`` `notSupported` when the tag does not report it; as
    ///   ``getSystemInfo()``.
    public func dataStorageFormatIdentifier() async throws(NFCTagError) -> UInt8 {
        guard let dsfid = try await getSystemInfo().dsfid else {
            throw NFCTagError(.notSupported, "the tag's system information has no DSFID")
        }
        return dsfid
    }

    /// The application family identifier, from Get system information.
    /// - Throws: ``NFCTagError`` `notSupported` when the tag does not report it; as
    ///   ``getSystemInfo()``.
    public func applicationFamilyIdentifier() async throws(NFCTagError) -> UInt8 {
        guard let afi = try await getSystemInfo().afi else {
            throw NFCTagError(.notSupported, "the tag's system information has no AFI")
        }
        return afi
    }

    /// Read single block (`20`): the block's bytes.
    /// - Throws: ``NFCTagError`` `invalidParameter` (block > 255, nothing sent), `tagResponse`
    ///   (e.g. error `10` block not available), `connectionLost`.
    public func readSingleBlock(_ block: Int) async throws(NFCTagError) -> Bytes {
        try await readSingleBlockWithSecurityStatus(block, securityStatus: false).data
    }

    /// Read single block (`20`) with the option flag: the block security status byte (bit 1 =
    /// locked) comes before the data.
    /// - Throws: as ``readSingleBlock(_:)``.
    public func readSingleBlockWithSecurityStatus(_ block: Int) async throws(NFCTagError) -> ISO15693Block {
        try await readSingleBlockWithSecurityStatus(block, securityStatus: true)
    }

    /// Write single block (`21`).
    /// - Throws: ``NFCTagError`` `invalidParameter` (block > 255 or no data, nothing sent);
    ///   `readOnly` (error `12`, block locked); `tagResponse`; `connectionLost`.
    public func writeSingleBlock(_ block: Int, data: Bytes) async throws(NFCTagError) {
        let number = try Self.blockByte(block)
        guard !data.isEmpty else { throw NFCTagError(.invalidParameter, "WRITE SINGLE BLOCK \(block) without data") }
        _ = try await send(
            ISO15693Command.writeSingleBlock, [number] + data.array, option: writeOptionFlag,
            what: "WRITE SINGLE BLOCK \(block)", expect: 0)
    }

    /// Lock block (`22`): permanently write-protects the block. Irreversible.
    /// - Throws: ``NFCTagError`` `invalidParameter`; `tagResponse` (error `11` already locked);
    ///   `connectionLost`.
    public func lockBlock(_ block: Int) async throws(NFCTagError) {
        let number = try Self.blockByte(block)
        _ = try await send(
            ISO15693Command.lockBlock, [number], option: writeOptionFlag, what: "LOCK BLOCK \(block)", expect: 0)
    }

    /// Read multiple blocks (`23`): the blocks of `range`, at most 256, each block's bytes.
    /// - Throws: ``NFCTagError`` `invalidParameter` (empty range, more than 256 blocks, past
    ///   block 255; nothing sent); `tagResponse` (error, or an answer that does not split into
    ///   `range.count` equal blocks); `connectionLost`.
    public func readMultipleBlocks(_ range: Range<Int>) async throws(NFCTagError) -> [Bytes] {
        try await readMultiple(range, extended: false, securityStatus: false).map(\.data)
    }

    /// Read multiple blocks (`23`) with the option flag: each block with its security status.
    /// - Throws: as ``readMultipleBlocks(_:)``.
    public func readMultipleBlocksWithSecurityStatus(_ range: Range<Int>) async throws(NFCTagError) -> [ISO15693Block] {
        try await readMultiple(range, extended: false, securityStatus: true)
    }

    /// Write multiple blocks (`24`): `blocks` (all of one size) from `firstBlock` on. Optional in
    /// ISO/IEC 15693-3; the ICODE SLIX2 lacks it and answers error `01`, which is thrown.
    /// - Throws: ``NFCTagError`` `invalidParameter` (no blocks, unequal sizes, past block 255);
    ///   `tagResponse` (e.g. `01` command not supported); `readOnly`; `connectionLost`.
    public func writeMultipleBlocks(from firstBlock: Int, _ blocks: [Bytes]) async throws(NFCTagError) {
        let parameters = try Self.multipleWriteParameters(firstBlock, blocks, extended: false)
        _ = try await send(
            ISO15693Command.writeMultipleBlocks, parameters, option: writeOptionFlag,
            what: "WRITE MULTIPLE BLOCKS \(firstBlock)–\(firstBlock + blocks.count - 1)", expect: 0)
    }

    /// Get multiple block security status (`2C`): one status byte per block of `range` (bit 1 =
    /// locked).
    /// - Throws: ``NFCTagError`` `invalidParameter`; `tagResponse` (error, or not one byte per
    ///   block); `connectionLost`.
    public func getMultipleBlockSecurityStatus(_ range: Range<Int>) async throws(NFCTagError) -> [UInt8] {
        try await securityStatus(range, extended: false)
    }

    /// Write AFI (`27`).
    /// - Throws: ``NFCTagError`` `readOnly` (error `12`: AFI locked), `tagResponse`, `connectionLost`.
    public func writeAFI(_ afi: UInt8) async throws(NFCTagError) {
        _ = try await send(ISO15693Command.writeAFI, [afi], option: writeOptionFlag, what: "WRITE AFI", expect: 0)
    }

    /// Lock AFI (`28`): irreversible.
    /// - Throws: ``NFCTagError`` `tagResponse` (error `11`: already locked), `connectionLost`.
    public func lockAFI() async throws(NFCTagError) {
        _ = try await send(ISO15693Command.lockAFI, option: writeOptionFlag, what: "LOCK AFI", expect: 0)
    }

    /// Write DSFID (`29`).
    /// - Throws: ``NFCTagError`` `readOnly` (error `12`: DSFID locked), `tagResponse`, `connectionLost`.
    public func writeDSFID(_ dsfid: UInt8) async throws(NFCTagError) {
        _ = try await send(ISO15693Command.writeDSFID, [dsfid], option: writeOptionFlag, what: "WRITE DSFID", expect: 0)
    }

    /// Lock DSFID (`2A`): irreversible.
    /// - Throws: ``NFCTagError`` `tagResponse` (error `11`: already locked), `connectionLost`.
    public func lockDSFID() async throws(NFCTagError) {
        _ = try await send(ISO15693Command.lockDSFID, option: writeOptionFlag, what: "LOCK DSFID", expect: 0)
    }

    // MARK: - Extended commands (2-byte block numbers)

    /// Extended read single block (`30`): block numbers up to 65535, sent least significant
    /// byte first. The ICODE SLIX2 answers error `01`.
    /// - Throws: as ``readSingleBlock(_:)``.
    public func extendedReadSingleBlock(_ block: Int) async throws(NFCTagError) -> Bytes {
        let number = try Self.extendedBlockBytes(block)
        let answer = try await send(ISO15693Command.extendedReadSingleBlock, number, what: "EXTENDED READ SINGLE BLOCK \(block)")
        guard !answer.isEmpty else {
            throw NFCTagError(.tagResponse, "EXTENDED READ SINGLE BLOCK \(block) answered no data")
        }
        return Bytes(answer)
    }

    /// Extended write single block (`31`).
    /// - Throws: as ``writeSingleBlock(_:data:)``.
    public func extendedWriteSingleBlock(_ block: Int, data: Bytes) async throws(NFCTagError) {
        let number = try Self.extendedBlockBytes(block)
        guard !data.isEmpty else { throw NFCTagError(.invalidParameter, "EXTENDED WRITE SINGLE BLOCK \(block) without data") }
        _ = try await send(
            ISO15693Command.extendedWriteSingleBlock, number + data.array, option: writeOptionFlag,
            what: "EXTENDED WRITE SINGLE BLOCK \(block)", expect: 0)
    }

    /// Extended lock block (`32`). Irreversible.
    /// - Throws: as ``lockBlock(_:)``.
    public func extendedLockBlock(_ block: Int) async throws(NFCTagError) {
        let number = try Self.extendedBlockBytes(block)
        _ = try await send(
            ISO15693Command.extendedLockBlock, number, option: writeOptionFlag, what: "EXTENDED LOCK BLOCK \(block)", expect: 0)
    }

    /// Extended read multiple blocks (`33`): first block and block count − 1 as 2-byte values.
    /// - Throws: as ``readMultipleBlocks(_:)`` (up to 65536 blocks).
    public func extendedReadMultipleBlocks(_ range: Range<Int>) async throws(NFCTagError) -> [Bytes] {
        try await readMultiple(range, extended: true, securityStatus: false).map(\.data)
    }

    /// Extended write multiple blocks (`34`).
    /// - Throws: as ``writeMultipleBlocks(from:_:)``.
    public func extendedWriteMultipleBlocks(from firstBlock: Int, _ blocks: [Bytes]) async throws(NFCTagError) {
        let parameters = try Self.multipleWriteParameters(firstBlock, blocks, extended: true)
        _ = try await send(
            ISO15693Command.extendedWriteMultipleBlocks, parameters, option: writeOptionFlag,
            what: "EXTENDED WRITE MULTIPLE BLOCKS \(firstBlock)–\(firstBlock + blocks.count - 1)", expect: 0)
    }

    /// Extended get multiple block security status (`3C`).
    /// - Throws: as ``getMultipleBlockSecurityStatus(_:)``.
    public func extendedGetMultipleBlockSecurityStatus(_ range: Range<Int>) async throws(NFCTagError) -> [UInt8] {
        try await securityStatus(range, extended: true)
    }

    /// Extended get system information (`3B`), asking for every field
    /// ``ISO15693ExtendedSystemInfo`` decodes (request byte `3F`).
    /// - Throws: ``NFCTagError`` `tagResponse` (e.g. `01` on an ICODE SLIX2, or an answer that
    ///   does not decode), `connectionLost`.
    public func extendedGetSystemInfo() async throws(NFCTagError) -> ISO15693ExtendedSystemInfo {
        let answer = try await send(
            ISO15693Command.extendedGetSystemInformation, [ISO15693ExtendedSystemInfo.decodableRequest],
            what: "EXTENDED GET SYSTEM INFORMATION")
        return try ISO15693ExtendedSystemInfo(answer: answer)
    }

    /// A custom command (`A0`–`DF`): the frame carries the IC manufacturer code
    /// (``icManufacturerCode``) before the UID, then `parameters`. Returns the answer after the
    /// response flags.
    /// - Throws: ``NFCTagError`` `invalidParameter` for a code outside `A0`–`DF` (nothing sent);
    ///   `tagResponse`, `readOnly`; `connectionLost` (also when a tag of another manufacturer
    ///   stays silent).
    public func customCommand(code: UInt8, parameters: Bytes) async throws(NFCTagError) -> Bytes {
        guard (ISO15693Command.firstCustom...ISO15693Command.lastCustom).contains(code) else {
            throw NFCTagError(.invalidParameter, "custom command code \(hexByte(code)) is outside A0–DF")
        }
        return Bytes(
            try await send(
                code, parameters.array, manufacturerCode: icManufacturerCode, what: "custom command \(hexByte(code))"))
    }

    /// NXP READ SIGNATURE (`BD`): the 32-byte ECC originality signature of an NXP ICODE chip
    /// (ICODE SLIX2, ICODE DNA), over its UID least significant byte first.
    /// - Throws: ``NFCTagError`` `notSupported` for a chip of another manufacturer (nothing
    ///   sent); `tagResponse` for an error answer or a length other than 32; `connectionLost`.
    public func readNXPSignature() async throws(NFCTagError) -> Bytes {
        guard icManufacturerCode == ISO15693Command.nxpManufacturerCode else {
            throw NFCTagError(.notSupported, "READ SIGNATURE is an NXP command; this chip's manufacturer code is \(hexByte(icManufacturerCode))")
        }
        let answer = try await customCommand(code: ISO15693Command.nxpReadSignature, parameters: Bytes())
        guard answer.count == 32 else {
            throw NFCTagError(.tagResponse, "READ SIGNATURE answered \(answer.count) bytes, not 32")
        }
        return answer
    }

    // MARK: - Framing

    /// The request flags byte: high data rate, address flag when ``isAddressed``, and `option`.
    public func requestFlags(option: Bool = false) -> UInt8 {
        ISO15693RequestFlag.dataRate | (isAddressed ? ISO15693RequestFlag.address : 0) | (option ? ISO15693RequestFlag.option : 0)
    }

    /// The request frame (without CRC): flags, command, [manufacturer code], [UID least
    /// significant byte first], parameters.
    public func frame(_ command: UInt8, _ parameters: [UInt8] = [], option: Bool = false, manufacturerCode: UInt8? = nil) -> [UInt8] {
        var frame = [requestFlags(option: option), command]
        if let manufacturerCode { frame.append(manufacturerCode) }
        if isAddressed { frame += target.uid.array.reversed() }
        return frame + parameters
    }

    /// Sends a request and returns the answer after its flags byte.
    /// - Parameter expect: the exact length of that answer, when known.
    func send(
        _ command: UInt8, _ parameters: [UInt8] = [], option: Bool = false, manufacturerCode: UInt8? = nil,
        what: String, offset: Int? = nil, expect: Int? = nil
    ) async throws(NFCTagError) -> [UInt8] {
        let answer: Bytes
        do {
            answer = try await reader.transceive(
                Bytes(frame(command, parameters, option: option, manufacturerCode: manufacturerCode)), mode: .standard,
                timeout: commandTimeout)
        } catch {
            throw NFCTagError(error, during: what)
        }
        guard let flags = answer.first else {
            throw NFCTagError(.tagResponse, at: offset, "\(what) answered nothing")
        }
        if flags & ISO15693ResponseFlag.error != 0 {
            guard answer.count == 2 else {
                throw NFCTagError(.tagResponse, at: offset, "\(what) answered an error response of \(answer.count) bytes: \(answer)")
            }
            throw ISO15693Error.tagError(answer[1], during: what, at: offset)
        }
        let data = Array(answer.array.dropFirst())
        if let expect, data.count != expect {
            throw NFCTagError(.tagResponse, at: offset, "\(what) answered \(data.count) data bytes, not \(expect)")
        }
        return data
    }

    private func readSingleBlockWithSecurityStatus(_ block: Int, securityStatus: Bool) async throws(NFCTagError) -> ISO15693Block {
        let number = try Self.blockByte(block)
        let answer = try await send(
            ISO15693Command.readSingleBlock, [number], option: securityStatus, what: "READ SINGLE BLOCK \(block)")
        guard answer.count > (securityStatus ? 1 : 0) else {
            throw NFCTagError(.tagResponse, "READ SINGLE BLOCK \(block) answered \(answer.count) data bytes")
        }
        return securityStatus
            ? ISO15693Block(number: block, data: Bytes(answer.dropFirst()), securityStatus: answer[0])
            : ISO15693Block(number: block, data: Bytes(answer))
    }

    func readMultiple(_ range: Range<Int>, extended: Bool, securityStatus: Bool) async throws(NFCTagError) -> [ISO15693Block] {
        let parameters = try Self.rangeParameters(range, extended: extended)
        let name = extended ? "EXTENDED READ MULTIPLE BLOCKS" : "READ MULTIPLE BLOCKS"
        let what = "\(name) \(range.lowerBound)–\(range.upperBound - 1)"
        let answer = try await send(
            extended ? ISO15693Command.extendedReadMultipleBlocks : ISO15693Command.readMultipleBlocks, parameters,
            option: securityStatus, what: what)
        let per = answer.count / range.count
        guard answer.count % range.count == 0, per > (securityStatus ? 1 : 0) else {
            throw NFCTagError(.tagResponse, "\(what) answered \(answer.count) bytes, not \(range.count) equal blocks")
        }
        return range.enumerated().map { index, block in
            let chunk = answer[(index * per)..<((index + 1) * per)]
            return securityStatus
                ? ISO15693Block(number: block, data: Bytes(chunk.dropFirst()), securityStatus: chunk[chunk.startIndex])
                : ISO15693Block(number: block, data: Bytes(chunk))
        }
    }

    private func securityStatus(_ range: Range<Int>, extended: Bool) async throws(NFCTagError) -> [UInt8] {
        let parameters = try Self.rangeParameters(range, extended: extended)
        let name = extended ? "EXTENDED GET MULTIPLE BLOCK SECURITY STATUS" : "GET MULTIPLE BLOCK SECURITY STATUS"
        return try await send(
            extended ? ISO15693Command.extendedGetMultipleBlockSecurityStatus : ISO15693Command.getMultipleBlockSecurityStatus,
            parameters, what: "\(name) \(range.lowerBound)–\(range.upperBound - 1)", expect: range.count)
    }

    static func blockByte(_ block: Int) throws(NFCTagError) -> UInt8 {
        guard (0...0xFF).contains(block) else {
            throw NFCTagError(.invalidParameter, "block \(block) is outside 0–255 (use the extended commands)")
        }
        return UInt8(block)
    }

    static func extendedBlockBytes(_ block: Int) throws(NFCTagError) -> [UInt8] {
        guard (0...0xFFFF).contains(block) else {
            throw NFCTagError(.invalidParameter, "block \(block) is outside 0–65535")
        }
        return [UInt8(block & 0xFF), UInt8(block >> 8)]
    }

    /// First block and count − 1, in 1 or 2 bytes each.
    static func rangeParameters(_ range: Range<Int>, extended: Bool) throws(NFCTagError) -> [UInt8] {
        guard !range.isEmpty, range.lowerBound >= 0 else {
            throw NFCTagError(.invalidParameter, "block range \(range) is empty or negative")
        }
        if extended {
            guard range.count <= 0x10000 else { throw NFCTagError(.invalidParameter, "more than 65536 blocks asked") }
            return try extendedBlockBytes(range.lowerBound) + extendedBlockBytes(range.count - 1)
        }
        guard range.count <= 0x100, range.upperBound - 1 <= 0xFF else {
            throw NFCTagError(.invalidParameter, "block range \(range) is beyond 256 blocks or block 255")
        }
        return [UInt8(range.lowerBound), UInt8(range.count - 1)]
    }

    static func multipleWriteParameters(_ first: Int, _ blocks: [Bytes], extended: Bool) throws(NFCTagError) -> [UInt8] {
        guard let size = blocks.first?.count, size > 0, blocks.allSatisfy({ $0.count == size }) else {
            throw NFCTagError(.invalidParameter, "write multiple blocks needs blocks of one non-zero size")
        }
        return try rangeParameters(first..<(first + blocks.count), extended: extended) + blocks.flatMap(\.array)
    }
}

/// One block as a read with the option flag returns it.
public struct ISO15693Block: Sendable, Hashable {
    /// Block security status bit 1: locked (ISO/IEC 15693-3, "Block security status").
    public static let lockedStatus: UInt8 = 0x01
    /// The block number.
    public var number: Int
    /// Its bytes.
    public var data: Bytes
    /// The block security status byte, when it was asked for.
    public var securityStatus: UInt8?

    /// Creates a block.
    public init(number: Int, data: Bytes, securityStatus: UInt8? = nil) {
        self.number = number
        self.data = data
        self.securityStatus = securityStatus
    }

    /// Whether the security status says locked (false when it was not asked for).
    public var isLocked: Bool { (securityStatus ?? 0) & Self.lockedStatus != 0 }
}

/// NDEF through the Type 5 mapping (``ndefPlatform``).
extension ISO15693Tag: NFCNDEFPlatformTag {
    /// Whether this tag is still in the field: ``NFCReader/isTargetPresent()`` of its reader.
    public func isPresent() async -> Bool { await reader.isTargetPresent() }
}
