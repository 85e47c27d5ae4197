import Foundation
import LibNFC
import NFCKit
import NFCTestSupport
import Testing
@testable import NFCToolCore

@Suite("nfctool devices", .timeLimit(.minutes(5)))
struct DevicesCommandTests {
    static let noReader = ProcessInfo.processInfo.environment["LIBNFC_DEFAULT_DEVICE"] == nil

    /// A machine without readers, seen from a fresh process: libnfc told not to probe, and
    /// pcsc-lite pointed at a socket nobody serves. Not in-process: this process's pcsc-lite
    /// is pointed at whichever private pcscd the PC/SC suites run at that moment, whose
    /// readers `devices` would list (a full CI run failed that way).
    static func runWithoutReaders(_ arguments: [String]) async throws -> ToolRun {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await runBuiltNFCTool(arguments, environment: [
            "PCSCLITE_CSOCK_NAME": directory.appendingPathComponent("no-pcscd.comm").path,
            "LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false",
        ])
    }

    @Test(
        "without a reader: a clear message and hints, exit 3, one error line",
        .enabled(if: noReader, "LIBNFC_DEFAULT_DEVICE names a reader"))
    func noReaderFound() async throws {
        let run = try await Self.runWithoutReaders(["devices"])
        #expect(run.status == ExitCode.noReader.rawValue)
        #expect(run.standardError == "Error: no NFC reader found\n")
        #expect(
            run.standardOutput == "No NFC reader found (libnfc \(LibNFCContext.version)).\n"
                + DevicesReport.noReaderHints + "\n")
        #expect(run.standardOutput.hasPrefix("No NFC reader found (libnfc 1.8"))
    }

    @Test("--json without a reader: libnfc's version and an empty list", .enabled(if: noReader, "LIBNFC_DEFAULT_DEVICE names a reader"))
    func noReaderJSON() async throws {
        let run = try await Self.runWithoutReaders(["devices", "--json"])
        #expect(run.status == ExitCode.noReader.rawValue)
        #expect(run.standardError == "Error: no NFC reader found\n")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        // The answer, with the error object of --json inside it (docs/cli.md, "Errors as JSON").
        #expect(Set(object.keys) == ["libnfc", "devices", "error"])
        #expect(object["libnfc"] as? String == LibNFCContext.version)
        #expect((object["devices"] as? [Any])?.isEmpty == true)
        #expect(run.standardOutput == "{\"devices\":[],\"libnfc\":\"\(LibNFCContext.version)\",\"error\":{\"code\":\"noReader\",\"exitStatus\":3,\"message\":\"no NFC reader found\"}}\n")
    }
}

@Suite("What nfctool devices prints for readers", .timeLimit(.minutes(5)))
struct DevicesReportTests {
    static let readers = [
        NFCReaderDescription(name: "ACS / ACR122U PICC Interface", connectionString: "acr122_usb:001:004"),
        NFCReaderDescription(name: nil, connectionString: "pn532_uart:/dev/ttyUSB0"),
    ]

    @Test("text: one entry per reader, with its name and connection string")
    func textForReaders() {
        let report = DevicesReport(libnfcVersion: "1.8.0", devices: Self.readers)
        #expect(
            report.text == """
                2 NFC readers found (libnfc 1.8.0):
                - ACS / ACR122U PICC Interface
                  connection: acr122_usb:001:004
                - (name unknown: the reader could not be opened)
                  connection: pn532_uart:/dev/ttyUSB0

                """)
        let one = DevicesReport(libnfcVersion: "1.8.0", devices: Array(Self.readers.prefix(1)))
        #expect(one.text.hasPrefix("1 NFC reader found (libnfc 1.8.0):\n"))
    }

    @Test("JSON: sorted keys on one line, slashes unescaped, an unknown name as null")
    func jsonForReaders() {
        let report = DevicesReport(libnfcVersion: "1.8.0", devices: Self.readers)
        #expect(
            report.json
                == #"{"devices":[{"connection":"acr122_usb:001:004","name":"ACS / ACR122U PICC Interface"},"#
                + #"{"connection":"pn532_uart:/dev/ttyUSB0","name":null}],"libnfc":"1.8.0"}"# + "\n")
    }

    @Test("JSON escapes what JSON must")
    func jsonEscapes() throws {
        let odd = DevicesReport(libnfcVersion: "1.8.0", devices: [.init(name: "say \"hi\"\n", connectionString: "x")])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(odd.json.utf8)) as? [String: Any])
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(devices.first?["name"] as? String == "say \"hi\"\n")
    }
}
