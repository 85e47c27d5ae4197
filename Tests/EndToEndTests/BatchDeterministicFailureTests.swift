import Foundation
import NFCTestSupport
import Testing

/// A batch whose message fits no tag of the stack: the built nfctool on a simulated stack, the
/// ledger read by Python's sqlite3.
@Suite("batch: a message that fits no tag uses no counter and stops after a few tags", .tags(.endToEnd), .timeLimit(.minutes(5)))
struct BatchDeterministicFailureTests {
    /// A URL whose URI record is 242 bytes with n = 1: too big for an NTAG213 (137 bytes).
    static let url = "https://ex.io/" + String(repeating: "a", count: 229) + "/{n}"

    @Test("242 bytes on five NTAG213: each refused before its claim (no counter drawn), the run stops after 3 in a row (--max-consecutive-failures default)")
    func stopsWithoutCounters() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let ledger = directory.appendingPathComponent("l.db").path
            let run = try await runBuiltNFCTool([
                "batch", "--device", "sim:ntag213*5", "--url", Self.url, "--ledger", ledger, "--timeout", "5", "--json",
            ])
            #expect(run.status == 1, "\(run.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any], "\(run.standardOutput)")
            #expect(report["done"] as? Int == 0)
            #expect(report["failed"] as? Int == 3)
            #expect((report["stopReason"] as? String)?.contains("3 tags in a row failed the same way (the message does not fit)") == true, "\(report)")
            #expect(run.standardError.contains("the message of 242 bytes does not fit the NTAG213 (capacity 137 bytes, too big by 105)"), "\(run.standardError)")
            let read = try await runPython(
                """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(db.execute("SELECT count(*), count(counter) FROM attempts WHERE status = 'failed'").fetchone())
                print(db.execute("SELECT count(*) FROM counters WHERE next > 1").fetchone()[0])
                """, [ledger])
            #expect(read.status == 0)
            // Three failed attempts, none with a counter; the counter's next value is still the first.
            #expect(read.standardOutput == "(3, 0)\n0\n", "\(read.standardOutput)")
        }
    }

    @Test("--max-consecutive-failures 0 never stops for it: all five tags fail, still no counter used")
    func consecutiveLimitOff() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let ledger = directory.appendingPathComponent("l.db").path
            let run = try await runBuiltNFCTool([
                "batch", "--device", "sim:ntag213*5", "--url", Self.url, "--ledger", ledger, "--timeout", "2", "--json",
                "--max-consecutive-failures", "0",
            ])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any], "\(run.standardOutput)")
            #expect(report["failed"] as? Int == 5)
            let read = try await runPython(
                "import sqlite3, sys\nprint(sqlite3.connect(sys.argv[1]).execute('SELECT count(counter) FROM attempts').fetchone()[0])", [ledger])
            #expect(read.standardOutput == "0\n")
        }
    }

    @Test("batch --plan shows each message's size and the models it fits")
    func planShowsSize() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let run = try await runBuiltNFCTool([
                "batch", "--url", Self.url, "--ledger", directory.appendingPathComponent("l.db").path, "--plan", "--count", "2",
            ])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("tag 1 (n = 1): URI https://ex.io/aaa"), "\(run.standardOutput)")
            #expect(run.standardOutput.contains("/1 (242 bytes; fits NTAG215, NTAG216)\n"), "\(run.standardOutput)")
            let small = try await runBuiltNFCTool([
                "batch", "--url", "https://ex.io/{n}", "--ledger", directory.appendingPathComponent("m.db").path, "--plan", "--count", "1",
            ])
            #expect(small.standardOutput.contains("URI https://ex.io/1 (12 bytes; fits NTAG210, NTAG212, NTAG213, NTAG215, NTAG216, MIFARE Ultralight EV1 (MF0UL11), MIFARE Ultralight EV1 (MF0UL21))"), "\(small.standardOutput)")
        }
    }
}
