import Foundation
import Testing
@testable import LibNFC

@Suite("The libnfc context", .timeLimit(.minutes(5)))
struct LibNFCContextTests {
    @Test("libnfc's version is a dotted version such as 1.8.0")
    func versionLooksLikeAVersion() {
        let version = LibNFCContext.version
        #expect(version.wholeMatch(of: /\d+\.\d+\.\d+.*/) != nil, "got \(version)")
        #expect(version.hasPrefix("1.8."), "these tests are written against libnfc 1.8; got \(version)")
    }

    @Test(
        "without a reader, listing devices finds none and does not throw, every time",
        .disabled(
            if: ProcessInfo.processInfo.environment["LIBNFC_DEFAULT_DEVICE"] != nil,
            "LIBNFC_DEFAULT_DEVICE names a reader, which libnfc lists without probing")
    )
    func listingWithoutHardwareIsEmpty() async throws {
        let first = try await LibNFCContext.shared.listDevices()
        let second = try await LibNFCContext.shared.listDevices()
        #expect(first.isEmpty)
        #expect(second.isEmpty)
    }

    @Test("the log levels are libnfc's 0 (none) and 3 (debug)")
    func logLevelsMatchLibnfc() {
        #expect(LibNFCLogging.silent.environmentValue == "0")
        #expect(LibNFCLogging.debug.environmentValue == "3")
        #expect(LibNFCLogging.environmentVariable == "LIBNFC_LOG_LEVEL")
    }
}
