import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// The "Round trips through PC/SC and libnfc" table of docs/benchmarks.md holds what this test
    /// counts: one nfctool run per operation on a fresh copy of a tag file, through libnfc + the PN532
    /// emulator (PN532 tag frames in its trace: InListPassiveTarget, InDataExchange,
    /// InCommunicateThru) and through pcscd + the virtual reader as a generic Part 3 reader and as
    /// an ACR1552U (APDUs in its log, each one SCardTransmit round trip).
    @Suite(
        "docs/benchmarks.md: round trips per operation through PC/SC and libnfc come from the logs", .tags(.pcsc, .endToEnd, .emulator), .serialized, .timeLimit(.minutes(6)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct PCSCRoundTripDocsTests {
        static let benchmarksPath = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/benchmarks.md")
        static let url = "https://example.com/abc"
        static let operations: [(name: String, arguments: [String], seeded: Bool)] = [
            ("read", ["read"], true), ("write", ["write", "--url", url], false), ("lock", ["lock", "--yes"], true),
        ]

        /// Runs `arguments` against a fresh copy of `model`'s tag file through `daemon`'s virtual
        /// reader; returns the APDU count, or nil when nfctool failed.
        static func pcsc(_ tool: String, _ model: String, _ seed: String?, _ arguments: [String], daemon: PrivatePCSCDaemon, profile: String?) async throws -> String {
            let file = daemon.directory.appendingPathComponent("\(UUID().uuidString).json").path
            if let seed { try FileManager.default.copyItem(atPath: seed, toPath: file) }
            let reader = try await VirtualReaderProcess(tag: "sim:\(model)?file=\(file)", daemon: daemon, profile: profile)
            defer { reader.stop() }
            let run = try await runTool(tool, arguments + ["--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            let count = reader.receivedAPDUs.count
            if run.status == 10 { return "refused (\(count) sent)" }
            try #require(run.status == 0, "\(arguments) through PC/SC: \(run.output)")
            return String(count)
        }

        @Test("each row of the table is this run's count")
        func table() async throws {
            let tool = try #require(Executables.built("nfctool"), "nfctool is not built").path
            let generic = try await PrivatePCSCDaemon()
            defer { generic.stop() }
            let acr1552u = try await PrivatePCSCDaemon(friendlyName: "ACS ACR1552 1S CL Reader PICC")
            defer { acr1552u.stop() }
            var rows: [String] = []
            for model in ["ntag215", "slix2"] {
                let seed = generic.directory.appendingPathComponent("\(model)-seed.json").path
                let seeded = try await runTool(tool, ["write", "--device", "sim:\(model)?file=\(seed)", "--url", Self.url], environment: generic.environment, timeout: 30)
                try #require(seeded.status == 0, "\(seeded.output)")
                for operation in Self.operations {
                    let start = operation.seeded ? seed : nil
                    var libnfc = "– (no ISO 15693 on a PN532)"
                    if model == "ntag215" {
                        let file = generic.directory.appendingPathComponent("\(UUID().uuidString).json").path
                        if let start { try FileManager.default.copyItem(atPath: start, toPath: file) }
                        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
                        let run = try await runTool(
                            tool, operation.arguments + ["--device", emulator.connectionString, "--timeout", "5"], environment: generic.environment, timeout: 60)
                        let trace = emulator.trace
                        emulator.stop()
                        try #require(run.status == 0, "\(operation.arguments) through libnfc: \(run.output)")
                        libnfc = String(trace.filter { $0.contains("> D4 40") || $0.contains("> D4 42") || $0.contains("> D4 4A") }.count)
                    }
                    let viaGeneric = try await Self.pcsc(tool, model, start, operation.arguments, daemon: generic, profile: nil)
                    let viaSession = try await Self.pcsc(tool, model, start, operation.arguments, daemon: acr1552u, profile: "transparent-session")
                    rows.append("| \(model == "ntag215" ? "NTAG215" : "ICODE SLIX2") | \(operation.name) | \(libnfc) | \(viaGeneric) | \(viaSession) |")
                }
            }
            let docs = try String(contentsOf: Self.benchmarksPath, encoding: .utf8)
            for row in rows {
                #expect(docs.contains(row + "\n"), "docs/benchmarks.md lacks the row the logs give: \(row)")
            }
            print(rows.joined(separator: "\n"))
        }
    }
}
