import Foundation
import NDEF
import NFCCore
import NFCKit
import NFCTags
import NFCTestSupport
import Testing

/// Several tags in the field together (issue 17, item 2): reported at once, one connected at a
/// time, commands to the others refused; on the simulator (`sim:A:FILE+B:FILE`) and through real
/// libnfc and the PN532 emulator (`--tag A:FILE+B:FILE`). The tag files are the other side.
@Suite("Several tags in the field, reported together", .serialized, .timeLimit(.minutes(10)))
@MainActor
struct SeveralTagsTests {
    /// A field of an NTAG215 and an NTAG213, each with its tag file, on `sim:` or the emulator.
    struct Field {
        let directory: URL
        let ntag215: String
        let ntag213: String
        let emulator: EmulatorProcess?
        var connection: String { emulator?.connectionString ?? "sim:ntag215:\(ntag215)+ntag213:\(ntag213)?poll-wait=20" }

        init(throughLibNFC: Bool) async throws {
            directory = try temporaryDirectory()
            ntag215 = directory.appendingPathComponent("ntag215.json").path
            ntag213 = directory.appendingPathComponent("ntag213.json").path
            emulator = throughLibNFC ? try await EmulatorProcess.start(["--tag", "ntag215:\(ntag215)+ntag213:\(ntag213)"]) : nil
        }

        /// The NDEF TLV value each tag file holds (the emulator saves each write before it answers it).
        func written() throws -> (ntag215: [UInt8]?, ntag213: [UInt8]?) {
            emulator?.stop()
            return (Self.ndefTLV(try tagFileMemory(ntag215)), Self.ndefTLV(try tagFileMemory(ntag213)))
        }

        /// The NDEF TLV's value in a Type 2 tag's memory, walking the TLVs from page 4 (NFC Forum
        /// Type 2 Tag 1.2 §2.3: NULL `00`, Lock/Memory Control `01`/`02`, NDEF `03`, end `FE`); the
        /// NTAG213 starts with a Lock Control TLV (NTAG213/215/216 datasheet §8.5).
        static func ndefTLV(_ memory: [UInt8]) -> [UInt8]? {
            var offset = 16
            while offset + 1 < memory.count {
                switch memory[offset] {
                case 0x00: offset += 1
                case 0xFE: return nil
                case 0x03:
                    let length = Int(memory[offset + 1])
                    guard offset + 2 + length <= memory.count else { return nil }
                    return Array(memory[(offset + 2)..<(offset + 2 + length)])
                default: offset += 2 + Int(memory[offset + 1])
                }
            }
            return nil
        }

        func remove() {
            emulator?.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func text(_ string: String) -> NFCNDEFMessage {
        NFCNDEFMessage(records: [NFCNDEFPayload.wellKnownTypeTextPayload(string: string, locale: Locale(identifier: "en"))].compactMap { $0 })
    }

    @Test("both tags come in one detection; a command to a tag not connected is refused (TagNotConnected) and changes nothing; each connected in turn gets its own message", arguments: [false, true])
    func bothReportedEachWritten(throughLibNFC: Bool) async throws {
        let field = try await Field(throughLibNFC: throughLibNFC)
        defer { field.remove() }
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: field.connection)
        try await session.begin()
        var detections = session.detectedTags.makeAsyncIterator()
        let tags = try #require(try await detections.next())
        #expect(tags.count == 2)
        let ntag213 = try #require(tags.first { $0.identity.model == "NTAG213" })
        let ntag215 = try #require(tags.first { $0.identity.model == "NTAG215" })
        #expect(ntag213.identifier != ntag215.identifier)

        // Not connected yet: refused as CoreNFC refuses it.
        do {
            try await ntag213.ndef.writeNDEF(Self.text("too early"))
            Issue.record("a write before connect(to:) went through")
        } catch {
            #expect(error.code == .readerTransceiveErrorTagNotConnected)
        }
        try await session.connect(to: ntag213)
        try await ntag213.ndef.writeNDEF(Self.text("for the 213"))
        // The other tag is not connected: refused too.
        do {
            _ = try await ntag215.ndef.readNDEF()
            Issue.record("a read of the tag not connected went through")
        } catch {
            #expect(NFCReaderError(error).code == .readerTransceiveErrorTagNotConnected)
        }
        try await session.connect(to: ntag215)
        try await ntag215.ndef.writeNDEF(Self.text("for the 215"))
        await session.invalidate()

        let written = try field.written()
        let expected: (String) -> [UInt8] = { text in [0xD1, 0x01, UInt8(3 + text.utf8.count), 0x54, 0x02, 0x65, 0x6E] + Array(text.utf8) }
        #expect(written.ntag213 == expected("for the 213"))
        #expect(written.ntag215 == expected("for the 215"))
    }

    @Test("the seeds' write flow with two tags: 'more than 1 tag', restartPolling reports both again; nothing is written (simulator)")
    func writerRefusesTwoTagsOnSimulator() async throws {
        let field = try await Field(throughLibNFC: false)
        defer { field.remove() }
        let writer = NDEFWriter(connection: field.connection, message: PortingExamplesTests.hello)
        writer.beginWrite()
        // Reported twice: the delayed restartPolling reports the two tags that stayed.
        #expect(await eventually(within: exampleLimit) { writer.log.filter { $0 == "detected 2" }.count >= 2 })
        writer.stopWriting()
        #expect(await eventually(within: exampleLimit) { writer.finished != nil })
        #expect(writer.alerts == ["More than 1 tag is detected. Please remove all tags and try again."])
        #expect(!writer.log.contains("written"))
        let written = try field.written()
        #expect((written.ntag213 ?? []).isEmpty && (written.ntag215 ?? []).isEmpty)
    }

    @Test("the seeds' write flow with two tags through libnfc: refused while both are there; once one is taken away the other is written")
    func writerWaitsForOneTagThroughLibNFC() async throws {
        let field = try await Field(throughLibNFC: true)
        defer { field.remove() }
        let emulator = try #require(field.emulator)
        let writer = NDEFWriter(connection: emulator.connectionString, message: PortingExamplesTests.hello)
        writer.beginWrite()
        #expect(await eventually(within: exampleLimit) { writer.log.filter { $0 == "detected 2" }.count >= 2 })
        // One tag is taken away: the next poll finds one.
        let answer = try await emulator.control("remove")
        #expect(answer.hasPrefix("ok"), "\(answer)")
        #expect(await eventually(within: exampleLimit) { writer.finished != nil })
        #expect(writer.log.suffix(3) == ["detected 1", "status readWrite capacity \(answer.contains("NTAG213") ? 144 : 492)", "written"])
        #expect(writer.alerts == ["Write NDEF message successful."])
        let written = try field.written()
        let hello: [UInt8] = [0xD1, 0x01, 0x0E, 0x54, 0x02, 0x65, 0x6E] + Array("Hello, NFC!".utf8)
        // Exactly one tag holds the message: the one left on the reader.
        #expect([written.ntag213, written.ntag215].filter { $0 == hello }.count == 1)
        #expect([written.ntag213, written.ntag215].filter { ($0 ?? []).isEmpty }.count == 1)
    }
}

/// The NDEF session reading messages, with two tags in the field together.
@Suite("An NDEF session reads each of two tags in the field once", .serialized, .timeLimit(.minutes(5)))
struct NDEFSessionSeveralTagsTests {
    @Test("two tags holding different messages: both messages come, each once while they stay", arguments: [false, true])
    func readsBoth(throughLibNFC: Bool) async throws {
        // URI records to example.com/a and example.com/b (RTD-URI: code 04 is https://).
        let a: [UInt8] = [0xD1, 0x01, 0x0E, 0x55, 0x04] + Array("example.com/a".utf8)
        let b: [UInt8] = [0xD1, 0x01, 0x0E, 0x55, 0x04] + Array("example.com/b".utf8)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fileA = directory.appendingPathComponent("a.json").path, fileB = directory.appendingPathComponent("b.json").path
        // The tag files are made with their messages first (the simulator writes them), then the
        // field of both is read.
        for (file, message, uid) in [(fileA, a, "0453494D00000A"), (fileB, b, "0453494D00000B")] {
            let reader = try await ReaderConnection.open("sim:ntag215?file=\(file)&ndef=\(Hex.encode(message))&uid=\(uid)")
            await reader.close()
        }
        let emulator = throughLibNFC ? try await EmulatorProcess.start(["--tag", "ntag215:\(fileA)+ntag215:\(fileB)"]) : nil
        defer { emulator?.stop() }
        let session = NFCNDEFReaderSession(
            invalidateAfterFirstRead: false,
            connection: emulator?.connectionString ?? "sim:ntag215:\(fileA)+ntag215:\(fileB)?poll-wait=20")
        try await session.begin()
        let messages = EventCollector(session.messages)
        #expect(await messages.wait(forCount: 2))
        // Nothing more while both stay.
        #expect(await !messages.wait(forCount: 3, within: .milliseconds(700)))
        await session.invalidate()
        let uris = Set(messages.elements.compactMap { message -> String? in message.records.first?.wellKnownTypeURIPayload() })
        #expect(uris == ["https://example.com/a", "https://example.com/b"])
    }
}
