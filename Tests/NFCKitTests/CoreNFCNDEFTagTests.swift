import Foundation
import NDEF
import NFCCore
@testable import NFCKit
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// CoreNFC's `NFCNDEFTag` spellings that differ from NFCTags' own, on the simulator: the
/// synchronous `isAvailable`, and the async `writeNDEF(_:)` throwing `NFCReaderError`.
@Suite("CoreNFC's NFCNDEFTag spellings on the simulator", .timeLimit(.minutes(2)))
struct CoreNFCNDEFTagTests {
    /// A tag session on a simulated NTAG215 whose field the test can change, with its first tag
    /// connected.
    static func connectedTag(file: String? = nil) async throws -> (SimulatedReader, NFCTagReaderSession, NFCTag) {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215?poll-wait=20" + (file.map { "&file=\($0)" } ?? ""))
        let session = NFCTagReaderSession(pollingOption: [.iso14443], reader: reader)
        try await session.begin()
        let tags = EventCollector(session.tags)
        #expect(await tags.wait(forCount: 1))
        let tag = try #require(tags.elements.first)
        try await session.connect(to: tag)
        return (reader, session, tag)
    }

    @Test("isAvailable is true while the tag is in the field and false once it was taken away (sync, from a thread of its own)")
    func isAvailableFollowsTheField() async throws {
        let (reader, session, tag) = try await Self.connectedTag()
        let ndef = tag.ndef
        #expect(try await runBlocking { tag.isAvailable })
        #expect(try await runBlocking { ndef.isAvailable })
        await reader.withField { $0.removeTag() }
        #expect(await reader.withField { $0.isTagPresent } == false)
        #expect(try await runBlocking { tag.isAvailable } == false)
        #expect(try await runBlocking { ndef.isAvailable } == false)
        #expect(await tag.isPresent() == false)
        await session.invalidate()
    }

    @Test("isAvailable of a session's tag is false after the session ended, though the tag stays in the field")
    func isAvailableAfterInvalidate() async throws {
        let (reader, session, tag) = try await Self.connectedTag()
        await session.invalidate()
        #expect(await reader.withField { $0.isTagPresent })
        #expect(try await runBlocking { tag.isAvailable } == false)
    }

    @Test("async writeNDEF of a message with no records throws NFCReaderError 403, as CoreNFC and the completion form do; nothing is sent")
    func emptyMessageIs403() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ntag215.json").path
        let (reader, session, tag) = try await Self.connectedTag(file: file)
        let message = NFCNDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com/kept")])
        try await tag.writeNDEF(message)
        let commandsBefore = await reader.withField { $0.commandCount }
        // As CoreNFC code has it: an untyped `throws` context, the error matched by type.
        let writeEmpty: @Sendable () async throws -> Void = { try await tag.writeNDEF(NFCNDEFMessage(records: [])) }
        do {
            try await writeEmpty()
            Issue.record("a message with no records was written")
        } catch let error as NFCReaderError {
            #expect(error.code == .ndefReaderSessionErrorZeroLengthMessage)
            #expect((error as NSError).code == 403)
        } catch {
            Issue.record("not an NFCReaderError: \(error)")
        }
        #expect(await reader.withField { $0.commandCount } == commandsBefore)
        // The completion form says the same.
        let completion = await withCheckedContinuation { continuation in
            tag.ndef.writeNDEF(NFCNDEFMessage(records: [])) { error in continuation.resume(returning: (error as? NFCReaderError)?.code) }
        }
        #expect(completion == .ndefReaderSessionErrorZeroLengthMessage)
        await session.invalidate()
        await reader.close()
        // The tag file still holds the first message: an NDEF TLV (03, length) at page 4 with
        // its bytes, D1 01 0E 55 04 "example.com/kept" (RTD-URI: 04 is https://).
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
        let memory = try Hex.decode(try #require(state?["memory"] as? String))
        let uri: [UInt8] = [0xD1, 0x01, 0x11, 0x55, 0x04] + Array("example.com/kept".utf8)
        #expect(Array(memory[16..<(18 + uri.count)]) == [0x03, UInt8(uri.count)] + uri)
    }
}
