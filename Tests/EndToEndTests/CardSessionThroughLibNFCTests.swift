import Foundation
import NFCCore
import NFCKit
import NFCTestSupport
import Testing

/// `NFCCardSession` over real libnfc target mode against the PN532 emulator's virtual external
/// reader: the events in order, and the refusals.
@Suite("NFCCardSession through real libnfc target mode", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(3)))
struct CardSessionThroughLibNFCTests {
    @Test("events: readerDetected, one received per APDU, readerDeselected, then sessionInvalidated on invalidate")
    func eventSequence() async throws {
        let emulator = try await EmulatorProcess.start(["--external-reader", "type4-read"])
        defer { emulator.stop() }
        let message = Bytes([0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8))
        var tag = try EmulatedType4Tag(message: message)
        // The timeout only bounds a failure: a loaded machine must not turn the ending into a timeout.
        let session = try await NFCCardSession.start(connection: emulator.connectionString, timeout: .seconds(60))
        var names: [String] = []
        var commands: [Bytes] = []
        var ending: NFCReaderSessionError?
        var fetchedBeforeStart: Bool?
        for await event in session.events {
            switch event {
            case .sessionStarted: names.append("sessionStarted")
            case .readerDetected:
                names.append("readerDetected")
                // Emulation has not started: the session has not asked the chip for a command
                // (TgGetData, 86) yet; the emulator's trace of the host's frames says so.
                fetchedBeforeStart = emulator.trace.contains { $0.contains(" > D4 86") }
                #expect(await !session.isEmulationInProgress)
                try await session.startEmulation()
            case .received(let apdu):
                names.append("received")
                commands.append(apdu.payload)
                try await apdu.respond(tag.respond(to: apdu.payload))
            case .readerDeselected:
                names.append("readerDeselected")
                await session.stopEmulation(status: .success)
                await session.invalidate()
            case .sessionInvalidated(let reason):
                names.append("sessionInvalidated")
                ending = reason
            }
        }
        #expect(fetchedBeforeStart == false)
        #expect(emulator.trace.contains { $0.contains(" > D4 86") }, "the trace shows TgGetData once emulation started")
        #expect(await session.emulationStatus == .success)
        #expect(names == ["sessionStarted", "readerDetected"] + Array(repeating: "received", count: 6) + ["readerDeselected", "sessionInvalidated"])
        #expect(commands.first == Bytes([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]))
        #expect(commands.last == Bytes([0x00, 0xB0, 0x00, 0x02, 0x10]))
        #expect(ending?.code == .userCanceled)
        #expect(emulator.trace.contains { $0.hasSuffix("# external reader: read D1010C55046578616D706C652E636F6D") })
    }

    @Test("no reader within the timeout: sessionInvalidated with sessionTimeout, and nothing else")
    func timeout() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        let session = try await NFCCardSession.start(connection: emulator.connectionString, timeout: .milliseconds(1500))
        var events: [NFCCardSession.Event] = []
        for await event in session.events { events.append(event) }
        #expect(events.count == 2)
        guard case .sessionStarted? = events.first, case .sessionInvalidated(let reason)? = events.last else {
            Issue.record("expected sessionInvalidated, got \(events)")
            return
        }
        #expect(reason.code == .sessionTimeout)
    }

    @Test("the simulator has no target mode: start fails with unsupportedFeature")
    func simulatorRefused() async {
        await #expect(throws: NFCReaderSessionError.self) {
            _ = try await NFCCardSession.start(connection: "sim:type4", timeout: .seconds(1))
        }
        do {
            _ = try await NFCCardSession.start(connection: "sim:type4", timeout: .seconds(1))
        } catch {
            #expect(error.code == .unsupportedFeature)
        }
    }

    @Test("answering a command twice is refused")
    func respondTwice() async throws {
        let emulator = try await EmulatorProcess.start(["--external-reader", "type4-read"])
        defer { emulator.stop() }
        let session = try await NFCCardSession.start(connection: emulator.connectionString, timeout: .seconds(5))
        var secondAnswer: NFCReaderSessionError?
        for await event in session.events {
            if case .readerDetected = event { try await session.startEmulation() }
            if case .received(let apdu) = event {
                try await apdu.respond(Bytes([0x6A, 0x82]))
                do { try await apdu.respond(Bytes([0x90, 0x00])) } catch { secondAnswer = error }
            }
            if case .readerDeselected = event { await session.invalidate() }
        }
        #expect(secondAnswer?.code == .invalidParameter)
        #expect(emulator.trace.contains { $0.hasSuffix("# external reader: refused select-application 6A82") })
    }

    @Test("a reader that comes is not served until startEmulation(): invalidating without starting ends the session with no command received; the external reader got nothing")
    func noEmulationWithoutStart() async throws {
        let emulator = try await EmulatorProcess.start(["--external-reader", "type4-read"])
        defer { emulator.stop() }
        let session = try await NFCCardSession(connection: emulator.connectionString, timeout: .seconds(60))
        var names: [String] = []
        for await event in session.eventStream {
            switch event {
            case .sessionStarted: names.append("sessionStarted")
            case .readerDetected:
                names.append("readerDetected")
                await session.invalidate()
            case .received: names.append("received")
            case .readerDeselected: names.append("readerDeselected")
            case .sessionInvalidated: names.append("sessionInvalidated")
            }
        }
        #expect(names == ["sessionStarted", "readerDetected", "sessionInvalidated"])
        // The emulator's side: the host never fetched a command, and its external reader did not
        // finish its read procedure.
        #expect(!emulator.trace.contains { $0.contains(" > D4 86") })
        #expect(!emulator.trace.contains { $0.contains("# external reader: read") })
    }

    @Test("isSupported and isEligible: the PN532 (libnfc target mode) yes; while a session holds it, supported but not eligible; sim: and PC/SC no")
    func eligibility() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        #expect(await NFCCardSession.isSupported(connection: emulator.connectionString))
        #expect(await NFCCardSession.isEligible(connection: emulator.connectionString))
        let busy = NFCTagReaderSession(pollingOption: [.iso14443], connection: emulator.connectionString)
        try await busy.begin()
        #expect(await NFCCardSession.isSupported(connection: emulator.connectionString))
        #expect(await !NFCCardSession.isEligible(connection: emulator.connectionString))
        await busy.invalidate()
        #expect(await NFCCardSession.isEligible(connection: emulator.connectionString))
        for connection in ["sim:type4", "pcsc"] {
            #expect(await !NFCCardSession.isSupported(connection: connection))
            #expect(await !NFCCardSession.isEligible(connection: connection))
        }
    }
}
