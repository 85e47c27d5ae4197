import NFCTestSupport
import Foundation
import NFCCore
import Testing
@testable import PN532Emulator


/// Runs `body` with an emulator started with `arguments`, stopping it afterwards.
private func withEmulator<T>(_ arguments: [String], _ body: (EmulatorProcess) async throws -> T) async throws -> T {
    let emulator = try await EmulatorProcess.start(arguments)
    defer { emulator.stop() }
    return try await body(emulator)
}

@Suite("libnfc's own tools against pn532-emulator on a pty", .tags(.emulator, .endToEnd), .timeLimit(.minutes(10)))
struct EndToEndTests {
    @Test("nfc-list prints the NTAG215's ATQA, UID and SAK", ExternalTool.nfcList.trait)
    func nfcListNTAG() async throws {
        try await withEmulator(["--tag", "ntag215"]) { emulator in
            let run = try await runTool(ExternalTool.nfcList.require(), [], against: emulator)
            #expect(!run.timedOut)
            #expect(run.status == 0)
            #expect(run.output.contains("1 ISO14443A passive target(s) found:"))
            #expect(run.output.contains("ATQA (SENS_RES): 00  44"))
            #expect(run.output.contains("UID (NFCID1): 04  53  49  4d  00  00  01"))
            #expect(run.output.contains("SAK (SEL_RES): 00"))
            // Every command frame is acknowledged before it is answered.
            let trace = emulator.trace
            let commands = trace.indices.filter { trace[$0].contains(" > D4 ") }
            #expect(commands.count > 10)
            for index in commands where index + 1 < trace.count {
                #expect(trace[index + 1].hasSuffix(" < ACK"), "\(trace[index])")
            }
        }
    }

    @Test("nfc-list lists both tags of a field of two (ntag215+ntag213), as it lists several real tags", ExternalTool.nfcList.trait)
    func nfcListTwoTags() async throws {
        try await withEmulator(["--tag", "ntag215+ntag213"]) { emulator in
            let run = try await runTool(ExternalTool.nfcList.require(), [], against: emulator)
            #expect(!run.timedOut)
            #expect(run.status == 0)
            #expect(run.output.contains("2 ISO14443A passive target(s) found:"), "\(run.output)")
            // The two UIDs of the field: the model's first UID, and the next (a field counts up
            // as a stack does).
            #expect(run.output.contains("UID (NFCID1): 04  53  49  4d  00  00  01"))
            #expect(run.output.contains("UID (NFCID1): 04  53  49  4d  00  00  02"))
        }
    }

    @Test("nfc-list -v prints a Type 4 tag's ATS", ExternalTool.nfcList.trait)
    func nfcListType4() async throws {
        try await withEmulator(["--tag", "type4"]) { emulator in
            let run = try await runTool(ExternalTool.nfcList.require(), ["-v"], against: emulator)
            #expect(run.status == 0)
            #expect(run.output.contains("SAK (SEL_RES): 20"))
            #expect(run.output.contains("ATS: 75  77  81  02  80"))
            #expect(run.output.contains("* Compliant with ISO/IEC 14443-4"))
        }
    }

    /// libnfc lists a type B target as `ISO/IEC 14443-4B (106 kbps) target:` with PUPI,
    /// Application Data and Protocol Info (`target-subr.c`, `snprint_nfc_iso14443b_info`);
    /// `-v` decodes the protocol info. The output is parsed field by field.
    @Test("nfc-list lists the Type 4 tag over ISO 14443-B as libnfc lists a type B target",
          ExternalTool.nfcList.trait)
    func nfcListTypeB() async throws {
        try await withEmulator(["--tag", "type4b"]) { emulator in
            let run = try await runTool(ExternalTool.nfcList.require(), ["-v"], against: emulator)
            #expect(!run.timedOut)
            #expect(run.status == 0, "\(run.output)")
            let lines = run.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            func field(_ name: String) -> String? {
                lines.first { $0.hasPrefix(name + ":") }.map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
            }
            #expect(lines.contains("1 ISO14443B passive target(s) found:"), "\(run.output)")
            #expect(lines.contains("ISO/IEC 14443-4B (106 kbps) target:"))
            #expect(field("PUPI") == "0b  53  49  01")
            #expect(field("Application Data") == "00  00  00  00")
            #expect(field("Protocol Info") == "00  81  71")
            #expect(lines.contains("* PICC supports only 106 kbits/s in both directions"))
            #expect(lines.contains("* Maximum frame sizes: 256 bytes"))
            #expect(lines.contains("* Protocol types supported: ISO/IEC 14443-4"))
            // Protocol info byte 3 is 71h: FO bit 0 = CID supported (ISO/IEC 14443-3; Flipper's
            // ISO14443_3B_FRAME_OPTION_CID). libnfc 1.8.0's target-subr.c has the two FO bits
            // swapped (PI_NAD_SUPPORTED 01h), so it prints "NAD" for it, as for a real card.
            #expect(lines.contains("* Frame options supported: NAD"))
            // Nothing else answers: no type A, FeliCa, B', SRx, CTS or Jewel target.
            let found = lines.filter { $0.hasSuffix("passive target(s) found:") && !$0.hasPrefix("0 ") }
            #expect(found == ["1 ISO14443B passive target(s) found:"], "\(run.output)")
        }
    }

    @Test("nfc-list finds the FeliCa Lite-S", ExternalTool.nfcList.trait)
    func nfcListFeliCa() async throws {
        try await withEmulator(["--tag", "felica-lite-s"]) { emulator in
            let run = try await runTool(ExternalTool.nfcList.require(), [], against: emulator)
            #expect(run.output.contains("1 Felica (212 kbps) passive target(s) found:"))
            #expect(run.output.contains("ID (NFCID2): 01  2e  53  49  4d  00  00  01"))
            #expect(run.output.contains("System Code (SC): 88  b4"))
        }
    }

    @Test("nfc-mfultralight reads all 135 NTAG215 pages, writes a dump back and reads it again",
          ExternalTool.nfcMfUltralight.trait)
    func mfUltralightReadWrite() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator(["--tag", "ntag215"]) { emulator in
            let read = try await runTool(ExternalTool.nfcMfUltralight.require(), ["r", "first.mfd"], against: emulator, in: directory)
            #expect(read.output.contains("NTAG Type: NTAG215 (504 user bytes)"))
            #expect(read.output.contains("Done, 135 of 135 pages read (0 pages failed)."))
            var dump = try [UInt8](Data(contentsOf: directory.appendingPathComponent("first.mfd")))
            #expect(dump.count == 540)
            #expect(Array(dump[12..<16]) == [0xE1, 0x10, 0x3E, 0x00])
            // Page 4 onwards: an NDEF TLV with a Text record "A".
            dump.replaceSubrange(16..<24, with: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x41, 0xFE])
            try Data(dump).write(to: directory.appendingPathComponent("new.mfd"))
            let write = try await runTool(ExternalTool.nfcMfUltralight.require(), ["w", "new.mfd"], against: emulator, input: "n\nn\nn\nn\n", in: directory)
            #expect(write.output.contains("Done, 130 of 135 pages written (5 pages skipped, 0 pages failed)."))
            let again = try await runTool(ExternalTool.nfcMfUltralight.require(), ["r", "again.mfd"], against: emulator, in: directory)
            #expect(again.status == 0)
            #expect(try Data(contentsOf: directory.appendingPathComponent("again.mfd")) == Data(dump))
        }
    }

    /// A refused WRITE comes back from a real PN532 as status 13 (invalid received frame),
    /// which libnfc maps to NFC_ERFTRANS; `nfc_initiator_mifare_cmd` (utils/mifare.c) takes
    /// that quietly as "not permitted", and nfc-mfultralight counts the page as failed. With
    /// status 14 libnfc would report "Mifare Authentication Failed" for every page.
    @Test("nfc-mfultralight w on locked pages: they fail quietly, as on a chip (NAK = status 13, NFC_ERFTRANS)",
          ExternalTool.nfcMfUltralight.trait)
    func mfUltralightWriteLockedPages() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator(["--tag", "ntag215"]) { emulator in
            let read = try await runTool(ExternalTool.nfcMfUltralight.require(), ["r", "first.mfd"], against: emulator, in: directory)
            #expect(read.output.contains("Done, 135 of 135 pages read (0 pages failed)."))
            var dump = try [UInt8](Data(contentsOf: directory.appendingPathComponent("first.mfd")))
            // Static lock bytes (page 2, bytes 2-3) all set, a Text record "A" in pages 4-5: the
            // locks take effect at the next activation (NTAG21x 8.5.2), so this run writes all.
            dump.replaceSubrange(10..<12, with: [0xFF, 0xFF])
            dump.replaceSubrange(16..<24, with: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x41, 0xFE])
            try Data(dump).write(to: directory.appendingPathComponent("locked.mfd"))
            // OTP no, lock bytes yes, dynamic lock bytes no, UID no.
            let lock = try await runTool(ExternalTool.nfcMfUltralight.require(), ["w", "locked.mfd"], against: emulator, input: "n\ny\nn\nn\n", in: directory)
            #expect(lock.output.contains("0 pages failed"), "\(lock.output)")
            // Now pages 3-15 are read-only: a dump with "B" there and new bytes in page 16.
            var second = dump
            second.replaceSubrange(16..<24, with: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x42, 0xFE])
            second.replaceSubrange(64..<68, with: [0xAA, 0xBB, 0xCC, 0xDD])
            try Data(second).write(to: directory.appendingPathComponent("second.mfd"))
            let write = try await runTool(ExternalTool.nfcMfUltralight.require(), ["w", "second.mfd"], against: emulator, input: "n\nn\nn\nn\n", in: directory)
            #expect(write.output.contains("Done, 118 of 135 pages written (5 pages skipped, 12 pages failed)."), "\(write.output)")
            #expect(!write.output.contains("Mifare Authentication Failed"), "\(write.output)")
            #expect(!write.output.contains("nfc_initiator_transceive_bytes"), "\(write.output)")
            // The refusals were status 13 on the wire, never 14.
            #expect(emulator.trace.contains { $0.hasSuffix("< D5 41 13") })
            #expect(!emulator.trace.contains { $0.hasSuffix("< D5 41 14") })
            let again = try await runTool(ExternalTool.nfcMfUltralight.require(), ["r", "again.mfd"], against: emulator, in: directory)
            #expect(again.output.contains("Done, 135 of 135 pages read"))
            let after = try [UInt8](Data(contentsOf: directory.appendingPathComponent("again.mfd")))
            #expect(Array(after[16..<24]) == Array(dump[16..<24]))
            #expect(Array(after[64..<68]) == [0xAA, 0xBB, 0xCC, 0xDD])
        }
    }

    /// A refused Classic authentication is status 14 on a chip too: libnfc reports it as
    /// NFC_EMFCAUTHFAIL and nfc-mfclassic gives up on the sector.
    @Test("nfc-mfclassic with wrong keys: authentication fails (status 14), as on a chip",
          ExternalTool.nfcMfClassic.trait)
    func mfClassicWrongKey() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A key file for this card (block 0 starts with its UID, as nfc-mfclassic checks) whose
        // keys are all 00…00: the card has the transport keys FF…FF.
        var keys = [UInt8](repeating: 0, count: 1024)
        keys.replaceSubrange(0..<4, with: [0x53, 0x49, 0x4D, 0x01])
        try Data(keys).write(to: directory.appendingPathComponent("keys.mfd"))
        try await withEmulator(["--tag", "classic1k"]) { emulator in
            let run = try await runTool(ExternalTool.nfcMfClassic.require(), ["r", "a", "u", "dump.mfd", "keys.mfd"], against: emulator, in: directory)
            #expect(run.output.contains("Error: authentication failed for block 0x3f"), "\(run.output)")
            #expect(emulator.trace.contains { $0.hasSuffix("< D5 41 14") })
        }
    }

    @Test("A tag file keeps what nfc-mfultralight wrote for the next emulator run",
          ExternalTool.nfcMfUltralight.trait)
    func tagFilePersists() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tagFile = directory.appendingPathComponent("tag.json").path
        var written: [UInt8] = []
        try await withEmulator(["--tag", "ntag213:\(tagFile)"]) { emulator in
            _ = try await runTool(ExternalTool.nfcMfUltralight.require(), ["r", "first.mfd"], against: emulator, in: directory)
            written = try [UInt8](Data(contentsOf: directory.appendingPathComponent("first.mfd")))
            written.replaceSubrange(16..<24, with: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x42, 0xFE])
            try Data(written).write(to: directory.appendingPathComponent("new.mfd"))
            let write = try await runTool(ExternalTool.nfcMfUltralight.require(), ["w", "new.mfd"], against: emulator, input: "n\nn\nn\nn\n", in: directory)
            #expect(write.output.contains("0 pages failed"))
        }
        #expect(FileManager.default.fileExists(atPath: tagFile))
        try await withEmulator(["--tag", "ntag213:\(tagFile)"]) { emulator in
            let read = try await runTool(ExternalTool.nfcMfUltralight.require(), ["r", "again.mfd"], against: emulator, in: directory)
            #expect(read.output.contains("Done, 45 of 45 pages read (0 pages failed)."))
            #expect(try [UInt8](Data(contentsOf: directory.appendingPathComponent("again.mfd"))) == written)
        }
    }

    @Test("A tag that leaves the field after 10 commands leaves nfc-mfultralight with failed pages",
          ExternalTool.nfcMfUltralight.trait)
    func tagLeavesField() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator(["--tag", "ntag215", "--leave-after", "10"]) { emulator in
            let run = try await runTool(ExternalTool.nfcMfUltralight.require(), ["r", "dump.mfd"], against: emulator, in: directory)
            #expect(run.output.contains("Done, 36 of 135 pages read (99 pages failed)."))
            #expect(run.output.contains("Warning! Read failed - partial data written to file!"))
            #expect(try await emulator.control("status") == "ok empty (NTAG215 0453494d000001 removed), 0 waiting")
        }
    }

    @Test("nfc-mfclassic reads a Classic 1K with the default keys",
          ExternalTool.nfcMfClassic.trait)
    func mfClassicRead() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator(["--tag", "classic1k"]) { emulator in
            let run = try await runTool(ExternalTool.nfcMfClassic.require(), ["r", "a", "u", "dump.mfd"], against: emulator, in: directory)
            #expect(run.output.contains("Guessing size: seems to be a 1024-byte card"))
            #expect(run.output.contains("Done, 64 of 64 blocks read."))
            let dump = try [UInt8](Data(contentsOf: directory.appendingPathComponent("dump.mfd")))
            #expect(dump.count == 1024)
            #expect(Array(dump.prefix(4)) == [0x53, 0x49, 0x4D, 0x01])
        }
    }

    @Test("nfc-mfclassic writes a dump and reads it back (1.8.0 writes the first block of sectors 1-15 only)",
          ExternalTool.nfcMfClassic.trait)
    func mfClassicWrite() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator(["--tag", "classic1k"]) { emulator in
            _ = try await runTool(ExternalTool.nfcMfClassic.require(), ["r", "a", "u", "first.mfd"], against: emulator, in: directory)
            var dump = try [UInt8](Data(contentsOf: directory.appendingPathComponent("first.mfd")))
            dump.replaceSubrange(0x40..<0x50, with: Array("NFCKit emulator!".utf8))
            dump.replaceSubrange(0x3C0..<0x3D0, with: [UInt8](repeating: 0x5A, count: 16))
            try Data(dump).write(to: directory.appendingPathComponent("new.mfd"))
            let write = try await runTool(ExternalTool.nfcMfClassic.require(), ["w", "a", "u", "new.mfd"], against: emulator, in: directory)
            #expect(write.output.contains("Done, 60 of 64 blocks written."), "\(write.output)")
            let again = try await runTool(ExternalTool.nfcMfClassic.require(), ["r", "a", "u", "again.mfd"], against: emulator, in: directory)
            #expect(again.output.contains("Done, 64 of 64 blocks read."))
            let back = try [UInt8](Data(contentsOf: directory.appendingPathComponent("again.mfd")))
            #expect(Array(back[0x40..<0x50]) == Array("NFCKit emulator!".utf8))
            #expect(Array(back[0x3C0..<0x3D0]) == [UInt8](repeating: 0x5A, count: 16))
        }
    }

    @Test("nfc-read-forum-tag3 reads the Lite-S attribute information block",
          ExternalTool.nfcReadForumTag3.trait)
    func readForumTag3() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator(["--tag", "felica-lite-s"]) { emulator in
            let run = try await runTool(ExternalTool.nfcReadForumTag3.require(), ["-o", directory.appendingPathComponent("t3.ndef").path], against: emulator)
            #expect(run.output.contains("* Mapping version: 1.0"))
            #expect(run.output.contains("* Maximum nr of blocks available for NDEF data:     13 blocks (208 bytes)"))
            #expect(run.output.contains("* NDEF Access Attribute: Read/Write (0x01)"))
            #expect(run.output.contains("* Checksum: ok"))
        }
    }

    @Test("A stack of tags: 'next' presents the second UID, 'remove' empties the field",
          ExternalTool.nfcList.trait)
    func stackOfTags() async throws {
        try await withEmulator(["--tag", "ntag215", "--tag", "ntag215"]) { emulator in
            #expect(try await emulator.control("status") == "ok NTAG215 0453494d000001 present, 1 waiting")
            #expect(try await runTool(ExternalTool.nfcList.require(), [], against: emulator).output.contains("4d  00  00  01"))
            #expect(try await emulator.control("next") == "ok NTAG215 0453494d000002 present, 0 waiting")
            #expect(try await runTool(ExternalTool.nfcList.require(), [], against: emulator).output.contains("4d  00  00  02"))
            #expect(try await emulator.control("remove") == "ok empty (NTAG215 0453494d000002 removed), 0 waiting")
            let empty = try await runTool(ExternalTool.nfcList.require(), [], against: emulator)
            #expect(!empty.output.contains("passive target(s) found"))
            #expect(empty.status == 0)
            #expect(try await emulator.control("dance").hasPrefix("error: unknown control command 'dance'"))
        }
    }

    @Test("nfc-poll waits for a tag: presenting it ends the poll, removing it ends the presence check",
          ExternalTool.nfcPoll.trait)
    func pollWaitsForTag() async throws {
        try await withEmulator(["--tag", "classic1k"]) { emulator in
            try await emulator.control("remove")
            // Its output drained and its end awaited by ChildProcess: no thread waits in read.
            let poll = try ChildProcess(try ExternalTool.nfcPoll.require(), [], environment: emulator.libnfcEnvironment,
                                        mergingStandardError: true)
            defer { poll.signal(SIGTERM) }
            func waitForTrace(_ text: String) async -> Bool {
                await eventually(within: .seconds(5)) { emulator.trace.contains(where: { $0.contains(text) }) }
            }
            #expect(await waitForTrace("# polling for"))
            try await emulator.control("present")
            #expect(await waitForTrace("< D5 61 01"))
            try await emulator.control("remove")
            #expect(await eventually(within: .seconds(5)) { poll.exitStatus != nil })
            let text = await poll.finish(within: 5).output
            #expect(text.contains("UID (NFCID1): 53  49  4d  01"))
            #expect(text.contains("done."))
        }
    }

    @Test("nfcpy (tty:NAME:pn532 through --link /dev/NAME) writes an NDEF URI record; a fresh nfcpy process and the tag file hold its bytes",
          ExternalTool.nfcpy.trait, arguments: ["ntag215", "type4"])
    func nfcpy(model: String) async throws {
        let python = try ExternalTool.nfcpy.require()
        let name = "EMU\(UInt32.random(in: 0..<1_000_000))"
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tagFile = directory.appendingPathComponent("tag.json").path
        // The record by hand (NFC Forum URI RTD): MB ME SR, TNF 1, type "U", payload 0x13 bytes,
        // prefix 04 ("https://"), then "example.org/nfckit".
        let expected = [0xD1, 0x01, 0x13, 0x55, 0x04] + Array("example.org/nfckit".utf8)
        func session(_ body: String) async throws -> ToolRun {
            try await withEmulator(["--tag", "\(model):\(tagFile)", "--link", "/dev/\(name)"]) { emulator in
                let script = """
                    import nfc, ndef
                    clf = nfc.ContactlessFrontend('tty:\(name):pn532')
                    tag = clf.connect(rdwr={'on-connect': lambda tag: False}, terminate=lambda: False, iterations=3)
                    print('tag', tag)
                    \(body)
                    clf.close()
                    """
                return try await runTool(python, ["-c", script], against: emulator, timeout: 30)
            }
        }
        let write = try await session("tag.ndef.records = [ndef.UriRecord('https://example.org/nfckit')]")
        #expect(write.status == 0 && !write.timedOut, "\(write.output)")
        #expect(write.output.contains(model == "type4" ? "tag Type4ATag" : "tag Type2Tag 'NXP NTAG215' ID=0453494D000001"), "\(write.output)")
        // nfcpy caches what its setter was given: only a fresh process reading the tag proves the write.
        let read = try await session("print('octets', bytes(tag.ndef.octets).hex())")
        #expect(read.status == 0 && !read.timedOut, "\(read.output)")
        #expect(read.output.contains("octets " + Hex.encode(expected).lowercased()), "\(read.output)")
        // And the emulator's tag file, read as plain JSON, holds the same bytes.
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tagFile))) as? [String: Any]
        let stored = try Hex.decode(try #require(state?["memory"] as? String, "no memory in the tag file"))
        let needle = model == "type4" ? [0x00, UInt8(expected.count)] + expected : [0x03, UInt8(expected.count)] + expected
        #expect(stored.firstRange(of: needle) != nil, "the tag file lacks \(Hex.encode(needle))")
    }

    @Test("Bad command lines exit 64 with Error and Usage; --help exits 0")
    func commandLine() async throws {
        let executable = try #require(Executables.emulator, "pn532-emulator is not built")
        for (arguments, status) in [([String](), Int32(64)), (["--tag", "ntag999"], 64), (["--tag", "ntag215", "--delay-model", "slow"], 64), (["--tag", "ntag215", "--leave-after", "0"], 64), (["--bogus"], 64), (["--help"], 0)] {
            // A command line that is accepted would serve for ever: give up after 5 seconds (the
            // child is then ended and its end awaited).
            let run = try await runTool(executable.path, arguments, environment: ProcessInfo.processInfo.environment,
                                        timeout: 5, mergingStandardError: false)
            if run.timedOut {
                Issue.record("pn532-emulator \(arguments) was still running after 5 s")
                continue
            }
            #expect(run.status == status, "\(arguments)")
            if status == 64 {
                #expect(run.standardError.hasPrefix("Error: "))
                #expect(run.standardError.contains("Usage: pn532-emulator"))
            } else {
                #expect(run.standardOutput == EmulatorCommandLine.help + "\n")
            }
        }
    }
}
