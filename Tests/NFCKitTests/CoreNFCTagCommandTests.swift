import Foundation
import NFCCore
import NFCKit
import NFCTags
import NFCTestSupport
import Testing

/// CoreNFC's spellings of the protocol commands, on the simulator's NTAG215, FeliCa Lite-S and
/// ICODE SLIX2: `Data` in and out, errors caught as `NFCReaderError`, completion forms.
@Suite("CoreNFC's protocol-command spellings on the simulator", .timeLimit(.minutes(2)))
struct CoreNFCTagCommandTests {
    /// The first tag a session on `connection` detects, connected; and the session, to invalidate.
    static func connectedTag(
        _ connection: String, _ option: NFCTagReaderSession.PollingOption
    ) async throws -> (NFCTagReaderSession, NFCTag) {
        let session = NFCTagReaderSession(pollingOption: option, connection: connection)
        try await session.begin()
        let tags = EventCollector(session.tags)
        #expect(await tags.wait(forCount: 1))
        let tag = try #require(tags.elements.first)
        try await session.connect(to: tag)
        return (session, tag)
    }

    @Test("sendMiFareCommand(commandPacket:) READs page 3, the NTAG215's capability container E1 10 3E 00; async and completion forms agree")
    func miFareCommand() async throws {
        let (session, tag) = try await Self.connectedTag("sim:ntag215", [.iso14443])
        guard case .miFare(let miFare) = tag else { Issue.record("not a MIFARE tag: \(tag)"); return }
        let page3 = try await miFare.sendMiFareCommand(commandPacket: Data([0x30, 0x03]))
        #expect(page3.count == 16)
        #expect(Array(page3.prefix(4)) == [0xE1, 0x10, 0x3E, 0x00])
        let (answer, error) = await withCheckedContinuation { continuation in
            miFare.sendMiFareCommand(commandPacket: Data([0x30, 0x03])) { data, error in
                continuation.resume(returning: (data, error.map { "\($0)" }))
            }
        }
        #expect(error == nil)
        #expect(answer == page3)
        await session.invalidate()
    }

    @Test("a refused MIFARE command is caught as NFCReaderError (catch let e as NFCReaderError), code 102")
    func miFareErrorIsReaderError() async throws {
        let (session, tag) = try await Self.connectedTag("sim:ntag215", [.iso14443])
        guard case .miFare(let miFare) = tag else { Issue.record("not a MIFARE tag: \(tag)"); return }
        // As CoreNFC code has it: an untyped `throws` context, the error matched by type.
        let readPastTheEnd: @Sendable () async throws -> Data = { try await miFare.sendMiFareCommand(commandPacket: Data([0x30, 0xF0])) }
        do {
            _ = try await readPastTheEnd()
            Issue.record("READ of page F0 answered")
        } catch let error as NFCReaderError {
            #expect(error.code == .readerTransceiveErrorTagResponseError)
            #expect((error as NSError).code == 102)
        } catch {
            Issue.record("not an NFCReaderError: \(error)")
        }
        await session.invalidate()
    }

    @Test("FeliCa requestService(nodeCodeList:) and readWithoutEncryption(serviceCodeList:blockList:) with Data: key versions, status flags 00 00, 16-byte blocks")
    func feliCaCommands() async throws {
        let (session, tag) = try await Self.connectedTag("sim:felica-lite-s", [.iso18092])
        guard case .feliCa(let feliCa) = tag else { Issue.record("not a FeliCa tag: \(tag)"); return }
        let versions = try await feliCa.requestService(nodeCodeList: [Data([0x0B, 0x00]), Data([0x34, 0x12])])
        #expect(versions == [Data([0x00, 0x00]), Data([0xFF, 0xFF])])
        // Service 000B (read-only access to the Lite-S user blocks), blocks 0 and 1 (2-byte elements).
        let (flags, blocks) = try await feliCa.readWithoutEncryption(
            serviceCodeList: [Data([0x0B, 0x00])], blockList: [Data([0x80, 0x00]), Data([0x80, 0x01])])
        #expect(flags == NFCFeliCaStatusFlag(statusFlag1: Data([0]), statusFlag2: Data([0])))
        #expect(blocks.map(\.count) == [16, 16])
        // The same blocks through NFCTags' API.
        let direct = try await feliCa.readWithoutEncryption(
            serviceCodeList: [0x000B], blockList: [FeliCaBlockListElement(blockNumber: 0), FeliCaBlockListElement(blockNumber: 1)])
        #expect(blocks == direct.blocks.map { Data($0.array) })
        let completion = await withCheckedContinuation { continuation in
            feliCa.readWithoutEncryption(serviceCodeList: [Data([0x0B, 0x00])], blockList: [Data([0x80, 0x00])]) { flag1, flag2, blocks, error in
                continuation.resume(returning: (flag1, flag2, blocks, error == nil))
            }
        }
        #expect(completion.0 == 0 && completion.1 == 0 && completion.2 == [blocks[0]] && completion.3)
        do {
            _ = try await feliCa.requestService(nodeCodeList: [Data([0x0B])])
            Issue.record("a 1-byte node code was sent")
        } catch {
            #expect(error.code == .readerErrorInvalidParameterLength)
        }
        await session.invalidate()
    }

    @Test("ISO 15693 writeSingleBlock/readSingleBlock/readMultipleBlocks/getSystemInfo with request flags; a locked block's write is NFCReaderError 400; unsupported flags refused")
    func iso15693Commands() async throws {
        let (session, tag) = try await Self.connectedTag("sim:slix2", [.iso15693])
        guard case .iso15693(let vicinity) = tag else { Issue.record("not an ISO 15693 tag: \(tag)"); return }
        let info = try await vicinity.getSystemInfo(requestFlags: [.highDataRate, .address])
        #expect(info.blockSize == 4)
        #expect(info.blockCount == 80)
        try await vicinity.writeSingleBlock(requestFlags: [.highDataRate, .address], blockNumber: 20, dataBlock: Data([1, 2, 3, 4]))
        // Read back through NFCTags' own command, then through the CoreNFC spellings.
        #expect(try await vicinity.readSingleBlock(20) == Bytes([1, 2, 3, 4]))
        #expect(try await vicinity.readSingleBlock(requestFlags: [.highDataRate], blockNumber: 20) == Data([1, 2, 3, 4]))
        let withStatus = try await vicinity.readSingleBlock(requestFlags: [.highDataRate, .address, .option], blockNumber: 20)
        #expect(withStatus == Data([0x00, 1, 2, 3, 4]))
        let blocks = try await vicinity.readMultipleBlocks(requestFlags: [.highDataRate, .address], blockRange: NSRange(location: 20, length: 2))
        #expect(blocks.count == 2 && blocks[0] == Data([1, 2, 3, 4]))
        let fields = await withCheckedContinuation { continuation in
            vicinity.getSystemInfo(requestFlags: [.highDataRate]) { _, _, blockSize, blockCount, _, error in
                continuation.resume(returning: [blockSize, blockCount, error == nil ? 0 : 1])
            }
        }
        #expect(fields == [4, 80, 0])

        try await vicinity.lockBlock(requestFlags: [.highDataRate, .address], blockNumber: 21)
        do {
            try await vicinity.writeSingleBlock(requestFlags: [.highDataRate, .address], blockNumber: 21, dataBlock: Data([9, 9, 9, 9]))
            Issue.record("a locked block was written")
        } catch {
            #expect(error.code == .ndefReaderSessionErrorTagNotWritable)
        }
        do {
            _ = try await vicinity.readSingleBlock(requestFlags: [.highDataRate, .select], blockNumber: 0)
            Issue.record("the select flag was sent")
        } catch {
            #expect(error.code == .readerErrorUnsupportedFeature)
        }
        await session.invalidate()
    }

    @Test("a session polling for .pace ends at begin() with readerErrorUnsupportedFeature (1)")
    func paceRefused() async throws {
        let session = NFCTagReaderSession(pollingOption: [.iso14443, .pace], connection: "sim:ntag215")
        do {
            try await session.begin()
            Issue.record("a PACE session began")
        } catch {
            #expect(error.code == .readerErrorUnsupportedFeature)
            #expect(error.errorCode == 1)
        }
    }

    @Test("NFCReaderError has every code CoreNFC has, with CoreNFC's numbers, each also a static member")
    func everyCoreNFCCode() {
        let numbers = Set(NFCReaderError.Code.allCases.map(\.rawValue))
        let coreNFC = Set([1, 2, 3, 4, 5, 6, 100, 101, 102, 103, 104, 105, 200, 201, 202, 203, 204, 300, 400, 401, 402, 403])
        #expect(coreNFC.subtracting(numbers).isEmpty, "missing: \(coreNFC.subtracting(numbers).sorted())")
        #expect(NFCReaderError.readerTransceiveErrorPacketTooLong.rawValue == 105)
        #expect(NFCReaderError.ndefReaderSessionErrorZeroLengthMessage.rawValue == 403)
        #expect(NFCReaderError.tagCommandConfigurationErrorInvalidParameters.rawValue == 300)
    }
}
