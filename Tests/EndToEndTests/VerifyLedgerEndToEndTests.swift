import Foundation
import NFCTestSupport
import Testing

/// `nfctool verify --ledger`: tags provisioned by a real `nfctool batch` into a SQLite ledger,
/// some changed afterwards by other nfctool processes (another URL written, a lock, a password
/// removed), then judged by a fresh `nfctool verify` process: exactly the changed tags, with
/// exactly their differences, exit 8; the untouched ones pass.
@Suite("verify --ledger: a QA check of provisioned tags against the ledger", .tags(.endToEnd), .serialized, .timeLimit(.minutes(5)))
struct VerifyLedgerEndToEndTests {
    /// A directory with `count` NTAG215s provisioned by batch into `run.db`.
    struct Provisioned {
        let directory: URL
        var tags: String { directory.appendingPathComponent("tags").path }
        var ledger: String { directory.appendingPathComponent("run.db").path }
        /// The tag file of the tag number `n` (from 1).
        func tag(_ n: Int) -> String { "\(tags)/0453494d00000\(n).json" }
        /// The stack of all of them, for `--count`.
        func stack(_ count: Int) -> String { "sim:ntag215*\(count)?dir=\(tags)&poll-wait=0" }
    }

    static func provision(_ count: Int, extra: [String] = [], url: String = "https://ex.io/t/{uid}") async throws -> Provisioned {
        let provisioned = Provisioned(directory: try temporaryDirectory())
        let run = try await runBuiltNFCTool(
            ["batch", "--device", provisioned.stack(count), "--url", url, "--count", String(count),
             "--ledger", provisioned.ledger, "-t", "5"] + extra)
        try #require(run.status == 0, "batch: \(run.output)")
        return provisioned
    }

    /// `verify --ledger … --json`'s checks by name, as JSONSerialization reads them.
    static func checks(_ run: ToolRun) throws -> [String: [String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any], "\(run.output)")
        let list = try #require(object["checks"] as? [[String: Any]], "\(run.standardOutput)")
        return Dictionary(list.map { ($0["check"] as? String ?? "?", $0) }, uniquingKeysWith: { first, _ in first })
    }

    @Test("a tag rewritten after the run and a tag locked after it each exit 8 with just their difference; the untouched tag passes")
    func changedTagsDiffer() async throws {
        let run = try await Self.provision(3)
        defer { try? FileManager.default.removeItem(at: run.directory) }
        let rewrite = try await runBuiltNFCTool(["write", "--device", "sim:?file=\(run.tag(2))", "--url", "https://evil.example/x"])
        try #require(rewrite.status == 0, "\(rewrite.output)")
        let lock = try await runBuiltNFCTool(["lock", "--device", "sim:?file=\(run.tag(3))", "--yes"])
        try #require(lock.status == 0, "\(lock.output)")

        let untouched = try await runBuiltNFCTool(["verify", "--ledger", run.ledger, "--device", "sim:?file=\(run.tag(1))"])
        #expect(untouched.status == 0, "\(untouched.output)")
        #expect(untouched.standardOutput.contains("matches the ledger's attempt"), "\(untouched.standardOutput)")

        let rewritten = try await runBuiltNFCTool(["verify", "--ledger", run.ledger, "--device", "sim:?file=\(run.tag(2))", "--json"])
        #expect(rewritten.status == 8, "\(rewritten.output)")
        let rewrittenChecks = try Self.checks(rewritten)
        #expect(rewrittenChecks["message"]?["ok"] as? Bool == false)
        #expect(rewrittenChecks["message"]?["expected"] as? String == "URI https://ex.io/t/0453494D000002")
        #expect(rewrittenChecks["message"]?["found"] as? String == "URI https://evil.example/x")
        #expect(rewrittenChecks["lock"]?["ok"] as? Bool == true, "\(rewrittenChecks)")
        #expect(rewrittenChecks["password"]?["ok"] as? Bool == true, "\(rewrittenChecks)")
        #expect(rewrittenChecks["model"]?["ok"] as? Bool == true, "\(rewrittenChecks)")

        let locked = try await runBuiltNFCTool(["verify", "--ledger", run.ledger, "--device", "sim:?file=\(run.tag(3))", "--json"])
        #expect(locked.status == 8, "\(locked.output)")
        let lockedChecks = try Self.checks(locked)
        #expect(lockedChecks.filter { $0.value["ok"] as? Bool == false }.map(\.key) == ["lock"], "\(lockedChecks)")
        #expect(lockedChecks["lock"]?["expected"] as? String == "not locked")
        #expect(lockedChecks["lock"]?["found"] as? String == "locked")
        // Text: the difference named, with both sides.
        let lockedText = try await runBuiltNFCTool(["verify", "--ledger", run.ledger, "--device", "sim:?file=\(run.tag(3))"])
        #expect(lockedText.status == 8)
        #expect(lockedText.standardOutput.contains("MISMATCH  lock\n  expected: not locked\n  found:    locked"), "\(lockedText.standardOutput)")
        #expect(lockedText.standardError.contains("does not match the ledger: lock"), "\(lockedText.standardError)")
    }

    @Test("a tag the ledger never did exits 8 saying so; --run names an unknown run: exit 64")
    func unknownTagAndRun() async throws {
        let run = try await Self.provision(1)
        defer { try? FileManager.default.removeItem(at: run.directory) }
        let stranger = try await runBuiltNFCTool(["verify", "--ledger", run.ledger, "--device", "sim:ntag215?uid=04AABBCCDDEEFF", "--json"])
        #expect(stranger.status == 8, "\(stranger.output)")
        let checks = try Self.checks(stranger)
        #expect(checks["ledger"]?["found"] as? String == "not in the ledger", "\(checks)")
        let object = try JSONSerialization.jsonObject(with: Data(stranger.standardOutput.utf8)) as? [String: Any]
        #expect(object?["match"] as? Bool == false)
        #expect(object?["uid"] as? String == "04AABBCCDDEEFF")

        let noRun = try await runBuiltNFCTool(["verify", "--ledger", run.ledger, "--run", "nosuch", "--device", "sim:?file=\(run.tag(1))"])
        #expect(noRun.status == 64, "\(noRun.output)")
        let countWithoutLedger = try await runBuiltNFCTool(["verify", "--count", "2", "--device", "sim:ntag215"])
        #expect(countWithoutLedger.status == 64, "\(countWithoutLedger.output)")
    }

    @Test("--count over the stack: a line per tag, then a summary naming the tags that differ and why; exit 8")
    func countOverStack() async throws {
        let run = try await Self.provision(4)
        defer { try? FileManager.default.removeItem(at: run.directory) }
        let rewrite = try await runBuiltNFCTool(["write", "--device", "sim:?file=\(run.tag(2))", "--url", "https://ex.io/t/other"])
        try #require(rewrite.status == 0, "\(rewrite.output)")
        let lock = try await runBuiltNFCTool(["lock", "--device", "sim:?file=\(run.tag(4))", "--yes"])
        try #require(lock.status == 0, "\(lock.output)")

        let text = try await runBuiltNFCTool(["verify", "--ledger", run.ledger, "--device", run.stack(4), "--count", "4", "-t", "5"])
        #expect(text.status == 8, "\(text.output)")
        #expect(text.standardOutput.contains("Checked 4 of 4 tags: 2 matched the ledger, 2 did not."), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("ok        04 53 49 4D 00 00 01: matches"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("MISMATCH  04 53 49 4D 00 00 02: message"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("MISMATCH  04 53 49 4D 00 00 04: lock (expected not locked, found locked)"), "\(text.standardOutput)")

        let json = try await runBuiltNFCTool(["verify", "--ledger", run.ledger, "--device", run.stack(4), "--count", "4", "-t", "5", "--json"])
        #expect(json.status == 8, "\(json.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any], "\(json.output)")
        #expect(object["checked"] as? Int == 4)
        #expect(object["matched"] as? Int == 2)
        let mismatched = try #require(object["mismatched"] as? [[String: Any]])
        #expect(mismatched.map { $0["uid"] as? String } == ["0453494D000002", "0453494D000004"])
        let differences = mismatched.map { ($0["differences"] as? [[String: Any]] ?? []).compactMap { $0["check"] as? String } }
        #expect(differences == [["message", "bytes"], ["lock"]], "\(differences)")
    }

    @Test("--count with fewer tags than asked, all matching: the summary, then exit 2")
    func countShortOfTags() async throws {
        let run = try await Self.provision(2)
        defer { try? FileManager.default.removeItem(at: run.directory) }
        // A stack of 2 handed out once: the third tag never comes.
        let short = try await runBuiltNFCTool(["verify", "--ledger", run.ledger, "--device", run.stack(2), "--count", "3", "-t", "1"])
        #expect(short.status == 2, "\(short.output)")
        #expect(short.standardOutput.contains("Checked 2 of 3 tags: 2 matched the ledger, 0 did not."), "\(short.standardOutput)")
    }

    @Test("a mirrored tag matches the placeholder the ledger recorded; a password removed after the run is a difference")
    func mirrorAndPassword() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let passwordFile = directory.appendingPathComponent("pw").path
        try "11223344:A1B2\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let run = try await Self.provision(2, extra: ["--protect", "--password-file", passwordFile], url: "https://ex.io/m?u={mirror:uid}")
        defer { try? FileManager.default.removeItem(at: run.directory) }
        let first = try await runBuiltNFCTool(["verify", "--ledger", run.ledger, "--device", "sim:?file=\(run.tag(1))", "--json"])
        #expect(first.status == 0, "\(first.output)")
        let checks = try Self.checks(first)
        #expect(checks["message"]?["found"] as? String == "URI https://ex.io/m?u=0453494D000001", "\(checks)")
        #expect(checks["message"]?["expected"] as? String == "URI https://ex.io/m?u=00000000000000", "\(checks)")
        #expect(checks["password"]?["found"] as? String == "write-protected from page 4", "\(checks)")

        let unprotect = try await runBuiltNFCTool(["unprotect", "--device", "sim:?file=\(run.tag(2))", "--password-file", passwordFile])
        try #require(unprotect.status == 0, "\(unprotect.output)")
        let second = try await runBuiltNFCTool(["verify", "--ledger", run.ledger, "--device", "sim:?file=\(run.tag(2))", "--json"])
        #expect(second.status == 8, "\(second.output)")
        let secondChecks = try Self.checks(second)
        #expect(secondChecks.filter { $0.value["ok"] as? Bool == false }.map(\.key) == ["password"], "\(secondChecks)")
        #expect(secondChecks["password"]?["found"] as? String == "none")
    }
}
