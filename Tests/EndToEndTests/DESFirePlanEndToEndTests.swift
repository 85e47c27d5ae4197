import Foundation
import NFCCore
import NFCTestSupport
import Testing
import VirtualTags

/// `nfctool format --plan` on a blank DESFire in fresh processes: the NDEF application exists
/// only in the plan, so everything after CreateApplication (SelectApplication, the
/// authentication in the new application with the factory key of its type, ChangeKey to the
/// given key, the authentication with that key, the files and the CC) is answered by the plan's
/// stand-in chip (VirtualTags' `VirtualDESFireStandIn`), one authentication kind per key type:
/// legacy `0A` (DES), ISO `1A` (3K3DES), AES `AA` on an EV1, AuthenticateEV2First `71` (AES on an
/// EV3). Each plan exits 0, lists every write of the run in order, and leaves the tag file
/// byte-identical; the run that follows (`--yes`) makes the application with the given key,
/// read from the tag file.
@Suite("DESFire format --plan through a planned application's stand-in chip", .tags(.endToEnd), .serialized, .timeLimit(.minutes(5)))
struct DESFirePlanEndToEndTests {
    /// The plan's location column for each write, in order, after the PICC-level reads:
    /// `authentication` names the application's authentication as the plan lists it.
    static func expectedPlan(_ authentication: String) -> [String] {
        ["CreateApp", "SelectApp", authentication, "AF frame", "ChangeKey", authentication, "AF frame", "CreateFile", "CreateFile", "WriteData"]
    }

    /// The location column of each row of a plan's listing: the lines indented by two spaces
    /// (each row's note is indented by six), the column 17 characters wide.
    static func planRows(_ output: String) -> [String] {
        output.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.dropFirst(2).prefix(17).trimmingCharacters(in: .whitespaces)
        }
    }

    @Test(
        "format --plan on a blank sim:desfire-ev1 with a DES, a 3K3DES and an AES application key, and on sim:desfire-ev3 with an AES one (EV2 path): exit 0, every write listed, the tag file byte-identical; the run then sets that key",
        arguments: [
            ("desfire-ev1", "des", "1032547698BADCFE", "Authenticate", UInt8(0x21)),
            ("desfire-ev1", "3k3des", "0022446688AACCEE1032547698BADCFE02468ACEE0C0A080", "Authenticate", UInt8(0x61)),
            ("desfire-ev1", "aes", "00112233445566778899AABBCCDDEEFF", "Authenticate", UInt8(0xA1)),
            ("desfire-ev3", "aes", "00112233445566778899AABBCCDDEEFF", "command 71", UInt8(0xA1)),
        ])
    func planThroughStandIn(model: String, type: String, key: String, authentication: String, keyCount: UInt8) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let generation = try #require(DESFireVirtualTag.Generation(rawValue: model))
        try TagFile(path: file).save(DESFireVirtualTag(uid: hex("04AE5000000002"), generation: generation).tagState)
        let blank = try Data(contentsOf: URL(fileURLWithPath: file))
        let keys = directory.appendingPathComponent("keys").path
        try Data("application \(type) \(key)\n".utf8).write(to: URL(fileURLWithPath: keys))
        let device = "sim:\(model)?file=\(file)"

        let plan = try await runBuiltNFCTool(["format", "--device", device, "--plan", "--keys", keys, "--ndef-size", "256"])
        #expect(plan.status == 0, "\(plan.output)")
        #expect(Self.planRows(plan.standardOutput) == Self.expectedPlan(authentication), "\(plan.standardOutput)")
        #expect(plan.standardOutput.contains("10 writes"), "\(plan.standardOutput)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == blank, "--plan changed the tag file")
        #expect(!plan.output.uppercased().contains(key.uppercased()), "a key in the plan's output")

        let run = try await runBuiltNFCTool(["format", "--device", device, "--yes", "--keys", keys, "--ndef-size", "256"])
        #expect(run.status == 0, "\(run.output)")
        let image = try #require(try TagFile(path: file).loadTag() as? DESFireVirtualTag).image
        let application = try #require(image.applications.first)
        // Even bytes: the key version in the DES family's parity bits is 0, as given. A DES key
        // may be kept as its 16-byte ChangeKey form (the key twice).
        let given = try Hex.decode(key), stored = application.keys.first ?? []
        #expect(application.keyCount == keyCount && (stored == given || stored == given + given), "the run set the planned key")
        #expect(application.files.map(\.number) == [1, 2] && application.files[1].data.count == 256)
    }
}
