import NFCTestSupport
import Foundation
import NFCCore
import Testing
@testable import NDEF

/// ndeflib (PyPI), an independent implementation, checks our decoder and encoder both ways.
/// Its driver is Tests/Oracle/ndeflib_oracle.py; Scripts/setup installs ndeflib.
@Suite("ndeflib as an independent oracle", ExternalTool.ndeflib.trait, .timeLimit(.minutes(5)))
struct NdeflibOracleTests {
    struct Generated: Decodable {
        var hex: String
        var exact: Bool
        var records: [NDEFPayload]
    }

    @Test("messages ndeflib builds decode to the same fields here, and re-encode to the same bytes")
    func ndeflibToOurs() async throws {
        let output = try await Oracle.run(["generate", "400", "20261129"])
        var compared = 0, exactCompared = 0
        for line in output.split(separator: "\n") {
            let generated = try JSONDecoder().decode(Generated.self, from: Data(line.utf8))
            let bytes = try Hex.decode(generated.hex)
            let decoded = try NDEFMessage(bytes: bytes)
            try #require(decoded.records.count == generated.records.count, "\(generated.hex)")
            for (ours, expected) in zip(decoded.records, generated.records) {
                #expect(try ours.content() == expected.content(), "ndeflib bytes \(generated.hex)")
                #expect(ours.identifier == expected.identifier)
                compared += 1
            }
            if generated.exact {
                #expect(try NDEFMessage(records: generated.records).encoded() == bytes, "ndeflib bytes \(generated.hex)")
                exactCompared += 1
            }
        }
        #expect(compared > 800)
        #expect(exactCompared > 100)
    }

    @Test("messages we build decode in ndeflib to the same fields")
    func oursToNdeflib() async throws {
        var g = SeededGenerator(seed: 0x0ACE)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var lines = ""
        for index in 0..<400 {
            let message = NDEFMessage(records: (0..<Int.random(in: 1...5, using: &g)).map { _ in randomRecord(&g) })
            // ndeflib 0.3.3 does not reassemble chunked records, so only unchunked messages go here.
            let bytes = try message.encoded()
            _ = index
            let records = String(decoding: try encoder.encode(message.records), as: UTF8.self)
            lines += #"{"hex":"\#(Hex.encode(bytes))","records":\#(records)}"# + "\n"
        }
        let output = try await Oracle.run(["check"], input: lines)
        struct Report: Decodable {
            var checked: Int
            var mismatchCount: Int
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(output.utf8))
        #expect(report.checked == 400)
        #expect(report.mismatchCount == 0, "ndeflib disagrees: \(output.prefix(20000))")
    }
}

/// Runs the Python oracle script.
enum Oracle {
    static let script = fixturesDirectory.deletingLastPathComponent().appendingPathComponent("Oracle/ndeflib_oracle.py")

    /// Runs python3 (with ndeflib) on the oracle script (or on `arguments` alone), killed after
    /// 120 seconds; standard error is merged into the answer, so warnings are switched off.
    static func run(_ arguments: [String], input: String? = nil, script useScript: Bool = true) async throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONWARNINGS"] = "ignore"
        let run = try await runTool(try ExternalTool.ndeflib.require(), (useScript ? [script.path] : []) + arguments,
                              environment: environment, input: input ?? "", timeout: 120)
        guard run.status == 0, !run.timedOut else { throw OracleFailure(status: run.status, output: run.output) }
        return run.output
    }

    struct OracleFailure: Error { var status: Int32; var output: String }
}
