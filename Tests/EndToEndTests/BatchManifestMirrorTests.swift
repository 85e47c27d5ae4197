import Foundation
import NFCCore
import NFCTestSupport
import Testing

/// `nfctool batch --manifest` with NTAG21x mirror placeholders in the `url` column, through the
/// built executable; judged from the tag files' bytes (the placeholder characters, CFG0's
/// MIRROR_CONF, ACCESS's NFC_CNT_EN) and from fresh `nfctool read` processes showing each
/// chip's live UID and counter.
@Suite("batch: mirror placeholders from a manifest", .tags(.endToEnd), .timeLimit(.minutes(5)))
struct BatchManifestMirrorTests {
    /// NTAG216's CFG0 and ACCESS pages (NTAG213/215/216 datasheet, 8.5).
    static let cfg0Page = 0xE3, accessPage = 0xE4

    func memory(_ path: String) throws -> [UInt8] {
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        return try Hex.decode(try #require(state?["memory"] as? String, "no tag file \(path)"))
    }

    @Test("each row gets its own mirror: UID on the first sticker, counter on the second; reads show the live values")
    func perRowMirrors() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let manifest = directory.appendingPathComponent("m.csv")
        try Data("url,text\nhttps://ex.io/a?u={mirror:uid},first\nhttps://ex.io/b?c={mirror:counter},second\n".utf8).write(to: manifest)
        let tags = directory.appendingPathComponent("tags").path
        let run = try await runBuiltNFCTool(["batch", "--device", "sim:ntag216*2?dir=\(tags)", "--manifest", manifest.path,
                                       "--ledger", directory.appendingPathComponent("l.db").path, "-t", "1"])
        #expect(run.status == 0, "\(run.standardError)")
        let first = try memory("\(tags)/0453494d000001.json"), second = try memory("\(tags)/0453494d000002.json")
        #expect(first.firstRange(of: Array("ex.io/a?u=00000000000000".utf8)) != nil)
        #expect(first[Self.cfg0Page * 4] & 0xC0 == 0x40, "MIRROR_CONF: UID")
        #expect(second.firstRange(of: Array("ex.io/b?c=000000".utf8)) != nil)
        #expect(second[Self.cfg0Page * 4] & 0xC0 == 0x80, "MIRROR_CONF: counter")
        #expect(second[Self.accessPage * 4] & 0x10 == 0x10, "NFC_CNT_EN")
        let readFirst = try await runBuiltNFCTool(["read", "--device", "sim:?file=\(tags)/0453494d000001.json"])
        #expect(readFirst.standardOutput.contains("https://ex.io/a?u=0453494D000001"), "\(readFirst.standardOutput)")
        let readSecond = try await runBuiltNFCTool(["read", "--device", "sim:?file=\(tags)/0453494d000002.json"])
        #expect(readSecond.standardOutput.contains("https://ex.io/b?c=0000"), "\(readSecond.standardOutput)")
        #expect(!readSecond.standardOutput.contains("https://ex.io/b?c=000000\n"), "the counter is live, not the placeholder")
    }

    @Test("a row whose placeholder characters also occur elsewhere, or a bad placeholder, stops the run before any tag (exit 65, the line)", arguments: [
        ("url\nhttps://ex.io/ok?u={mirror:uid}\nhttps://ex.io/00000000000000?u={mirror:uid}\n", "line 3"),
        ("url\nhttps://ex.io/ok?u={mirror:uid}\nhttps://ex.io/{mirror:serial}\n", "line 3"),
    ])
    func refusedBeforeAnyTag(csv: String, line: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let manifest = directory.appendingPathComponent("m.csv")
        try Data(csv.utf8).write(to: manifest)
        let tags = directory.appendingPathComponent("tags").path
        let run = try await runBuiltNFCTool(["batch", "--device", "sim:ntag216*2?dir=\(tags)", "--manifest", manifest.path,
                                       "--ledger", directory.appendingPathComponent("l.db").path, "-t", "1"])
        #expect(run.status == 65, "\(run.standardError)")
        #expect(run.standardError.contains(line), "\(run.standardError)")
        let written = (try? FileManager.default.contentsOfDirectory(atPath: tags)) ?? []
        for name in written {
            let bytes = try memory("\(tags)/\(name)")
            #expect(bytes.firstRange(of: Array("ex.io".utf8)) == nil, "\(name) was written")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("l.db").path), "no ledger before the rows are checked")
    }
}
