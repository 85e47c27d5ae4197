public import Foundation
import Testing

/// The NFC Forum Type 5 rules written once more for tests, so that a Type 5 chip's memory (in
/// process, or a `sim:` tag file) is judged without NFCTags: a 4-byte CC (`E1` or `E2`, version
/// 1 in bits 7–6 of byte 1, write access in bits 1–0, MLEN × 8 bytes of T5T area in byte 2,
/// feature bits in byte 3) or, when byte 2 is 0, the 8-byte one (MLEN in bytes 6–7), then TLVs
/// in the area: `00` NULL, `03` NDEF (length one byte, or `FF` and two bytes), `FE`
/// Terminator, any other TLV skipped by its length.
public struct T5TJudge: Sendable, Hashable {
    /// CC byte 1 bits 1–0: 0 writable, 3 never.
    public var writeAccess: UInt8
    /// Bytes of T5T area after the CC (MLEN × 8).
    public var area: Int
    /// CC byte 3.
    public var features: UInt8
    /// The CC's bytes (4 or 8).
    public var capabilityContainer: [UInt8]
    /// The NDEF TLV's value; nil when the area holds none.
    public var message: [UInt8]?

    /// Judges `memory` from block 0; nil when it holds no 4-byte Type 5 CC or a TLV runs past
    /// the area or the memory.
    public init?(memory: [UInt8]) {
        guard memory.count >= 8, memory[0] == 0xE1 || memory[0] == 0xE2, memory[1] >> 6 == 1 else { return nil }
        writeAccess = memory[1] & 0x03
        let ccSize = memory[2] == 0 ? 8 : 4
        area = (ccSize == 8 ? Int(memory[6]) << 8 | Int(memory[7]) : Int(memory[2])) * 8
        features = memory[3]
        capabilityContainer = Array(memory.prefix(ccSize))
        let end = min(memory.count, ccSize + area)
        var index = ccSize
        message = nil
        while index < end {
            let type = memory[index]
            if type == 0x00 {
                index += 1
                continue
            }
            if type == 0xFE { break }
            guard index + 1 < end else { return nil }
            var length = Int(memory[index + 1]), header = 2
            if length == 0xFF {
                guard index + 3 < end else { return nil }
                length = Int(memory[index + 2]) << 8 | Int(memory[index + 3])
                header = 4
            }
            guard index + header + length <= end else { return nil }
            if type == 0x03 {
                message = Array(memory[(index + header)..<(index + header + length)])
                break
            }
            index += header + length
        }
    }

    /// The text of the message when it is one well-known Text record (`T`), short or long;
    /// nil otherwise.
    public var text: String? {
        guard let record = message, record.count >= 3 else { return nil }
        let short = record[0] & 0x10 != 0
        let typeAt = short ? 3 : 6
        guard record[1] == 1, record.count > typeAt + 1, record[typeAt] == 0x54 else { return nil }
        let languageLength = Int(record[typeAt + 1] & 0x3F)
        return String(bytes: record.dropFirst(typeAt + 2 + languageLength), encoding: .utf8)
    }

    /// A `sim:` ISO 15693 tag file read as JSON: `memory` holds the chip's bytes, then one
    /// security status byte per block (bit 0 locked), DSFID, AFI, lock flags (docs/simulator.md).
    public struct TagFile: Sendable {
        /// The chip's memory.
        public var memory: [UInt8]
        /// Lock state per block.
        public var lockedBlocks: [Bool]
        /// The file's bytes as read.
        public var raw: Data

        /// Reads the tag file at `path` of a chip with `blocks` blocks of 4 bytes.
        /// - Throws: when the file is not JSON with a hex `memory` of the expected length.
        public init(path: String, blocks: Int) throws {
            raw = try Data(contentsOf: URL(fileURLWithPath: path))
            guard let json = try JSONSerialization.jsonObject(with: raw) as? [String: Any], let text = json["memory"] as? String else {
                throw CocoaError(.fileReadCorruptFile)
            }
            let bytes = hex(text)
            guard bytes.count == blocks * 5 + 3 else { throw CocoaError(.fileReadCorruptFile) }
            memory = Array(bytes.prefix(blocks * 4))
            lockedBlocks = bytes[(blocks * 4)..<(blocks * 5)].map { $0 & 0x01 != 0 }
        }

        /// The memory judged by the Type 5 rules.
        public var judged: T5TJudge? { T5TJudge(memory: memory) }
    }
}
