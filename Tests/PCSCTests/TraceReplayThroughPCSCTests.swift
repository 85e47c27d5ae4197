import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// `pcsc-reader-emulator --replay FILE` behind the real pcscd: traces recorded by nfctool
    /// through pcscd and the virtual reader holding an NTAG215, played with that reader gone, to a
    /// fresh nfctool and to pcsc-tools.
    @Suite(
        "a reader trace played by pcsc-reader-emulator --replay behind the real pcscd", .tags(.pcsc, .endToEnd), .serialized,
        .timeLimit(.minutes(3)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct TraceReplayThroughPCSCTests {
        /// One nfctool command recorded through the virtual NTAG215: its arguments (without
        /// `--trace`), its trace and what it printed.
        struct Recording {
            let arguments: [String]
            let trace: String
            let run: ToolRun
        }

        static let url = "https://example.com/pcsc-replay"

        /// A reader family: the name pcscd gives the reader (NFCKit picks its profile by it) and
        /// the emulator's `--profile`; and the tag model on it.
        struct Family: Sendable, CustomTestStringConvertible {
            let friendlyName: String?
            let profile: String?
            var model = "ntag215"
            var testDescription: String { "\(model) on \(profile ?? "generic")" }
            static let generic = Family(friendlyName: nil, profile: nil)
            static let all = [
                generic, Family(friendlyName: "ACS ACR1552 1S CL Reader PICC", profile: "transparent-session"),
                Family(friendlyName: "ACS ACR122U PICC Interface", profile: "acr122u"), Family(friendlyName: nil, profile: nil, model: "slix2"),
            ]
        }

        /// Records `write --url` then `read` through `daemon` and a virtual tag of `family`'s
        /// model (an NTAG215) on its reader, and the ATR
        /// pcsc_scan saw; the reader is stopped afterwards.
        static func record(_ daemon: PrivatePCSCDaemon, _ family: Family = .generic) async throws -> (write: Recording, read: Recording, atr: String) {
            let tool = try Executables.nfctool()
            let file = daemon.directory.appendingPathComponent("\(family.model).json").path
            let reader = try await VirtualReaderProcess(tag: "sim:\(family.model)?file=\(file)", daemon: daemon, profile: family.profile)
            defer { reader.stop() }
            let scan = try await runTool("/usr/bin/pcsc_scan", ["-c", "-t", "2"], environment: daemon.environment, timeout: 10)
            let atr = try #require(scan.output.split(separator: "\n").first { $0.contains("ATR: 3B") }.map { String($0.drop { $0 != "3" }) }, "\(scan.output)")
            var recordings: [Recording] = []
            for (name, arguments) in [("write", ["write", "--device", "pcsc", "--url", url, "--timeout", "5"]), ("read", ["read", "--device", "pcsc", "--timeout", "5"])] {
                let trace = daemon.directory.appendingPathComponent("\(name).jsonl").path
                let run = try await runTool(tool, arguments + ["--trace", trace], environment: daemon.environment, timeout: 30, mergingStandardError: false)
                #expect(run.status == 0, "\(run.output)")
                recordings.append(Recording(arguments: arguments, trace: trace, run: run))
            }
            #expect(recordings[1].run.standardOutput.contains(url), "\(recordings[1].run.output)")
            return (recordings[0], recordings[1], atr)
        }

        @Test(
            "a write and a read traced through pcscd, played by --replay behind the same pcscd with the virtual tag gone: a fresh nfctool prints the same output byte for byte",
            arguments: Family.all)
        func replayPrintsRecordedOutput(_ family: Family) async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: family.friendlyName)
            defer { daemon.stop() }
            let recorded = try await Self.record(daemon, family)
            for (recording, command) in [(recorded.write, "ffd6"), (recorded.read, "ffb0")] {
                let player = try await VirtualReaderProcess(tag: nil, daemon: daemon, profile: family.profile, extra: ["--replay", recording.trace])
                defer { player.stop() }
                let run = try await runTool(tool, recording.arguments, environment: daemon.environment, timeout: 30, mergingStandardError: false)
                #expect(run.status == recording.run.status, "\(run.output)")
                #expect(run.standardOutput == recording.run.standardOutput, "\(recording.arguments)")
                #expect(!run.standardOutput.isEmpty)
                #expect(!player.output.contains("diverged"), "\(player.output)")
                // The commands really went through the player: the storage commands of a Type 2 tag
                // (in a transparent session, its FF C2 objects).
                let carried = family.profile == "transparent-session" ? "ffc2" : command
                #expect(player.receivedAPDUs.contains { $0.hasPrefix(carried) }, "\(player.receivedAPDUs)")
            }
        }

        @Test("a trace whose READ was changed: the client fails at that command (6F00) and the player names the exchange on standard error and in its log")
        func changedCommandDiverges() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let recorded = try await Self.record(daemon)
            var lines = try String(contentsOfFile: recorded.read.trace, encoding: .utf8).split(separator: "\n").map(String.init)
            // The last READ of the trace: pages the NDEF message lies in.
            let index = try #require(lines.lastIndex { $0.contains("\"call\":\"transceive\"") && $0.contains("\"command\":\"30") })
            let command = try #require(lines[index].firstRange(of: "\"command\":\"").map { String(lines[index][$0.upperBound...].prefix(4)) })
            let page = try #require(UInt8(command.suffix(2), radix: 16))
            let changed = "30" + String(format: "%02X", page &+ 1)
            lines[index] = lines[index].replacingOccurrences(of: "\"command\":\"\(command)\"", with: "\"command\":\"\(changed)\"")
            let path = daemon.directory.appendingPathComponent("changed.jsonl").path
            try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            let player = try await VirtualReaderProcess(tag: nil, daemon: daemon, extra: ["--replay", path])
            defer { player.stop() }
            let run = try await runTool(tool, recorded.read.arguments, environment: daemon.environment, timeout: 30, mergingStandardError: false)
            #expect(run.status != 0, "\(run.output)")
            #expect(!run.standardOutput.contains(Self.url), "no made-up success: \(run.output)")
            #expect(run.standardError.contains("6F00 (no precise diagnosis)"), "\(run.output)")
            // Event n is line n + 1 (the header is line 1).
            let sent = "\(command.prefix(2)) \(command.suffix(2))", has = "\(changed.prefix(2)) \(changed.suffix(2))"
            let message = "replay diverged at exchange \(index): sent \(sent), trace has \(has)"
            #expect(player.output.contains("pcsc-reader-emulator: \(message)"), "\(player.output)")
            let log = (try? String(contentsOfFile: player.logPath, encoding: .utf8)) ?? ""
            #expect(log.contains("# \(message)"), "\(log.suffix(400))")
        }

        @Test("pcsc_scan sees the recorded ATR through the replaying reader, and scriptor's GET DATA gets the recorded UID")
        func independentToolsSeeRecordedCard() async throws {
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let recorded = try await Self.record(daemon)
            let player = try await VirtualReaderProcess(tag: nil, daemon: daemon, extra: ["--replay", recorded.read.trace])
            defer { player.stop() }
            let scan = try await runTool("/usr/bin/pcsc_scan", ["-c", "-t", "2"], environment: daemon.environment, timeout: 10)
            #expect(scan.output.contains(daemon.readerName), "\(scan.output)")
            #expect(scan.output.contains("ATR: " + recorded.atr), "recorded \(recorded.atr)\n\(scan.output)")
            let uid = try await runTool(
                "/usr/bin/scriptor", ["-r", daemon.readerName], environment: daemon.environment, input: "FF CA 00 00 00\n", timeout: 10)
            #expect(uid.status == 0, "\(uid.output)")
            #expect(uid.output.contains("04 53 49 4D 00 00 01 90 00"), "\(uid.output)")
            #expect(!player.output.contains("diverged"), "GET DATA is the reader's: it plays no exchange\n\(player.output)")
        }
    }
}
