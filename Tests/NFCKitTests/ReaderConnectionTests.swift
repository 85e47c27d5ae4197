import Foundation
import NFCKit
import NFCTags
import Testing
import VirtualTags

/// Connection strings as NFCKit opens them, without hardware: the simulator's, the refusals
/// of card emulation, and the kernel-driver check read from fixture trees.
@Suite("ReaderConnection and KernelNFCDrivers without hardware", .timeLimit(.minutes(1)))
struct ReaderConnectionTests {
    /// `Tests/Fixtures/doctor/<name>`: hand-written system trees.
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/doctor/\(name)").path
    }

    @Test("a sim: string opens the in-process simulator holding the named model")
    func simulator() async throws {
        let reader = try await ReaderConnection.open("sim:ntag215")
        let simulated = try #require(reader as? SimulatedReader)
        #expect(await simulated.connectionString == "sim:ntag215")
        let target = try #require(try await simulated.poll(for: [.iso14443A], timeout: .seconds(1)))
        // GET_VERSION, answered by the model: NTAG215's storage size byte is 11h.
        let version = try await simulated.transceive([0x60], mode: .raw, timeout: .seconds(1))
        #expect(version.count == 8 && version[6] == 0x11, "\(version.array) from \(target)")
    }

    @Test("a malformed sim: string is invalidArgument, never another reader", arguments: ["sim:bogus", "sim:ntag215?poll-wait=x"])
    func malformedSimulator(connection: String) async {
        await #expect {
            _ = try await ReaderConnection.open(connection)
        } throws: { ($0 as? NFCReaderDeviceError)?.code == .invalidArgument }
    }

    @Test("card emulation refuses the simulator and PC/SC readers: notSupported, naming why", arguments: ["sim:ntag215", "sim", "pcsc", "pcsc:ACS"])
    func noTargetMode(connection: String) async {
        await #expect {
            _ = try await ReaderConnection.openCardEmulator(connection)
        } throws: { error in
            let error = error as? NFCReaderDeviceError
            return error?.code == .notSupported && error?.reason.contains("target mode") == true
        }
    }

    @Test("the kernel's NFC modules are read from /proc/modules under a root: all three, none, or unreadable")
    func kernelDrivers() {
        #expect(KernelNFCDrivers.loaded(root: Self.fixture("broken")) == ["pn533_usb", "pn533", "nfc"])
        #expect(KernelNFCDrivers.loaded(root: Self.fixture("healthy")) == [])
        #expect(KernelNFCDrivers.loaded(root: Self.fixture("healthy") + "/") == [])
        #expect(KernelNFCDrivers.loaded(root: Self.fixture("no-such-tree")) == nil)
    }
}
