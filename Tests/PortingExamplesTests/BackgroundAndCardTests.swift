import Foundation
import NDEF
import NFCCore
import NFCKit
import NFCTags
import NFCTestSupport
import Testing

/// The seeds' background tag reading and card emulation flows, ported
/// (Tests/PortingExamplesTests/PortedExamples.swift), on the simulator and through real libnfc
/// and the PN532 emulator.
@Suite("The seeds' background reading and card emulation, ported", .serialized, .timeLimit(.minutes(5)))
@MainActor
struct BackgroundAndCardTests {
    /// A URI record to https://www.example.com/seed: D1 01 0E 55 02 "example.com/seed"
    /// (RTD-URI 1.0: code 02 is https://www.), written out by hand.
    static let uriMessage: [UInt8] = [0xD1, 0x01, 0x11, 0x55, 0x02] + Array("example.com/seed".utf8)

    @Test("background reading delivers a tag's URI message to the app, which processes its records", arguments: [false, true])
    func backgroundRead(throughLibNFC: Bool) async throws {
        let hex = Hex.encode(Self.uriMessage)
        let emulator = throughLibNFC ? try await EmulatorProcess.start(["--tag", "ntag215?ndef=\(hex)"]) : nil
        defer { emulator?.stop() }
        let reader = BackgroundReader(connection: emulator?.connectionString ?? "sim:ntag215?ndef=\(hex)", domains: ["example.com"])
        try await reader.run(count: 1)
        #expect(reader.log == ["URL: https://www.example.com/seed"])
    }

    @Test("background reading passes over tags that do not route to the app: another domain, no URI record")
    func backgroundRoutes() throws {
        let message = try NFCNDEFMessage(bytes: Bytes(Self.uriMessage))
        let identifier = Bytes([0x04, 0x01])
        #expect(BackgroundTagReading.activity(for: message, tag: identifier, domains: ["example.com"])?.webpageURL?.absoluteString == "https://www.example.com/seed")
        #expect(BackgroundTagReading.activity(for: message, tag: identifier, domains: ["www.example.com"]) != nil)
        #expect(BackgroundTagReading.activity(for: message, tag: identifier, domains: ["example.org"]) == nil)
        #expect(BackgroundTagReading.activity(for: message, tag: identifier, domains: ["ample.com"]) == nil)
        let text = NFCNDEFMessage(records: [NFCNDEFPayload.wellKnownTypeTextPayload(string: "Hi", locale: Locale(identifier: "en"))].compactMap { $0 })
        #expect(BackgroundTagReading.activity(for: text, tag: identifier, domains: []) == nil)
    }

    @Test("the card emulation example through libnfc: an external reader runs the Type 4 read procedure and reads the message")
    func cardEmulationThroughLibNFC() async throws {
        let emulator = try await EmulatorProcess.start(["--external-reader", "type4-read"])
        defer { emulator.stop() }
        let example = try CardEmulator(connection: emulator.connectionString, message: Bytes(Self.uriMessage))
        await example.cardSessionSample()
        #expect(example.log == ["assertion", "started", "reader", "deselected", "invalidated"])
        #expect(example.tag.messageWasRead)
        // The other side: the emulator's external reader logs the message it read.
        #expect(emulator.trace.contains { $0.hasSuffix("# external reader: read \(Hex.encode(Self.uriMessage, uppercase: true))") })
    }

    @Test("the card emulation example on the simulator: not supported, so it stops at the eligibility check")
    func cardEmulationOnSimulator() async throws {
        let example = try CardEmulator(connection: "sim:type4", message: Bytes(Self.uriMessage))
        await example.cardSessionSample()
        #expect(example.log == ["not eligible"])
    }

    @Test("on a reader that cannot emulate a card (the simulator), NFCPresentmentIntentAssertion.acquire and CardSession() throw readerErrorUnsupportedFeature, naming the reader")
    func presentmentIntentRefusedOnSimulator() async throws {
        do {
            _ = try await NFCPresentmentIntentAssertion.acquire(connection: "sim:type4")
            Issue.record("an assertion was granted on the simulator")
        } catch {
            #expect(error.code == .readerErrorUnsupportedFeature)
            #expect(error.localizedDescription.contains("sim:type4") || "\(error)".contains("sim:type4"), "\(error)")
        }
        do {
            _ = try await CardSession(connection: "sim:type4")
            Issue.record("a card session began on the simulator")
        } catch {
            #expect(error.code == .readerErrorUnsupportedFeature)
        }
    }
}
