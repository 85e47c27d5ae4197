import Foundation
import NFCTestSupport
import Testing
@testable import NFCToolCore

/// What a Type 2 tag holds and what nfctool says of it: the mirror turned off by writes that do
/// not keep it, one-time programmable CC and lock bits judged before the first write, and
/// `verify --expect-read-only` meaning physically locked. Judged from outside: the built
/// nfctool in fresh processes and the sim tag file's bytes.
@Suite("Type 2 tag state: the built nfctool on a tag file", .tags(.endToEnd), .timeLimit(.minutes(10)))
struct Type2TagStateEndToEndTests {
    /// The memory of the tag file at `file`, one byte per element.
    static func memory(_ file: URL) throws -> [UInt8] {
        let state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let hex = Array(try #require(state["memory"] as? String).utf8)
        return stride(from: 0, to: hex.count - 1, by: 2).compactMap { UInt8(String(decoding: hex[$0..<($0 + 2)], as: UTF8.self), radix: 16) }
    }

    /// Replaces the tag file's bytes from `address` on with `bytes` (the tag as a hostile or
    /// worn one would be).
    static func setMemory(_ file: URL, at address: Int, _ bytes: [UInt8]) throws {
        var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var memory = try memory(file)
        memory.replaceSubrange(address..<(address + bytes.count), with: bytes)
        state["memory"] = memory.map { String(format: "%02X", $0) }.joined()
        try JSONSerialization.data(withJSONObject: state).write(to: file)
    }

    /// NTAG213 CFG0 (page 29h) and CFG1 (page 2Ah), datasheet 8.5.
    static let ntag213CFG0 = 0x29 * 4

    // MARK: - The mirror

    @Test("after a {mirror:uid} write, a plain write turns the mirror off (MIRROR_CONF 00) and the new URL reads back in a fresh process")
    func plainWriteAfterMirror() async throws {
        do {
            let (directory, device, file) = try await WriteChecksEndToEndTests.tag("ntag213")
            defer { try? FileManager.default.removeItem(at: directory) }
            let mirrored = try await runBuiltNFCTool(["write", "--device", device, "--url", "https://ex.io/t?m={mirror:uid}"])
            #expect(mirrored.status == 0, "\(mirrored.standardError)")
            #expect(try Self.memory(file)[Self.ntag213CFG0] & 0xC0 == 0x40)
            let plain = try await runBuiltNFCTool(["write", "--device", "sim:?file=\(file.path)", "--url", "https://ex.io/plain"])
            #expect(plain.status == 0, "\(plain.standardError)")
            #expect(try Self.memory(file)[Self.ntag213CFG0] & 0xC0 == 0, "MIRROR_CONF still set")
            let read = try await runBuiltNFCTool(["read", "--device", "sim:?file=\(file.path)", "--json"])
            #expect(read.standardOutput.contains("https://ex.io/plain\""), "\(read.standardOutput)")
        }
    }

    @Test("after a {mirror:uid} write, erase then a plain write leave the mirror off and the new URL on the tag")
    func eraseThenWriteAfterMirror() async throws {
        do {
            let (directory, device, file) = try await WriteChecksEndToEndTests.tag("ntag213")
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try await runBuiltNFCTool(["write", "--device", device, "--url", "https://ex.io/t?m={mirror:uid}"]).status == 0)
            let erase = try await runBuiltNFCTool(["erase", "--device", "sim:?file=\(file.path)"])
            #expect(erase.status == 0, "\(erase.standardError)")
            #expect(try Self.memory(file)[Self.ntag213CFG0] & 0xC0 == 0, "erase left the mirror on")
            #expect(try await runBuiltNFCTool(["write", "--device", "sim:?file=\(file.path)", "--url", "https://ex.io/plain"]).status == 0)
            let read = try await runBuiltNFCTool(["read", "--device", "sim:?file=\(file.path)", "--json"])
            #expect(read.standardOutput.contains("https://ex.io/plain\""), "\(read.standardOutput)")
        }
    }

    @Test("after a {mirror:uid} write, batch --count 1 with a plain URL writes it (exit 0, mirror off) and a fresh read shows it")
    func batchAfterMirror() async throws {
        do {
            let (directory, device, file) = try await WriteChecksEndToEndTests.tag("ntag213")
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try await runBuiltNFCTool(["write", "--device", device, "--url", "https://ex.io/t?m={mirror:uid}"]).status == 0)
            let ledger = directory.appendingPathComponent("run.db")
            let batch = try await runBuiltNFCTool([
                "batch", "--device", "sim:?file=\(file.path)", "--url", "https://ex.io/plain", "--ledger", ledger.path, "--count", "1",
            ])
            #expect(batch.status == 0, "\(batch.standardOutput) \(batch.standardError)")
            #expect(try Self.memory(file)[Self.ntag213CFG0] & 0xC0 == 0, "MIRROR_CONF still set")
            let read = try await runBuiltNFCTool(["read", "--device", "sim:?file=\(file.path)", "--json"])
            #expect(read.standardOutput.contains("https://ex.io/plain\""), "\(read.standardOutput)")
        }
    }

    @Test("write --plan on a mirrored NTAG213 lists the CFG0 write that turns the mirror off, and the tag file is unchanged")
    func planShowsMirrorOff() async throws {
        do {
            let (directory, device, file) = try await WriteChecksEndToEndTests.tag("ntag213")
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try await runBuiltNFCTool(["write", "--device", device, "--url", "https://ex.io/t?m={mirror:uid}"]).status == 0)
            let before = try Data(contentsOf: file)
            let plan = try await runBuiltNFCTool(["write", "--device", "sim:?file=\(file.path)", "--url", "https://ex.io/plain", "--plan"])
            #expect(plan.status == 0, "\(plan.standardError)")
            #expect(plan.standardOutput.contains("page 41 (0x29)"), "\(plan.standardOutput)")
            #expect(plan.standardOutput.contains("mirror off"), "\(plan.standardOutput)")
            #expect(try Data(contentsOf: file) == before)
        }
    }

    @Test("info shows the mirror (UID at page and byte) and the NFC counter configuration, in text and JSON")
    func infoShowsMirror() async throws {
        do {
            let (directory, device, file) = try await WriteChecksEndToEndTests.tag("ntag213")
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try await runBuiltNFCTool(["write", "--device", device, "--url", "https://ex.io/t?m={mirror:uid}x{mirror:counter}"]).status == 0)
            let info = try await runBuiltNFCTool(["info", "--device", "sim:?file=\(file.path)"])
            #expect(info.status == 0, "\(info.standardError)")
            #expect(info.standardOutput.contains("  mirror:       UID and NFC counter from page"), "\(info.standardOutput)")
            #expect(info.standardOutput.contains("  NFC counter:  enabled\n"), "\(info.standardOutput)")
            let json = try await runBuiltNFCTool(["info", "--device", "sim:?file=\(file.path)", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
            let mirror = try #require(object["mirror"] as? String)
            #expect(mirror.hasPrefix("UID and NFC counter from page"))
            #expect(object["nfcCounter"] as? String == "enabled")
        }
    }

    // MARK: - One-time programmable CC

    @Test("format --force on an NTAG213 whose CC3 is F0 (read access refused, OTP) exits 10, nothing written, and says why")
    func formatRefusesUnreadableCC() async throws {
        do {
            let (directory, device, file) = try await WriteChecksEndToEndTests.tag("ntag213")
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try await runBuiltNFCTool(["write", "--device", device, "--url", "https://ex.io/keep"]).status == 0)
            try Self.setMemory(file, at: 15, [0xF0])
            let before = try Data(contentsOf: file)
            let run = try await runBuiltNFCTool(["format", "--force", "--yes", "--device", "sim:?file=\(file.path)"])
            #expect(run.status == 10, "\(run.standardOutput) \(run.standardError)")
            #expect(run.standardError.contains("one-time programmable"), "\(run.standardError)")
            #expect(run.standardError.contains("nothing was written"), "\(run.standardError)")
            #expect(try Data(contentsOf: file) == before)
        }
    }

    // MARK: - Lock

    @Test("lock --yes on an NTAG213 whose static block-locking bits are set exits 10 before any write: the tag file is unchanged")
    func lockRefusesFrozenLockBits() async throws {
        do {
            let (directory, device, file) = try await WriteChecksEndToEndTests.tag("ntag213")
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try await runBuiltNFCTool(["write", "--device", device, "--url", "https://ex.io/keep"]).status == 0)
            try Self.setMemory(file, at: 10, [0x07])
            let before = try Data(contentsOf: file)
            let run = try await runBuiltNFCTool(["lock", "--yes", "--device", "sim:?file=\(file.path)"])
            #expect(run.status == 10, "\(run.standardOutput) \(run.standardError)")
            #expect(run.standardError.contains("block-locking bits"), "\(run.standardError)")
            #expect(run.standardError.contains("nothing was written"), "\(run.standardError)")
            #expect(try Data(contentsOf: file) == before)
        }
    }

    // MARK: - verify --expect-read-only

    @Test("verify --expect-read-only on an NTAG213 whose CC3 alone says read-only (no lock bit, no CFGLCK) exits 8 and names each missing part")
    func verifyReadOnlyNeedsLockBits() async throws {
        do {
            let (directory, device, file) = try await WriteChecksEndToEndTests.tag("ntag213")
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try await runBuiltNFCTool(["write", "--device", device, "--url", "https://ex.io/keep"]).status == 0)
            try Self.setMemory(file, at: 15, [0x0F])
            let run = try await runBuiltNFCTool(["verify", "--expect-read-only", "--device", "sim:?file=\(file.path)"])
            #expect(run.status == 8, "\(run.standardOutput) \(run.standardError)")
            #expect(run.standardOutput.contains("the CC page (3) is not locked"), "\(run.standardOutput)")
            #expect(run.standardOutput.contains("pages 4–15 are not locked"), "\(run.standardOutput)")
            #expect(run.standardOutput.contains("pages 16–39 are not locked"), "\(run.standardOutput)")
            #expect(run.standardOutput.contains("CFGLCK is clear"), "\(run.standardOutput)")
        }
    }

    @Test("verify --expect-read-only on an NTAG213 locked but for its static lock bits (frozen by block-locking bits) exits 8 naming pages 4–15")
    func verifyReadOnlyHalfLocked() async throws {
        do {
            let (directory, device, file) = try await WriteChecksEndToEndTests.tag("ntag213")
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try await runBuiltNFCTool(["write", "--device", device, "--url", "https://ex.io/keep"]).status == 0)
            // CC3 0F, the dynamic lock bytes (page 28h) all set, CFGLCK (ACCESS bit 6, page 2Ah);
            // static lock bytes 07 00: block-locking bits only.
            try Self.setMemory(file, at: 10, [0x07, 0x00])
            try Self.setMemory(file, at: 15, [0x0F])
            try Self.setMemory(file, at: 0x28 * 4, [0xFF, 0x0F, 0x3F])
            try Self.setMemory(file, at: 0x2A * 4, [0x40])
            let run = try await runBuiltNFCTool(["verify", "--expect-read-only", "--device", "sim:?file=\(file.path)"])
            #expect(run.status == 8, "\(run.standardOutput) \(run.standardError)")
            #expect(run.standardOutput.contains("pages 4–15 are not locked (static lock bytes 07 00)"), "\(run.standardOutput)")
            #expect(!run.standardOutput.contains("pages 16"), "\(run.standardOutput)")
            #expect(!run.standardOutput.contains("CFGLCK"), "\(run.standardOutput)")
        }
    }

    @Test("verify --expect-read-only passes an NTAG213 after lock --yes (every lock bit, CC3 and CFGLCK set)")
    func verifyReadOnlyAfterLock() async throws {
        do {
            let (directory, device, file) = try await WriteChecksEndToEndTests.tag("ntag213")
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try await runBuiltNFCTool(["write", "--device", device, "--url", "https://ex.io/keep"]).status == 0)
            let lock = try await runBuiltNFCTool(["lock", "--yes", "--device", "sim:?file=\(file.path)"])
            #expect(lock.status == 0, "\(lock.standardError)")
            let run = try await runBuiltNFCTool(["verify", "--expect-read-only", "--device", "sim:?file=\(file.path)"])
            #expect(run.status == 0, "\(run.standardOutput) \(run.standardError)")
        }
    }

    // MARK: - Read protection

    /// An NTAG213 holding a URL, then protected with `--read-protect --from-page FROM`; returns
    /// the directory, the tag file and the password file.
    static func readProtected(from page: Int) async throws -> (directory: URL, file: URL) {
        let (directory, device, file) = try await WriteChecksEndToEndTests.tag("ntag213")
        #expect(try await runBuiltNFCTool(["write", "--device", device, "--url", "https://ex.io/keep"]).status == 0)
        let password = directory.appendingPathComponent("tag.pwd")
        try "11223344:AABB".write(to: password, atomically: true, encoding: .utf8)
        let protect = try await runBuiltNFCTool([
            "protect", "--device", "sim:?file=\(file.path)", "--password-file", password.path, "--read-protect", "--from-page", String(page),
        ])
        #expect(protect.status == 0, "\(protect.standardError)")
        return (directory, file)
    }

    @Test("dump of an NTAG213 read-protected from page 3 shows pages 0–2 and marks page 3 on as unreadable, never page 0's bytes as page 3")
    func dumpMarksRolledOverPages() async throws {
        do {
            let (directory, file) = try await Self.readProtected(from: 3)
            defer { try? FileManager.default.removeItem(at: directory) }
            let memory = try Self.memory(file)
            let run = try await runBuiltNFCTool(["dump", "--device", "sim:?file=\(file.path)", "--json"])
            #expect(run.status == 0, "\(run.standardError)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
            let units = try #require(object["units"] as? [[String: Any]])
            #expect(units.count == 45)
            for unit in units {
                let label = try #require(unit["label"] as? String)
                let page = try #require(Int(label))
                let hex = unit["hex"] as? String
                if page < 3 {
                    #expect(hex == memory[(page * 4)..<(page * 4 + 4)].map { String(format: "%02X", $0) }.joined(), "page \(page)")
                } else {
                    #expect(hex == nil, "page \(page) shown as \(hex ?? "")")
                }
            }
        }
    }

    @Test("info on an NTAG213 read-protected from page 3 does not build CC3 or a lock state from rolled-over bytes")
    func infoIgnoresRolledOverCC() async throws {
        do {
            let (directory, file) = try await Self.readProtected(from: 3)
            defer { try? FileManager.default.removeItem(at: directory) }
            let run = try await runBuiltNFCTool(["info", "--device", "sim:?file=\(file.path)"])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("CC3: unknown"), "\(run.standardOutput)")
            #expect(!run.standardOutput.contains("lock:        read-only"), "\(run.standardOutput)")
        }
    }

    @Test("read and write of a read-protected NTAG213 without its password exit 9 and say how to give it")
    func readProtectedNeedsPassword() async throws {
        do {
            let (directory, file) = try await Self.readProtected(from: 4)
            defer { try? FileManager.default.removeItem(at: directory) }
            let read = try await runBuiltNFCTool(["read", "--device", "sim:?file=\(file.path)"])
            #expect(read.status == 9, "\(read.standardError)")
            #expect(read.standardError.contains("--password-file"), "\(read.standardError)")
            let before = try Data(contentsOf: file)
            let write = try await runBuiltNFCTool(["write", "--device", "sim:?file=\(file.path)", "--url", "https://ex.io/new"])
            #expect(write.status == 9, "\(write.standardError)")
            #expect(write.standardError.contains("--password-file"), "\(write.standardError)")
            #expect(try Data(contentsOf: file) == before)
        }
    }

    @Test("dump of an NTAG213 that refuses every read (AUTH0 0, PROT) exits 9 saying it is read-protected, not that it left the field")
    func dumpOfUnreadableTag() async throws {
        do {
            let (directory, file) = try await Self.readProtected(from: 4)
            defer { try? FileManager.default.removeItem(at: directory) }
            try Self.setMemory(file, at: Self.ntag213CFG0 + 3, [0x00])
            let run = try await runBuiltNFCTool(["dump", "--device", "sim:?file=\(file.path)"])
            #expect(run.status == 9, "\(run.standardError)")
            #expect(!run.standardError.contains("left the field"), "\(run.standardError)")
            #expect(run.standardError.contains("read-protected"), "\(run.standardError)")
        }
    }
}

/// `verify --expect-read-only` on an ICODE SLIX2 means its blocks are locked, not that its CC
/// says so. Judged from outside: the built nfctool in fresh processes and the tag file.
@Suite("Type 5 read-only: the built nfctool on a tag file", .tags(.endToEnd), .timeLimit(.minutes(5)))
struct Type5ReadOnlyEndToEndTests {
    @Test("verify --expect-read-only on a SLIX2 whose CC alone says read-only (no block locked) exits 8 naming the unlocked blocks; after lock --yes it passes")
    func verifyReadOnlyNeedsLockedBlocks() async throws {
        do {
            let (directory, device, file) = try await WriteChecksEndToEndTests.tag("slix2")
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try await runBuiltNFCTool(["write", "--device", device, "--url", "https://ex.io/keep"]).status == 0)
            // CC byte 1: version 4.0, write access 3 (never); no LOCK BLOCK sent.
            try Type2TagStateEndToEndTests.setMemory(file, at: 1, [0x43])
            let run = try await runBuiltNFCTool(["verify", "--expect-read-only", "--device", "sim:?file=\(file.path)"])
            #expect(run.status == 8, "\(run.standardOutput) \(run.standardError)")
            #expect(run.standardOutput.contains("of the CC and NDEF area are not locked"), "\(run.standardOutput)")
            #expect(!run.standardOutput.contains("write access"), "\(run.standardOutput)")
            let lock = try await runBuiltNFCTool(["lock", "--yes", "--device", "sim:?file=\(file.path)"])
            #expect(lock.status == 0, "\(lock.standardError)")
            #expect(try await runBuiltNFCTool(["verify", "--expect-read-only", "--device", "sim:?file=\(file.path)"]).status == 0)
        }
    }
}

/// `verify --expect-read-only` on a MIFARE Classic means every NFC sector's access bits keep its
/// data blocks and trailer from being written, not that the GPB says read-only. Judged from
/// outside: the built nfctool in fresh processes and the tag file.
@Suite("Classic read-only: the built nfctool on a tag file", .tags(.endToEnd), .timeLimit(.minutes(5)))
struct ClassicReadOnlyEndToEndTests {
    @Test("verify --expect-read-only on a Classic 1K whose GPBs alone say read-only (access bits still 7F 07 88) exits 8 naming the sectors; after lock --yes it passes")
    func verifyReadOnlyNeedsAccessBits() async throws {
        do {
            let (directory, device, file) = try await WriteChecksEndToEndTests.tag("classic1k")
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try await runBuiltNFCTool(["format", "--yes", "--device", device]).status == 0)
            #expect(try await runBuiltNFCTool(["write", "--device", "sim:?file=\(file.path)", "--url", "https://ex.io/keep"]).status == 0)
            let formatted = try Data(contentsOf: file)
            // GPB (trailer byte 9) of NFC sectors 1–15: 43, read-only; the access bits are untouched.
            for sector in 1..<16 { try Type2TagStateEndToEndTests.setMemory(file, at: (sector * 4 + 3) * 16 + 9, [0x43]) }
            let run = try await runBuiltNFCTool(["verify", "--expect-read-only", "--device", "sim:?file=\(file.path)"])
            #expect(run.status == 8, "\(run.standardOutput) \(run.standardError)")
            #expect(run.standardOutput.contains("NFC sectors 1–15: the access bits let a key write the data blocks"), "\(run.standardOutput)")
            #expect(run.standardOutput.contains("NFC sectors 1–15: the trailer's access bits can still be rewritten"), "\(run.standardOutput)")
            #expect(!run.standardOutput.contains("GPB"), "\(run.standardOutput)")
            try formatted.write(to: file)
            let lock = try await runBuiltNFCTool(["lock", "--yes", "--device", "sim:?file=\(file.path)"])
            #expect(lock.status == 0, "\(lock.standardError)")
            let locked = try await runBuiltNFCTool(["verify", "--expect-read-only", "--device", "sim:?file=\(file.path)"])
            #expect(locked.status == 0, "\(locked.standardOutput) \(locked.standardError)")
        }
    }
}

/// `verify --expect-read-only` on a FeliCa Lite-S means MC freezes the S_PADs, not that the
/// attribute block's RWFlag says read-only. Judged from outside: the built nfctool in fresh
/// processes and the tag file.
@Suite("Type3 read-only: the built nfctool on a tag file", .tags(.endToEnd), .timeLimit(.minutes(5)))
struct Type3ReadOnlyEndToEndTests {
    @Test("verify --expect-read-only on a FeliCa Lite-S whose RWFlag alone says read-only (MC untouched) exits 8 naming MC_SP and MC_ALL; after lock --yes it passes")
    func verifyReadOnlyNeedsMemoryConfiguration() async throws {
        do {
            let (directory, device, file) = try await WriteChecksEndToEndTests.tag("felica-lite-s")
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try await runBuiltNFCTool(["write", "--device", device, "--url", "https://ex.io/keep"]).status == 0)
            let written = try Data(contentsOf: file)
            // Attribute block: RWFlag (byte 10) 00, checksum (bytes 14–15) = sum of bytes 0–13.
            var attribute = Array(try Type2TagStateEndToEndTests.memory(file)[0..<16])
            attribute[10] = 0x00
            let sum = attribute[0..<14].reduce(0) { $0 + Int($1) }
            attribute[14] = UInt8(sum >> 8)
            attribute[15] = UInt8(sum & 0xFF)
            try Type2TagStateEndToEndTests.setMemory(file, at: 0, attribute)
            let run = try await runBuiltNFCTool(["verify", "--expect-read-only", "--device", "sim:?file=\(file.path)"])
            #expect(run.status == 8, "\(run.standardOutput) \(run.standardError)")
            #expect(run.standardOutput.contains("S_PADs 0–13 still writable (MC_SP FF FF)"), "\(run.standardOutput)")
            #expect(run.standardOutput.contains("MC_SP can still be changed"), "\(run.standardOutput)")
            #expect(run.standardOutput.contains("MC_ALL is FF"), "\(run.standardOutput)")
            #expect(!run.standardOutput.contains("RWFlag"), "\(run.standardOutput)")
            try written.write(to: file)
            let lock = try await runBuiltNFCTool(["lock", "--yes", "--device", "sim:?file=\(file.path)"])
            #expect(lock.status == 0, "\(lock.standardError)")
            let locked = try await runBuiltNFCTool(["verify", "--expect-read-only", "--device", "sim:?file=\(file.path)"])
            #expect(locked.status == 0, "\(locked.standardOutput) \(locked.standardError)")
        }
    }
}

/// `verify --expect-read-only` on a Type 4 tag means a CC write access of FF and, on an NTAG
/// 424 DNA, an NDEF file whose settings refuse writing. Type 4 has no `lock`: the locked tags
/// are built in the tag file. Judged from outside: the built nfctool in fresh processes and
/// the tag file.
@Suite("Type4 read-only: the built nfctool on a tag file", .tags(.endToEnd), .timeLimit(.minutes(5)))
struct Type4ReadOnlyEndToEndTests {
    /// The CC file's write access byte for the NDEF file (CC offset 14; the CC file comes first
    /// in an ntag424 tag file's memory).
    static let ccWriteAccess = 14

    /// Sets the NDEF file's access rights in an ntag424 tag file (`settings2`: FileType,
    /// FileOption, then `RW‖Change`, `Read‖Write`, then the size).
    static func setNDEFFileAccess(_ file: URL, _ rights: [UInt8]) throws {
        var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var attributes = try #require(state["attributes"] as? [String: Any])
        let settings = try #require(attributes["settings2"] as? String)
        attributes["settings2"] = String(settings.prefix(4)) + rights.map { String(format: "%02X", $0) }.joined() + String(settings.dropFirst(8))
        state["attributes"] = attributes
        try JSONSerialization.data(withJSONObject: state).write(to: file)
    }

    @Test("verify --expect-read-only on an NTAG 424 DNA whose CC alone says read-only (NDEF file write access free) exits 8 naming the access rights; with write and read-write never it passes")
    func verifyReadOnlyNeedsNTAG424FileSettings() async throws {
        do {
            let (directory, _, file) = try await WriteChecksEndToEndTests.tag("ntag424")
            defer { try? FileManager.default.removeItem(at: directory) }
            try Type2TagStateEndToEndTests.setMemory(file, at: Self.ccWriteAccess, [0xFF])
            let run = try await runBuiltNFCTool(["verify", "--expect-read-only", "--device", "sim:?file=\(file.path)"])
            #expect(run.status == 8, "\(run.standardOutput) \(run.standardError)")
            #expect(run.standardOutput.contains("NDEF file's access rights allow writing (write free, read-write free"), "\(run.standardOutput)")
            #expect(!run.standardOutput.contains("CC's write access"), "\(run.standardOutput)")
            // RW F, Change 0; Read E, Write F: key 0 can still open the file again.
            try Self.setNDEFFileAccess(file, [0xF0, 0xEF])
            let reopenable = try await runBuiltNFCTool(["verify", "--expect-read-only", "--device", "sim:?file=\(file.path)"])
            #expect(reopenable.status == 8, "\(reopenable.standardOutput) \(reopenable.standardError)")
            #expect(reopenable.standardOutput.contains("settings can still be changed (change key 0"), "\(reopenable.standardOutput)")
            // RW F, Change F; Read E, Write F.
            try Self.setNDEFFileAccess(file, [0xFF, 0xEF])
            let locked = try await runBuiltNFCTool(["verify", "--expect-read-only", "--device", "sim:?file=\(file.path)"])
            #expect(locked.status == 0, "\(locked.standardOutput) \(locked.standardError)")
        }
    }

    @Test("verify --expect-read-only on a Type 4 tag whose CC write access is proprietary (80, read as read-only) exits 8 naming the CC byte; FF passes")
    func verifyReadOnlyNeedsCCNever() async throws {
        do {
            let (directory, _, file) = try await WriteChecksEndToEndTests.tag("ntag424")
            defer { try? FileManager.default.removeItem(at: directory) }
            try Self.setNDEFFileAccess(file, [0xF0, 0xEF])
            try Type2TagStateEndToEndTests.setMemory(file, at: Self.ccWriteAccess, [0x80])
            let run = try await runBuiltNFCTool(["verify", "--expect-read-only", "--device", "sim:?file=\(file.path)"])
            #expect(run.status == 8, "\(run.standardOutput) \(run.standardError)")
            #expect(run.standardOutput.contains("the CC's write access for the NDEF file is 80, not FF (never)"), "\(run.standardOutput)")
            let generic = try await WriteChecksEndToEndTests.tag("type4")
            defer { try? FileManager.default.removeItem(at: generic.directory) }
            var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: generic.file)) as? [String: Any])
            state["readOnly"] = true
            try JSONSerialization.data(withJSONObject: state).write(to: generic.file)
            let locked = try await runBuiltNFCTool(["verify", "--expect-read-only", "--device", "sim:?file=\(generic.file.path)"])
            #expect(locked.status == 0, "\(locked.standardOutput) \(locked.standardError)")
        }
    }
}

/// `dump` of a MIFARE Classic whose sectors no key tried opens: the card is there, a key is
/// missing. Judged from outside: the built nfctool in a fresh process.
@Suite("Classic dump without a key: the built nfctool on a tag file", .tags(.endToEnd), .timeLimit(.minutes(5)))
struct ClassicDumpWithoutKeyEndToEndTests {
    @Test("dump of a Classic 1K whose every key A is unknown exits 9 and asks for --key, not 7 'left the field'")
    func dumpWithoutKey() async throws {
        do {
            let (directory, _, file) = try await WriteChecksEndToEndTests.tag("classic1k")
            defer { try? FileManager.default.removeItem(at: directory) }
            // Key A of each sector trailer (bytes 0–5 of block 4s + 3) becomes one no default tries.
            for sector in 0..<16 {
                try Type2TagStateEndToEndTests.setMemory(file, at: (sector * 4 + 3) * 16, [0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
            }
            let run = try await runBuiltNFCTool(["dump", "--device", "sim:?file=\(file.path)"])
            #expect(run.status == 9, "\(run.standardError)")
            #expect(run.standardError.contains("--key"), "\(run.standardError)")
            #expect(!run.standardError.contains("left the field"), "\(run.standardError)")
        }
    }
}

/// `dump` of a Type 4 tag whose CC file is shorter than its CCLEN: the file is shown as far as
/// it goes. Judged from outside: the built nfctool in a fresh process.
@Suite("Type 4 dump of a short CC: the built nfctool on a tag file", .tags(.endToEnd), .timeLimit(.minutes(5)))
struct Type4ShortCCDumpEndToEndTests {
    @Test("dump --json of a Type 4 tag whose CC file holds 3 bytes (CCLEN 15) exits 0 showing them, the NDEF file unreadable")
    func dumpShortCC() async throws {
        do {
            let (directory, _, file) = try await WriteChecksEndToEndTests.tag("type4")
            defer { try? FileManager.default.removeItem(at: directory) }
            var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            state["attributes"] = ["capabilityContainer": "000F20"]
            try JSONSerialization.data(withJSONObject: state).write(to: file)
            let run = try await runBuiltNFCTool(["dump", "--device", "sim:?file=\(file.path)", "--json"])
            #expect(run.status == 0, "\(run.standardError)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
            let units = try #require(object["units"] as? [[String: Any]])
            #expect(units.first?["label"] as? String == "CC")
            #expect(units.first?["hex"] as? String == "000F20")
            #expect(units.count == 2 && units[1]["hex"] is NSNull, "\(units)")
        }
    }
}
