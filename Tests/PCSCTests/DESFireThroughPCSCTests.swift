import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// MIFARE DESFire EV1 behind the real pcscd and the virtual PC/SC reader: its native commands
    /// (CLA 90) and the Type 4 APDUs go to the card as ISO-DEP APDUs through the generic Part 3
    /// profile; what nfctool formatted and wrote there is read from the tag file by the simulator
    /// in a fresh process.
    @Suite(
        "MIFARE DESFire EV1 through pcscd and the virtual PC/SC reader", .tags(.pcsc, .endToEnd), .serialized, .timeLimit(.minutes(3)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct DESFireThroughPCSCTests {
        @Test("scan names the DESFire; format --yes, write and read through pcscd; the tag file holds the NDEF application and the message")
        func formatWriteReadThroughPCSC() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("desfire.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:desfire-ev1?file=\(file)", daemon: daemon)
            defer { reader.stop() }
            let scan = try await runTool(tool, ["scan", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(scan.output.contains("MIFARE DESFire EV1"), "\(scan.output)")
            let format = try await runTool(
                tool, ["format", "--device", "pcsc", "--yes", "--ndef-size", "512", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(format.status == 0, "\(format.output)")
            // CreateApplication (native CA, wrapped as 90 CA 00 00) reached the card as it is.
            #expect(reader.receivedAPDUs.contains { $0.hasPrefix("90ca0000") }, "\(reader.receivedAPDUs)")
            let write = try await runTool(
                tool, ["write", "--device", "pcsc", "--url", "https://example.com/desfire-via-pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(write.status == 0, "\(write.output)")
            let read = try await runTool(tool, ["read", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(read.output.contains("https://example.com/desfire-via-pcsc"), "\(read.output)")
            reader.stop()
            let back = try await runTool(tool, ["info", "--device", "sim:desfire-ev1?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(back.output.contains("000001 (NFC Forum Type 4, AN11004)"), "\(back.output)")
            let message = try await runTool(tool, ["read", "--device", "sim:desfire-ev1?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(message.output.contains("https://example.com/desfire-via-pcsc"), "\(message.output)")
        }

        @Test("MIFARE DESFire Light (renamed) through pcscd: scan names it; format, write and lock (EV2 authentication, ChangeFileSettings in CommMode.Full as APDUs); the tag file holds FF EF, CC FF and the message")
        func desfireLightThroughPCSC() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("light.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:desfire-light-ndef?file=\(file)", daemon: daemon)
            defer { reader.stop() }
            let scan = try await runTool(tool, ["scan", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(scan.output.contains("MIFARE DESFire Light"), "\(scan.output)")
            let format = try await runTool(tool, ["format", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(format.status == 0, "\(format.output)")
            let write = try await runTool(
                tool, ["write", "--device", "pcsc", "--url", "https://example.com/light-via-pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(write.status == 0, "\(write.output)")
            let lock = try await runTool(tool, ["lock", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(lock.status == 0, "\(lock.output)")
            // AuthenticateEV2First and ChangeFileSettings reached the card as wrapped native commands.
            #expect(reader.receivedAPDUs.contains { $0.hasPrefix("90710000") } && reader.receivedAPDUs.contains { $0.hasPrefix("905f0000") }, "\(reader.receivedAPDUs)")
            reader.stop()
            let message = try await runTool(tool, ["read", "--device", "sim:desfire-light-ndef?file=\(file)", "--json"], environment: daemon.environment, timeout: 30)
            #expect(message.output.contains("https://example.com/light-via-pcsc"), "\(message.output)")
            let info = try await runTool(tool, ["info", "--device", "sim:desfire-light-ndef?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(info.output.contains("04 standard data, 256 B, plain: read free, write never, rw never"), "\(info.output)")
        }
    }
}
