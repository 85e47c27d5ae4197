import Foundation
import NFCCore
import NFCTestSupport
import Testing

/// The virtual NTAG 424 DNA as a reader meets it: the built `nfctool` through real libnfc and
/// the PN532 emulator (`--tag ntag424:FILE`); nfcpy reads its plain NDEF from the other side, and
/// `nfctool sun verify` (a separate process) judges each SUN URL.
@Suite("NTAG 424 DNA through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct NTAG424ThroughLibNFCTests {

    static let keysText = """
        key0 = 00112233445566778899AABBCCDDEEFF
        sdmMetaRead = 0102030405060708090A0B0C0D0E0F10
        sdmFileRead = 1112131415161718191A1B1C1D1E1F20

        """

    @Test("ntag424 setup through libnfc, then each read through libnfc gives a URL nfctool sun verify accepts, counter growing")
    func setupAndTapsThroughLibNFC() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("sticker.json").path
        let keys = directory.appendingPathComponent("sticker.keys").path
        try Data(Self.keysText.utf8).write(to: URL(fileURLWithPath: keys))
        let emulator = try await EmulatorProcess.start(["--tag", "ntag424:\(file)"])
        defer { emulator.stop() }
        let setup = try await runTool(
            try Executables.nfctool(),
            ["ntag424", "setup", "--yes", "--url", "https://ex.io/t?e={sun:picc}&c={sun:mac}", "--keys", keys, "--device", emulator.connectionString],
            against: emulator, timeout: 60)
        #expect(setup.status == 0, "\(setup.output)")
        #expect(setup.output.contains("Verified: SUN URL valid, SDMReadCtr 1"), "\(setup.output)")
        #expect(!setup.output.contains("00112233445566778899AABBCCDDEEFF"))
        var counters: [Int] = []
        for _ in 0..<2 {
            let read = try await runTool(try Executables.nfctool(), ["read", "--json", "--device", emulator.connectionString], against: emulator, timeout: 30)
            #expect(read.status == 0, "\(read.output)")
            let object = try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [String: Any]
            let url = try #require(((object?["records"] as? [[String: Any]])?.first)?["uri"] as? String, "\(read.output)")
            let verify = try await runTool(try Executables.nfctool(), ["sun", "verify", "--json", "--keys", keys, url], environment: [:], timeout: 30)
            #expect(verify.status == 0, "\(verify.output)")
            let tap = try JSONSerialization.jsonObject(with: Data(verify.output.utf8)) as? [String: Any]
            counters.append(try #require(tap?["counter"] as? Int, "\(verify.output)"))
        }
        #expect(counters.count == 2 && counters[0] > 1 && counters[1] > counters[0], "\(counters)")
    }

    @Test("nfcpy reads the plain NDEF URL nfctool wrote to a virtual NTAG 424 DNA, through the emulator", ExternalTool.nfcpy.trait)
    func nfcpyReadsPlainURL() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("plain.json").path
        let write = try await runTool(try Executables.nfctool(), ["write", "--url", "https://example.com/424", "--device", "sim:ntag424?file=\(file)"], environment: [:], timeout: 30)
        #expect(write.status == 0, "\(write.output)")
        let run = try await runNFCPy(model: "ntag424", tagFile: file, "print('type', tag.type)\nprint('uri', tag.ndef.records[0].iri)")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("type Type4Tag"), "\(run.output)")
        #expect(run.output.contains("uri https://example.com/424"), "\(run.output)")
    }

    @Test("nfcpy, reading a sticker set up by nfctool through the emulator, gets a SUN URL that nfctool sun verify accepts", ExternalTool.nfcpy.trait)
    func nfcpyReadsSUNURL() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("sun.json").path
        let keys = directory.appendingPathComponent("sun.keys").path
        try Data(Self.keysText.utf8).write(to: URL(fileURLWithPath: keys))
        let setup = try await runTool(
            try Executables.nfctool(), ["ntag424", "setup", "--yes", "--url", "https://ex.io/t?e={sun:picc}&c={sun:mac}", "--keys", keys, "--device", "sim:ntag424?file=\(file)"],
            environment: [:], timeout: 30)
        #expect(setup.status == 0, "\(setup.output)")
        let run = try await runNFCPy(model: "ntag424", tagFile: file, "print('uri', tag.ndef.records[0].iri)")
        #expect(run.status == 0, "\(run.output)")
        let line = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("uri ") }, "\(run.output)")
        let url = String(line.dropFirst(4))
        #expect(url.hasPrefix("https://ex.io/t?e="), "\(url)")
        let verify = try await runTool(try Executables.nfctool(), ["sun", "verify", "--keys", keys, url], environment: [:], timeout: 30)
        #expect(verify.status == 0, "\(verify.output)")
        #expect(verify.output.contains("uid:       0453494D000001"), "\(verify.output)")
    }
}
