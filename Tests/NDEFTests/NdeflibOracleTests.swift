import NFCTestSupport
import Foundation
import NFCCore
import Testing
@testable import NDEF

/// ndeflib (PyPI), an independent implementation, checks our decoder and encoder both ways.
/// Its driver is Tests/Oracle/ndeflib_oracle.py; Scripts/setup installs ndeflib.
@Suite("ndeflib as an independent oracle", .enabled(if: Oracle.available, "python3 with ndeflib is not installed: run Scripts/setup"))
struct NdeflibOracleTests {
    struct Generated: Decodable {
        var hex: String
        var exact: Bool
        var records: [NDEFPayload]
    }

    @Test("messages ndeflib builds decode to the same fields here, and re-encode to the same bytes")
    func ndeflibToOurs() throws {
        let output = try Oracle.run(["generate", "400", "20261129"])
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
    func oursToNdeflib() throws {
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
        let output = try Oracle.run(["check"], input: lines)
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

    static let available: Bool = (try? run(["-c", "import ndef"], script: false)) != nil

    static func run(_ arguments: [String], input: String? = nil, script useScript: Bool = true) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + (useScript ? [script.path] : []) + arguments
        let stdout = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        try process.run()
        if let input {
            // Write on another thread so a large answer cannot deadlock against a full pipe.
            let handle = stdin.fileHandleForWriting
            let data = Data(input.utf8)
            Thread.detachNewThread {
                handle.write(data)
                try? handle.close()
            }
        } else {
            try stdin.fileHandleForWriting.close()
        }
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw OracleFailure(status: process.terminationStatus) }
        return String(decoding: data, as: UTF8.self)
    }

    struct OracleFailure: Error { var status: Int32 }
}
