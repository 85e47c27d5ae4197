import Foundation
import NFCCore
import NFCTestSupport
import Testing
import VirtualTags

/// Originality signatures and the NTAG21x mirror as a user meets them: the built `nfctool`
/// through real libnfc and the PN532 emulator, the tag file and nfcpy read from the other side.
@Suite("genuine chips and mirrored URLs through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct GenuineAndMirrorThroughLibNFCTests {
    /// A real NTAG21x (UID, signature) pair, published in Proxmark3's `tools/recover_pk.py`.
    static let realUID = "04E10CDA993C80"
    static let realSignature = "8B76052EE42F5567BEB53238B3E3F9950707C0DCC956B5C5EFCFDB709B2D82B3"


    /// Makes the tag file `path` of a factory NTAG215 with `uid` and `signature`, through the
    /// simulator (a fresh process), and returns nfctool's run.
    static func makeTagFile(_ path: String, model: String = "ntag215", uid: String, signature: String?) async throws {
        let options = "file=\(path)&uid=\(uid)" + (signature.map { "&signature=\($0)" } ?? "")
        let run = try await runTool(try Executables.nfctool(), ["info", "--device", "sim:\(model)?\(options)"], environment: [:], timeout: 30)
        #expect(run.status == 0, "\(run.output)")
    }

    @Test("verify --expect-genuine through libnfc: a real NTAG21x pair exits 0, the same signature on another UID exits 8")
    func expectGenuine() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (uid, status) in [(Self.realUID, Int32(0)), ("04E10CDA993C81", Int32(8))] {
            let file = directory.appendingPathComponent("\(uid).json").path
            try await Self.makeTagFile(file, uid: uid, signature: Self.realSignature)
            let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
            defer { emulator.stop() }
            let run = try await runTool(try Executables.nfctool(), ["verify", "--expect-genuine", "--device", emulator.connectionString],
                                  against: emulator, timeout: 30)
            #expect(run.status == status, "\(uid): \(run.output)")
            #expect(run.output.contains(status == 0 ? "ok        genuine: yes (NXP NTAG21x key)" : "found:    no"), "\(run.output)")
            let info = try await runTool(try Executables.nfctool(), ["info", "--json", "--device", emulator.connectionString], against: emulator, timeout: 30)
            let json = try JSONSerialization.jsonObject(with: Data(info.output.utf8)) as? [String: Any]
            #expect(json?["genuine"] as? Bool == (status == 0), "\(info.output)")
            #expect((json?["signatureKey"] as? String) == (status == 0 ? "NXP NTAG21x" : nil))
        }
    }

    @Test("Ultralight AES through libnfc: verify --expect-genuine with a real chip's 48-byte pair exits 0 (NXP's Ultralight AES key), on another UID 8; info shows the signature, the verdict and the counters")
    func ultralightAESGenuine() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Proxmark3 tools/recover_pk.py self-test, "MIFARE Ultralight AES".
        let signature = "C9BBDA1B99EB6634CDFD8E3251AC5C4742EA5FA507B8A8A8B39B19AB7340D173331589C54C56C49F0CCA6DDBAC1E492A"
        for (uid, status) in [("045E4CC2451390", Int32(0)), ("045E4CC2451391", Int32(8))] {
            let file = directory.appendingPathComponent("\(uid).json").path
            try await Self.makeTagFile(file, model: "ultralight-aes", uid: uid, signature: signature)
            let emulator = try await EmulatorProcess.start(["--tag", "ultralight-aes:\(file)"])
            defer { emulator.stop() }
            let run = try await runTool(try Executables.nfctool(), ["verify", "--expect-genuine", "--device", emulator.connectionString],
                                  against: emulator, timeout: 30)
            #expect(run.status == status, "\(uid): \(run.output)")
            #expect(run.output.contains(status == 0 ? "genuine: yes (NXP MIFARE Ultralight AES key)" : "found:    no"), "\(run.output)")
            let info = try await runTool(try Executables.nfctool(), ["info", "--json", "--device", emulator.connectionString], against: emulator, timeout: 30)
            let json = try JSONSerialization.jsonObject(with: Data(info.output.utf8)) as? [String: Any]
            #expect(json?["genuine"] as? Bool == (status == 0), "\(info.output)")
            #expect(json?["signature"] as? String == signature)
            let counters = json?["counters"] as? [Any]
            #expect(counters?.count == 3 && counters?[0] as? Int == 0 && counters?[2] is NSNull, "\(info.output)")
        }
    }

    /// `nfctool read --json`'s first URI, through libnfc (a fresh process: the field goes off
    /// and on, so the chip is powered anew).
    static func readURL(_ emulator: EmulatorProcess) async throws -> String {
        let run = try await runTool(try Executables.nfctool(), ["read", "--json", "--device", emulator.connectionString], against: emulator, timeout: 30)
        #expect(run.status == 0, "\(run.output)")
        let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        let records = object?["records"] as? [[String: Any]] ?? (object?["message"] as? [String: Any])?["records"] as? [[String: Any]]
        return try #require(records?.first?["uri"] as? String, "no URI in \(run.output)")
    }

    @Test("write --url with {mirror:uid}x{mirror:counter} through libnfc: reads show the live UID and a counter that grows per power-up")
    func mirroredURL() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "ntag213:\(file)"])
        defer { emulator.stop() }
        let write = try await runTool(
            try Executables.nfctool(), ["write", "--url", "https://ex.io/t?m={mirror:uid}x{mirror:counter}", "--device", emulator.connectionString],
            against: emulator, timeout: 30)
        #expect(write.status == 0, "\(write.output)")
        // The tag file, read as plain JSON: the placeholder characters in memory, CFG0 and ACCESS set.
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
        let memory = try Hex.decode(try #require(state?["memory"] as? String))
        let placeholder = Array("ex.io/t?m=00000000000000x000000".utf8)
        let at = try #require(memory.firstRange(of: placeholder), "the tag file lacks the placeholder").lowerBound + 10
        let cfg0 = Array(memory[0x29 * 4..<(0x29 * 4 + 4)])
        #expect(cfg0[0] & 0xC0 == 0xC0, "MIRROR_CONF: UID and counter")
        #expect(Int(cfg0[2]) * 4 + Int((cfg0[0] >> 4) & 0x03) == at, "MIRROR_PAGE/MIRROR_BYTE point at the placeholder")
        #expect(memory[0x2A * 4] & 0x10 != 0, "NFC_CNT_EN")

        let uid = "0453494D000001"
        let first = try await Self.readURL(emulator)
        let second = try await Self.readURL(emulator)
        let pattern = #/https://ex\.io/t\?m=0453494D000001x([0-9A-F]{6})/#
        let n1 = try #require(first.wholeMatch(of: pattern)).1
        let n2 = try #require(second.wholeMatch(of: pattern)).1
        #expect(Int(n2, radix: 16) == (Int(n1, radix: 16) ?? -2) + 1, "\(first) then \(second)")
        #expect(first.contains(uid))

        // libnfc's READ_CNT-free view from the other side: nfcpy reads the same URL form (its IRI: `uri` escapes the '=').
        if ExternalTool.nfcpy.isAvailable {
            emulator.stop()
            let run = try await runNFCPy(model: "ntag213", tagFile: file, "print('uri', tag.ndef.records[0].iri)")
            #expect(run.status == 0, "\(run.output)")
            let line = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("uri ") }, "\(run.output)")
            let n3 = try #require(String(line.dropFirst(4)).wholeMatch(of: pattern), "\(line)").1
            #expect((Int(n3, radix: 16) ?? 0) > (Int(n2, radix: 16) ?? 0))
        }
    }

    @Test("a mirror across a reserved area is refused with nothing written; on an Ultralight EV1 it is not supported")
    func illegalPositionsWriteNothing() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // An NTAG215 whose TLV area starts with a Memory Control TLV reserving page 9 (bytes
        // 36–39): 02 03 90 04 02, then the empty NDEF TLV.
        let file = directory.appendingPathComponent("reserved.json").path
        try await Self.makeTagFile(file, uid: "04534944000009", signature: nil)
        var state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any] ?? [:]
        var memory = try Hex.decode(try #require(state["memory"] as? String))
        memory.replaceSubrange(16..<24, with: [0x02, 0x03, 0x90, 0x04, 0x02, 0x03, 0x00, 0xFE])
        state["memory"] = Hex.encode(memory)
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: file))
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
        let run = try await runTool(
            try Executables.nfctool(), ["write", "--url", "https://a.io/{mirror:uid}", "--device", emulator.connectionString],
            against: emulator, timeout: 30)
        emulator.stop()
        #expect(run.status != 0, "\(run.output)")
        #expect(run.output.contains("reserved area"), "\(run.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "the tag file changed")

        let ultralight = directory.appendingPathComponent("ev1.json").path
        try await Self.makeTagFile(ultralight, model: "ultralight-ev1-mf0ul21", uid: "04534944000010", signature: nil)
        let formatted = try await runTool(try Executables.nfctool(), ["format", "--device", "sim:?file=\(ultralight)", "--yes"], environment: [:], timeout: 30)
        #expect(formatted.status == 0, "\(formatted.output)")
        let ev1Before = try Data(contentsOf: URL(fileURLWithPath: ultralight))
        let refused = try await runTool(
            try Executables.nfctool(), ["write", "--url", "https://ex.io/?u={mirror:uid}", "--device", "sim:?file=\(ultralight)"],
            environment: [:], timeout: 30)
        #expect(refused.status == 10, "\(refused.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: ultralight)) == ev1Before)
    }

    @Test("batch --url with a mirror: every tag file holds the placeholder and the mirror configuration; reads show each UID")
    func batchMirror() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags").path
        let run = try await runTool(
            try Executables.nfctool(),
            ["batch", "--device", "sim:ntag216*2?dir=\(tags)", "--url", "https://ex.io/{n}?u={mirror:uid}",
             "--ledger", directory.appendingPathComponent("l.db").path, "-t", "1"],
            environment: [:], timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        for (index, uid) in ["0453494D000001", "0453494D000002"].enumerated() {
            let file = "\(tags)/\(uid.lowercased()).json"
            let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
            let memory = try Hex.decode(try #require(state?["memory"] as? String, "no tag file \(file)"))
            #expect(memory.firstRange(of: Array("ex.io/\(index + 1)?u=00000000000000".utf8)) != nil)
            #expect(memory[0xE3 * 4] & 0xC0 == 0x40, "MIRROR_CONF: UID")
            let read = try await runTool(try Executables.nfctool(), ["read", "--device", "sim:?file=\(file)"], environment: [:], timeout: 30)
            #expect(read.output.contains("https://ex.io/\(index + 1)?u=\(uid)"), "\(read.output)")
        }
    }

    @Test("batch --require-genuine writes the genuine chip, refuses the counterfeit, counts it apart (summary and JSON), records it in the ledger and exits 8")
    func batchRequireGenuine() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = directory.appendingPathComponent("l.db").path
        // A stack of two: the first with a real chip's UID and signature, the next (UID + 1) with
        // the same signature, which is not its own.
        let run = try await runTool(
            try Executables.nfctool(),
            ["batch", "--device", "sim:ntag215*2?uid=\(Self.realUID)&signature=\(Self.realSignature)", "--url", "https://ex.io/{uid}",
             "--require-genuine", "--ledger", ledger, "-t", "1"],
            environment: [:], timeout: 60)
        #expect(run.status == 8, "\(run.output)")
        #expect(run.output.contains("1 done, 0 failed, 0 skipped, 1 counterfeit"), "\(run.output)")
        #expect(run.output.contains("Error: 1 counterfeit chip refused (not shown genuine); see the ledger"), "\(run.output)")
        let json = try await runTool(
            try Executables.nfctool(),
            ["batch", "--device", "sim:ntag215*2?uid=\(Self.realUID)&signature=\(Self.realSignature)", "--url", "https://ex.io/{uid}",
             "--require-genuine", "--ledger", directory.appendingPathComponent("j.db").path, "-t", "1", "--json"],
            environment: [:], timeout: 60)
        #expect(json.status == 8)
        #expect(json.output.contains("\"counterfeit\" : 1") && json.output.contains("\"skipped\" : 0"), "\(json.output)")
        let export = try await runTool(try Executables.nfctool(), ["ledger", "export", "--csv", ledger], environment: [:], timeout: 30)
        let rows = export.output.split(separator: "\n")
        #expect(rows.contains { $0.contains(Self.realUID) && $0.hasSuffix(",done,") }, "\(export.output)")
        #expect(rows.contains { $0.contains("04E10CDA993C81") && $0.contains("counterfeit: not a genuine") && $0.hasSuffix(",counterfeit") }, "\(export.output)")
        // Read back by Python's sqlite3, not by nfctool: the counterfeit has a status of its own.
        let stored = try await runPython("""
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(sorted(db.execute("SELECT uid, status FROM attempts").fetchall()))
            """, [ledger])
        #expect(stored.standardOutput == "[('04E10CDA993C80', 'done'), ('04E10CDA993C81', 'counterfeit')]\n")
        let stats = try await runTool(try Executables.nfctool(), ["ledger", "stats", ledger], environment: [:], timeout: 30)
        #expect(stats.output.contains("failed:       0") && stats.output.contains("counterfeit:  1"), "\(stats.output)")
    }
}
