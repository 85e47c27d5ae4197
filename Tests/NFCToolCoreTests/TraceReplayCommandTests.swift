import Foundation
import NFCCore
import NFCTags
import NFCTestSupport
import Testing

/// `--trace FILE` and `--device replay:FILE` in-process: every trace under
/// Tests/Fixtures/traces replays to its recorded output; a changed command diverges with the
/// exchange named; a protect trace keeps no password byte.
@Suite("Traces and replay through nfctool", .timeLimit(.minutes(2)))
struct TraceReplayCommandTests {
    @Test("there are trace fixtures to replay")
    func fixturesAreFound() {
        #expect(TraceFixture.all.count >= 2)
    }

    @Test("every trace fixture, recorded or built from a public capture, replays to exactly its output and status, using the whole trace",
          arguments: TraceFixture.all + TraceFixture.captures)
    func fixtureReplays(_ fixture: TraceFixture) async throws {
        let run = await runNFCTool(try fixture.arguments() + ["--device", fixture.deviceString])
        let problems = fixture.problems(status: run.status.rawValue, standardOutput: run.standardOutput, standardError: run.standardError)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("a replay that ends with exchanges of the trace left warns on standard error, naming how far it got; output and exit status stand")
    func unusedExchangesWarn() async throws {
        let fixture = TraceFixture("ntag215-info")
        let text = try String(contentsOfFile: fixture.tracePath, encoding: .utf8)
        let events = text.split(separator: "\n").count - 1
        let path = try temporaryDirectory().appendingPathComponent("longer.jsonl").path
        // One more READ_SIG after the last exchange: nothing in info asks for it.
        try (text + #"{"n":\#(events + 1),"call":"transceive","mode":"standard","command":"3C00","answer":"00","us":5}"# + "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let run = await runNFCTool(try fixture.arguments() + ["--device", "replay:" + path])
        #expect(run.status == .success, "\(run.standardError)")
        #expect(run.standardOutput == (try fixture.expectedOutput()))
        #expect(run.standardError == "Warning: replay ended at exchange \(events) of \(events + 1): the rest of the trace was not used\n", "\(run.standardError)")

        let whole = await runNFCTool(try fixture.arguments() + ["--device", fixture.deviceString])
        #expect(whole.standardError.isEmpty, "\(whole.standardError)")
    }

    @Test("a trace fixture whose trace has exchanges left after the command is a failing fixture; the same fixture whole passes")
    func fixtureWithUnusedExchangesFails() async throws {
        let original = TraceFixture("ntag215-read-url")
        let directory = try temporaryDirectory()
        let text = try String(contentsOfFile: original.tracePath, encoding: .utf8)
        let events = text.split(separator: "\n").count - 1
        try (text + #"{"n":\#(events + 1),"call":"transceive","mode":"standard","command":"3C00","answer":"00","us":5}"# + "\n")
            .write(to: directory.appendingPathComponent("longer.jsonl"), atomically: true, encoding: .utf8)
        try text.write(to: directory.appendingPathComponent("whole.jsonl"), atomically: true, encoding: .utf8)
        for name in ["longer", "whole"] {
            try String(contentsOfFile: TraceFixture.directory.appendingPathComponent(original.name + ".args").path, encoding: .utf8)
                .write(to: directory.appendingPathComponent(name + ".args"), atomically: true, encoding: .utf8)
            try original.expectedOutput().write(to: directory.appendingPathComponent(name + ".stdout"), atomically: true, encoding: .utf8)
        }
        let longer = TraceFixture("longer", in: directory)
        let run = await runNFCTool(try longer.arguments() + ["--device", longer.deviceString])
        let problems = longer.problems(status: run.status.rawValue, standardOutput: run.standardOutput, standardError: run.standardError)
        #expect(problems == ["Warning: replay ended at exchange \(events) of \(events + 1): the rest of the trace was not used"])

        let whole = TraceFixture("whole", in: directory)
        let wholeRun = await runNFCTool(try whole.arguments() + ["--device", whole.deviceString])
        #expect(whole.problems(status: wholeRun.status.rawValue, standardOutput: wholeRun.standardOutput, standardError: wholeRun.standardError).isEmpty)
    }

    @Test("there are at least 20 traces built from public captures of real chips, each named with its source in captures/README.md and its header")
    func captureTracesNameTheirSources() throws {
        let captures = TraceFixture.captures
        #expect(captures.count >= 20)
        let readme = try String(contentsOf: TraceFixture.directory.appendingPathComponent("captures/README.md"), encoding: .utf8)
        for fixture in captures {
            let file = String(fixture.name.dropFirst("captures/".count))
            #expect(readme.contains("`\(file)`"), "captures/README.md does not name \(file)")
            #expect(try fixture.trace().header.tool.hasPrefix("built by hand from a public capture: "), "\(file)")
        }
    }

    @Test("a command changed in the trace stops the replay: exit 1, the exchange and both commands named, in JSON too")
    func changedCommandDiverges() async throws {
        let fixture = TraceFixture("ntag215-read-url")
        let lines = try String(contentsOfFile: fixture.tracePath, encoding: .utf8).split(separator: "\n").map(String.init)
        // The first standard-mode command of the trace (FAST_READ 3A 00 0F) gets another last byte.
        let index = try #require(lines.firstIndex { $0.contains("\"mode\":\"standard\",\"command\":\"3A000F\"") })
        let number = index  // the header is line 0, event n is line n
        var changed = lines
        changed[index] = lines[index].replacingOccurrences(of: "\"command\":\"3A000F\"", with: "\"command\":\"3A0010\"")
        let (page, other) = ("00 0F", "00 10")
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("changed.jsonl").path
        try changed.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)

        let run = await runNFCTool(["read", "--device", "replay:" + path])
        #expect(run.status == .failure)
        #expect(run.standardError.contains("diverged at exchange \(number): sent 3A \(page), trace has 3A \(other)"), "\(run.standardError)")
        let json = await runNFCTool(["read", "--json", "--device", "replay:" + path])
        #expect(json.status == .failure)
        #expect(json.standardOutput.contains("\"message\":\"replay diverged at exchange \(number): sent 3A \(page), trace has 3A \(other)\""), "\(json.standardOutput)")
    }

    @Test("a trace recorded on the simulator replays to the same output; the file starts with the header")
    func simulatorRoundTrip() async throws {
        let directory = try temporaryDirectory()
        let trace = directory.appendingPathComponent("dump.jsonl").path
        let recorded = await runNFCTool(["dump", "--device", "sim:ntag213", "--trace", trace])
        #expect(recorded.status == .success)
        let text = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(text.hasPrefix("{\"format\":\"nfckit-reader-trace\",\"version\":1,\"tool\":\"nfctool "))
        let replayed = await runNFCTool(["dump", "--device", "replay:" + trace])
        #expect(replayed.status == .success)
        #expect(replayed.standardOutputBytes == recorded.standardOutputBytes)
    }

    @Test("a protect trace holds no byte of the password, unless --trace-unredacted, which says so on standard error")
    func protectIsRedacted() async throws {
        let directory = try temporaryDirectory()
        let passwordFile = directory.appendingPathComponent("pwd").path
        try "5A6B7C8D:9988\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let trace = directory.appendingPathComponent("protect.jsonl").path
        let run = await runNFCTool(["protect", "--device", "sim:ntag215", "--password-file", passwordFile, "--trace", trace])
        #expect(run.status == .success, "\(run.standardError)")
        let text = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(!text.uppercased().contains("5A6B7C8D"))
        #expect(text.contains("\"command\":\"1B********\""))
        #expect(!run.standardError.contains("unredacted"))

        let open = directory.appendingPathComponent("open.jsonl").path
        let unredacted = await runNFCTool(["protect", "--device", "sim:ntag215", "--password-file", passwordFile, "--trace", open, "--trace-unredacted"])
        #expect(unredacted.status == .success)
        #expect(try String(contentsOfFile: open, encoding: .utf8).contains("1B5A6B7C8D"))
        #expect(unredacted.standardError.contains("holds passwords, keys and key-derived bytes unredacted"))
    }

    @Test("a protect --keys trace of an Ultralight C holds no key byte and no AUTHENTICATE cryptogram; it replays to the authentication without diverging")
    func ultralightCProtectIsRedacted() async throws {
        let directory = try temporaryDirectory()
        let keyFile = directory.appendingPathComponent("ulc.key").path
        try "00112233445566778899AABBCCDDEEFF\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
        let trace = directory.appendingPathComponent("protect.jsonl").path
        let run = await runNFCTool(["protect", "--device", "sim:ultralight-c", "--keys", keyFile, "--read-protect", "--trace", trace])
        #expect(run.status == .success, "\(run.standardError)")
        let text = try String(contentsOfFile: trace, encoding: .utf8).uppercased()
        // The key, its page image (Key1 and Key2 byte-reversed, MF0ICU2 7.5.7), any page of it.
        for secret in ["0011223344556677", "8899AABBCCDDEEFF", "77665544", "33221100", "FFEEDDCC", "BBAA9988"] {
            #expect(!text.contains(secret), "the trace holds \(secret)")
        }
        for page in ["2C", "2D", "2E", "2F"] {
            #expect(text.contains("\"COMMAND\":\"A2\(page)********\""), "no redacted write of page \(page)h")
        }
        // Every AUTHENTICATE exchange keeps its codes and loses its cryptograms.
        let lines = text.split(separator: "\n")
        let first = lines.filter { $0.contains("\"COMMAND\":\"1A00\"") }
        let second = lines.filter { $0.contains("\"COMMAND\":\"AF") }
        #expect(!first.isEmpty && !second.isEmpty)
        for line in first where line.contains("\"ANSWER\"") {
            #expect(line.contains("\"ANSWER\":\"AF" + String(repeating: "**", count: 8) + "\""), "\(line)")
        }
        for line in second {
            #expect(line.contains("\"COMMAND\":\"AF" + String(repeating: "**", count: 16) + "\""), "\(line)")
            #expect(line.contains("\"ANSWER\":\"00" + String(repeating: "**", count: 8) + "\""), "\(line)")
        }
        // Redacted bytes match any on replay: the replay follows the trace to the end; only the
        // key's proof, whose cryptogram is gone, cannot be checked.
        let replay = await runNFCTool(["protect", "--device", "replay:" + trace, "--keys", keyFile, "--read-protect"])
        #expect(!replay.standardError.contains("diverged"), "\(replay.standardError)")
        #expect(replay.standardError.contains("does not prove it holds the key"), "\(replay.standardError)")
    }

    @Test("--trace-unredacted alone, and --trace on a directory, are refused")
    func refusals() async throws {
        let alone = await runNFCTool(["read", "--device", "sim:ntag215", "--trace-unredacted"])
        #expect(alone.status == .usage)
        #expect(alone.standardError.contains("--trace-unredacted needs --trace FILE"))
        let directory = try temporaryDirectory()
        let intoDirectory = await runNFCTool(["read", "--device", "sim:ntag215", "--trace", directory.path])
        #expect(intoDirectory.status == .failure)
        #expect(intoDirectory.standardError.contains("cannot write the trace"))
    }

    @Test("replay: of a file that is not a trace is a usage error naming the line")
    func notATrace() async throws {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("bad.jsonl").path
        try "{\"format\":\"something else\"}\n".write(toFile: path, atomically: true, encoding: .utf8)
        let run = await runNFCTool(["read", "--device", "replay:" + path])
        #expect(run.status == .usage)
        #expect(run.standardError.contains("line 1"), "\(run.standardError)")
    }

    @Test("batch --trace records the whole run (two tags written, each polled and listed alone); it replays to the same tags done; two readers are refused")
    func batchTrace() async throws {
        let directory = try temporaryDirectory()
        let trace = directory.appendingPathComponent("batch.jsonl").path
        let arguments = ["batch", "--json", "--url", "https://example.com/{n}", "--count", "2", "--timeout", "30"]
        let run = await runNFCTool(arguments + ["--device", "sim:ntag215*3", "--ledger", directory.appendingPathComponent("a.db").path, "--trace", trace])
        #expect(run.status == .success, "\(run.standardError)")
        let recorded = try ReaderTrace.parse(Array(try String(contentsOfFile: trace, encoding: .utf8).utf8))
        #expect(recorded.header.connection == "sim:ntag215*3")
        let writes = recorded.events.filter { if case .transceive(let command, _) = $0.request { command.values.first == Type2Command.write } else { false } }
        #expect(writes.count >= 4)
        let replayed = await runNFCTool(arguments + ["--device", "replay:" + trace, "--ledger", directory.appendingPathComponent("b.db").path])
        #expect(replayed.status == .success, "\(replayed.standardError)")
        #expect(replayed.standardOutput.contains("\"done\" : 2"), "\(replayed.standardOutput)")

        let two = await runNFCTool(["batch", "--url", "https://example.com/{n}", "--device", "sim:ntag215", "--device", "sim:ntag213", "--trace", trace,
                                    "--ledger", directory.appendingPathComponent("c.db").path])
        #expect(two.status == .usage)
        #expect(two.standardError.contains("--trace records one reader"))
    }

    @Test("scan --trace records the poll with the tag's identity")
    func scanTrace() async throws {
        let directory = try temporaryDirectory()
        let trace = directory.appendingPathComponent("scan.jsonl").path
        let run = await runNFCTool(["scan", "--device", "sim:ntag215", "--trace", trace])
        #expect(run.status == .success)
        let recorded = try ReaderTrace.parse(Array(try String(contentsOfFile: trace, encoding: .utf8).utf8))
        guard case .found(let target?)? = recorded.events.first?.result else {
            Issue.record("the first event is not a poll that found the tag: \(recorded.events.first.map(\.jsonLine) ?? "none")")
            return
        }
        #expect(target.identifier == Bytes(hex("04 53 49 4D 00 00 01")))
    }
}
