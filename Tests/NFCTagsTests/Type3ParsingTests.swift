import NFCCore
import NFCTestSupport
import Testing
@testable import NFCTags

/// The Type 3 attribute information block, FeliCa block list elements, and the FeliCa commands
/// of ``FeliCaTag`` against scripted answers (well-formed and malformed).
@Suite("Type 3 attribute block and FeliCa command framing", .timeLimit(.minutes(5)))
struct Type3ParsingTests {
    static let idm: [UInt8] = [0x01, 0x2E, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01]
    static let pmm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
    /// The attribute block of an empty NDEF-formatted Lite-S: Ver 10, Nbr 4, Nbw 1, Nmaxb 13,
    /// RWFlag 01, checksum 0023.
    static let liteSEmpty: [UInt8] = [0x10, 0x04, 0x01, 0x00, 0x0D, 0, 0, 0, 0, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x23]

    /// `block` with bytes 14–15 set to the sum of bytes 0–13.
    static func withChecksum(_ block: [UInt8]) -> [UInt8] {
        let sum = block[0..<14].reduce(0) { $0 + Int($1) }
        return Array(block[0..<14]) + [UInt8(sum >> 8), UInt8(sum & 0xFF)]
    }

    static func feliCa(_ reader: ScriptedReader) -> FeliCaTag {
        FeliCaTag(
            reader: reader, target: FeliCaTarget(idm: Bytes(idm), pmm: Bytes(pmm), systemCode: 0x12FC),
            identity: ChipIdentity(model: "FeliCa Lite-S", platform: .type3, family: .feliCaLite))
    }

    @Test("the empty Lite-S attribute block parses to its fields and encodes back to the same 16 bytes")
    func roundTrip() throws {
        let attribute = try Type3AttributeInformation(parsing: Self.liteSEmpty)
        #expect(attribute == Type3AttributeInformation(nbr: 4, nbw: 1, nmaxb: 13))
        #expect(attribute.capacity == 208)
        #expect(attribute.isWritable && !attribute.isWriteInterrupted)
        #expect(attribute.messageBlocks == nil)
        #expect(attribute.encoded == Self.liteSEmpty)
        let full = Type3AttributeInformation(nbr: 8, nbw: 2, nmaxb: 0x0123, writeFlag: 0x0F, rwFlag: 0x00, length: 0x1230, reserved: [1, 2, 3, 4])
        #expect(try Type3AttributeInformation(parsing: full.encoded) == full)
        #expect(full.messageBlocks == 1...0x123)
    }

    @Test("each attribute block rule fails with its code at its byte offset", arguments: [
        // (byte, value, code, offset)
        (0, 0x20, NFCTagError.Code.notNDEFFormatted, 0),    // mapping version 2.0
        (1, 0x00, .malformedTag, 1),                        // Nbr 0
        (2, 0x00, .malformedTag, 2),                        // Nbw 0
        (4, 0x00, .malformedTag, 3),                        // Nmaxb 0
        (9, 0x05, .malformedTag, 9),                        // WriteF neither 00 nor 0F
        (10, 0x02, .malformedTag, 10),                      // RWFlag neither 00 nor 01
        (13, 0xD1, .malformedTag, 11),                      // Ln 209 > 13 × 16
    ] as [(Int, UInt8, NFCTagError.Code, Int)])
    func fieldRules(byte: Int, value: UInt8, code: NFCTagError.Code, offset: Int) {
        var block = Self.liteSEmpty
        block[byte] = value
        do {
            _ = try Type3AttributeInformation(parsing: Self.withChecksum(block))
            Issue.record("parsed \(block)")
        } catch {
            #expect(error.code == code)
            #expect(error.offset == offset)
        }
    }

    @Test("a wrong checksum means no attribute block (offset 14); so does a blank block 0 (version 0)")
    func checksumAndBlank() {
        var block = Self.liteSEmpty
        block[15] = 0x24
        for (bytes, offset) in [(block, 14), ([UInt8](repeating: 0, count: 16), 0)] {
            do {
                _ = try Type3AttributeInformation(parsing: bytes)
                Issue.record("parsed \(bytes)")
            } catch {
                #expect(error.code == .notNDEFFormatted && error.offset == offset)
            }
        }
    }

    @Test("every truncated prefix of an attribute block is rejected with its length as offset")
    func truncated() {
        for length in 0..<16 {
            do {
                _ = try Type3AttributeInformation(parsing: Array(Self.liteSEmpty.prefix(length)))
                Issue.record("prefix of \(length) bytes parsed")
            } catch {
                #expect(error.code == .notNDEFFormatted && error.offset == length)
            }
        }
    }

    @Test("block list elements: 2-byte 8x nn and 3-byte 0x nn nn (little-endian) round-trip", arguments: [
        (FeliCaBlockListElement(blockNumber: 0x00), [0x80, 0x00]),
        (FeliCaBlockListElement(blockNumber: 0x88), [0x80, 0x88]),
        (FeliCaBlockListElement(blockNumber: 0x05, serviceCodeListOrder: 2, accessMode: 1), [0x92, 0x05]),
        (FeliCaBlockListElement(blockNumber: 0x0102), [0x00, 0x02, 0x01]),
        (FeliCaBlockListElement(blockNumber: 0x07, threeByteForm: true), [0x00, 0x07, 0x00]),
    ] as [(FeliCaBlockListElement, [UInt8])])
    func blockListElements(element: FeliCaBlockListElement, bytes: [UInt8]) throws {
        #expect(try element.encoded() == bytes)
        var slice = bytes[...]
        #expect(try FeliCaBlockListElement.parse(&slice) == element)
        #expect(slice.isEmpty)
        for length in 0..<bytes.count {
            var prefix = bytes.prefix(length)
            #expect(throws: NFCTagError.self) { try FeliCaBlockListElement.parse(&prefix) }
        }
    }

    @Test("an element with order above 15 or access mode above 7 is refused before sending")
    func elementRange() {
        #expect(throws: NFCTagError.self) { try FeliCaBlockListElement(blockNumber: 1, serviceCodeListOrder: 16).encoded() }
        #expect(throws: NFCTagError.self) { try FeliCaBlockListElement(blockNumber: 1, accessMode: 8).encoded() }
    }

    @Test("Polling, Request Service, Request Response and Request System Code frames and answers")
    func simpleCommands() async throws {
        let idm = Self.idm
        let reader = ScriptedReader(answers: [
            [0x00, 0x12, 0xFC, 0x01, 0x00]: [0x01] + idm + Self.pmm + [0x12, 0xFC],
            [0x02] + idm + [0x02, 0x0B, 0x00, 0x10, 0x00]: [0x03] + idm + [0x02, 0x00, 0x00, 0xFF, 0xFF],
            [0x04] + idm: [0x05] + idm + [0x00],
            [0x0C] + idm: [0x0D] + idm + [0x02, 0x88, 0xB4, 0x12, 0xFC],
        ])
        let tag = Self.feliCa(reader)
        let (pmm, requestData) = try await tag.polling(systemCode: 0x12FC, requestCode: .systemCode, timeSlot: .max1)
        #expect(pmm.array == Self.pmm && requestData.array == [0x12, 0xFC])
        #expect(try await tag.requestService(nodeCodeList: [0x000B, 0x0010]) == [0x0000, 0xFFFF])
        #expect(try await tag.requestResponse() == 0)
        #expect(try await tag.requestSystemCode() == [0x88B4, 0x12FC])
        await #expect(throws: NFCTagError.self) { try await tag.requestService(nodeCodeList: []) }
        #expect(await reader.sent.count == 4)
    }

    @Test("Read Without Encryption: blocks returned; status flags, wrong code, wrong IDm and short answers are typed errors with offsets")
    func readFraming() async throws {
        let idm = Self.idm
        let command = [0x06] + idm + [0x01, 0x0B, 0x00, 0x02, 0x80, 0x00, 0x80, 0x88]
        let two = [UInt8](repeating: 0xAB, count: 32)
        func read(_ answer: [UInt8]) async throws(NFCTagError) -> [Bytes] {
            try await Self.feliCa(ScriptedReader(answers: [command: answer])).readWithoutEncryption(
                serviceCodeList: [0x000B], blockList: [FeliCaBlockListElement(blockNumber: 0), FeliCaBlockListElement(blockNumber: 0x88)]
            ).blocks
        }
        #expect(try await read([0x07] + idm + [0x00, 0x00, 0x02] + two).map(\.array) == [Array(two[0..<16]), Array(two[16..<32])])
        let cases: [([UInt8], Int?, String)] = [
            ([0x07] + idm + [0x02, 0xA8], 0x88 * 16, "status flags 02 A8 (element 2: illegal block number"),
            ([0x07] + idm + [0xFF, 0xA2], nil, "status flags FF A2 (whole command: illegal number of blocks"),
            ([0x09] + idm + [0x00, 0x00, 0x02] + two, 0, "response code 09, not 07"),
            ([0x07] + [0, 0, 0, 0, 0, 0, 0, 0] + [0x00, 0x00, 0x02] + two, 1, "for IDm 0000000000000000"),
            ([0x07] + idm.prefix(4), 5, "too short for the IDm"),
            ([0x07] + idm + [0x00, 0x00, 0x02] + two.prefix(20), 11, "not 35"),
            ([0x07] + idm + [0x00], 10, "no status flags"),
        ]
        for (answer, offset, reason) in cases {
            do {
                _ = try await read(answer)
                Issue.record("accepted \(answer)")
            } catch {
                #expect(error.code == .tagResponse)
                #expect(error.offset == offset, "\(error)")
                #expect(error.reason.contains(reason), "\(error.reason)")
            }
        }
    }

    @Test("every truncated prefix of a valid answer is a tagResponse error, never a trap")
    func truncatedAnswers() async throws {
        let idm = Self.idm
        let read = [0x06] + idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00]
        let readAnswer = [0x07] + idm + [0x00, 0x00, 0x01] + Self.liteSEmpty
        let systemCodes = [0x0C] + idm
        let systemCodesAnswer = [0x0D] + idm + [0x02, 0x88, 0xB4, 0x12, 0xFC]
        let service = [0x02] + idm + [0x01, 0x0B, 0x00]
        let serviceAnswer = [0x03] + idm + [0x01, 0x00, 0x00]
        let polling: [UInt8] = [0x00, 0x12, 0xFC, 0x01, 0x00]
        let pollingAnswer = [0x01] + idm + Self.pmm + [0x12, 0xFC]
        for length in 0..<readAnswer.count {
            let tag = Self.feliCa(ScriptedReader(answers: [
                read: Array(readAnswer.prefix(length)), systemCodes: Array(systemCodesAnswer.prefix(length)),
                service: Array(serviceAnswer.prefix(length)), polling: Array(pollingAnswer.prefix(length)),
            ]))
            await #expect(throws: NFCTagError.self) {
                try await tag.readWithoutEncryption(serviceCodeList: [0x000B], blockList: [FeliCaBlockListElement(blockNumber: 0)])
            }
            if length < systemCodesAnswer.count { await #expect(throws: NFCTagError.self) { try await tag.requestSystemCode() } }
            if length < serviceAnswer.count { await #expect(throws: NFCTagError.self) { try await tag.requestService(nodeCodeList: [0x000B]) } }
            if length < pollingAnswer.count {
                await #expect(throws: NFCTagError.self) { try await tag.polling(systemCode: 0x12FC, requestCode: .systemCode) }
            }
        }
    }

    @Test("Write Without Encryption sends service 0009, the block list and the data; bad data lengths send nothing")
    func writeFraming() async throws {
        let idm = Self.idm
        let data = [UInt8](repeating: 0x5A, count: 16)
        let reader = ScriptedReader(answers: [[0x08] + idm + [0x01, 0x09, 0x00, 0x01, 0x80, 0x01] + data: [0x09] + idm + [0x00, 0x00]])
        let tag = Self.feliCa(reader)
        let flags = try await tag.writeWithoutEncryption(
            serviceCodeList: [0x0009], blockList: [FeliCaBlockListElement(blockNumber: 1)], blockData: [Bytes(data)])
        #expect(flags.statusFlag1 == 0 && flags.statusFlag2 == 0)
        await #expect(throws: NFCTagError.self) {
            try await tag.writeWithoutEncryption(
                serviceCodeList: [0x0009], blockList: [FeliCaBlockListElement(blockNumber: 1)], blockData: [Bytes(data.prefix(15))])
        }
        #expect(await reader.sent.count == 1)
    }

    @Test("the Lite-S lock keeps SYS_OP, RF_PRM and REG's bit, and clears S_PAD, MC and MC_ALL bits")
    func lockedMC() {
        let fresh: [UInt8] = [0xFF, 0xFF, 0xFF, 0x01, 0x07, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        #expect(Type3Tag.lockedMemoryConfiguration(fresh) == [0x00, 0x40, 0x00, 0x01, 0x07, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        let noREG: [UInt8] = [0xFF, 0xBF, 0xFF, 0x01, 0x07, 0x01, 0, 0, 0, 0, 0, 0, 0, 0xAA, 0xBB, 0xCC]
        #expect(Type3Tag.lockedMemoryConfiguration(noREG) == [0x00, 0x00, 0x00, 0x01, 0x07, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    }
}
