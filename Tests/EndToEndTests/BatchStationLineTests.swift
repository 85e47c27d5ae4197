import Foundation
import NFCTestSupport
import Testing

/// What the operator sees of `nfctool batch`, read from the other side: a pseudo-terminal that
/// Python opens (one status line redrawn in place, an ETA, the summary table), a pipe (the lines
/// as before), `--quiet`, and `--event-log` read by Python's own JSON and ISO 8601 parsers.
@Suite("nfctool batch: the station line and the event log", .tags(.endToEnd), .serialized, .timeLimit(.minutes(5)))
struct BatchStationLineTests {
    /// Runs `arguments` (the program first) on a pseudo-terminal `columns` wide, standard input,
    /// output and error all on it, and answers `{"status": N, "output": TEXT}`: everything the
    /// terminal received, as the terminal got it (its line discipline turns `\n` into `\r\n`).
    static let ptyHarness = #"""
        import fcntl, json, os, struct, subprocess, sys, termios
        argv = json.loads(sys.argv[1]); columns = int(sys.argv[2])
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        child = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
        os.close(slave)
        received = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            received += chunk
        status = child.wait()
        print(json.dumps({"status": status, "output": received.decode("utf-8", "replace")}))
        """#

    static func onTerminal(_ arguments: [String], columns: Int) async throws -> (status: Int, output: String) {
        let python = try ExternalTool.python3.require()
        let argv = try String(decoding: JSONSerialization.data(withJSONObject: [try Executables.nfctool()] + arguments), as: UTF8.self)
        let run = try await runTool(python, ["-c", ptyHarness, argv, "\(columns)"], environment: ProcessInfo.processInfo.environment,
                                    timeout: 120, mergingStandardError: false)
        #expect(run.status == 0, "\(run.standardError)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any], "\(run.output)")
        return (try #require(answer["status"] as? Int), try #require(answer["output"] as? String))
    }

    @Test("on a terminal: one status line redrawn in place (\\r, clear to its end) within the width, an ETA, then the summary table")
    func liveLineOnTerminal() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = directory.appendingPathComponent("run.db").path
        // 60 tags of 61: after the stack, the line waits (its clock redrawn each second) until
        // the 2 s idle timeout.
        let (status, output) = try await Self.onTerminal(
            ["batch", "-d", "sim:ntag215*60?poll-wait=0", "--url", "https://ex.io/{uid}", "--count", "61", "--timeout", "2", "--ledger", ledger],
            columns: 50)
        #expect(status == 0, "\(output)")
        let redraws = output.components(separatedBy: "\r").filter { $0.hasSuffix("\u{1B}[K") && $0.contains(" done") }
        #expect(redraws.count >= 3, "\(output.debugDescription)")
        // Not a line per event: the table's ten lines and little else.
        let newlines = output.filter { $0 == "\n" }.count
        #expect(newlines <= 14, "\(newlines) lines: \(output.debugDescription)")
        #expect(!output.contains("waiting for a tag\r\n"), "no scrolling progress lines")
        for redraw in redraws {
            let visible = redraw.replacingOccurrences(of: "\u{1B}[K", with: "")
            #expect(visible.count <= 49, "wider than the terminal: \(visible.debugDescription)")
        }
        #expect(redraws.contains { $0.hasSuffix("…\u{1B}[K") }, "a line cut to 50 columns: \(redraws)")
        #expect(redraws.contains { $0.range(of: #"ETA \d+:\d\d"#, options: .regularExpression) != nil }, "\(redraws)")
        #expect(redraws.contains { $0.hasPrefix("60/61 done") }, "\(redraws)")
        let lines = output.components(separatedBy: "\r\n")
        let table = try #require(lines.firstIndex { $0.hasSuffix("Batch summary") }, "\(output.debugDescription)")
        let rows = lines[(table + 1)...].map { $0.split(separator: " ", maxSplits: 1).map(String.init) }
        #expect(rows.contains { $0.first == "done" && $0.last?.trimmingCharacters(in: .whitespaces) == "60" }, "\(lines)")
        for label in ["failed", "counterfeit", "skipped", "rate", "span", "stopped"] {
            #expect(rows.contains { $0.first == label }, "\(label): \(lines)")
        }
    }

    @Test("on a terminal a failure keeps a line of its own above the status line, with its cause counted")
    func failureLineOnTerminal() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = directory.appendingPathComponent("run.db").path
        let (status, output) = try await Self.onTerminal(
            ["batch", "-d", "sim:ntag215*4?poll-wait=0&rf-error=10", "--url", "https://ex.io/{uid}", "--count", "3", "--ledger", ledger],
            columns: 200)
        #expect(status == 1, "\(output)")
        let permanent = output.components(separatedBy: "\r\n").filter { $0.contains("FAILED 0453494D000001") }
        #expect(permanent.count == 1 && permanent[0].contains("[connectionLost]"), "\(output.debugDescription)")
        #expect(output.contains("1 failed (RF write 1)"), "\(output.debugDescription)")
        #expect(output.contains("  failed       1  (RF write 1)\r\n"), "\(output.debugDescription)")
    }

    @Test("off a terminal: the lines as before, one per event, and the summary line; nothing redrawn")
    func linesOffTerminal() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = directory.appendingPathComponent("run.db").path
        let device = "sim:ntag215*2?poll-wait=0"
        let run = try await runBuiltNFCTool(["batch", "-d", device, "--url", "https://ex.io/{uid}", "--count", "2", "--ledger", ledger])
        #expect(run.status == 0, "\(run.output)")
        let pattern = #"""
            \[DEVICE\] waiting for a tag
            \[DEVICE\] 1/2 done 0453494D000001: URI https://ex.io/0453494D000001 \(0 failed, [0-9.]+ tags/s\)
            \[DEVICE\] take 0453494D000001 away
            \[DEVICE\] waiting for a tag
            \[DEVICE\] 2/2 done 0453494D000002: URI https://ex.io/0453494D000002 \(0 failed, [0-9.]+ tags/s\)
            \[DEVICE\] take 0453494D000002 away

            """#.replacingOccurrences(of: "DEVICE", with: NSRegularExpression.escapedPattern(for: device))
        #expect(run.standardError.range(of: "^" + pattern + "$", options: .regularExpression) != nil, "\(run.standardError)")
        #expect(!run.standardError.contains("\r") && !run.standardError.contains("\u{1B}"))
        #expect(run.standardOutput.range(of: #"^Batch: 2 done, 0 failed, 0 skipped in [0-9.]+ s \(count reached\); ledger .*run\.db\n$"#,
                                         options: .regularExpression) != nil, "\(run.standardOutput)")
    }

    @Test("--quiet: the summary alone; a failed tag shows only in it and in the error at the end")
    func quiet() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = directory.appendingPathComponent("run.db").path
        let run = try await runBuiltNFCTool(
            ["batch", "--quiet", "-d", "sim:ntag215*3?poll-wait=0&rf-error=10", "--url", "https://ex.io/{uid}", "--count", "2", "--ledger", ledger])
        #expect(run.status == 1, "\(run.output)")
        #expect(run.standardError == "Error: 1 tag failed; see the ledger\n", "\(run.standardError)")
        #expect(run.standardOutput.hasPrefix("Batch: 2 done, 1 failed, 0 skipped in "), "\(run.standardOutput)")
        let (status, output) = try await Self.onTerminal(
            ["batch", "-q", "-d", "sim:ntag215*2?poll-wait=0", "--url", "https://ex.io/{uid}", "--count", "2", "--ledger", ledger + "2"], columns: 80)
        #expect(status == 0)
        #expect(!output.contains("\u{1B}[K") && output.contains("Batch summary\r\n"), "\(output.debugDescription)")
    }

    /// Python reads the event log line by line with a fresh JSON decoder each, checks every
    /// time with `datetime.fromisoformat`, and answers the events' names and fields.
    static let eventReader = #"""
        import datetime, json, sys
        events = []
        for number, line in enumerate(open(sys.argv[1], encoding="utf-8") if sys.argv[1] != "-" else sys.stdin, 1):
            record = json.JSONDecoder().decode(line)
            when = datetime.datetime.fromisoformat(record["time"].replace("Z", "+00:00"))
            assert when.tzinfo is not None and line.endswith("\n"), number
            events.append(record)
        print(json.dumps(events))
        """#

    static func readEvents(_ path: String, input: String = "") async throws -> [[String: Any]] {
        let python = try ExternalTool.python3.require()
        let run = try await runTool(python, ["-c", eventReader, path], environment: ProcessInfo.processInfo.environment, input: input,
                                    timeout: 60, mergingStandardError: false)
        #expect(run.status == 0, "\(run.standardError)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [[String: Any]], "\(run.output)")
    }

    @Test("--event-log FILE: a JSON line per event with an ISO 8601 time; a failure has its typed cause; the summary ends it")
    func eventLogFile() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = directory.appendingPathComponent("run.db").path
        let log = directory.appendingPathComponent("events.jsonl").path
        let run = try await runBuiltNFCTool(
            ["batch", "-d", "sim:ntag215*3?poll-wait=0&rf-error=10", "--url", "https://ex.io/{uid}", "--count", "2", "--ledger", ledger, "--event-log", log])
        #expect(run.status == 1, "\(run.output)")
        let events = try await Self.readEvents(log)
        let names = events.compactMap { $0["event"] as? String }
        #expect(names.first == "waiting" && names.last == "summary", "\(names)")
        #expect(names.filter { $0 == "tagFound" }.count == 3 && names.filter { $0 == "takeAway" }.count == 3, "\(names)")
        let failed = try #require(events.first { $0["event"] as? String == "failed" })
        #expect(failed["cause"] as? String == "rf-write" && failed["uid"] as? String == "0453494D000001", "\(failed)")
        #expect((failed["error"] as? String)?.contains("connectionLost") == true)
        let done = events.filter { $0["event"] as? String == "done" }
        #expect(done.compactMap { $0["uid"] as? String } == ["0453494D000002", "0453494D000003"])
        let progress = events.filter { $0["event"] as? String == "progress" }
        #expect(progress.count == 3 && progress.last?["done"] as? Int == 2 && progress.last?["total"] as? Int == 2, "\(progress)")
        let summary = try #require(events.last)
        #expect(summary["done"] as? Int == 2 && summary["failed"] as? Int == 1 && summary["stop"] as? String == "countReached", "\(summary)")
        #expect((summary["failures"] as? [String: Int]) == ["rf-write": 1])
        // The progress lines on standard error are the same as without the log.
        #expect(run.standardError.contains("FAILED 0453494D000001"))
    }

    @Test("--event-log -: standard output holds the events alone, the summary their last line; refused with --json")
    func eventLogStandardOutput() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = directory.appendingPathComponent("run.db").path
        let run = try await runBuiltNFCTool(
            ["batch", "-d", "sim:ntag215*2?poll-wait=0", "--url", "https://ex.io/{uid}", "--count", "2", "--ledger", ledger, "--event-log", "-"])
        #expect(run.status == 0, "\(run.output)")
        let events = try await Self.readEvents("-", input: run.standardOutput)
        #expect(events.last?["event"] as? String == "summary" && events.last?["done"] as? Int == 2, "\(run.standardOutput)")
        let refused = try await runBuiltNFCTool(
            ["batch", "-d", "sim:ntag215", "--url", "https://ex.io/{uid}", "--ledger", ledger, "--event-log", "-", "--json"])
        #expect(refused.status == 64 && refused.output.contains("--event-log -"), "\(refused.output)")
    }
}
