import Foundation
import Provisioning
import Testing
@testable import NFCToolCore

/// `batch` builds its messages from manifest columns and record options through NDEF's record
/// specification (Provisioning's MessageTemplate); checked with `--plan`, which touches no reader.
@Suite("batch --plan: manifest columns and record options through the record specification", .timeLimit(.minutes(2)))
struct BatchRecordSpecificationTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nfctool-recspec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("docs/batch.md's promise: every record option is a manifest column of the same name giving the same field")
    func columnsAreTheRecordOptions() {
        for (option, field, source) in RecordOptions.fields {
            let column = MessageTemplate.columns[option.name]
            #expect(column?.field == field, "\(option.name)")
            #expect(column?.source == source, "\(option.name)")
        }
        #expect(MessageTemplate.columns.count == RecordOptions.fields.count)
    }

    @Test("file columns are read, every row is checked first, and a bad cell is named by line and column (exit 65)")
    func manifestColumns() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("hello".utf8).write(to: dir.appendingPathComponent("d.bin"))
        try Data("secret123\n".utf8).write(to: dir.appendingPathComponent("key.txt"))
        let good = dir.appendingPathComponent("good.csv")
        try "mime,data-file,id,wifi-ssid,wifi-key-file\napplication/x-demo,\(dir.path)/d.bin,r1,Guest,\(dir.path)/key.txt\n"
            .write(to: good, atomically: true, encoding: .utf8)
        let ledger = dir.appendingPathComponent("run.db").path
        let plan = await runNFCTool(["batch", "--manifest", good.path, "--ledger", ledger, "--plan"])
        #expect(plan.status == .success, "\(plan.standardError)")
        #expect(plan.standardOutput.hasPrefix("row 1 (line 2): media application/x-demo; media application/vnd.wfa.wsc (123 bytes; fits NTAG212, NTAG213, NTAG215, NTAG216, MIFARE Ultralight EV1 (MF0UL21))\n"), "\(plan.standardOutput)")

        let bad = dir.appendingPathComponent("bad.csv")
        try "url,text,lang\nhttps://ex.io/a,Hallo,de\nexample.com,x,en\n".write(to: bad, atomically: true, encoding: .utf8)
        let refused = await runNFCTool(["batch", "--manifest", bad.path, "--ledger", ledger, "--plan"])
        #expect(refused.status == .dataError)
        #expect(refused.standardOutput.isEmpty)
        #expect(refused.standardError.hasPrefix("Error: manifest \(bad.path) line 3: url 'example.com': a URI needs a scheme"), "\(refused.standardError)")

        let noKey = dir.appendingPathComponent("nokey.csv")
        try "wifi-ssid\nGuest\n".write(to: noKey, atomically: true, encoding: .utf8)
        let keyless = await runNFCTool(["batch", "--manifest", noKey.path, "--ledger", ledger, "--plan"])
        #expect(keyless.status == .dataError)
        #expect(keyless.standardError.contains("line 2: record 1 (wifi-ssid): wpa2-personal needs a network key"), "\(keyless.standardError)")
        let fromEnvironment = await runNFCTool(["batch", "--manifest", noKey.path, "--ledger", ledger, "--plan"], environment: ["NFCTOOL_WIFI_KEY": "pw12345678"])
        #expect(fromEnvironment.status == .success, "\(fromEnvironment.standardError)")
    }

    @Test("record options are templates filled per tag; their faults are told in option terms (exit 64)")
    func recordOptions() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ledger = dir.appendingPathComponent("run.db").path
        let plan = await runNFCTool(["batch", "--url", "https://ex.io/{uid}?n={n:02}", "--text", "n{n}", "--lang", "de", "--ledger", ledger, "--plan", "--count", "2"])
        #expect(plan.status == .success, "\(plan.standardError)")
        #expect(plan.standardOutput.hasPrefix("""
            tag 1 (n = 1): URI https://ex.io/04000000000001?n=01; Text "n1" (39 bytes; fits NTAG210, NTAG212, NTAG213, NTAG215, NTAG216, MIFARE Ultralight EV1 (MF0UL11), MIFARE Ultralight EV1 (MF0UL21))
            tag 2 (n = 2): URI https://ex.io/04000000000001?n=02; Text "n2" (39 bytes; fits NTAG210, NTAG212, NTAG213, NTAG215, NTAG216, MIFARE Ultralight EV1 (MF0UL11), MIFARE Ultralight EV1 (MF0UL21))

            """), "\(plan.standardOutput)")
        let misplaced = await runNFCTool(["batch", "--url", "https://ex.io/{uid}", "--title", "t", "--ledger", ledger, "--plan"])
        #expect(misplaced.status == .usage)
        #expect(misplaced.standardError.hasPrefix("Error: --title <text> must follow --smart-poster, not --url <uri>"), "\(misplaced.standardError)")
        let keyless = await runNFCTool(["batch", "--wifi-ssid", "G{n}", "--ledger", ledger, "--plan"])
        #expect(keyless.status == .usage)
        #expect(keyless.standardError.contains("record 1 (--wifi-ssid <ssid>): wpa2-personal needs a network key: --wifi-key-file FILE or NFCTOOL_WIFI_KEY"), "\(keyless.standardError)")
    }
}
