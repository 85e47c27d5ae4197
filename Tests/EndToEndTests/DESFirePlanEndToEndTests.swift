import Foundation
import NFCCore
import NFCTags
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
/// byte-identical; the run that follows (`--yes`, traced with `--trace`) sends exactly the
/// plan's rows (reads aside), in order, and makes the application with the given key, read
/// from the tag file.
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

    /// The plan's row name of each native command the run sends.
    static let rowNames: [UInt8: String] = [
        0xCA: "CreateApp", 0x5A: "SelectApp", 0x0A: "Authenticate", 0x1A: "Authenticate", 0xAA: "Authenticate", 0x71: "command 71",
        0xAF: "AF frame", 0xC4: "ChangeKey", 0xCD: "CreateFile", 0x3D: "WriteData",
    ]
    /// Native commands that read (GetFileIDs, GetFileSettings, ReadData, GetKeySettings,
    /// GetKeyVersion, GetFreeMemory, GetApplicationIDs, GetVersion): never in a plan.
    static let reads: Set<UInt8> = [0x6F, 0xF5, 0xBD, 0x45, 0x64, 0x6E, 0x6A, 0x60]

    @Test(
        "format --plan on a blank sim:desfire-ev1 with a DES, a 3K3DES and an AES application key, and on sim:desfire-ev3 with an AES one (EV2 path): exit 0, every write of the traced run listed in order, the tag file byte-identical; the run then sets that key",
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

        // The run, traced: from its CreateApplication on, the native commands it sends but the
        // reads are the plan's rows, in order.
        let traceFile = directory.appendingPathComponent("run.trace").path
        let run = try await runBuiltNFCTool(["format", "--device", device, "--yes", "--keys", keys, "--ndef-size", "256", "--trace", traceFile])
        #expect(run.status == 0, "\(run.output)")
        let trace = try ReaderTrace.parse(Array(try Data(contentsOf: URL(fileURLWithPath: traceFile))))
        let sent = trace.events.compactMap { event -> UInt8? in
            guard case .transceive(let command, _) = event.request, command.values.count > 1, command.values[0] == DESFire.wrappedClass else { return nil }
            return command.values[1]
        }
        #expect(sent.drop { $0 != DESFire.Command.createApplication }.filter { !Self.reads.contains($0) }.map { Self.rowNames[$0] ?? "?" }
                == Self.planRows(plan.standardOutput), "\(sent)")
        let image = try #require(try TagFile(path: file).loadTag() as? DESFireVirtualTag).image
        let application = try #require(image.applications.first)
        // Even bytes: the key version in the DES family's parity bits is 0, as given. A DES key
        // may be kept as its 16-byte ChangeKey form (the key twice).
        let given = try Hex.decode(key), stored = application.keys.first ?? []
        #expect(application.keyCount == keyCount && (stored == given || stored == given + given), "the run set the planned key")
        #expect(application.files.map(\.number) == [1, 2] && application.files[1].data.count == 256)
    }

    @Test("format on a DESFire holding another application: exit 11, the tag file byte-identical, and the message says --force adds the NDEF application beside it (not that --force empties anything); --force then keeps it")
    func otherApplicationRefusalSaysWhatForceDoes() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let other = DESFireImage.Application(
            aid: hex("563412"), keySettings: 0x0F, keyCount: 0x01, isoFileID: nil, dfName: [], keys: [[UInt8](repeating: 0, count: 8)], files: [])
        try TagFile(path: file).save(DESFireVirtualTag(uid: hex("04AE5000000003"), image: DESFireImage(applications: [other])).tagState)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let device = "sim:desfire-ev1?file=\(file)"
        let refused = try await runBuiltNFCTool(["format", "--device", device, "--yes"])
        #expect(refused.status == 11, "\(refused.output)")
        #expect(refused.standardError.contains("123456"), "\(refused.standardError)")
        #expect(refused.standardError.contains("beside"), "\(refused.standardError)")
        #expect(!refused.standardError.contains("empty it"), "\(refused.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        let forced = try await runBuiltNFCTool(["format", "--device", device, "--yes", "--force"])
        #expect(forced.status == 0, "\(forced.output)")
        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.standardOutput.contains("123456"), "\(info.standardOutput)")
    }
}
