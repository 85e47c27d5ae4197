import NDEF
import NFCKit
import NFCTags
import NFCTestSupport
import Testing

/// Reader sessions through real libnfc and the PN532 emulator: what a user with a PN532 gets.
@Suite("Reader sessions through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct SessionThroughLibNFCTests {
    @Test("availability, then a tag session: detect, connect, query, write, read back; an NDEF session reads it")
    func detectQueryWriteRead() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        let availability = await NFCReaderAvailability.check(connection: emulator.connectionString)
        #expect(availability.isAvailable, "\(availability)")

        let session = NFCTagReaderSession(pollingOption: [.iso14443, .iso18092], connection: emulator.connectionString)
        try await session.begin()
        let tags = EventCollector(session.tags)
        #expect(await tags.wait(forCount: 1, within: .seconds(10)))
        let tag = try #require(tags.elements.first)
        #expect(tag.identity.model == "NTAG215")
        try await session.connect(to: tag)
        let query = try await tag.ndef.queryNDEFStatus()
        #expect(query.status == .readWrite)
        #expect(query.capacity == 492)
        let message = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com/libnfc-session")])
        try await tag.ndef.writeNDEF(message)
        #expect(try await tag.ndef.readNDEF() == message)
        // WRITE (A2) to target 1 through InDataExchange went over the wire.
        #expect(emulator.trace.contains { $0.contains("> D4 40 01 A2 ") })
        await session.invalidate()
        #expect(await session.invalidationReason?.code == .userCanceled)

        // The reader was closed by the session: a new one can open it and read the message (once
        // the reader says it is free: on a loaded machine the release can trail the invalidation).
        let connection = emulator.connectionString
        #expect(await eventuallyAsync(within: .seconds(10)) { await NFCReaderAvailability.check(connection: connection).status == .available })
        let ndefSession = NFCNDEFReaderSession(invalidateAfterFirstRead: true, connection: emulator.connectionString)
        try await ndefSession.begin()
        let messages = EventCollector(ndefSession.messages)
        #expect(await messages.waitForEnd(within: .seconds(10)) != nil)
        #expect(messages.elements == [message])
        #expect(await ndefSession.invalidationReason?.code == .firstNDEFTagRead)
    }

    @Test("a second session on the same libnfc connection string gets readerBusy; ISO 15693 alone is unsupported")
    func busyAndUnsupported() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag213"])
        defer { emulator.stop() }
        let first = NFCTagReaderSession(pollingOption: [.iso14443], connection: emulator.connectionString)
        try await first.begin()
        let second = NFCTagReaderSession(pollingOption: [.iso14443], connection: emulator.connectionString)
        #expect(await thrownError(NFCReaderSessionError.self) { try await second.begin() }?.code == .readerBusy)
        #expect(await first.isReady)
        await first.invalidate()

        let vicinity = NFCTagReaderSession(pollingOption: [.iso15693], connection: emulator.connectionString)
        #expect(await thrownError(NFCReaderSessionError.self) { try await vicinity.begin() }?.code == .unsupportedFeature)

        // A reader opened by the caller is held by its connection string too.
        let reader = try await ReaderConnection.open(emulator.connectionString)
        let onReader = NFCTagReaderSession(pollingOption: [.iso14443], reader: reader)
        try await onReader.begin()
        let byString = NFCNDEFReaderSession(invalidateAfterFirstRead: true, connection: emulator.connectionString)
        #expect(await thrownError(NFCReaderSessionError.self) { try await byString.begin() }?.code == .readerBusy)
        await onReader.invalidate()
        await reader.close()
    }

    @Test("through libnfc: a tag left in the field is reported once with skippingTagInField; the next of the stack after restartPolling; a removed tag is tagConnectionLost")
    func restartPollingAndConnectionLost() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag213", "--tag", "ntag213"])
        defer { emulator.stop() }
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: emulator.connectionString)
        try await session.begin()
        let tags = EventCollector(session.tags)
        #expect(await tags.wait(forCount: 1, within: .seconds(10)))
        try await session.restartPolling(skippingTagInField: true)
        // Still in the field: not reported again (libnfc's presence check says it is there).
        #expect(await !tags.wait(forCount: 2, within: .milliseconds(800)))
        try await emulator.control("next")
        #expect(await tags.wait(forCount: 2, within: .seconds(10)))
        let second = try #require(tags.elements.last)
        #expect(second.identifier != tags.elements.first?.identifier)
        try await session.connect(to: second)
        try await emulator.control("remove")
        let message = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com/lost")])
        do throws(NFCTagError) {
            try await second.ndef.writeNDEF(message, verify: true)
            Issue.record("the write should have failed")
        } catch {
            #expect(NFCReaderSessionError(error).code == .tagConnectionLost)
        }
        #expect(await thrownError(NFCReaderSessionError.self) { try await session.connect(to: second) }?.code == .tagConnectionLost)
        await session.invalidate()
    }

    @Test("a tag session with no tag in reach times out through libnfc")
    func timeout() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag213"])
        defer { emulator.stop() }
        try await emulator.control("remove")
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: emulator.connectionString, timeout: .milliseconds(800))
        try await session.begin()
        let tags = EventCollector(session.tags)
        #expect(await tags.waitForEnd(within: .seconds(10)) != nil)
        #expect(tags.endError?.code == .sessionTimeout)
    }
}
