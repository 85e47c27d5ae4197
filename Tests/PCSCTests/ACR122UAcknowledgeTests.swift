import Foundation
import NFCCore
import NFCTags
import NFCTestSupport
@testable import PCSC
import Testing

extension PCSCEndToEnd {
    /// The ACR122U's direct transmit and a tag's 4-bit ACK/NAK, through the real pcscd and the
    /// virtual reader playing the ACR122U's PN532 (its CIU registers: with the CRC check on, a
    /// 4-bit answer is status 02; with it off, one byte and RxLastBits 4).
    @Suite(
        "ACR122U direct transmit: a tag's ACK is success, its NAK a typed refusal", .tags(.pcsc, .endToEnd), .serialized, .timeLimit(.minutes(3)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct ACR122UAcknowledgeTests {
        static let acr122u = "ACS ACR122U PICC Interface"


        @Test("COMPATIBILITY_WRITE through FF 00 00 00 D4 42 with the PN532's CRC off: both ACKs come back as 0A, the tag holds the page; a page beyond the tag draws NAK 0")
        func compatibilityWriteAcknowledged() async throws {
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr122u)
            defer { daemon.stop() }
            let emulator = try await VirtualReaderProcess(tag: "sim:ntag215", daemon: daemon, profile: "acr122u")
            defer { emulator.stop() }
            try InProcessPCSC.use(daemon)
            let reader = try await PCSCReader.open("pcsc")
            #expect(reader.profile == .acr122u)
            _ = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(5)))
            let data: [UInt8] = [0xC0, 0xFF, 0xEE, 0x42] + [UInt8](repeating: 0, count: 12)
            #expect(try await reader.transceive(Bytes([Type2Command.compatibilityWrite, 0x05]), mode: .standard, timeout: .seconds(1)).array == [0x0A])
            #expect(try await reader.transceive(Bytes(data), mode: .standard, timeout: .seconds(1)).array == [0x0A])
            // Read back by READ BINARY: the emulator answers from the tag model.
            let page = try await reader.transceive(Bytes([Type2Command.read, 0x05]), mode: .standard, timeout: .seconds(1))
            #expect(Array(page.array.prefix(4)) == [0xC0, 0xFF, 0xEE, 0x42])
            await #expect {
                try await reader.transceive(Bytes([Type2Command.compatibilityWrite, 0xF0]), mode: .standard, timeout: .seconds(1))
            } throws: { error in
                guard let error = error as? NFCReaderDeviceError else { return false }
                return error.code == .nak && error.detail == NTAGAcknowledge.invalidArgument
            }
            await reader.close()
            let apdus = emulator.receivedAPDUs
            // WriteRegister TxMode 6302 and RxMode 6303 without CRC (bit 7), then back with it.
            #expect(apdus.contains("ff00000008d408630200630300"), "\(apdus)")
            #expect(apdus.contains("ff00000008d408630280630380"), "\(apdus)")
            // InCommunicateThru of A0 05 with its CRC_A, computed here from ISO/IEC 14443-3's
            // definition by the CRC's own published check: CRC_A(00 00) = A0 1E.
            #expect(ISO14443ACRC.bytes(of: [0x00, 0x00]) == [0xA0, 0x1E])
            #expect(apdus.contains("ff00000006d442a005" + ISO14443ACRC.bytes(of: [0xA0, 0x05]).map { String(format: "%02x", $0) }.joined()), "\(apdus)")
            // ReadRegister CIU_Control (633C) after each InCommunicateThru.
            #expect(apdus.contains("ff00000004d406633c"), "\(apdus)")
        }

        @Test("read with a wrong NTAG password through an ACR122U: PWD_AUTH's NAK is a refused password (exit 9), not a lost tag; the right one reads the URL")
        func wrongPasswordIsRefused() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr122u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("ntag215.json").path
            let right = daemon.directory.appendingPathComponent("right").path
            let wrong = daemon.directory.appendingPathComponent("wrong").path
            try "A1B2C3D4".write(toFile: right, atomically: true, encoding: .utf8)
            try "0BADF00D".write(toFile: wrong, atomically: true, encoding: .utf8)
            // Protected by the simulator itself, in fresh processes.
            let seed = try await runTool(tool, ["write", "--device", "sim:ntag215?file=\(file)", "--url", "https://example.com/acr122u"], environment: daemon.environment, timeout: 30)
            #expect(seed.status == 0, "\(seed.output)")
            let protect = try await runTool(
                tool, ["protect", "--device", "sim:ntag215?file=\(file)", "--password-file", right, "--read-protect"], environment: daemon.environment, timeout: 30)
            #expect(protect.status == 0, "\(protect.output)")
            let emulator = try await VirtualReaderProcess(tag: "sim:ntag215?file=\(file)", daemon: daemon, profile: "acr122u")
            defer { emulator.stop() }
            let refused = try await runTool(tool, ["read", "--device", "pcsc", "--password-file", wrong, "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(refused.status == 9, "\(refused.output)")
            let read = try await runTool(tool, ["read", "--device", "pcsc", "--password-file", right, "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(read.status == 0, "\(read.output)")
            #expect(read.output.contains("https://example.com/acr122u"), "\(read.output)")
        }
    }
}

extension PCSCEndToEnd {
    /// MIFARE Classic value blocks through PC/SC: the platform has INCREMENT, DECREMENT,
    /// RESTORE and TRANSFER, PC/SC Part 3's storage commands do not.
    @Suite(
        "MIFARE Classic value-block commands through PC/SC: refused, nothing sent", .tags(.pcsc, .endToEnd), .serialized, .timeLimit(.minutes(2)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct ClassicValueThroughPCSCTests {
        @Test("INCREMENT after a sector's authentication: notSupported naming the command and the reader's limit; the virtual reader receives nothing more")
        func incrementRefused() async throws {
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let emulator = try await VirtualReaderProcess(tag: "sim:classic1k", daemon: daemon)
            defer { emulator.stop() }
            try InProcessPCSC.use(daemon)
            let reader = try await PCSCReader.open("pcsc")
            let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(5)))
            try await reader.authenticateClassic(block: 4, keyType: .a, key: Bytes([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]), uid: target.identifier)
            let before = emulator.receivedAPDUs
            #expect(before.contains { $0.hasPrefix("ff86") }, "authenticated: \(before)")
            for frame: [UInt8] in [[ClassicCommand.increment, 0x04, 1, 0, 0, 0], [ClassicCommand.transfer, 0x04]] {
                await #expect {
                    try await reader.transceive(Bytes(frame), mode: .standard, timeout: .seconds(1))
                } throws: { error in
                    guard let error = error as? NFCReaderDeviceError else { return false }
                    return error.code == .notSupported && error.reason.contains("value-block") && error.reason.contains("nothing was sent")
                        && (error.reason.contains("INCREMENT") || error.reason.contains("TRANSFER"))
                }
            }
            await reader.close()
            #expect(emulator.receivedAPDUs == before, "nothing after the authentication: \(emulator.receivedAPDUs)")
        }
    }
}
