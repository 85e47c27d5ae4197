import Foundation
import NFCTestSupport
import Testing

/// TI Tag-it HF-I Plus, Standard and Pro, NXP NTAG 5 switch and ICODE DNA through the built nfctool: each command a
/// fresh process on a `sim:` tag file, the file judged by ``T5TJudge`` (the Type 5 rules written
/// in NFCTestSupport), the ledger by python3's sqlite3.
@Suite("Tag-it HF-I Plus, NTAG 5 and ICODE DNA through nfctool", .tags(.endToEnd), .serialized, .timeLimit(.minutes(5)))
struct Type5ChipsEndToEndTests {
    /// Model, blocks, whether it comes blank, the model `info` names.
    static let chips: [(model: String, blocks: Int, blank: Bool, name: String)] = [
        ("tagit-hfi-plus", 64, true, "Tag-it HF-I Plus"),
        ("tagit-hfi-standard", 11, true, "Tag-it HF-I Standard"),
        ("tagit-hfi-pro", 12, true, "Tag-it HF-I Pro"),
        ("ntag5", 128, false, "NTAG 5 switch (NTP5210)"),
        ("ntag5-link", 512, false, "NTAG 5 link or boost"),
        ("ntag5-boost", 512, false, "NTAG 5 link or boost"),
        ("icode-dna", 63, false, "ICODE DNA"),
    ]

    @Test("info, format (blank Tag-it), write, read in a new process, lock --yes: the tag file holds the message, a read-only CC and locked blocks", arguments: chips.map(\.model))
    func writeReadLock(model: String) async throws {
        let chip = try #require(Self.chips.first { $0.model == model })
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("\(model).json").path
        let device = "sim:\(model)?file=\(file)"
        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.status == 0, "\(info.standardError)")
        #expect(info.standardOutput.contains(chip.name), "\(info.standardOutput)")
        #expect(info.standardOutput.contains("model table") == (chip.blocks < 16), "the Standard and Pro are sized by the model table, and say so: \(info.standardOutput)")
        if chip.blank {
            let refused = try await runBuiltNFCTool(["write", "--device", device, "--url", "https://x.example"])
            #expect(refused.status != 0, "a blank chip is not written before it is formatted")
            let format = try await runBuiltNFCTool(["format", "--device", device, "--yes"])
            #expect(format.status == 0, "\(format.standardError)")
            let formatted = try #require(try T5TJudge.TagFile(path: file, blocks: chip.blocks).judged)
            #expect(formatted.features & 0x10 == 0x10, "Special Frame in the CC of a chip whose writes need the option flag")
            #expect(formatted.message == [])
        }
        // The Standard and Pro hold 28 bytes of NDEF area: a short host.
        let host = chip.blocks < 16 ? "t5" : model
        let url = "https://\(host).example/ok"
        let write = try await runBuiltNFCTool(["write", "--device", device, "--url", url])
        #expect(write.status == 0, "\(write.standardError)")
        let written = try T5TJudge.TagFile(path: file, blocks: chip.blocks)
        let message = try #require(written.judged?.message)
        // One short URI record: D1 01 len 55 prefix-code then the rest (04 = https://).
        #expect(Array(message.prefix(2)) == [0xD1, 0x01] && message[3] == 0x55 && message[4] == 0x04, "\(message)")
        #expect(String(decoding: message.dropFirst(5), as: UTF8.self) == "\(host).example/ok")
        let read = try await runBuiltNFCTool(["read", "--device", device])
        #expect(read.status == 0 && read.standardOutput.contains(url), "\(read.standardOutput)\(read.standardError)")
        let lock = try await runBuiltNFCTool(["lock", "--device", device, "--yes"])
        #expect(lock.status == 0, "\(lock.standardError)")
        let locked = try T5TJudge.TagFile(path: file, blocks: chip.blocks)
        let judged = try #require(locked.judged)
        #expect(judged.writeAccess == 3)
        #expect(locked.lockedBlocks.prefix((4 + judged.area + 3) / 4).allSatisfy { $0 })
        let again = try await runBuiltNFCTool(["write", "--device", device, "--url", "https://no.example"])
        #expect(again.status != 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == locked.raw, "a refused write changes nothing")
    }

    @Test("batch writes one tag of each chip (--format for the blank Tag-it): the ledger row is done and the tag file holds the URL", arguments: chips.map(\.model))
    func batch(model: String) async throws {
        let chip = try #require(Self.chips.first { $0.model == model })
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json").path
        let ledger = directory.appendingPathComponent("run.db").path
        let run = try await runBuiltNFCTool(
            ["batch", "--device", "sim:\(model)?poll-wait=0&file=\(file)", "--url", "https://b.example/{n}", "--count", "1",
             "--ledger", ledger, "--json"] + (chip.blank ? ["--format", "--yes"] : []))
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        let rows = try await runPython(
            "import json, sqlite3, sys\ndb = sqlite3.connect(sys.argv[1])\nprint(json.dumps([r[0] for r in db.execute('select status from attempts')]))",
            [ledger])
        #expect(rows.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "[\"done\"]", "\(rows.standardOutput)")
        let message = try #require(try T5TJudge.TagFile(path: file, blocks: chip.blocks).judged?.message)
        #expect(String(decoding: message.dropFirst(5), as: UTF8.self) == "b.example/1", "\(message)")
    }

    @Test("a chip whose maker the table does not know (UID E0 16 …) is a plain Type 5 tag: info says so, format, write and a read in a fresh process work, the tag file holds the URL; lock without the CC's Lock Block feature exits 10 with the file unchanged")
    func unknownChip() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("unknown.json").path
        let device = "sim:slix2?uid=E016123453494D01&file=\(file)"
        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.status == 0 && info.output.contains("ISO 15693 tag") && info.output.contains("unknown (code 16)"), "\(info.output)")
        let format = try await runBuiltNFCTool(["format", "--device", device, "--force", "--yes"])
        #expect(format.status == 0, "\(format.output)")
        let write = try await runBuiltNFCTool(["write", "--device", device, "--url", "https://u.example/t5"])
        #expect(write.status == 0, "\(write.output)")
        let read = try await runBuiltNFCTool(["read", "--device", device])
        #expect(read.status == 0 && read.output.contains("https://u.example/t5"), "\(read.output)")
        let message = try #require(try T5TJudge.TagFile(path: file, blocks: 80).judged?.message)
        #expect(String(decoding: message.dropFirst(5), as: UTF8.self) == "u.example/t5")
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let lock = try await runBuiltNFCTool(["lock", "--device", device, "--yes"])
        #expect(lock.status == 10, "\(lock.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }

    @Test("protect with a password on a Type 5 chip whose passwords NFCKit does not set (ICODE DNA, Tag-it): exit 10 naming the chips it does, not 'needs an NTAG21x'; the tag file unchanged", arguments: ["icode-dna", "tagit-hfi-plus"])
    func protectRefused(model: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json").path
        let password = directory.appendingPathComponent("new.pwd").path
        try "11223344".write(toFile: password, atomically: true, encoding: .utf8)
        let device = "sim:\(model)?file=\(file)"
        _ = try await runBuiltNFCTool(["info", "--device", device])
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let refused = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", password, "--yes"])
        #expect(refused.status == 10, "\(refused.standardError)")
        #expect(refused.standardError.contains("'nfctool protect'") && refused.standardError.contains("SLIX2"), "\(refused.standardError)")
        #expect(!refused.standardError.contains("NTAG21x"), "the refusal of protect does not send the user to another chip family: \(refused.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }

    @Test("verify --expect-genuine on sim:icode-dna with Proxmark3's ICODE DNA sample (UID and signature) passes; the stand-in signature fails (exit 8)")
    func originality() async throws {
        let uid = "E0040118009B5FEE"
        let signature = "32D9E7579CD77E6F1FA11419231E874826984C5F189FDE1421684563A9663377"
        let genuine = try await runBuiltNFCTool(["verify", "--device", "sim:icode-dna?uid=\(uid)&signature=\(signature)", "--expect-genuine"])
        #expect(genuine.status == 0, "\(genuine.standardOutput)\(genuine.standardError)")
        let standIn = try await runBuiltNFCTool(["verify", "--device", "sim:icode-dna?uid=\(uid)", "--expect-genuine"])
        #expect(standIn.status == 8, "\(standIn.standardOutput)\(standIn.standardError)")
    }

    @Test("hostile Tag-it images: an MLEN past the memory and an NDEF length past the area: read ends with a status (non-zero for the length), a write too long for the chip is refused with the file unchanged")
    func hostileImages() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // 64 blocks: memory (256 bytes), 64 lock bytes, DSFID, AFI, flags.
        let images: [(String, [UInt8])] = [
            ("mlen-huge", [0xE1, 0x40, 0xFF, 0x09, 0x03, 0x05, 0xD1, 0x01, 0x01, 0x55, 0x00, 0xFE]),
            ("length-past-area", [0xE1, 0x40, 0x02, 0x09, 0x03, 0x40, 0xD1, 0x01, 0x3C, 0x55, 0x00]),
        ]
        for (name, head) in images {
            let memory = head + [UInt8](repeating: 0, count: 256 - head.count) + [UInt8](repeating: 0, count: 67)
            let file = directory.appendingPathComponent("\(name).json").path
            let state = "{\"model\":\"tagit-hfi-plus\",\"uid\":\"E007800053494D09\",\"memory\":\"\(hexString(memory))\"}"
            try state.write(toFile: file, atomically: true, encoding: .utf8)
            let before = try Data(contentsOf: URL(fileURLWithPath: file))
            let device = "sim:?file=\(file)"
            let read = try await runBuiltNFCTool(["read", "--device", device])
            // An MLEN past the chip is cut at the memory GET SYSTEM INFORMATION reports; an NDEF
            // length past the area is malformed.
            #expect((0..<128).contains(read.status), "\(name): \(read.standardOutput)")
            if name == "length-past-area" { #expect(read.status != 0, "\(read.standardOutput)") }
            let write = try await runBuiltNFCTool(["write", "--device", device, "--url", "https://" + String(repeating: "h", count: 300) + ".example"])
            #expect(write.status != 0 && write.status != -1, "\(name): \(write.standardOutput)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "\(name): nothing written")
        }
    }
}
