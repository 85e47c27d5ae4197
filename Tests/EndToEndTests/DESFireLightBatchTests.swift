import Foundation
import NDEF
import NFCCore
import NFCTestSupport
import Provisioning
import Testing
import VirtualTags

/// `nfctool batch` on MIFARE DESFire Light stacks in fresh processes, on the simulator and
/// through real libnfc and the PN532 emulator: the ledger file and each tag file are read
/// afterwards (the NDEF parsed out of file `04`, the lock out of its settings and the CC).
@Suite("MIFARE DESFire Light in batch runs", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct DESFireLightBatchTests {
    static let template = "https://ex.io/light/{uid}?n={n}"

    /// The URL the template gives a tag.
    static func expectedURL(_ attempt: LedgerAttempt) -> String {
        "https://ex.io/light/\(attempt.uid)?n=\(attempt.counter ?? -1)"
    }

    /// The NDEF message in a Light tag file's file `04` (NLEN first), parsed from the tag file's
    /// memory (files in ``DESFireLight/File`` order: 256, 80, 4, then file `04`'s 256 bytes).
    static func message(inTagFile path: String) throws -> NDEFMessage {
        let memory = try Hex.decode(try TagFile(path: path).load().memory)
        let file04 = Array(memory[340..<596])
        let length = Int(file04[0]) << 8 | Int(file04[1])
        return try NDEFMessage(bytes: Array(file04[2..<(2 + length)]))
    }

    /// Each done attempt's tag file holds its URL, its NDEF file `FF EF` and its CC write access `FF`.
    static func checkTagFiles(_ tags: String, _ attempts: [LedgerAttempt]) throws {
        for attempt in attempts {
            let path = tags + "/" + attempt.uid.lowercased() + ".json"
            #expect(try message(inTagFile: path) == NDEFMessage(records: [try .wellKnownTypeURIPayload(url: expectedURL(attempt))]), "\(attempt.uid)")
            let lock = try DESFireLightEndToEndTests.lockState(path)
            #expect(lock.settings == "0000FFEF000100" && lock.ccWriteAccess == 0xFF, "\(attempt.uid): \(lock)")
        }
    }

    @Test("batch --format --lock --yes on a stack of three renamed Lights (sim): each gets the URL with its UID and counter, verified and locked; three done rows in the ledger; the tag files hold the NDEF and the lock")
    func simulatorStack() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags").path
        let ledger = directory.appendingPathComponent("run.db").path
        let run = try await runBuiltNFCTool(
            ["batch", "--device", "sim:desfire-light-ndef*3?poll-wait=0&dir=\(tags)", "--url", Self.template, "--count", "3",
             "--format", "--lock", "--yes", "--ledger", ledger, "--json"],
            timeout: 120)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("\"done\" : 3"), "\(run.output)")
        let attempts = try Ledger(path: ledger).attempts()
        #expect(attempts.count == 3 && attempts.allSatisfy { $0.status == "done" && $0.verified && $0.locked }, "\(attempts)")
        #expect(Set(attempts.compactMap(\.counter)) == [1, 2, 3])
        try Self.checkTagFiles(tags, attempts)
    }

    @Test("batch --format --lock --yes through libnfc and the PN532 emulator handing out two renamed Lights: both done in the ledger; the tag files hold the NDEF and the lock")
    func throughLibNFC() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags").path
        let ledger = directory.appendingPathComponent("run.db").path
        let emulator = try await EmulatorProcess.start(["--tag", "desfire-light-ndef*2:\(tags)", "--hand-out", "deselect"])
        defer { emulator.stop() }
        let run = try await runBuiltNFCTool(
            ["batch", "--device", emulator.connectionString, "--url", Self.template, "--count", "2",
             "--format", "--lock", "--yes", "--ledger", ledger, "--json"],
            timeout: 180)
        emulator.stop()
        #expect(run.status == 0, "\(run.output)")
        let attempts = try Ledger(path: ledger).attempts()
        #expect(attempts.count == 2 && attempts.allSatisfy { $0.status == "done" && $0.verified && $0.locked }, "\(attempts)")
        try Self.checkTagFiles(tags, attempts)
    }

    @Test("a factory Light (not renamed) in a batch fails for that tag: with --format the SetConfiguration refusal, without it not formatted; exit 1, the ledger row failed, the tag file byte-identical")
    func factoryLightFails() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("factory.json").path
        try TagFile(path: file).save(DESFireLightVirtualTag(uid: hex("04 4C 49 47 48 54 05")).tagState)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        for (name, extra) in [("format", ["--format", "--yes"]), ("plain", [])] {
            let ledger = directory.appendingPathComponent("\(name).db").path
            // A failed tag does not count towards --count: --max-failures 1 ends the run.
            let run = try await runBuiltNFCTool(
                ["batch", "--device", "sim:desfire-light?poll-wait=0&file=\(file)", "--url", Self.template, "--count", "1",
                 "--max-failures", "1", "--ledger", ledger, "--json"] + extra,
                timeout: 60)
            #expect(run.status == 1, "\(name): \(run.output)")
            #expect(run.standardOutput.contains("\"done\" : 0") && run.standardOutput.contains("\"failed\" : 1"), "\(name): \(run.output)")
            let reason = name == "format" ? "SetConfiguration" : "not NDEF formatted"
            #expect(run.output.contains(reason), "\(name): \(run.output)")
            let attempts = try Ledger(path: ledger).attempts()
            #expect(attempts.count == 1 && attempts.allSatisfy { $0.status == "failed" && !$0.verified }, "\(name): \(attempts)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "\(name): the factory Light's tag file changed")
        }
    }
}
