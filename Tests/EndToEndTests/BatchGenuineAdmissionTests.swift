import Foundation
import NFCTestSupport
import Testing

/// `batch --require-genuine` on a chip that cannot be shown genuine (no originality signature):
/// the built nfctool on a simulated tag, the ledger read by Python's sqlite3, the tag file by its
/// bytes.
@Suite("batch --require-genuine: a chip not shown genuine is a failure", .tags(.endToEnd), .timeLimit(.minutes(2)))
struct BatchGenuineAdmissionTests {
    @Test("a Type 4 tag with no signature is refused as failed: exit 1, '1 failed', ledger status failed, no counter drawn, the tag file holds no URL")
    func noSignatureFails() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let ledger = directory.appendingPathComponent("l.db").path
            let tag = directory.appendingPathComponent("t.json").path
            let run = try await runBuiltNFCTool([
                "batch", "--device", "sim:type4?file=\(tag)", "--url", "https://ex.io/{n}", "--require-genuine", "--ledger", ledger,
                "--count", "1", "--timeout", "1", "--json",
            ])
            #expect(run.status == 1, "\(run.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any], "\(run.standardOutput)")
            #expect(report["failed"] as? Int == 1 && report["skipped"] as? Int == 0 && report["done"] as? Int == 0, "\(report)")
            let read = try await runPython(
                """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(db.execute("SELECT status, counter FROM attempts").fetchall())
                """, [ledger])
            #expect(read.standardOutput == "[('failed', None)]\n", "\(read.standardOutput)")
            let file = (try? String(contentsOfFile: tag, encoding: .utf8)) ?? ""
            #expect(!file.contains("ex.io"))
        }
    }
}
