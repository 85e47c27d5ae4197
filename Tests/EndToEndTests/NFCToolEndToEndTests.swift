import Foundation
import NFCTestSupport
import Testing
@testable import NFCToolCore

@Suite("The built nfctool, run as a user runs it", .tags(.endToEnd), .timeLimit(.minutes(10)))
struct EndToEndTests {
    @Test("--version prints the version and exits 0")
    func version() async throws {
        let run = try await runBuiltNFCTool(["--version"])
        #expect(run.status == 0)
        #expect(run.standardOutput == "nfctool \(nfctoolVersion)\n")
        #expect(run.standardError == "")
    }

    @Test("--help prints what the in-process tool prints")
    func help() async throws {
        let run = try await runBuiltNFCTool(["--help"])
        let inProcess = CapturedIO(standardInput: [])
        _ = await runTool(arguments: ["--help"], environment: [:], io: inProcess)
        #expect(run.status == 0)
        #expect(run.standardOutput == inProcess.standardOutput)
    }

    @Test("a bad option exits 64 with Error: and the usage on standard error")
    func badOption() async throws {
        let run = try await runBuiltNFCTool(["devices", "--bogus"])
        #expect(run.status == 64)
        #expect(run.standardOutput == "")
        #expect(run.standardError.hasPrefix("Error: Unknown option '--bogus'\nUsage: nfctool devices"))
    }

    @Test("devices without a reader: the message on standard output, exit 3, no libnfc noise on standard error")
    func devicesIsQuiet() async throws {
        let run = try await runBuiltNFCTool(["devices"])
        #expect(run.status == 3)
        #expect(run.standardOutput.hasPrefix("No NFC reader found (libnfc "))
        #expect(run.standardError == "Error: no NFC reader found\n")
        let json = try await runBuiltNFCTool(["devices", "--json"])
        #expect(json.status == 3)
        #expect(json.standardOutput.hasPrefix("{\"devices\":[],\"libnfc\":\""))
        #expect(json.standardError == "Error: no NFC reader found\n")
    }

    @Test("devices --verbose lets libnfc's debug log through to standard error")
    func devicesVerbose() async throws {
        let run = try await runBuiltNFCTool(["devices", "--verbose"])
        #expect(run.status == 3)
        #expect(run.standardError.contains("debug\tlibnfc."))
    }

    @Test("the user's LIBNFC_LOG_LEVEL wins over --verbose")
    func userLogLevelWins() async throws {
        let run = try await runBuiltNFCTool(["devices", "--verbose"], environment: ["LIBNFC_LOG_LEVEL": "0"])
        #expect(run.status == 3)
        #expect(run.standardError == "Error: no NFC reader found\n")
    }
}
