import NFCCore
import NFCTags
import NFCTestSupport
import Testing

/// ISO 15693 identification: the model from the UID (and, for ST and onsemi, the IC reference),
/// the memory from GET (EXTENDED) SYSTEM INFORMATION only, hostile answers leaving the memory
/// unknown rather than wrong. Expected names are the AOSP `tags_defs.h` / NXP data sheet values
/// the table cites, written out here again.
@Suite("ISO 15693 chips named from the UID and system information", .timeLimit(.minutes(1)))
struct ISO15693ChipTableTests {
    /// GET SYSTEM INFORMATION's answer (flags byte 00 first) for `uid`, `blocks` of `size`, `reference`.
    static func systemInfo(uid: [UInt8], blocks: Int, size: Int, reference: UInt8) -> [UInt8] {
        [0x00, 0x0F] + uid.reversed() + [0x00, 0x00, UInt8(blocks - 1), UInt8(size - 1), reference]
    }

    static func identify(_ uid: [UInt8], answers: [[UInt8]: [UInt8]]) async -> (ChipIdentity, [[UInt8]]) {
        let reader = ScriptedReader(answers: answers, otherwise: .timeout)
        let identity = await ChipIdentification.identify(.iso15693(ISO15693Target(uid: Bytes(uid))), on: reader, probesNDEF: false)
        return (identity, await reader.trace.map(\.command.array))
    }

    @Test("UIDs and IC references name the chip and its maker", arguments: [
        ([0xE0, 0x04, 0x02, 0x10, 1, 2, 3, 4], UInt8(0x02), "ICODE SLIX-S", "NXP"),
        ([0xE0, 0x04, 0x03, 0x10, 1, 2, 3, 4], 0x03, "ICODE SLIX-L", "NXP"),
        ([0xE0, 0x04, 0x01, 0x10, 1, 2, 3, 4], 0x01, "ICODE SLIX", "NXP"),
        ([0xE0, 0x07, 0x80, 0x10, 1, 2, 3, 4], 0x00, "Tag-it HF-I Plus", "Texas Instruments"),
        ([0xE0, 0x07, 0xC5, 0x10, 1, 2, 3, 4], 0x00, "Tag-it HF-I Pro", "Texas Instruments"),
        ([0xE0, 0x02, 0x26, 0x10, 1, 2, 3, 4], 0x24, "ST25DV04K", "STMicroelectronics"),
        ([0xE0, 0x02, 0x26, 0x10, 1, 2, 3, 4], 0x2B, "LRIS2K", "STMicroelectronics"),
        ([0xE0, 0x02, 0x26, 0x10, 1, 2, 3, 4], 0x77, "STMicroelectronics ISO 15693 tag", "STMicroelectronics"),
        ([0xE0, 0x67, 0x00, 0x10, 1, 2, 3, 4], 0x6E, "N24RF64E", "onsemi"),
        ([0xE0, 0x16, 0x00, 0x10, 1, 2, 3, 4], 0x01, "ISO 15693 tag", "unknown (code 16)"),
    ] as [([UInt8], UInt8, String, String)])
    func named(uid: [UInt8], reference: UInt8, model: String, maker: String) async {
        let (identity, sent) = await Self.identify(uid, answers: [[0x02, 0x2B]: Self.systemInfo(uid: uid, blocks: 8, size: 4, reference: reference)])
        #expect(identity.model == model)
        #expect(identity.manufacturer == maker)
        #expect(identity.platform == .type5, "an unknown chip is still a plain Type 5 tag")
        // A Tag-it HF-I Standard or Pro answers no GET SYSTEM INFORMATION: it is not asked.
        let asked = ISO15693ChipTable.modelMemory(uid: Bytes(uid)) == nil
        #expect(identity.icReference == (asked ? reference : nil))
        #expect(sent.contains([0x02, 0x2B]) == asked, "\(sent)")
    }

    @Test("memory comes from GET SYSTEM INFORMATION, not the model: a SLIX2 UID answering 40 blocks of 8 bytes has 320 bytes of 8-byte blocks")
    func memoryFromSystemInformation() async {
        let uid: [UInt8] = [0xE0, 0x04, 0x01, 0x08, 1, 2, 3, 4]
        let (identity, trace) = await Self.identify(uid, answers: [[0x02, 0x2B]: Self.systemInfo(uid: uid, blocks: 40, size: 8, reference: 0x01)])
        #expect(identity.model == "ICODE SLIX2")
        #expect(identity.blockCount == 40 && identity.blockSize == 8 && identity.memoryBytes == 320)
        #expect(trace == [[0x02, 0x2B]], "one unaddressed GET SYSTEM INFORMATION")
    }

    @Test("a chip refusing GET SYSTEM INFORMATION is asked EXTENDED GET SYSTEM INFORMATION (3B 3F); its 2-byte block count is used")
    func extendedWhenRefused() async {
        let uid: [UInt8] = [0xE0, 0x02, 0x51, 0x10, 1, 2, 3, 4]
        // Flags 0F: DSFID, AFI, memory size (3 bytes: 07FF = 2048 blocks, block size 03), IC reference 26.
        let extended: [UInt8] = [0x00, 0x0F] + uid.reversed() + [0x00, 0x00, 0xFF, 0x07, 0x03, 0x26]
        let (identity, trace) = await Self.identify(uid, answers: [[0x02, 0x2B]: [0x01, 0x02], [0x02, 0x3B, 0x3F]: extended])
        #expect(trace == [[0x02, 0x2B], [0x02, 0x3B, 0x3F]])
        // IC reference 26 names the ST25DV16K and ST25DV64K (AOSP); 2048 blocks tell the 64K (ST25 SDK).
        #expect(identity.model == "ST25DV64K")
        #expect(identity.blockCount == 2048 && identity.memoryBytes == 8192)
    }

    @Test("an ST chip answering GET SYSTEM INFORMATION without a memory size (flags 0B, as the ST25DV16K/64K) is asked the extended form; the plain answer's IC reference is kept when the extended one has none")
    func extendedWhenSizeless() async {
        let uid: [UInt8] = [0xE0, 0x02, 0x26, 0x10, 1, 2, 3, 4]
        let plain: [UInt8] = [0x00, 0x0B] + uid.reversed() + [0x00, 0x00, 0x26]
        // Flags 04: memory size only (01FF = 512 blocks of 4 bytes).
        let extended: [UInt8] = [0x00, 0x04] + uid.reversed() + [0xFF, 0x01, 0x03]
        let (identity, trace) = await Self.identify(uid, answers: [[0x02, 0x2B]: plain, [0x02, 0x3B, 0x3F]: extended])
        #expect(trace == [[0x02, 0x2B], [0x02, 0x3B, 0x3F]])
        #expect(identity.model == "ST25DV16K" && identity.icReference == 0x26)
        #expect(identity.blockCount == 512 && identity.memoryBytes == 2048)
        // Refused, the extended form leaves what the plain answer gave: IC reference, no memory.
        let (refused, _) = await Self.identify(uid, answers: [[0x02, 0x2B]: plain, [0x02, 0x3B, 0x3F]: [0x01, 0x01]])
        #expect(refused.model == "ST25DV16K or ST25DV64K" && refused.memoryBytes == nil)
    }

    @Test("hostile system information answers leave the memory unknown and the chip a plain Type 5 tag", arguments: [
        [],                                   // nothing
        [0x00],                               // flags byte only
        [0x00, 0x0F, 1, 2, 3],                // UID cut short
        [0x00, 0xF4, 1, 2, 3, 4, 5, 6, 7, 8, 0x10, 0x03],  // reserved info flags
        [0x00, 0x04, 1, 2, 3, 4, 5, 6, 7, 8, 0x10],        // memory size cut short
        [0x00, 0x04, 1, 2, 3, 4, 5, 6, 7, 8, 0x10, 0x03, 0xAA],  // a trailing byte
        [0x01, 0x0F, 0x00],                   // an error of 3 bytes
    ] as [[UInt8]])
    func hostile(answer: [UInt8]) async {
        let uid: [UInt8] = [0xE0, 0x04, 0x01, 0x08, 1, 2, 3, 4]
        let (identity, _) = await Self.identify(uid, answers: [[0x02, 0x2B]: answer])
        #expect(identity.model == "ICODE SLIX2")
        #expect(identity.memoryBytes == nil && identity.blockCount == nil)
        #expect(identity.platform == .type5)
    }

    @Test("every row of the table names a source and a maker the table knows")
    func rowsCiteSources() {
        for row in ISO15693ChipTable.rows {
            #expect(!row.source.isEmpty, "\(row.model)")
            #expect(ISO15693ChipTable.manufacturer(row.manufacturer) != nil, "\(row.model)")
        }
    }
}
