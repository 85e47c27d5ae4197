import Foundation
import LibNFC
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing

/// `nfctool info`, `dump`, `verify` and `apdu` as a user runs them (the built binary) through
/// real libnfc and the PN532 emulator; `dump --binary` taken back by libnfc's own
/// `nfc-mfultralight w`.
@Suite("nfctool info, dump, verify and apdu through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct InspectionCommandsThroughLibNFCTests {
    /// The built nfctool.

    /// Runs nfctool against `emulator` with `arguments` after the command, `--device` added.
    static func run(_ command: String, _ arguments: [String] = [], on emulator: EmulatorProcess) async throws -> NFCTestSupport.ToolRun {
        try await runTool(Executables.nfctool(), [command, "--device", emulator.connectionString, "--timeout", "3"] + arguments, against: emulator)
    }

    /// Writes `url` onto the emulator's tag through libnfc, as another tool would have.
    static func writeURL(_ url: String, on emulator: EmulatorProcess) async throws {
        let reader = try await LibNFCReader.open(emulator.connectionString)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        let identity = await ChipIdentification.identify(target, on: reader)
        _ = try await reader.poll(for: [.iso14443A], timeout: .seconds(2))
        try await Type2Tag(reader: reader, identity: identity).writeNDEF(
            NDEFMessage(records: [try .wellKnownTypeURIPayload(url: url)]))
        await reader.close()
    }

    @Test("info names the chip and reads its lock and security state through libnfc", arguments: [
        ("ntag215", ["  model:        NTAG215", "    CFGLCK: clear", "  password:     none (AUTH0 FF)"]),
        ("type4", ["  ATS:          06 75 77 81 02 80", "    CC write access: 00 (granted)"]),
        ("felica-lite-s", ["  model:        FeliCa Lite-S", "    RWFlag: 01 (read-write)"]),
        ("classic1k", ["  model:        MIFARE Classic 1K", "  NDEF:         not NDEF"]),
    ])
    func info(model: String, lines: [String]) async throws {
        let emulator = try await EmulatorProcess.start(["--tag", model])
        defer { emulator.stop() }
        let run = try await Self.run("info", on: emulator)
        #expect(run.status == 0, "\(run.output)")
        for line in lines { #expect(run.output.contains(line + "\n"), "\(line) in \(run.output)") }
    }

    @Test("info and dump of a read-protected NTAG215: 'read-protected', protected pages unreadable")
    func readProtected() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json").path
        do {
            let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
            defer { emulator.stop() }
            let reader = try await LibNFCReader.open(emulator.connectionString)
            let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
            let identity = await ChipIdentification.identify(target, on: reader)
            _ = try await reader.poll(for: [.iso14443A], timeout: .seconds(2))
            try await Type2Tag(reader: reader, identity: identity).setPassword(
                try NTAGPassword(hex: "12345678:ABCD"), protection: NTAGProtection(firstProtectedPage: 16, readProtected: true))
            await reader.close()
        }
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
        defer { emulator.stop() }
        let info = try await Self.run("info", on: emulator)
        #expect(info.status == 0, "\(info.output)")
        #expect(info.output.contains("  password:     read-protected\n"))
        #expect(info.output.contains("    CFGLCK: unknown (read-protected)\n"))
        let dump = try await Self.run("dump", on: emulator)
        #expect(dump.status == 0, "\(dump.output)")
        #expect(dump.output.contains("NTAG215 04 53 49 4D 00 00 01: 135 pages, 16 readable\n"))
        #expect(dump.output.contains("page  15: 00 00 00 00  |....|\npage  16: unreadable\n"))
        #expect(!dump.output.contains("12 34 56 78"))
    }

    @Test("dump --binary of an NTAG215 is taken by nfc-mfultralight w; the copy verifies", ExternalTool.nfcMfUltralight.trait)
    func dumpRestoredByNfcMfultralight() async throws {
        let mfultralight = try ExternalTool.nfcMfUltralight.require()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let dumpFile = directory.appendingPathComponent("tag.mfd").path
        let url = "https://example.com/t/04534944000001"
        do {
            let source = try await EmulatorProcess.start(["--tag", "ntag215"])
            defer { source.stop() }
            try await Self.writeURL(url, on: source)
            let dump = try await Self.run("dump", ["--binary", "--output", dumpFile], on: source)
            #expect(dump.status == 0, "\(dump.output)")
        }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dumpFile)))
        #expect(bytes.count == 135 * 4)
        #expect(bytes[16] == 0x03)  // the NDEF TLV at page 4

        let target = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { target.stop() }
        #expect(try await Self.run("verify", ["--expect-url", url], on: target).status == 8)
        // No to the OTP, lock, dynamic lock and UID questions: user pages only.
        let restore = try await runTool(mfultralight, ["w", dumpFile], against: target, input: "n\nn\nn\nn\n", timeout: 30)
        #expect(restore.status == 0, "\(restore.output)")
        #expect(restore.output.contains("pages written"))
        let verify = try await Self.run("verify", ["--expect-url", url, "--expect-model", "NTAG215"], on: target)
        #expect(verify.status == 0, "\(verify.output)")
        #expect(verify.output.contains("ok        url: \(url)\n"))
    }

    @Test("verify through libnfc: exit 0 on a match, 8 with the diff on a mismatch")
    func verify() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        try await Self.writeURL("https://example.com/a", on: emulator)
        #expect(try await Self.run("verify", ["--expect-url", "https://example.com/a"], on: emulator).status == 0)
        let mismatch = try await Self.run("verify", ["--expect-url", "https://example.com/b", "--expect-read-only"], on: emulator)
        #expect(mismatch.status == 8)
        #expect(mismatch.output.contains("  expected: https://example.com/b\n  found:    https://example.com/a\n"))
    }

    @Test("apdu through libnfc: the APDUs go out in InDataExchange frames; the answers print")
    func apdu() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "type4"])
        defer { emulator.stop() }
        let run = try await Self.run("apdu", ["00A4040007D2760000850101", "00A4000C02E103", "00B000000F"], on: emulator)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("> 00 B0 00 00 0F\n< 00 0F 20 00 3B 00 34 04 06 E1 04 08 00 00 00\n< SW 9000\n"))
        #expect(emulator.trace.contains { $0.contains("> D4 40 01 00 A4 04 00 07 D2 76 00 00 85 01 01") })
        let payment = try await Self.run("apdu", ["00A404000E325041592E5359532E4444463031"], on: emulator)
        #expect(payment.status == 10)
        #expect(!emulator.trace.contains { $0.contains("32 50 41 59") })  // never sent
        let notISODEP = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { notISODEP.stop() }
        #expect(try await Self.run("apdu", ["00A4040000"], on: notISODEP).status == 10)
    }

    /// Runs `body` on the emulator's tag (connected through libnfc) stored in `file`.
    static func prepare(_ model: String, file: String, _ body: (NFCTag) async throws -> Void) async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "\(model):\(file)"])
        defer { emulator.stop() }
        let reader = try await LibNFCReader.open(emulator.connectionString)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        let tag = try await NFCTag.connect(to: target, on: reader)
        _ = try await reader.poll(for: [.iso14443A], timeout: .seconds(2))
        try await body(tag)
        await reader.close()
    }

    @Test("info of a locked NTAG215: read-only, CC3 0F and the lock bytes set")
    func lockedType2() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json").path
        try await Self.prepare("ntag215", file: file) { tag in
            try await tag.ndef.writeNDEF(NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com")]))
            try await tag.ndef.writeLock()
        }
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
        defer { emulator.stop() }
        let info = try await Self.run("info", on: emulator)
        #expect(info.status == 0, "\(info.output)")
        #expect(info.output.contains("  lock:         read-only\n"))
        #expect(info.output.contains("    CC3: 0F (no write access)\n"))
        #expect(!info.output.contains("    static lock bytes: 00 00\n"))
        #expect(try await Self.run("verify", ["--expect-read-only", "--expect-url", "https://example.com"], on: emulator).status == 0)
    }

    @Test("info and dump of an NFC-formatted Classic 1K: the MAD GPB, each NFC sector's GPB and access bits")
    func formattedClassic() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json").path
        try await Self.prepare("classic1k", file: file) { tag in try await tag.ndef.format(force: false) }
        let emulator = try await EmulatorProcess.start(["--tag", "classic1k:\(file)"])
        defer { emulator.stop() }
        let info = try await Self.run("info", on: emulator)
        #expect(info.status == 0, "\(info.output)")
        #expect(info.output.contains("  NDEF:         read-write\n"))
        #expect(info.output.contains("  lock:         read-write\n"))
        #expect(info.output.contains("    MAD GPB: C1\n"))
        #expect(info.output.contains("    sector 1: GPB 40 (read-write), access 7F 07 88\n"))
        #expect(info.output.contains("    sector 15: GPB 40 (read-write)"))
        // The MAD key opens sector 0, the NFC key the others; the transport key none of them.
        let dump = try await Self.run("dump", ["--binary", "--output", directory.appendingPathComponent("c.mfd").path], on: emulator)
        #expect(dump.status == 0, "\(dump.output)")
        let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent("c.mfd")))
        #expect(bytes.count == 1024)
        #expect(Array(bytes[48..<54]) == MADDirectory.publicKeyA)
        #expect(Array(bytes[112..<118]) == ClassicNDEFTag.nfcSectorKeyA)
    }
}
