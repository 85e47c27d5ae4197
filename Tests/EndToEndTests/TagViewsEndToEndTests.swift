import Foundation
import NFCCore
import NFCTestSupport
import Testing

/// `nfctool info`'s mirror and NFC counter settings and `nfctool dump`'s page labels, on
/// simulated NTAG21x tag files whose mirror a separate `nfctool write` configured; judged from
/// the tag file's bytes (CFG0, ACCESS, where the placeholder sits) and from nfcpy's own
/// `tag.dump()` through the PN532 emulator, never from what nfctool computed.
@Suite("info and dump: mirror settings and Type 2 page labels", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(5)))
struct TagViewsEndToEndTests {
    /// NTAG213 (datasheet 8.5, Figure 6): dynamic lock page 28h, CFG0 29h, CFG1 2Ah, PWD 2Bh, PACK 2Ch.
    static let dynamicLockPage = 0x28, cfg0Page = 0x29, cfg1Page = 0x2A, pwdPage = 0x2B, packPage = 0x2C

    func memory(_ path: String) throws -> [UInt8] {
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        return try Hex.decode(try #require(state?["memory"] as? String, "no tag file \(path)"))
    }

    /// An NTAG213 tag file with `url` written by `nfctool write` (a mirror placeholder in it).
    func mirroredTag(_ directory: URL, url: String) async throws -> String {
        let file = directory.appendingPathComponent("tag.json").path
        let write = try await runBuiltNFCTool(["write", "--device", "sim:ntag213?file=\(file)", "--url", url])
        try #require(write.status == 0, "\(write.output)")
        return file
    }

    @Test("info shows the mirror where the tag file's placeholder is, and the NFC counter bits ACCESS holds", arguments: [
        ("https://ex.io/t?m={mirror:uid}x{mirror:counter}", "uidAndCounter", "UID and NFC counter", "00000000000000x000000", true),
        ("https://ex.io/t?m={mirror:uid}", "uid", "UID", "00000000000000", false),
    ])
    func infoMirror(url: String, kind: String, words: String, placeholder: String, counter: Bool) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try await mirroredTag(directory, url: url)
        let memory = try memory(file)
        // Where the placeholder sits in the tag file, and what CFG0 / ACCESS hold there.
        let address = try #require(memory.firstRange(of: Array(placeholder.utf8)), "no placeholder in the tag file").lowerBound
        let access = memory[Self.cfg1Page * 4]

        let run = try await runBuiltNFCTool(["info", "--device", "sim:?file=\(file)", "--json"])
        #expect(run.status == 0, "\(run.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let settings = try #require(object["mirrorSettings"] as? [String: Any], "\(run.standardOutput)")
        #expect(settings["enabled"] as? Bool == true)
        #expect(settings["mirrors"] as? String == kind)
        #expect(settings["page"] as? Int == address / 4)
        #expect(settings["byte"] as? Int == address % 4)
        let counterSettings = try #require(object["nfcCounterSettings"] as? [String: Any])
        #expect(counterSettings["enabled"] as? Bool == (access & 0x10 != 0))
        #expect(counterSettings["enabled"] as? Bool == counter)
        #expect(counterSettings["passwordProtected"] as? Bool == (access & 0x08 != 0))

        let text = try await runBuiltNFCTool(["info", "--device", "sim:?file=\(file)"])
        #expect(text.standardOutput.contains("  mirror:       \(words) from page \(address / 4) byte \(address % 4)\n"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("  NFC counter:  \(counter ? "enabled" : "disabled")\n"), "\(text.standardOutput)")
    }

    @Test("info on a factory NTAG215: mirror off at MIRROR_PAGE 0, counter disabled; null on a chip without a mirror")
    func infoMirrorOff() async throws {
        let run = try await runBuiltNFCTool(["info", "--device", "sim:ntag215", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let settings = try #require(object["mirrorSettings"] as? [String: Any])
        #expect(settings["enabled"] as? Bool == false)
        #expect(settings["mirrors"] is NSNull)
        #expect(settings["page"] as? Int == 0)
        let counter = try #require(object["nfcCounterSettings"] as? [String: Any])
        #expect(counter["enabled"] as? Bool == false)
        let ev1 = try await runBuiltNFCTool(["info", "--device", "sim:ultralight", "--json"])
        let ev1Object = try #require(try JSONSerialization.jsonObject(with: Data(ev1.standardOutput.utf8)) as? [String: Any])
        #expect(ev1Object["mirrorSettings"] is NSNull)
        #expect(ev1Object["nfcCounterSettings"] is NSNull)
    }

    @Test("dump --json labels each NTAG213 page by its region; the labelled pages' bytes are the tag file's")
    func dumpRegions() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try await mirroredTag(directory, url: "https://ex.io/t?m={mirror:uid}")
        let memory = try memory(file)
        let run = try await runBuiltNFCTool(["dump", "--device", "sim:?file=\(file)", "--json"])
        #expect(run.status == 0, "\(run.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let units = try #require(object["units"] as? [[String: Any]])
        try #require(units.count == 45)
        let regions = units.map { $0["region"] as? String ?? "?" }
        #expect(Array(regions[0...3]) == ["uid", "uid", "staticLock", "capabilityContainer"])
        #expect(regions[4..<Self.dynamicLockPage].allSatisfy { $0 == "data" })
        #expect(Array(regions[Self.dynamicLockPage...]) == ["dynamicLock", "configuration0", "configuration1", "password", "passwordAcknowledge"])
        #expect(units[Self.cfg0Page]["fields"] as? String == "MIRROR, RFU, MIRROR_PAGE, AUTH0")
        #expect(units[4]["fields"] is NSNull)
        // CFG0 as dumped is the tag file's: the mirror written there shows.
        let cfg0 = Hex.encode(Array(memory[(Self.cfg0Page * 4)..<(Self.cfg0Page * 4 + 4)]), uppercase: true)
        #expect(units[Self.cfg0Page]["hex"] as? String == cfg0)
        #expect(memory[Self.cfg0Page * 4] & 0xC0 == 0x40, "MIRROR_CONF UID in the tag file")
        let text = try await runBuiltNFCTool(["dump", "--device", "sim:?file=\(file)"])
        #expect(text.standardOutput.contains("page 41: \(spaced(cfg0))  |"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("  CFG0 (MIRROR, RFU, MIRROR_PAGE, AUTH0)\n"))
        #expect(text.standardOutput.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    @Test("dump's labels and bytes agree with nfcpy's tagtool dump of the same tag file, page for page", ExternalTool.nfcpy.trait)
    func dumpAgreesWithNFCPy() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try await mirroredTag(directory, url: "https://ex.io/t?m={mirror:uid}x{mirror:counter}")
        let run = try await runBuiltNFCTool(["dump", "--device", "sim:?file=\(file)", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let units = try #require(object["units"] as? [[String: Any]])
        let nfcpy = try await runNFCPy(model: "ntag213", tagFile: file, "print('\\n'.join(tag.dump()))")
        #expect(nfcpy.status == 0, "\(nfcpy.output)")
        // nfcpy's labelled lines: `029: 40 00 0D 04 (MIRROR, RFU, MIRROR_PAGE, AUTH0)`.
        let pattern = #/([0-9A-F]{3}): ((?:[0-9a-f]{2} ?){4}) \((.+)\)/#
        var labelled = 0
        for line in nfcpy.standardOutput.split(separator: "\n") {
            guard let match = String(line).wholeMatch(of: pattern), let page = Int(match.1, radix: 16), page < units.count else { continue }
            labelled += 1
            let ours = units[page]
            #expect((ours["hex"] as? String) == match.2.replacingOccurrences(of: " ", with: "").uppercased(), "page \(page): \(line)")
            let fields = ours["fields"] as? String ?? ""
            #expect(fields.contains(String(match.3)), "page \(page): ours '\(fields)', nfcpy '\(match.3)'")
        }
        // Pages 0–3 and the five from the dynamic lock bytes on.
        #expect(labelled == 9, "\(nfcpy.output)")
    }

    @Test("dump of a MIFARE Ultralight C lists the pages nfcpy's tagtool dump of the same tag file lists (00h–2Bh), byte for byte", ExternalTool.nfcpy.trait)
    func ultralightCDumpAgreesWithNFCPy() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ulc.json").path
        // A factory chip (the file is created by the first open): AUTH0 30h on page 2Ah.
        let run = try await runBuiltNFCTool(["dump", "--device", "sim:ultralight-c?file=\(file)", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let units = try #require(object["units"] as? [[String: Any]])
        let nfcpy = try await runNFCPy(model: "ultralight-c", tagFile: file, "print('\\n'.join(tag.dump()))")
        #expect(nfcpy.status == 0, "\(nfcpy.output)")
        // nfcpy's lines: `02A: 30 00 00 00 (AUTH0)`, `004: 03 14 d1 01 |....|`; `  *  …` stands for repeats.
        let pattern = #/([0-9A-F]{3}): ((?:[0-9a-f]{2} ?){4}).*/#
        var last = -1
        for line in nfcpy.standardOutput.split(separator: "\n") {
            guard let match = String(line).wholeMatch(of: pattern), let page = Int(match.1, radix: 16) else { continue }
            last = max(last, page)
            guard page < units.count else { continue }
            #expect((units[page]["hex"] as? String) == match.2.replacingOccurrences(of: " ", with: "").uppercased(), "page \(page): \(line)")
        }
        #expect(last == 0x2B, "\(nfcpy.output)")
        #expect(units.count == last + 1, "\(run.standardOutput)")
    }

    private func spaced(_ hex: String) -> String {
        stride(from: 0, to: hex.count, by: 2).map { String(hex.dropFirst($0).prefix(2)) }.joined(separator: " ")
    }
}
