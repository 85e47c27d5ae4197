import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// `write --lock` through the real pcscd on a reader of the generic profile, which cannot send
    /// GET_VERSION: the Type 2 model stays unknown, so the tag cannot be locked, and the write is
    /// refused before anything is written. Judged by the tag file, read by the simulator.
    @Suite(
        "write --lock through a generic PC/SC reader: refused before writing", .tags(.pcsc, .endToEnd), .serialized, .timeLimit(.minutes(3)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct WriteLockGenericProfileTests {
        @Test("write --lock --yes on an NTAG215 through the generic profile exits 10, names GET_VERSION, and the tag file is unchanged")
        func writeLockRefusedBeforeWriting() async throws {
            let tool = try #require(Executables.built("nfctool"), "nfctool is not built").path
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("ntag215.json").path
            let seed = try await runTool(tool, ["write", "--device", "sim:ntag215?file=\(file)", "--url", "https://example.com/old"], environment: daemon.environment, timeout: 30)
            #expect(seed.status == 0, "\(seed.output)")
            let before = try Data(contentsOf: URL(fileURLWithPath: file))
            let reader = try await VirtualReaderProcess(tag: "sim:ntag215?file=\(file)", daemon: daemon)
            let run = try await runTool(
                tool, ["write", "--device", "pcsc", "--url", "https://example.com/new", "--lock", "--yes", "--timeout", "5"],
                environment: daemon.environment, timeout: 30)
            await reader.stopped()
            #expect(run.status == 10, "\(run.output)")
            #expect(run.output.contains("GET_VERSION"), "\(run.output)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
            let back = try await runTool(tool, ["read", "--device", "sim:?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(back.output.contains("https://example.com/old"), "\(back.output)")
        }
    }
}
