import Foundation
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags
@testable import PCSCReaderEmulator

extension PCSCEndToEnd {
    /// MIFARE Classic 1K through PC/SC Part 3's LOAD KEYS / GENERAL AUTHENTICATE and 16-byte READ
    /// BINARY / UPDATE BINARY: the virtual reader byte for byte against the Classic model, and
    /// nfctool (fresh processes) formatting, writing, reading and locking through the real pcscd;
    /// the tag file read back by the simulator.
    @Suite("MIFARE Classic 1K through PC/SC (FF 82 / FF 86 / FF B0 / FF D6)", .tags(.pcsc, .endToEnd), .serialized, .timeLimit(.minutes(3)))
    struct ClassicThroughPCSCTests {
        static let transportKey: [UInt8] = Array(repeating: 0xFF, count: 6)

        @Test("LOAD KEYS into slot 0, GENERAL AUTHENTICATE block 4 with key A, UPDATE/READ BINARY of 16 bytes seen by the model; a wrong key 6300 and the card idle until reset; unauthenticated READ 6982")
        func pseudoAPDUs() throws {
            let r = GenericPart3Reader(field: try SimulatorConfiguration(parsing: "sim:classic1k").makeField())
            #expect(r.respond(to: [0xFF, 0xB0, 0x00, 0x04, 0x10]) == [0x69, 0x82], "not authenticated")
            #expect(r.respond(to: [0xFF, 0x82, 0x00, 0x00, 0x06] + Self.transportKey) == [0x90, 0x00])
            #expect(r.respond(to: [0xFF, 0x82, 0x20, 0x00, 0x06] + Self.transportKey) == [0x69, 0x86], "no non-volatile keys")
            #expect(r.respond(to: [0xFF, 0x82, 0x00, 0x05, 0x06] + Self.transportKey) == [0x6B, 0x00], "slots 00 and 01 only")
            #expect(r.respond(to: [0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, 0x04, 0x60, 0x00]) == [0x90, 0x00])
            #expect(r.respond(to: [0xFF, 0xD6, 0x00, 0x05, 0x10] + Array(1...16)) == [0x90, 0x00])
            let read = r.respond(to: [0xFF, 0xB0, 0x00, 0x05, 0x10])
            #expect(read == Array(1...16) + [0x90, 0x00])
            #expect(r.respond(to: [0xFF, 0xB0, 0x00, 0x05, 0x04]) == [0x67, 0x00], "one whole block")
            // From the model's side: block 5 holds the bytes written.
            guard case .authenticated(true) = r.field.authenticate(block: 4, keyType: .a, key: Self.transportKey),
                  case .frame(.data(let block)) = r.field.exchange(frame: [0x30, 0x05]) else { Issue.record("the model did not read"); return }
            #expect(block == Array(1...16))
            #expect(r.respond(to: [0xFF, 0x82, 0x00, 0x01, 0x06, 1, 2, 3, 4, 5, 6]) == [0x90, 0x00])
            #expect(r.respond(to: [0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, 0x08, 0x60, 0x01]) == [0x63, 0x00], "a wrong key")
            #expect(r.respond(to: [0xFF, 0xB0, 0x00, 0x05, 0x10]) == [0x63, 0x00], "the card went idle after the refused key")
            r.reset()
            #expect(r.respond(to: [0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, 0x04, 0x60, 0x00]) == [0x90, 0x00], "after a reset (field off and on) it answers again")
        }

        @Test(
            "nfctool format, write, read and lock a Classic 1K through pcscd; the simulator reads the tag file back and cannot write it",
            .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root, pcscd and vsmartcard-vpcd"))
        func endToEnd() async throws {
            let tool = try #require(Executables.built("nfctool"), "nfctool is not built").path
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("classic.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:classic1k?file=\(file)", daemon: daemon)
            defer { reader.stop() }
            let format = try await runTool(tool, ["format", "--device", "pcsc", "--force", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(format.status == 0, "\(format.output)")
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--url", "https://example.com/classic-pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(write.status == 0, "\(write.output)")
            let read = try await runTool(tool, ["read", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(read.output.contains("https://example.com/classic-pcsc"), "\(read.output)")
            let lock = try await runTool(tool, ["lock", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(lock.status == 0, "\(lock.output)")
            let apdus = reader.receivedAPDUs
            #expect(apdus.contains { $0.hasPrefix("ff82000006") }, "LOAD KEYS")
            #expect(apdus.contains { $0.hasPrefix("ff860000050100") }, "GENERAL AUTHENTICATE")
            await reader.stopped()
            let back = try await runTool(tool, ["read", "--device", "sim:classic1k?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(back.output.contains("https://example.com/classic-pcsc"), "\(back.output)")
            let again = try await runTool(
                tool, ["write", "--device", "sim:classic1k?file=\(file)", "--url", "https://example.com/x", "--timeout", "2"], environment: daemon.environment, timeout: 30)
            #expect(again.status != 0, "a locked Classic refuses the write\n\(again.output)")
        }

        @Test(
            "a MIFARE Plus in security level 1 (PC/SC card name 0036) is offered the Classic path: format and write through pcscd authenticate with LOAD KEYS and GENERAL AUTHENTICATE, and the tag file holds the URL",
            .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root, pcscd and vsmartcard-vpcd"),
            .timeLimit(.minutes(2)))
        func mifarePlusSecurityLevel1() async throws {
            let tool = try #require(Executables.built("nfctool"), "nfctool is not built").path
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("plus.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:classic1k?file=\(file)", daemon: daemon, extra: ["--card-name", "0036"])
            defer { reader.stop() }
            let format = try await runTool(tool, ["format", "--device", "pcsc", "--force", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(format.status == 0, "\(format.output)")
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--url", "https://example.com/plus-sl1", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(write.status == 0, "\(write.output)")
            let apdus = reader.receivedAPDUs
            #expect(apdus.contains { $0.hasPrefix("ff860000050100") }, "GENERAL AUTHENTICATE: \(apdus)")
            await reader.stopped()
            let back = try await runTool(tool, ["read", "--device", "sim:classic1k?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(back.output.contains("https://example.com/plus-sl1"), "\(back.output)")
        }
    }
}
