import Foundation
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

private let judgeSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Oracle/desfire_key_judge.c")

/// `nfctool protect --keys` on a MIFARE DESFire and `format --keys` with an application key, in
/// fresh processes: on sim:desfire-ev2 judged by its tag file, and through real libnfc and the
/// PN532 emulator judged by libfreefare's library (its AES authentication, which its command-line
/// tools lack) in a small C program compiled here (Tests/Oracle/desfire_key_judge.c).
@Suite("MIFARE DESFire keys changed by nfctool, judged by the tag file and by libfreefare", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct DESFireKeyChangeEndToEndTests {
    static let url = DESFireThroughLibNFCTests.url
    static let aesKey = DESFireThroughLibNFCTests.aesKey
    static let otherAESKey = DESFireThroughLibNFCTests.otherAESKey
    static let key2K = "0123456789ABCDEFFEDCBA9876543210"

    static func keyFile(_ directory: URL, _ name: String, _ text: String) throws -> String {
        try DESFireThroughLibNFCTests.keyFile(directory, name, text)
    }

    static func image(_ path: String) throws -> DESFireImage {
        try #require(try TagFile(path: path).loadTag() as? DESFireVirtualTag).image
    }

    /// No key's digits, spaced or not, in `text`.
    static func holdsNoKey(_ text: String) -> Bool {
        let upper = text.uppercased()
        return [aesKey, otherAESKey, key2K].allSatisfy { key in
            !upper.contains(String(key.prefix(8))) && !upper.contains(stride(from: 0, to: 8, by: 2).map { String(Array(key)[$0..<$0 + 2]) }.joined(separator: " "))
        }
    }

    @Test("protect --keys on sim:desfire-ev2 in fresh processes: --plan lists both ChangeKeys and changes nothing; without --yes exit 64; a wrong current key exit 9, the tag file byte-identical; an AES key for the DES application refused, unchanged; then PICC DES → AES and application → 2K3DES version 7 in the tag file; lock needs the new application key; a re-run finds them changed; no key digit in any output or trace",
          .timeLimit(.minutes(5)))
    func protectOnSimulator() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let device = "sim:desfire-ev2?file=\(file)"
        try await DESFireThroughLibNFCTests.formatAndWrite(device, ndefSize: 256)
        let formatted = try Data(contentsOf: URL(fileURLWithPath: file))
        let newKeys = try Self.keyFile(directory, "new.keys", "# the card's new keys\npicc aes \(Self.aesKey)\napplication 2k3des version 7 \(Self.key2K)\n")
        let wrong = try Self.keyFile(directory, "wrong.keys", "picc aes \(Self.otherAESKey)\n")
        let aesApplication = try Self.keyFile(directory, "aesapp.keys", "application aes \(Self.aesKey)\n")
        let trace = directory.appendingPathComponent("trace.json").path

        let plan = try await runBuiltNFCTool(["protect", "--device", device, "--keys", newKeys, "--plan"])
        #expect(plan.status == 0, "\(plan.output)")
        #expect(plan.standardOutput.contains("key 00 (enciphered)") && plan.standardOutput.contains("key 80 (enciphered)") && plan.standardOutput.contains("2 writes"),
                "\(plan.standardOutput)")
        let unconfirmed = try await runBuiltNFCTool(["protect", "--device", device, "--keys", newKeys])
        #expect(unconfirmed.status == 64, "\(unconfirmed.output)")
        let refused = try await runBuiltNFCTool(["protect", "--device", device, "--keys", newKeys, "--current-keys", wrong, "--yes"])
        #expect(refused.status == 9, "\(refused.output)")
        let foreign = try await runBuiltNFCTool(["protect", "--device", device, "--keys", aesApplication, "--yes"])
        #expect(foreign.status != 0 && foreign.output.contains("fixed when it is created"), "\(foreign.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == formatted, "a planned, unconfirmed or refused protect changed the tag file")

        let changed = try await runBuiltNFCTool(["protect", "--device", device, "--keys", newKeys, "--yes", "--trace", trace, "--json"])
        #expect(changed.status == 0, "\(changed.output)")
        #expect(changed.standardOutput.contains("\"piccKey\" : \"changed\"") || changed.standardOutput.contains("\"piccKey\":\"changed\""), "\(changed.standardOutput)")
        let image = try Self.image(file)
        #expect(image.piccKeyTypeBits == 0x80 && image.piccMasterKey == hex(Self.aesKey))
        let applicationKey = try DESFireKey(.tripleDES2K, hex(Self.key2K)).withVersion(7)
        #expect(image.applications.first?.keys == [applicationKey.bytes] && applicationKey.parityVersion == 7)

        let oldLock = try await runBuiltNFCTool(["lock", "--device", device, "--plan"])
        #expect(oldLock.status == 9, "\(oldLock.output)")
        let newLock = try await runBuiltNFCTool(["lock", "--device", device, "--plan", "--keys", newKeys])
        #expect(newLock.status == 0 && newLock.standardOutput.contains("2 writes"), "\(newLock.output)")
        let read = try await runBuiltNFCTool(["read", "--device", device, "--json"])
        #expect(read.status == 0 && read.standardOutput.contains(Self.url), "\(read.output)")
        let again = try await runBuiltNFCTool(["protect", "--device", device, "--keys", newKeys, "--yes"])
        #expect(again.status == 0 && again.standardOutput.contains("already the new one"), "\(again.output)")
        let traced = try String(contentsOfFile: trace, encoding: .utf8)
        for run in [plan, unconfirmed, refused, foreign, changed, oldLock, newLock, again] {
            #expect(Self.holdsNoKey(run.output), "\(run.output)")
        }
        #expect(Self.holdsNoKey(traced))
    }

    /// Compiles the judge against libfreefare and libnfc into `directory`.
    static func compileJudge(_ directory: URL) async throws -> String {
        let compiler = try ExternalTool.libfreefareCompiler.require()
        let output = directory.appendingPathComponent("desfire_key_judge").path
        let built = try await runTool(compiler, [judgeSource.path, "-o", output, "-lfreefare", "-lnfc"],
                                      environment: ProcessInfo.processInfo.environment, timeout: 120)
        #expect(built.status == 0, "\(built.output)")
        return output
    }

    /// The judge's answer: key 0 of `level` authenticated with the `type` key `key` (hex on standard input).
    static func judge(_ judge: String, _ level: String, _ type: String, _ key: String, _ emulator: EmulatorProcess) async throws -> ToolRun {
        try await runTool(judge, [level, type], against: emulator, input: key + "\n", timeout: 60)
    }

    @Test("through libnfc and the PN532 emulator, libfreefare judges: format --keys made the NDEF application AES with the given key (AuthenticateAES taken, key settings 0F), its CC and message as written; protect made the PICC master key AES (the factory DES key now refused); lock with the AES application key left the NDEF file EFFF and the CC FF",
          ExternalTool.libfreefareCompiler.trait)
    func libfreefareJudgesAESKeys() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let judge = try await Self.compileJudge(directory)
        let file = directory.appendingPathComponent("desfire.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "desfire-ev1:\(file)"])
        defer { emulator.stop() }
        let applicationKeys = try Self.keyFile(directory, "app.keys", "application aes \(Self.aesKey)\n")
        try await DESFireThroughLibNFCTests.formatAndWrite(emulator.connectionString, ndefSize: 512, ["--keys", applicationKeys])
        let message = Hex.encode(try DESFireThroughLibNFCTests.encodedURL(), uppercase: true)

        let application = try await Self.judge(judge, "application", "aes", Self.aesKey, emulator)
        #expect(application.status == 0, "\(application.output)")
        #expect(application.standardOutput.contains("key settings: 0F (number of keys 01)"), "\(application.standardOutput)")
        #expect(application.standardOutput.contains("cc: 000F20003B00340406E10402000000"), "\(application.standardOutput)")
        #expect(application.standardOutput.contains("ndef file: 512 bytes, access EEE0") && application.standardOutput.contains("ndef: \(message)\n"),
                "\(application.standardOutput)")
        let factoryApplication = try await Self.judge(judge, "application", "des", "0000000000000000", emulator)
        #expect(factoryApplication.status == 2, "\(factoryApplication.output)")

        let piccKeys = try Self.keyFile(directory, "picc.keys", "picc aes \(Self.otherAESKey)\n")
        let protected = try await runBuiltNFCTool(["protect", "--device", emulator.connectionString, "--keys", piccKeys, "--yes"])
        #expect(protected.status == 0, "\(protected.output)")
        let picc = try await Self.judge(judge, "picc", "aes", Self.otherAESKey, emulator)
        #expect(picc.status == 0 && picc.standardOutput.contains("applications: 1"), "\(picc.output)")
        let factoryPICC = try await Self.judge(judge, "picc", "des", "0000000000000000", emulator)
        #expect(factoryPICC.status == 2, "\(factoryPICC.output)")

        let locked = try await runBuiltNFCTool(["lock", "--device", emulator.connectionString, "--keys", applicationKeys, "--yes"])
        #expect(locked.status == 0, "\(locked.output)")
        let after = try await Self.judge(judge, "application", "aes", Self.aesKey, emulator)
        #expect(after.status == 0, "\(after.output)")
        #expect(after.standardOutput.contains("ndef file: 512 bytes, access EFFF") && after.standardOutput.contains("cc: 000F20003B00340406E104020000FF"), "\(after.standardOutput)")
        #expect(after.standardOutput.contains("ndef: \(message)\n"), "\(after.standardOutput)")
    }

    @Test("through libnfc and the PN532 emulator, libfreefare judges protect on the application key: 2K3DES with version 7 authenticates and GetKeyVersion answers 07",
          ExternalTool.libfreefareCompiler.trait)
    func libfreefareJudgesKeyVersion() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let judge = try await Self.compileJudge(directory)
        let file = directory.appendingPathComponent("desfire.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "desfire-ev1:\(file)"])
        defer { emulator.stop() }
        try await DESFireThroughLibNFCTests.formatAndWrite(emulator.connectionString, ndefSize: 256)
        let keys = try Self.keyFile(directory, "new.keys", "application 2k3des version 7 \(Self.key2K)\n")
        let protected = try await runBuiltNFCTool(["protect", "--device", emulator.connectionString, "--keys", keys, "--yes"])
        #expect(protected.status == 0, "\(protected.output)")
        let versioned = Hex.encode(try DESFireKey(.tripleDES2K, hex(Self.key2K)).withVersion(7).bytes, uppercase: true)
        let application = try await Self.judge(judge, "application", "2k3des", versioned, emulator)
        #expect(application.status == 0 && application.standardOutput.contains("key version: 07"), "\(application.output)")
        #expect(application.standardOutput.contains("key settings: 0F (number of keys 01)"), "\(application.standardOutput)")
    }
}
