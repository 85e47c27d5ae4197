import Foundation
import NFCCore
import NFCTags
import Testing

@testable import VirtualTags

@Suite("Outside data never traps", .timeLimit(.minutes(5)))
struct RobustnessTests {
    @Test("a known Type 2 command of the wrong length gets no answer", arguments: [
        (UInt8(0x60), 1), (0x30, 2), (0x3A, 3), (0xA2, 6), (0xA0, 2), (0x39, 2), (0x1B, 5), (0x3C, 2),
    ])
    func wrongLengths(command: UInt8, length: Int) {
        for n in 1...20 where n != length {
            let tag = freshNTAG(.ntag216)
            #expect(tag.respond(to: [command] + [UInt8](repeating: 0xFF, count: n - 1)) == .silence)
        }
    }

    @Test("every command byte with every short argument is answered without trapping: data, ACK, a datasheet NAK or silence", arguments: NTAG21xTag.Model.allCases)
    func everyCommandByte(model: NTAG21xTag.Model) {
        var kinds: [String: Int] = [:]
        for command in 0...255 {
            for argument in [0x00, 0x02, 0x2C, 0xE6, 0xFF] {
                let tag = freshNTAG(model)
                for frame in [[UInt8(command), UInt8(argument), UInt8(argument)], [UInt8(command), UInt8(argument)]] {
                    switch tag.respond(to: frame) {
                    case .data(let bytes):
                        #expect(!bytes.isEmpty, "\(Hex.encode(frame)): an empty data answer")
                        kinds["data", default: 0] += 1
                    case .ack: kinds["ack", default: 0] += 1
                    case .nak(let code):
                        // NTAG21x datasheet 9.3: 0h invalid argument, 1h CRC, 4h counter/auth, 5h EEPROM.
                        #expect([0x0, 0x1, 0x4, 0x5].contains(code), "\(Hex.encode(frame)): NAK \(code)")
                        kinds["nak", default: 0] += 1
                    case .silence: kinds["silence", default: 0] += 1
                    }
                }
            }
        }
        // READ 00 answers data, an out-of-range READ a NAK, an unknown command silence.
        #expect(kinds["data", default: 0] > 0 && kinds["nak", default: 0] > 0 && kinds["silence", default: 0] > 0, "\(kinds)")
        #expect(freshNTAG(model).respond(to: []) == .silence)
    }

    @Test("every truncated prefix of a valid APDU gets an error status word")
    func truncatedAPDUs() {
        let apdus: [[UInt8]] = [
            [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01],
            [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04],
            [0x00, 0xB0, 0x00, 0x00, 0x02],
            [0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00],
        ]
        for apdu in apdus {
            for n in 0..<apdu.count {
                let tag = readyType4()
                _ = selectType4File(tag, 0xE104)
                let answer = tag.respond(toAPDU: Array(apdu.prefix(n)))
                #expect(answer.count == 2)
                #expect(answer != [0x90, 0x00], "prefix \(n) of \(apdu)")
            }
        }
    }

    @Test("every truncated prefix of a tag file fails to load")
    func truncatedTagFiles() throws {
        let path = temporaryTagFilePath()
        let file = TagFile(path: path)
        try file.save(NTAG21xTag(.ntag213, uid: sampleUID7).tagState)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        for n in stride(from: 0, to: whole.count - 2, by: 7) {
            try whole.prefix(n).write(to: URL(fileURLWithPath: path))
            #expect(throws: TagFileError.self) { try file.loadTag() }
        }
    }

    @Test("withField runs code on the reader's field")
    func withField() async throws {
        let r = SimulatedReader(tags: [NTAG21xTag(.ntag213, uid: sampleUID7)], emptyFieldWait: .zero)
        _ = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
        await r.withField { $0.faultPlan = FaultPlan(rfErrorOnCommands: [1]) }
        let error = await readerError { _ = try await r.transceive(Bytes([0x60])) }
        #expect(error?.code == .rfError)
        let page = await r.withField { field in (field.currentTag as? NTAG21xTag)?.memory.prefix(4).count }
        #expect(page == 4)
    }
}
