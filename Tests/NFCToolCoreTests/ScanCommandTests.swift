import Foundation
import Testing
@testable import NFCToolCore

@Suite("nfctool scan on the simulator", .timeLimit(.minutes(5)))
struct ScanCommandTests {
    struct Expected: Sendable, CustomTestStringConvertible {
        var model: String
        var technology: String
        var chip: String
        var ndef: Bool?
        var testDescription: String { model }
    }

    @Test("every simulated model is found and named", arguments: [
        Expected(model: "ntag213", technology: "iso14443a", chip: "NTAG213", ndef: true),
        Expected(model: "ntag215", technology: "iso14443a", chip: "NTAG215", ndef: true),
        Expected(model: "ntag216", technology: "iso14443a", chip: "NTAG216", ndef: true),
        Expected(model: "ultralight", technology: "iso14443a", chip: "MIFARE Ultralight EV1 (MF0UL11)", ndef: false),
        Expected(model: "type4", technology: "iso14443a", chip: "NFC Forum Type 4 tag", ndef: true),
        Expected(model: "felica-lite-s", technology: "felica212", chip: "FeliCa Lite-S", ndef: true),
        Expected(model: "classic1k", technology: "iso14443a", chip: "MIFARE Classic 1K", ndef: nil),
        Expected(model: "slix2", technology: "iso15693", chip: "ICODE SLIX2", ndef: true),
        Expected(model: "topaz96", technology: "jewel", chip: "Topaz 96 (BCM20203T96)", ndef: true),
        Expected(model: "topaz512", technology: "jewel", chip: "Topaz 512 (BCM20203T512)", ndef: true),
    ])
    func models(_ expected: Expected) async throws {
        let run = await runNFCTool(["scan", "--device", "sim:\(expected.model)", "--json", "--timeout", "2"])
        #expect(run.status == .success, "\(run.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        #expect(object["technology"] as? String == expected.technology)
        #expect(object["model"] as? String == expected.chip)
        #expect(object["ndef"] as? Bool == expected.ndef)
        #expect((object["uid"] as? String)?.isEmpty == false)
    }

    @Test("the human form shows UID, ATQA as nfc-list does, SAK and the model")
    func human() async {
        let run = await runNFCTool(["scan", "--device", "sim:ntag215?uid=04A1B2C3D4E5F6"])
        #expect(run.status == .success)
        #expect(run.standardOutput == """
            Tag on sim:ntag215?uid=04A1B2C3D4E5F6
              technology: iso14443a
              UID:        04 A1 B2 C3 D4 E5 F6
              ATQA:       00 44
              SAK:        00
              model:      NTAG215 (Type 2, 504 bytes)
              NDEF:       yes

            """)
    }

    @Test("a Type 1 tag's NDEF state comes from its CC: 'yes' on a delivered Topaz, 'no' on one whose CC was never written",
          arguments: ["topaz96", "topaz512"])
    func type1NDEFState(model: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfckit-scan-t1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let blank = directory.appendingPathComponent("blank.json").path
        let size = model == "topaz96" ? 120 : 512
        // Block 0 holds the UID; everything after it zero: no CC, no TLV.
        let uid = "0153494d000001"
        let memory = uid + String(repeating: "00", count: size - 7)
        try #"{"model": "\#(model)", "uid": "\#(uid)", "memory": "\#(memory)"}"#.write(toFile: blank, atomically: true, encoding: .utf8)
        let delivered = await runNFCTool(["scan", "--device", "sim:\(model)", "--timeout", "2"])
        #expect(delivered.status == .success, "\(delivered.standardError)")
        #expect(delivered.standardOutput.contains("NDEF:       yes"), "\(delivered.standardOutput)")
        let unformatted = await runNFCTool(["scan", "--device", "sim:\(model)?file=\(blank)", "--timeout", "2"])
        #expect(unformatted.status == .success, "\(unformatted.standardError)")
        #expect(unformatted.standardOutput.contains("NDEF:       no"), "\(unformatted.standardOutput)")
    }

    @Test("no tag within the timeout exits 2 and says so")
    func noTag() async {
        let run = await runNFCTool(["scan", "--device", "sim:empty", "--timeout", "0.2"])
        #expect(run.status == .noTag)
        #expect(run.standardError.contains("no tag within 0.2 s"))
    }

    @Test("a reader that cannot be opened fails with the reason and the hints (3)")
    func badDevice() async {
        let run = await runNFCTool(["scan", "--device", "pn532_uart:/dev/nfckit-none", "--timeout", "0.2"])
        #expect(run.status == .noReader)
        #expect(run.standardError.hasPrefix("Error: cannot open reader 'pn532_uart:/dev/nfckit-none'"))
        #expect(run.standardError.contains(DevicesReport.noReaderHints))
    }

    @Test("an unknown simulator model is a usage error (64), not 'no reader'")
    func unknownSimulatorModel() async {
        let run = await runNFCTool(["scan", "--device", "sim:nosuch", "--timeout", "0.2"])
        #expect(run.status == .usage)
        #expect(run.standardError.hasPrefix("Error: invalid device 'sim:nosuch': unknown tag model 'nosuch'"))
    }

    @Test("without --device, NFCTOOL_DEVICE chooses the reader, else libnfc's default device (none here: 3), never the simulator")
    func defaultDevice() async {
        let fromEnvironment = await runNFCTool(["scan", "--timeout", "0.2"], environment: ["NFCTOOL_DEVICE": "sim:classic1k"])
        #expect(fromEnvironment.standardOutput.contains("MIFARE Classic 1K"))
        let noDevice = await runNFCTool(["scan", "--timeout", "1"])
        #expect(noDevice.status == .noReader)
        #expect(noDevice.standardOutput == "")
        #expect(noDevice.standardError.hasPrefix("Error: cannot open reader libnfc's default device: "))
    }

    @Test("--continuous reports a tag once while it stays, then ends at the timeout")
    func continuous() async {
        let run = await runNFCTool(["scan", "--device", "sim:ntag213", "--continuous", "--timeout", "0.6", "--json"])
        #expect(run.status == .success)
        let lines = run.standardOutput.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains(#""event":"arrived""#) == true)
    }

    @Test("bad values are usage errors", arguments: [["--timeout", "0"], ["--timeout", "x"], ["--bogus"]])
    func usage(arguments: [String]) async {
        let run = await runNFCTool(["scan"] + arguments)
        #expect(run.status == .usage)
    }
}
