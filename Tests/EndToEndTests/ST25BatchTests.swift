import Foundation
import NFCTestSupport
import Testing

/// `nfctool batch` on the ST chips, judged from outside: a fresh `nfctool` process on simulated
/// tag files, then the ledger (python3's sqlite3) and the tag file's image (python3's json) — the
/// ST25 image layout of docs/simulator.md: memory, then one lock byte per block.
@Suite("nfctool batch on ST25TV02K and ST25DV64K", .tags(.endToEnd), .serialized, .timeLimit(.minutes(5)))
struct ST25BatchTests {
    @Test("--lock on an ST25TV02K and an ST25DV64K (blocks past 255 locked with EXTENDED LOCK BLOCK): ledger done and locked; every block of the CC and T5T area locked, CC write access 11b", arguments: [
        ("st25tv02k", 64, 63), ("st25dv64k", 2048, 2048),
    ])
    func lock(model: String, blocks: Int, lockedBlocks: Int) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tagFile = directory.appendingPathComponent("\(model).json").path
        let ledger = directory.appendingPathComponent("\(model).db").path
        let run = try await runTool(
            try Executables.nfctool(),
            ["batch", "--device", "sim:\(model)?poll-wait=0&file=\(tagFile)", "--url", "https://ex.io/{n}", "--count", "1",
             "--lock", "--yes", "--ledger", ledger, "--json"],
            environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(run.status == 0, "\(model): \(run.output)")
        let rows = try await BatchLockProtectTests.ledgerRows(ledger)
        #expect(rows.map { $0["status"] as? String } == ["done"], "\(model): \(rows)")
        #expect(rows.first?["locked"] as? Int == 1, "\(model): \(rows)")
        let image = try await BatchLockProtectTests.tagMemory(tagFile)
        try #require(image.count == blocks * 5 + 3 + 7 + 32)
        #expect(image[1] & 0x03 == 0x03, "CC write access \(image[1])")
        // ST25TV02K: CC E1 40 1F (T5T area to byte 252: blocks 0–62); ST25DV64K: E2 40 00 … 03 FF (all 2048 blocks).
        let locks = image[(blocks * 4)..<(blocks * 5)]
        #expect(locks.prefix(lockedBlocks).allSatisfy { $0 == 1 } && locks.dropFirst(lockedBlocks).allSatisfy { $0 == 0 }, "\(model): block locks")
    }
}
