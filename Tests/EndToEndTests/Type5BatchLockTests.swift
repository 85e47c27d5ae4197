import Foundation
import NFCTestSupport
import Testing

/// `nfctool batch --lock` on the ICODE SLIX family and the ST25DV04K, judged from outside: a
/// fresh `nfctool` process on a `sim:` stack of two tags, then the ledger (python3's sqlite3)
/// and each tag file, its memory judged by ``T5TJudge`` (the NFC Forum Type 5 rules written for
/// tests) and its lock bytes (docs/simulator.md: memory, one lock byte per block, …).
@Suite("nfctool batch --lock on ICODE SLIX, SLIX-S, SLIX-L and ST25DV04K", .tags(.endToEnd), .serialized, .timeLimit(.minutes(3)))
struct Type5BatchLockTests {
    @Test("batch --lock --yes on a stack of two: every ledger row done and locked; each tag file holds its URL (short enough for a SLIX-L's 28-byte area), CC write access 11b and every block of the CC and area locked", arguments: [
        ("icode-slix", 28), ("icode-slix-s", 40), ("icode-slix-l", 8), ("st25dv04k", 128),
    ])
    func lockedBatch(model: String, blocks: Int) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags").path
        let ledger = directory.appendingPathComponent("run.db").path
        let run = try await runBuiltNFCTool(
            ["batch", "--device", "sim:\(model)*2?poll-wait=0&dir=\(tags)", "--url", "https://b.io/{n}", "--count", "2",
             "--lock", "--yes", "--ledger", ledger, "--json"])
        #expect(run.status == 0, "\(model): \(run.standardOutput)\(run.standardError)")
        let rows = try await BatchLockProtectTests.ledgerRows(ledger)
        #expect(rows.map { $0["status"] as? String } == ["done", "done"], "\(model): \(rows)")
        #expect(rows.allSatisfy { $0["locked"] as? Int == 1 }, "\(model): \(rows)")
        let files = try FileManager.default.contentsOfDirectory(atPath: tags).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count == 2, "\(model): \(files)")
        var urls: [String] = []
        for name in files {
            let image = try await BatchLockProtectTests.tagMemory("\(tags)/\(name)").map { UInt8(truncatingIfNeeded: $0) }
            try #require(image.count >= blocks * 5 + 3, "\(model) \(name): \(image.count) bytes")
            let judged = try #require(T5TJudge(memory: Array(image.prefix(blocks * 4))), "\(model) \(name)")
            #expect(judged.writeAccess == 3, "\(model) \(name): CC write access \(judged.writeAccess)")
            urls.append(String(decoding: (judged.message ?? []).dropFirst(5), as: UTF8.self))
            // The CC and the T5T area as MLEN states it, cut at the memory.
            let areaBlocks = min(blocks, (judged.capabilityContainer.count + judged.area + 3) / 4)
            let locks = image[(blocks * 4)..<(blocks * 5)]
            #expect(locks.prefix(areaBlocks).allSatisfy { $0 & 0x01 == 1 }, "\(model) \(name): \(Array(locks))")
        }
        #expect(urls.sorted() == ["b.io/1", "b.io/2"], "\(model): \(urls)")
    }

    @Test("batch on a stack of SLIX-Ls with a URL longer than their 28-byte area fails honestly: after 3 tags in a row that the message does not fit it stops non-zero, no ledger row done, no tag holds the message or is locked")
    func slixLTooLong() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags").path
        let ledger = directory.appendingPathComponent("run.db").path
        let run = try await runBuiltNFCTool(
            ["batch", "--device", "sim:icode-slix-l*4?poll-wait=0&dir=\(tags)", "--url", "https://a-long-host.example/path/{n}", "--count", "1",
             "--lock", "--yes", "--ledger", ledger, "--json"], timeout: 60)
        #expect(run.status != 0, "\(run.standardOutput)\(run.standardError)")
        let rows = try await BatchLockProtectTests.ledgerRows(ledger)
        #expect(!rows.isEmpty && !rows.contains { $0["status"] as? String == "done" }, "\(rows)")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tags)) ?? [] where name.hasSuffix(".json") {
            let image = try await BatchLockProtectTests.tagMemory("\(tags)/\(name)").map { UInt8(truncatingIfNeeded: $0) }
            let judged = T5TJudge(memory: Array(image.prefix(32)))
            #expect(judged?.message == nil || judged?.message?.isEmpty == true, "\(name): \(image)")
            #expect(judged?.writeAccess != 3 && !image[32..<40].contains(1), "\(name) not locked: \(image)")
        }
    }
}
