public import Foundation
import NFCCore
public import NFCTags

// CoreNFC's spellings of the protocol commands (MIFARE, FeliCa, ISO 15693): `Data` in and out,
// CoreNFC's labels, async forms throwing NFCReaderError and completion-handler forms next to them.
// Each calls NFCTags' command of the same name; docs/porting-from-corenfc.md has the table.

/// CoreNFC's `RequestFlag` (`NFCISO15693RequestFlag`): the request flags an ISO 15693 command of
/// ``NFCTags/ISO15693Tag`` is sent with, in ISO/IEC 15693-3's bit positions
/// (NFCTags' `ISO15693RequestFlag` holds the values).
///
/// NFCKit honours ``address`` (the UID follows the command code) and ``option`` (reads: the block
/// security status comes first; writes and locks: the option flag is set); the high data rate
/// flag is always sent, with or without ``highDataRate``. The others (`dualSubCarriers`,
/// `protocolExtension`, `select`, `commandSpecificBit8`) are refused with
/// ``NFCReaderError/Code/readerErrorUnsupportedFeature`` before anything is sent.
public struct RequestFlag: OptionSet, Sendable, Hashable {
    /// The flag bits.
    public let rawValue: UInt8
    /// Flags from their bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bit 1, two subcarriers (refused).
    public static let dualSubCarriers = RequestFlag(rawValue: ISO15693RequestFlag.subcarrier)
    /// Bit 2, high data rate (always sent).
    public static let highDataRate = RequestFlag(rawValue: ISO15693RequestFlag.dataRate)
    /// Bit 4, protocol format extension (refused).
    public static let protocolExtension = RequestFlag(rawValue: ISO15693RequestFlag.protocolExtension)
    /// Bit 5, selected state only (refused).
    public static let select = RequestFlag(rawValue: ISO15693RequestFlag.select)
    /// Bit 6, addressed: the request carries the tag's UID.
    public static let address = RequestFlag(rawValue: ISO15693RequestFlag.address)
    /// Bit 7, the option flag.
    public static let option = RequestFlag(rawValue: ISO15693RequestFlag.option)
    /// Bit 8, command specific (refused).
    public static let commandSpecificBit8 = RequestFlag(rawValue: 0x80)

    /// The flags NFCKit can send.
    static let supported: RequestFlag = [.highDataRate, .address, .option]
}

/// CoreNFC's name of ``RequestFlag``.
public typealias NFCISO15693RequestFlag = RequestFlag

/// CoreNFC's `NFCFeliCaStatusFlag`: the two status flags of a FeliCa Read or Write Without
/// Encryption answer (JIS X 6319-4, 11.2.2.8), each one byte.
public struct NFCFeliCaStatusFlag: Sendable, Hashable {
    /// Status flag 1 (`00`: success; otherwise the element at fault).
    public var statusFlag1: Data
    /// Status flag 2 (`00`: success; otherwise the error).
    public var statusFlag2: Data
    /// The two flags.
    public init(statusFlag1: Data, statusFlag2: Data) {
        self.statusFlag1 = statusFlag1
        self.statusFlag2 = statusFlag2
    }
}

/// Runs `work`, mapping its ``NFCTags/NFCTagError`` to an ``NFCReaderError``: the one place the
/// CoreNFC command spellings turn NFCTags' errors into CoreNFC's.
func mappingTagErrors<Value>(_ work: () async throws(NFCTagError) -> Value) async throws(NFCReaderError) -> Value {
    do {
        return try await work()
    } catch {
        throw NFCReaderError(error)
    }
}

/// Runs `work` in a task and hands its value, or `failure` and the error, to `completionHandler`
/// on the main actor: CoreNFC's completion-handler shape for the command spellings.
func completing<Value: Sendable>(
    failure: Value, _ work: @escaping @Sendable () async throws -> Value,
    _ completionHandler: @escaping @MainActor @Sendable (Value, (any Error)?) -> Void
) {
    Task {
        do {
            let value = try await work()
            await completionHandler(value, nil)
        } catch {
            await completionHandler(failure, error)
        }
    }
}

extension MiFareTag {
    /// CoreNFC's `sendMiFareCommand(commandPacket:)`: ``NFCTags/MiFareTag/sendMiFareCommand(_:)``
    /// with `Data`.
    /// - Throws: ``NFCReaderError``, the tag error mapped.
    public func sendMiFareCommand(commandPacket: Data) async throws(NFCReaderError) -> Data {
        Data(try await mappingTagErrors { () async throws(NFCTagError) in try await sendMiFareCommand(Bytes(commandPacket)).array })
    }

    /// CoreNFC's `sendMiFareCommand(commandPacket:completionHandler:)`: the answer, or empty data
    /// and an ``NFCReaderError``, on the main actor.
    public func sendMiFareCommand(
        commandPacket: Data, completionHandler: @escaping @MainActor @Sendable (Data, (any Error)?) -> Void
    ) {
        completing(failure: Data(), { try await sendMiFareCommand(commandPacket: commandPacket) }, completionHandler)
    }
}

extension FeliCaTag {
    /// CoreNFC's `requestService(nodeCodeList:)` with `Data`: each node code 2 bytes, least
    /// significant first (as sent); answers each key version the same way (`FF FF`: no such node).
    /// ``NFCTags/FeliCaTag/requestService(nodeCodeList:)``.
    /// - Throws: ``NFCReaderError``: ``NFCReaderError/Code/readerErrorInvalidParameterLength``
    ///   for a node code not 2 bytes long (nothing sent); else the tag error mapped.
    public func requestService(nodeCodeList: [Data]) async throws(NFCReaderError) -> [Data] {
        let codes = try nodeCodeList.map { (code: Data) throws(NFCReaderError) -> UInt16 in try Self.littleEndianCode(code) }
        let versions = try await mappingTagErrors { () async throws(NFCTagError) in try await requestService(nodeCodeList: codes) }
        return versions.map { Data([UInt8($0 & 0xFF), UInt8($0 >> 8)]) }
    }

    /// CoreNFC's `requestService(nodeCodeList:completionHandler:)`: the key versions, or none and
    /// an ``NFCReaderError``, on the main actor.
    public func requestService(
        nodeCodeList: [Data], completionHandler: @escaping @MainActor @Sendable ([Data], (any Error)?) -> Void
    ) {
        completing(failure: [], { try await requestService(nodeCodeList: nodeCodeList) }, completionHandler)
    }

    /// CoreNFC's `readWithoutEncryption(serviceCodeList:blockList:)` with `Data`: service codes
    /// 2 bytes least significant first, block list elements in their 2- or 3-byte encoding
    /// (``NFCTags/FeliCaBlockListElement``); returns the status flags and one 16-byte block per
    /// element. ``NFCTags/FeliCaTag/readWithoutEncryption(serviceCodeList:blockList:)``.
    ///
    /// The flags returned are always `00 00`: where CoreNFC returns a card's error flags with no
    /// blocks, NFCKit throws ``NFCReaderError/Code/readerTransceiveErrorTagResponseError``
    /// naming them (its ``NFCReaderError/tagError`` has the element's byte offset).
    /// - Throws: ``NFCReaderError``: `readerErrorInvalidParameterLength` for a service code not 2
    ///   bytes or a block list element cut short; else the tag error mapped.
    public func readWithoutEncryption(
        serviceCodeList: [Data], blockList: [Data]
    ) async throws(NFCReaderError) -> (NFCFeliCaStatusFlag, [Data]) {
        let services = try serviceCodeList.map { (code: Data) throws(NFCReaderError) -> UInt16 in try Self.littleEndianCode(code) }
        let elements = try blockList.map { (element: Data) throws(NFCReaderError) -> FeliCaBlockListElement in
            var bytes = ArraySlice(Array(element))
            do throws(NFCTagError) {
                let parsed = try FeliCaBlockListElement.parse(&bytes)
                guard bytes.isEmpty else {
                    throw NFCTagError(.invalidParameter, "block list element \(Hex.encode(Array(element))) has \(bytes.count) bytes too many")
                }
                return parsed
            } catch {
                throw NFCReaderError(.readerErrorInvalidParameterLength, error.reason, tagError: error)
            }
        }
        let read = try await mappingTagErrors { () async throws(NFCTagError) in
            try await readWithoutEncryption(serviceCodeList: services, blockList: elements)
        }
        return (NFCFeliCaStatusFlag(statusFlag1: Data([read.statusFlag1]), statusFlag2: Data([read.statusFlag2])),
                read.blocks.map { Data($0.array) })
    }

    /// CoreNFC's `readWithoutEncryption(serviceCodeList:blockList:completionHandler:)`: status
    /// flag 1, status flag 2 and the blocks, or `-1`, `-1`, none and an ``NFCReaderError``, on the
    /// main actor.
    public func readWithoutEncryption(
        serviceCodeList: [Data], blockList: [Data],
        completionHandler: @escaping @MainActor @Sendable (Int, Int, [Data], (any Error)?) -> Void
    ) {
        completing(
            failure: (-1, -1, [Data]()),
            {
                let (flags, blocks) = try await readWithoutEncryption(serviceCodeList: serviceCodeList, blockList: blockList)
                return (Int(flags.statusFlag1.first ?? 0), Int(flags.statusFlag2.first ?? 0), blocks)
            },
            { (result: (Int, Int, [Data]), error: (any Error)?) in completionHandler(result.0, result.1, result.2, error) })
    }

    /// A 2-byte service or node code, least significant byte first, as a number.
    static func littleEndianCode(_ code: Data) throws(NFCReaderError) -> UInt16 {
        let bytes = Array(code)
        guard bytes.count == 2 else {
            throw NFCReaderError(.readerErrorInvalidParameterLength, "a FeliCa service or node code is 2 bytes, not \(bytes.count)")
        }
        return UInt16(bytes[0]) | UInt16(bytes[1]) << 8
    }
}

extension ISO15693Tag {
    /// This tag sending `requestFlags`: addressed when they hold ``RequestFlag/address``, the
    /// write option flag when they hold ``RequestFlag/option``.
    /// - Throws: ``NFCReaderError/Code/readerErrorUnsupportedFeature`` for a flag NFCKit cannot
    ///   send.
    func sending(_ requestFlags: RequestFlag) throws(NFCReaderError) -> ISO15693Tag {
        let unsupported = requestFlags.subtracting(RequestFlag.supported)
        guard unsupported.isEmpty else {
            throw NFCReaderError(
                .readerErrorUnsupportedFeature,
                "ISO 15693 request flags \(Hex.encode([unsupported.rawValue], uppercase: true)) are not supported: NFCKit sends high data rate, address and option only")
        }
        var tag = self
        tag.isAddressed = requestFlags.contains(.address)
        tag.writeOptionFlag = requestFlags.contains(.option)
        return tag
    }

    /// CoreNFC's `readSingleBlock(requestFlags:blockNumber:)`: the block's bytes, preceded by its
    /// security status byte when `requestFlags` holds ``RequestFlag/option``.
    /// ``NFCTags/ISO15693Tag/readSingleBlock(_:)`` and `readSingleBlockWithSecurityStatus(_:)`.
    /// - Throws: ``NFCReaderError``: unsupported flags; else the tag error mapped.
    public func readSingleBlock(requestFlags: RequestFlag, blockNumber: UInt8) async throws(NFCReaderError) -> Data {
        let tag = try sending(requestFlags)
        return try await mappingTagErrors { () async throws(NFCTagError) in
            if requestFlags.contains(.option) {
                let block = try await tag.readSingleBlockWithSecurityStatus(Int(blockNumber))
                return Data([block.securityStatus ?? 0] + block.data.array)
            }
            return Data(try await tag.readSingleBlock(Int(blockNumber)).array)
        }
    }

    /// CoreNFC's `readSingleBlock(requestFlags:blockNumber:completionHandler:)`.
    public func readSingleBlock(
        requestFlags: RequestFlag, blockNumber: UInt8, completionHandler: @escaping @MainActor @Sendable (Data, (any Error)?) -> Void
    ) {
        completing(failure: Data(), { try await readSingleBlock(requestFlags: requestFlags, blockNumber: blockNumber) }, completionHandler)
    }

    /// CoreNFC's `writeSingleBlock(requestFlags:blockNumber:dataBlock:)`:
    /// ``NFCTags/ISO15693Tag/writeSingleBlock(_:data:)``.
    /// - Throws: ``NFCReaderError``: unsupported flags; else the tag error mapped (a locked
    ///   block is ``NFCReaderError/Code/ndefReaderSessionErrorTagNotWritable``).
    public func writeSingleBlock(requestFlags: RequestFlag, blockNumber: UInt8, dataBlock: Data) async throws(NFCReaderError) {
        let tag = try sending(requestFlags)
        try await mappingTagErrors { () async throws(NFCTagError) in try await tag.writeSingleBlock(Int(blockNumber), data: Bytes(dataBlock)) }
    }

    /// CoreNFC's `writeSingleBlock(requestFlags:blockNumber:dataBlock:completionHandler:)`.
    public func writeSingleBlock(
        requestFlags: RequestFlag, blockNumber: UInt8, dataBlock: Data,
        completionHandler: @escaping @MainActor @Sendable ((any Error)?) -> Void
    ) {
        completing(
            failure: (), { try await writeSingleBlock(requestFlags: requestFlags, blockNumber: blockNumber, dataBlock: dataBlock) },
            { (_: Void, error: (any Error)?) in completionHandler(error) })
    }

    /// CoreNFC's `lockBlock(requestFlags:blockNumber:)`: ``NFCTags/ISO15693Tag/lockBlock(_:)``.
    /// Irreversible.
    /// - Throws: ``NFCReaderError``: unsupported flags; else the tag error mapped.
    public func lockBlock(requestFlags: RequestFlag, blockNumber: UInt8) async throws(NFCReaderError) {
        let tag = try sending(requestFlags)
        try await mappingTagErrors { () async throws(NFCTagError) in try await tag.lockBlock(Int(blockNumber)) }
    }

    /// CoreNFC's `lockBlock(requestFlags:blockNumber:completionHandler:)`.
    public func lockBlock(
        requestFlags: RequestFlag, blockNumber: UInt8, completionHandler: @escaping @MainActor @Sendable ((any Error)?) -> Void
    ) {
        completing(
            failure: (), { try await lockBlock(requestFlags: requestFlags, blockNumber: blockNumber) },
            { (_: Void, error: (any Error)?) in completionHandler(error) })
    }

    /// CoreNFC's `extendedReadSingleBlock(requestFlags:blockNumber:)`:
    /// ``NFCTags/ISO15693Tag/extendedReadSingleBlock(_:)``.
    /// - Throws: ``NFCReaderError``: unsupported flags (``RequestFlag/option`` too: NFCKit reads
    ///   no security status here); else the tag error mapped.
    public func extendedReadSingleBlock(requestFlags: RequestFlag, blockNumber: Int) async throws(NFCReaderError) -> Data {
        guard !requestFlags.contains(.option) else {
            throw NFCReaderError(.readerErrorUnsupportedFeature, "EXTENDED READ SINGLE BLOCK with the option flag is not supported")
        }
        let tag = try sending(requestFlags)
        return Data(try await mappingTagErrors { () async throws(NFCTagError) in try await tag.extendedReadSingleBlock(blockNumber).array })
    }

    /// CoreNFC's `extendedReadSingleBlock(requestFlags:blockNumber:completionHandler:)`.
    public func extendedReadSingleBlock(
        requestFlags: RequestFlag, blockNumber: Int, completionHandler: @escaping @MainActor @Sendable (Data, (any Error)?) -> Void
    ) {
        completing(
            failure: Data(), { try await extendedReadSingleBlock(requestFlags: requestFlags, blockNumber: blockNumber) }, completionHandler)
    }

    /// CoreNFC's `readMultipleBlocks(requestFlags:blockRange:)`: one `Data` per block of
    /// `blockRange` (location, length), each preceded by its security status byte with
    /// ``RequestFlag/option``. ``NFCTags/ISO15693Tag/readMultipleBlocks(_:)``.
    /// - Throws: ``NFCReaderError``: unsupported flags; `readerErrorParameterOutOfBound` for a
    ///   range that is not one; else the tag error mapped.
    public func readMultipleBlocks(requestFlags: RequestFlag, blockRange: NSRange) async throws(NFCReaderError) -> [Data] {
        let tag = try sending(requestFlags)
        guard blockRange.location != NSNotFound, let range = Range<Int>(blockRange) else {
            throw NFCReaderError(.readerErrorParameterOutOfBound, "block range \(blockRange) is not a range of blocks")
        }
        return try await mappingTagErrors { () async throws(NFCTagError) in
            if requestFlags.contains(.option) {
                return try await tag.readMultipleBlocksWithSecurityStatus(range).map { Data([$0.securityStatus ?? 0] + $0.data.array) }
            }
            return try await tag.readMultipleBlocks(range).map { Data($0.array) }
        }
    }

    /// CoreNFC's `readMultipleBlocks(requestFlags:blockRange:completionHandler:)`.
    public func readMultipleBlocks(
        requestFlags: RequestFlag, blockRange: NSRange, completionHandler: @escaping @MainActor @Sendable ([Data], (any Error)?) -> Void
    ) {
        completing(failure: [], { try await readMultipleBlocks(requestFlags: requestFlags, blockRange: blockRange) }, completionHandler)
    }

    /// CoreNFC's `getSystemInfo(requestFlags:)`: ``NFCTags/ISO15693Tag/getSystemInfo()`` (NFCKit's
    /// ``NFCTags/ISO15693SystemInfo``, a field `nil` when the tag does not report it).
    /// - Throws: ``NFCReaderError``: unsupported flags; else the tag error mapped.
    public func getSystemInfo(requestFlags: RequestFlag) async throws(NFCReaderError) -> ISO15693SystemInfo {
        let tag = try sending(requestFlags)
        return try await mappingTagErrors { () async throws(NFCTagError) in try await tag.getSystemInfo() }
    }

    /// CoreNFC's `getSystemInfo(requestFlags:completionHandler:)`: DSFID, AFI, block size, block
    /// count and IC reference, `-1` for each the tag does not report (and for all on an error),
    /// then `nil` or an ``NFCReaderError``, on the main actor.
    public func getSystemInfo(
        requestFlags: RequestFlag, completionHandler: @escaping @MainActor @Sendable (Int, Int, Int, Int, Int, (any Error)?) -> Void
    ) {
        completing(
            failure: [-1, -1, -1, -1, -1],
            {
                let info = try await getSystemInfo(requestFlags: requestFlags)
                return [info.dsfid.map(Int.init) ?? -1, info.afi.map(Int.init) ?? -1, info.blockSize ?? -1, info.blockCount ?? -1,
                        info.icReference.map(Int.init) ?? -1]
            },
            { (fields: [Int], error: (any Error)?) in completionHandler(fields[0], fields[1], fields[2], fields[3], fields[4], error) })
    }
}
