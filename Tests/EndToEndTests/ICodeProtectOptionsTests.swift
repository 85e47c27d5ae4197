import Foundation
import NFCTestSupport
import Testing

/// `nfctool protect` on an ICODE chip in fresh processes: an option meant for NTAG pages is
/// refused rather than ignored, before anything is sent, the tag file untouched.
@Suite("protect on ICODE: options for other chips refused", .tags(.endToEnd), .timeLimit(.minutes(2)))
struct ICodeProtectOptionsTests {
    @Test("--from-page on an ICODE SLIX2 is a usage error naming --from-block (exit 64); the tag file is unchanged",
          arguments: [["--from-page", "5"], ["--from-page", "5", "--from-block", "2"]])
    func fromPageRefused(options: [String]) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("slix2.json").path
        let device = "sim:slix2?file=\(file)"
        let write = try await runBuiltNFCTool(["write", "--device", device, "--url", "https://example.com/icode"])
        #expect(write.status == 0, "\(write.output)")
        let before = try #require(FileManager.default.contents(atPath: file))
        var environment = ProcessInfo.processInfo.environment
        environment["NFCTOOL_PASSWORD"] = "01020304"
        let run = try await runTool(try Executables.nfctool(), ["protect", "--device", device] + options, environment: environment, timeout: 60)
        #expect(run.status == 64, "\(run.output)")
        #expect(run.output.contains("--from-block"), "\(run.output)")
        #expect(FileManager.default.contents(atPath: file) == before)
    }
}
