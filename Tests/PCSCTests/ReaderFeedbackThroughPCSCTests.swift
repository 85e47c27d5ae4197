import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// `nfctool batch --feedback` through pcscd: the virtual reader playing an ACR122U records
    /// every LED and buzzer command it carries out (its `--feedback-log`), so the test reads the
    /// signals from the reader's side; a generic reader has none and says so once.
    @Suite(
        "batch --feedback: the reader's beep and LED per tag", .tags(.pcsc, .endToEnd), .serialized, .timeLimit(.minutes(5)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct ReaderFeedbackThroughPCSCTests {
        static let acr122u = "ACS ACR122U PICC Interface"

        /// A stack of three NTAG213 in `directory`, the second (UID …02) locked beforehand by
        /// `nfctool lock` on its tag file, so that batch refuses it as read-only.
        static func stackWithLockedSecond(_ tool: String, _ directory: String, environment: [String: String]) async throws {
            let file = directory + "/0453494d000002.json"
            let write = try await runTool(tool, ["write", "--device", "sim:ntag213?uid=0453494D000002&file=\(file)", "--url", "https://ex.io/old"], environment: environment, timeout: 30)
            #expect(write.status == 0, "\(write.output)")
            let lock = try await runTool(tool, ["lock", "--device", "sim:ntag213?uid=0453494D000002&file=\(file)", "--yes"], environment: environment, timeout: 30)
            #expect(lock.status == 0, "\(lock.output)")
        }

        /// The emulator's feedback log, a line per signal.
        static func signals(_ path: String) -> [String] {
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        @Test("three tags through an emulated ACR122U, the second locked: the reader shows green with a short beep, red with a long one, green, in that order")
        func greenRedGreen() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr122u)
            defer { daemon.stop() }
            let tags = daemon.directory.appendingPathComponent("tags").path
            try await Self.stackWithLockedSecond(tool, tags, environment: daemon.environment)
            let log = daemon.directory.appendingPathComponent("feedback.log").path
            let reader = try await VirtualReaderProcess(
                tag: "sim:ntag213*3?dir=\(tags)", daemon: daemon, profile: "acr122u", extra: ["--hand-out", "reset", "--feedback-log", log])
            defer { reader.stop() }
            let ledger = daemon.directory.appendingPathComponent("run.db").path
            let run = try await runTool(
                tool, ["batch", "--device", "pcsc", "--url", "https://ex.io/{uid}", "--count", "2", "--ledger", ledger, "--json", "--timeout", "20", "--feedback"],
                environment: daemon.environment, timeout: 180)
            // One tag failed (read-only): exit 1, two done.
            #expect(run.status == 1, "\(run.output)\n\(reader.output)")
            #expect(run.standardOutput.contains("\"done\" : 2"), "\(run.output)")
            #expect(run.standardOutput.contains("\"failed\" : 1"), "\(run.output)")
            #expect(!run.output.contains("note: --feedback") && !run.output.contains("feedback failed"), "no note and no warning: \(run.output)")
            #expect(run.output.contains("FAILED 0453494D000002"), "\(run.output)")
            #expect(
                Self.signals(log) == [
                    "feedback leds=green on=100ms buzzer=100ms", "feedback leds=red on=500ms buzzer=500ms", "feedback leds=green on=100ms buzzer=100ms",
                ], "\(Self.signals(log))\n\(run.output)")
            // The command as the ACR122U API lays it out, through the card's connection.
            #expect(reader.receivedAPDUs.contains("ff0040a00401010101"), "\(reader.receivedAPDUs.suffix(20))")
            #expect(reader.receivedAPDUs.contains("ff0040500405010101"), "\(reader.receivedAPDUs.suffix(20))")
        }

        @Test("--feedback on a generic PC/SC reader: one note that it has no feedback, no LED command sent, and the run goes on as without")
        func genericReaderGetsANote() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let reader = try await VirtualReaderProcess(tag: "sim:ntag213*2", daemon: daemon, extra: ["--hand-out", "reset"])
            defer { reader.stop() }
            let ledger = daemon.directory.appendingPathComponent("run.db").path
            let run = try await runTool(
                tool, ["batch", "--device", "pcsc", "--url", "https://ex.io/{uid}", "--count", "2", "--ledger", ledger, "--json", "--timeout", "20", "--feedback"],
                environment: daemon.environment, timeout: 180)
            #expect(run.status == 0, "\(run.output)\n\(reader.output)")
            #expect(run.standardOutput.contains("\"done\" : 2"), "\(run.output)")
            #expect(run.output.components(separatedBy: "has no buzzer or LED").count - 1 == 1, "\(run.output)")
            #expect(!reader.receivedAPDUs.contains { $0.hasPrefix("ff0040") }, "\(reader.receivedAPDUs)")
        }

        @Test(
            "an ACR122U whose LED and buzzer command fails (63 00) or answers malformed: every tag still done, the failure told once as a warning",
            arguments: ["fail", "malformed"])
        func failedFeedbackLeavesTagsDone(answer: String) async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr122u)
            defer { daemon.stop() }
            let log = daemon.directory.appendingPathComponent("feedback.log").path
            let reader = try await VirtualReaderProcess(
                tag: "sim:ntag213*2", daemon: daemon, profile: "acr122u", extra: ["--hand-out", "reset", "--feedback-answer", answer, "--feedback-log", log])
            defer { reader.stop() }
            let ledger = daemon.directory.appendingPathComponent("run.db").path
            let run = try await runTool(
                tool, ["batch", "--device", "pcsc", "--url", "https://ex.io/{uid}", "--count", "2", "--ledger", ledger, "--json", "--timeout", "20", "--feedback"],
                environment: daemon.environment, timeout: 180)
            #expect(run.status == 0, "\(run.output)\n\(reader.output)")
            #expect(run.standardOutput.contains("\"done\" : 2"), "\(run.output)")
            #expect(run.standardOutput.contains("\"failed\" : 0"), "\(run.output)")
            #expect(run.output.components(separatedBy: "reader feedback failed").count - 1 == 1, "\(run.output)")
            // Both tags were signalled (the reader was asked twice), and it carried out neither.
            #expect(reader.receivedAPDUs.filter { $0.hasPrefix("ff0040") }.count == 2, "\(reader.receivedAPDUs)")
            #expect(Self.signals(log).isEmpty, "\(Self.signals(log))")
        }
    }
}
