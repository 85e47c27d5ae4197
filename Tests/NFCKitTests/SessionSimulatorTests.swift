import Foundation
import NDEF
import NFCCore
@testable import NFCKit
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// Reader sessions against the in-process simulator: stacks of tags presented in turn, faults,
/// timeouts, cancellation and the one-session-per-reader rule.
@Suite("Reader sessions on the simulator", .timeLimit(.minutes(10)))
struct SessionSimulatorTests {
    static let url = "https://example.com/session"

    static func reader(_ connection: String = "sim:ntag215?poll-wait=20") throws -> SimulatedReader {
        try SimulatorConfiguration.makeReader(connection)
    }

    @Test("a tag session detects a tag; connect, query, write and read back; invalidate ends it as userCanceled")
    func detectConnectReadWrite() async throws {
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: "sim:ntag215")
        try await session.begin()
        #expect(await session.isReady)
        let tags = EventCollector(session.tags)
        #expect(await tags.wait(forCount: 1))
        let tag = try #require(tags.elements.first)
        #expect(tag.identity.model == "NTAG215")
        try await session.connect(to: tag)
        let query = try await tag.ndef.queryNDEFStatus()
        #expect(query.status == .readWrite)
        #expect(try await tag.ndef.readNDEF().isEmpty)
        let message = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: Self.url)])
        try await tag.ndef.writeNDEF(message)
        #expect(try await tag.ndef.readNDEF() == message)
        await session.invalidate()
        #expect(await tags.waitForEnd() != nil)
        #expect(tags.endError == nil)
        #expect(await session.invalidationReason?.code == .userCanceled)
        #expect(await !session.isReady)
    }

    @Test(
        "after restartPolling(skippingTagInField:), a tag the reader keeps re-detecting (PC/SC-like presence, or none) is not reported again and not polled in a busy loop",
        arguments: ["field", "none", "selected"])
    func restartWithRedetectingReader(presence: String) async throws {
        let reader = try Self.reader("sim:ntag215?poll-wait=20&presence=\(presence)")
        let session = NFCTagReaderSession(pollingOption: [.iso14443], reader: reader)
        try await session.begin()
        let tags = EventCollector(session.tags)
        #expect(await tags.wait(forCount: 1))
        try await session.restartPolling(skippingTagInField: true)
        let clock = ContinuousClock()
        let polledBefore = await reader.pollCount
        let started = clock.now
        try await Task.sleep(for: .seconds(1))
        let polls = await reader.pollCount - polledBefore
        let elapsed = clock.now - started
        // At most one poll per presence interval (100 ms) while it stays (the old loop polled
        // thousands of times a second on a reader that cannot tell presence).
        #expect(polls <= Int(elapsed / .milliseconds(100)) + 2, "\(polls) polls in \(elapsed)")
        #expect(tags.elements.count == 1)
        // Taken away and put back: a new arrival.
        let beforeRemoval = await reader.pollCount
        await reader.withField { $0.removeTag() }
        // Wait for the session to see the empty field (two polls), then bring the tag back.
        let deadline = ContinuousClock.now + .seconds(20)
        while await reader.pollCount < beforeRemoval + 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        await reader.withField { field in if let tag = field.removedTags.last { field.present(tag) } }
        #expect(await tags.wait(forCount: 2))
        await session.invalidate()
    }

    @Test("a stack of three tags is reported one after another with restartPolling, each once")
    func stackInTurn() async throws {
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: "sim:ntag215*3?poll-wait=20")
        try await session.begin()
        let tags = EventCollector(session.tags)
        for count in 1...3 {
            #expect(await tags.wait(forCount: count))
            try await session.restartPolling()
        }
        // The field is empty now: nothing more comes.
        #expect(await !tags.wait(forCount: 4, within: .milliseconds(500)))
        let identifiers = tags.elements.map(\.identifier)
        #expect(identifiers.count == 3)
        #expect(Set(identifiers).count == 3)
        await session.invalidate()
    }

    @Test("with skippingTagInField, a tag that stays in the field is reported once; after it leaves and comes back, again")
    func reportedOnceWhilePresent() async throws {
        let reader = try Self.reader()
        let session = NFCTagReaderSession(pollingOption: [.iso14443], reader: reader)
        try await session.begin()
        let tags = EventCollector(session.tags)
        #expect(await tags.wait(forCount: 1))
        try await session.restartPolling(skippingTagInField: true)
        #expect(await !tags.wait(forCount: 2, within: .milliseconds(700)))
        // Taken away until the session has polled the empty field (the event, not a duration),
        // then brought back.
        let emptyBefore = await reader.emptyPollCount
        await reader.withField { $0.removeTag() }
        #expect(await eventuallyAsync(within: .seconds(30)) { await reader.emptyPollCount > emptyBefore }, "no empty poll")
        let entry = try #require(TagModel.named("ntag215"))
        await reader.withField { $0.present(entry.make(entry.defaultUID, TagModelOptions())) }
        #expect(await tags.wait(forCount: 2))
        await session.invalidate()
        await reader.close()
    }

    @Test("a session that finds no tag ends with sessionTimeout after its timeout")
    func timeout() async throws {
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: "sim:empty", timeout: .milliseconds(300))
        #expect(session.timeout == .milliseconds(300))
        #expect(NFCTagReaderSession.defaultTimeout == .seconds(60))
        let started = ContinuousClock.now
        try await session.begin()
        let tags = EventCollector(session.tags)
        #expect(await tags.waitForEnd() != nil)
        #expect(tags.endError?.code == .sessionTimeout)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(await session.invalidationReason?.code == .sessionTimeout)
    }

    @Test("invalidate(errorMessage:) ends the session as userCanceled; prompts carry the alert and error messages")
    func cancel() async throws {
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: "sim:empty", alertMessage: "Hold a tag near the reader")
        let prompts = StreamCollector(session.prompts)
        try await session.begin()
        await session.setAlertMessage("Still waiting")
        let tags = EventCollector(session.tags)
        await session.invalidate(errorMessage: "Cancelled")
        #expect(await tags.waitForEnd() != nil)
        #expect(tags.endError == nil)
        #expect(await session.invalidationReason?.code == .userCanceled)
        #expect(await prompts.all() == ["Hold a tag near the reader", "Still waiting", "Cancelled"])
    }

    @Test("cancelling the task that iterates the tags invalidates the session as userCanceled")
    func consumerCancelled() async throws {
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: "sim:empty")
        try await session.begin()
        let consumer = Task { for try await _ in session.tags {} }
        try await Task.sleep(for: .milliseconds(100))
        consumer.cancel()
        let deadline = ContinuousClock.now + .seconds(5)
        while await session.invalidationReason == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await session.invalidationReason?.code == .userCanceled)
    }

    @Test("a second session on a reader in use gets readerBusy; once the first ends, a new one begins")
    func busy() async throws {
        let reader = try Self.reader()
        let first = NFCTagReaderSession(pollingOption: [.iso14443], reader: reader)
        try await first.begin()
        let second = NFCNDEFReaderSession(invalidateAfterFirstRead: true, reader: reader)
        #expect(await thrownError(NFCReaderSessionError.self) { try await second.begin() }?.code == .readerBusy)
        #expect(await second.invalidationReason?.code == .readerBusy)
        let secondMessages = EventCollector(second.messages)
        #expect(await secondMessages.waitForEnd() != nil)
        #expect(secondMessages.endError?.code == .readerBusy)
        // The busy session did not disturb the first one.
        #expect(await first.isReady)
        await first.invalidate()
        let third = NFCTagReaderSession(pollingOption: [.iso14443], reader: reader)
        try await third.begin()
        #expect(await third.isReady)
        await third.invalidate()
        await reader.close()
    }

    @Test("an invalidated session is not reusable: begin, connect and restartPolling fail with sessionInvalidated")
    func notReusable() async throws {
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: "sim:ntag215")
        try await session.begin()
        let tags = EventCollector(session.tags)
        #expect(await tags.wait(forCount: 1))
        let tag = try #require(tags.elements.first)
        #expect(await thrownError(NFCReaderSessionError.self) { try await session.begin() }?.code == .sessionInvalidated)
        await session.invalidate()
        #expect(await thrownError(NFCReaderSessionError.self) { try await session.begin() }?.code == .sessionInvalidated)
        #expect(await thrownError(NFCReaderSessionError.self) { try await session.connect(to: tag) }?.code == .sessionInvalidated)
        #expect(await thrownError(NFCReaderSessionError.self) { try await session.restartPolling() }?.code == .sessionInvalidated)
        // The reader it opened is closed: the tag cannot be talked to any more.
        await #expect(throws: NFCTagError.self) { _ = try await tag.ndef.readNDEF() }
    }

    @Test("a tag that leaves mid-write gives tagConnectionLost; the session lives on and finds the next tag")
    func connectionLost() async throws {
        let reader = try Self.reader("sim:ntag215*2?poll-wait=20")
        let session = NFCTagReaderSession(pollingOption: [.iso14443], reader: reader)
        try await session.begin()
        let tags = EventCollector(session.tags)
        #expect(await tags.wait(forCount: 1))
        let tag = try #require(tags.elements.first)
        try await session.connect(to: tag)
        await reader.withField { $0.faultPlan = FaultPlan(leaveAfterCommand: $0.commandCount + 1) }
        // A write takes several commands: the tag is pulled after the first.
        let message = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: Self.url)])
        do throws(NFCTagError) {
            try await tag.ndef.writeNDEF(message, verify: true)
            Issue.record("the write should have failed")
        } catch {
            #expect(NFCReaderSessionError(error).code == .tagConnectionLost)
        }
        #expect(await thrownError(NFCReaderSessionError.self) { try await session.connect(to: tag) }?.code == .tagConnectionLost)
        #expect(await session.isReady)
        await reader.withField { $0.faultPlan = .none }
        try await session.restartPolling()
        #expect(await tags.wait(forCount: 2))
        #expect(tags.elements.last?.identifier != tag.identifier)
        await session.invalidate()
        await reader.close()
    }

    @Test("connect(to:) refuses a tag that is not the one the session detected last")
    func connectOtherTag() async throws {
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: "sim:ntag215*2?poll-wait=20")
        try await session.begin()
        let tags = EventCollector(session.tags)
        #expect(await tags.wait(forCount: 1))
        try await session.restartPolling()
        #expect(await tags.wait(forCount: 2))
        let first = try #require(tags.elements.first)
        #expect(await thrownError(NFCReaderSessionError.self) { try await session.connect(to: first) }?.code == .tagConnectionLost)
        await session.invalidate()
    }

    @Test("an NDEF session with invalidateAfterFirstRead reads one message and ends as firstNDEFTagRead")
    func invalidateAfterFirstRead() async throws {
        let message = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: Self.url)])
        let hex = try message.encoded().map { String(format: "%02X", $0) }.joined()
        let session = NFCNDEFReaderSession(invalidateAfterFirstRead: true, connection: "sim:ntag215*3?ndef=\(hex)")
        #expect(session.invalidateAfterFirstRead)
        try await session.begin()
        let messages = EventCollector(session.messages)
        #expect(await messages.waitForEnd() != nil)
        #expect(messages.endError == nil)
        #expect(messages.elements == [message])
        #expect(await session.invalidationReason?.code == .firstNDEFTagRead)
    }

    @Test("an NDEF session without invalidateAfterFirstRead reads every tag of a stack in turn")
    func readsEveryTag() async throws {
        let message = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: Self.url)])
        let hex = try message.encoded().map { String(format: "%02X", $0) }.joined()
        let session = NFCNDEFReaderSession(invalidateAfterFirstRead: false, connection: "sim:ntag215*3?ndef=\(hex)&poll-wait=20")
        try await session.begin()
        let messages = EventCollector(session.messages)
        #expect(await messages.wait(forCount: 3))
        #expect(await !messages.wait(forCount: 4, within: .milliseconds(500)))
        #expect(messages.elements == [message, message, message])
        await session.invalidate()
        #expect(await messages.waitForEnd() != nil)
        #expect(messages.endError == nil)
        #expect(await session.invalidationReason?.code == .userCanceled)
    }

    @Test("beginning a running NDEF session again fails with sessionInvalidated and leaves it running")
    func ndefBeginTwice() async throws {
        let session = NFCNDEFReaderSession(invalidateAfterFirstRead: false, connection: "sim:ntag215*2?poll-wait=20")
        try await session.begin()
        #expect(await thrownError(NFCReaderSessionError.self) { try await session.begin() }?.code == .sessionInvalidated)
        let messages = EventCollector(session.messages)
        #expect(await messages.wait(forCount: 2))
        #expect(await session.isReady)
        await session.invalidate()
    }

    @Test("an NDEF session that times out ends its messages with sessionTimeout")
    func ndefTimeout() async throws {
        let session = NFCNDEFReaderSession(invalidateAfterFirstRead: true, connection: "sim:empty", timeout: .milliseconds(200))
        try await session.begin()
        let messages = EventCollector(session.messages)
        #expect(await messages.waitForEnd() != nil)
        #expect(messages.endError?.code == .sessionTimeout)
    }

    @Test("a malformed sim: string fails begin with invalidParameter")
    func badConnection() async throws {
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: "sim:no-such-model")
        #expect(await thrownError(NFCReaderSessionError.self) { try await session.begin() }?.code == .invalidParameter)
        #expect(await session.invalidationReason?.code == .invalidParameter)
    }

    @Test("tag errors map to session codes users can match", arguments: [
        (NFCTagError.Code.readOnly, NFCReaderSessionError.Code.notWritable),
        (.capacityExceeded, .capacityExceeded),
        (.connectionLost, .tagConnectionLost),
        (.tagResponse, .tagResponseError),
        (.notSupported, .unsupportedFeature),
        (.authenticationFailed, .securityViolation),
        (.passwordRequired, .securityViolation),
        (.invalidParameter, .invalidParameter),
        (.notNDEFFormatted, .notNDEFFormatted),
        (.verificationFailed, .updateFailure),
    ])
    func tagErrorMapping(tagCode: NFCTagError.Code, sessionCode: NFCReaderSessionError.Code) {
        let mapped = NFCReaderSessionError(NFCTagError(tagCode, "x"))
        #expect(mapped.code == sessionCode)
        #expect(mapped.tagError?.code == tagCode)
    }

    @Test("reader errors map to session codes users can match", arguments: [
        (NFCReaderDeviceError.Code.tagLost, NFCReaderSessionError.Code.tagConnectionLost),
        (.timeout, .tagConnectionLost),
        (.busy, .readerBusy),
        (.deviceNotFound, .readerUnavailable),
        (.closed, .readerUnavailable),
        (.authenticationFailed, .securityViolation),
        (.notSupported, .unsupportedFeature),
        (.nak, .tagResponseError),
        (.invalidArgument, .invalidParameter),
    ])
    func readerErrorMapping(readerCode: NFCReaderDeviceError.Code, sessionCode: NFCReaderSessionError.Code) {
        #expect(NFCReaderSessionError(NFCReaderDeviceError(readerCode, "x")).code == sessionCode)
    }

    @Test("availability: a sim reader is available; a bad sim string, a missing device node are said so")
    func availability() async throws {
        let ok = await NFCReaderAvailability.check(connection: "sim:ntag215")
        #expect(ok.isAvailable)
        #expect(ok.readerName == "simulator (ntag215)")
        #expect(await NFCReaderAvailability.check(connection: "sim:bogus").status == .invalidConnectionString)
        #expect(await NFCReaderAvailability.check(connection: "pn532_uart:/dev/no-such-reader").status == .noReader)
    }

    @Test("the device node of a libnfc connection string is the part after the driver, without the speed")
    func devicePath() {
        #expect(NFCReaderAvailability.devicePath(in: "pn532_uart:/dev/ttyUSB0:115200") == "/dev/ttyUSB0")
        #expect(NFCReaderAvailability.devicePath(in: "pn532_uart:/dev/pts/3") == "/dev/pts/3")
        #expect(NFCReaderAvailability.devicePath(in: "pn53x_usb:") == nil)
        #expect(NFCReaderAvailability.devicePath(in: "acr122_usb:001:004") == nil)
    }

    @Test("a device node this user may not open read-write is permissionDenied; root, who opens anything, is not refused, and as root the check runs again as nobody")
    func permissionDenied() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("session-node-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o000]))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let status = await NFCReaderAvailability.check(connection: "pn532_uart:\(path)").status
        guard getuid() == 0 else {
            #expect(status == .permissionDenied)
            return
        }
        #expect(status != .permissionDenied)
        // This test again, in this test binary, as nobody: there the branch above runs.
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let run = try await runAsNobody(binary, ["--testing-library", "swift-testing", "--filter", "SessionSimulatorTests/permissionDenied"],
                                  environment: ProcessInfo.processInfo.environment)
        #expect(run.status == 0 && !run.timedOut, "\(run.output.suffix(2000))")
        #expect(run.output.contains("Test run with 1 test") && run.output.contains("passed"), "\(run.output.suffix(2000))")
    }
}
