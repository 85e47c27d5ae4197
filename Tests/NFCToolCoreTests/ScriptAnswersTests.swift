import CommandLineKit
import Foundation
import NFCTestSupport
import Testing
@testable import NFCToolCore

/// What scripts read besides errors: batch's typed stop reason, watch's event times.
@Suite("batch --json names why it stopped; watch --json events carry an ISO 8601 time", .timeLimit(.minutes(5)))
struct ScriptAnswersTests {
    /// A batch on a simulated stack, and the `stop` its summary must give.
    struct StoppingBatch: Sendable, CustomTestStringConvertible {
        let device: String
        let options: [String]
        let stop: String
        let status: ExitCode
        var testDescription: String { stop }
    }

    @Test("batch --json's summary gives stop as a stable name beside stopReason's words", arguments: [
        StoppingBatch(device: "sim:ntag215*3", options: ["--count", "2", "--timeout", "30"], stop: "countReached", status: .success),
        StoppingBatch(device: "sim:ntag215*1", options: ["--timeout", "0.5"], stop: "idle", status: .success),
        StoppingBatch(device: "sim:ntag213*5", options: ["--timeout", "30", "--url", "https://ex.io/" + String(repeating: "a", count: 229)], stop: "repeatedFailure", status: .failure),
    ])
    func batchStop(_ batch: StoppingBatch) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = directory.appendingPathComponent("l.db").path
        let url = batch.options.contains("--url") ? [] : ["--url", "https://example.com/{n}"]
        let run = await runNFCTool(["batch", "--json", "--device", batch.device, "--ledger", ledger] + url + batch.options)
        #expect(run.status == batch.status, "\(run.standardError)")
        // One JSON document: the summary, with the error object in it when the batch failed.
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any], "\(run.standardOutput)")
        #expect(summary["stop"] as? String == batch.stop, "\(summary)")
        #expect((summary["stopReason"] as? String)?.isEmpty == false)
        let error = summary["error"] as? [String: Any]
        #expect((error == nil) == (batch.status == .success), "\(summary)")
        if let error { #expect(error["exitStatus"] as? Int == Int(batch.status.rawValue)) }
    }

    @Test("watch --json: every event has time, ISO 8601 in UTC to the millisecond, at the time it was seen")
    func watchEventTime() async throws {
        let io = CapturedIO()
        let before = Date()
        let watch = Task {
            await runTool(arguments: ["watch", "--json", "--device", "sim:ntag213*2?poll-wait=20", "--events", "arrive,leave", "--timeout", "120"], environment: [:], io: io)
        }
        let seen = await eventually(within: .seconds(100)) { io.standardOutput.split(separator: "\n").count >= 3 }
        watch.cancel()
        let status = await watch.value
        let after = Date()
        #expect(seen, "\(io.standardOutput)\(io.standardError)")
        #expect(status == .success, "\(io.standardError)")
        let pattern = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/
        var times: [Date] = []
        for line in io.standardOutput.split(separator: "\n") {
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            let time = try #require(event["time"] as? String, "\(line)")
            #expect(time.wholeMatch(of: pattern) != nil, "\(time)")
            let date = try Date(time, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            #expect(date >= before.addingTimeInterval(-0.001) && date <= after.addingTimeInterval(0.001), "\(time)")
            times.append(date)
        }
        #expect(times == times.sorted(), "events in the order seen")
    }

    @Test("the time is formatted in UTC with milliseconds")
    func timestampFormat() {
        #expect(WatchReport.timestamp(Date(timeIntervalSince1970: 1_796_233_200.1235)) == "2026-12-02T17:40:00.123Z")
    }
}
