import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// ST25DV end to end: fresh nfctool processes reach a virtual ST25DV64K / ST25DV04K behind
    /// pcscd and the PC/SC reader emulator — the generic profile for NDEF (READ/UPDATE BINARY,
    /// block numbers past 255 in P1-P2) and an ACR1552U's transparent session for ST's custom
    /// commands. The tag file is judged by the NFC Forum Type 5 rules written for tests
    /// (`T5TJudge`: 4- or 8-byte CC, NDEF TLV with a 1- or 3-byte length) and the tag-file image layout of
    /// docs/simulator.md (memory, a lock byte per block, DSFID, AFI, flags, 7 area registers,
    /// 4 passwords), not by NFCTags.
    @Suite(
        "ST25DV through the real pcscd", .tags(.pcsc, .endToEnd, .emulator), .serialized, .timeLimit(.minutes(5)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct ST25ThroughPCSCTests {
        static let acr1552u = "ACS ACR1552 1S CL Reader PICC"

        /// What the test reads from an ST25 tag file.
        struct TagFile {
            var capabilityContainer: [UInt8]
            var text: String?
            var rfa1ss: UInt8
            /// RFA1SS, ENDA1, RFA2SS, ENDA2, RFA3SS, ENDA3, RFA4SS.
            var registers: [UInt8]
            var passwords: [[UInt8]]
            var raw: Data

            init(path: String, blocks: Int) throws {
                raw = try Data(contentsOf: URL(fileURLWithPath: path))
                let json = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any])
                let image = NFCTestSupport.hex(try #require(json["memory"] as? String))
                try #require(image.count == blocks * 5 + 3 + 7 + 32)
                // The Type 5 rules (4- or 8-byte CC, TLVs) as NFCTestSupport's T5TJudge writes them.
                let judged = try #require(T5TJudge(memory: Array(image.prefix(blocks * 4))))
                capabilityContainer = judged.capabilityContainer
                text = judged.text
                let registers = blocks * 5 + 3
                rfa1ss = image[registers]
                self.registers = Array(image[registers..<(registers + 7)])
                passwords = (0..<4).map { Array(image[(registers + 7 + $0 * 8)..<(registers + 15 + $0 * 8)]) }
            }
        }

        @Test("ST25DV64K through the generic profile: a 1100-byte text goes past block 255 (UPDATE BINARY with P1 01+), a fresh nfctool reads it back; the tag file holds the 8-byte E2 CC and the message")
        func largeMemoryGeneric() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("st25dv64k.json").path
            let text = String(repeating: "ST25DV64K ", count: 110)
            let reader = try await VirtualReaderProcess(tag: "sim:st25dv64k?file=\(file)", daemon: daemon)
            defer { reader.stop() }
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--text", text, "--timeout", "5"], environment: daemon.environment, timeout: 120)
            #expect(write.status == 0, "\(write.output)")
            #expect(reader.receivedAPDUs.contains { $0.hasPrefix("ffd601") || $0.hasPrefix("ffd602") }, "a block past 255 written")
            let read = try await runTool(tool, ["read", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 120)
            #expect(read.status == 0 && read.output.contains("ST25DV64K ST25DV64K"), "\(read.output)")
            await reader.stopped()
            let tagFile = try TagFile(path: file, blocks: 2048)
            #expect(tagFile.capabilityContainer == [0xE2, 0x40, 0x00, 0x01, 0x00, 0x00, 0x03, 0xFF])
            #expect(tagFile.text == text)
        }

        @Test("ST25DV04K through an ACR1552U: protect with a 16-digit password (PRESENT PASSWORD in the session, --plan hides it), info shows area 1, a wrong password exits 9 with the file unchanged, unprotect opens it")
        func protectAndUnprotect() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("st25dv04k.json").path
            let password = daemon.directory.appendingPathComponent("st25.pwd").path
            let wrong = daemon.directory.appendingPathComponent("wrong.pwd").path
            try "0123456789ABCDEF\n".write(toFile: password, atomically: true, encoding: .utf8)
            try "FFEEDDCCBBAA9988".write(toFile: wrong, atomically: true, encoding: .utf8)
            let device = "sim:st25dv04k?file=\(file)"
            var reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--text", "behind RF_PWD_1", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(write.status == 0, "\(write.output)")
            let plan = try await runTool(
                tool, ["protect", "--device", "pcsc", "--password-file", password, "--plan", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(plan.status == 0, "\(plan.output)")
            #expect(plan.output.contains("WRITE PASSWORD") && plan.output.contains("WRITE CONFIGURATION"), "\(plan.output)")
            #expect(!plan.output.lowercased().contains("0123456789abcdef"), "\(plan.output)")
            #expect(try TagFile(path: file, blocks: 128).rfa1ss == 0, "--plan wrote nothing")
            let readProtect = try await runTool(
                tool, ["protect", "--device", "pcsc", "--password-file", password, "--read-protect", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(readProtect.status == 64, "area 1 is always readable: \(readProtect.output)")
            let protect = try await runTool(
                tool, ["protect", "--device", "pcsc", "--password-file", password, "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(protect.status == 0, "\(protect.output)")
            #expect(!protect.output.lowercased().contains("0123456789abcdef"), "no password in the output")
            // Transceive objects carrying PRESENT PASSWORD (22 B3 02 …) and WRITE CONFIGURATION (22 A1 02 …).
            #expect(reader.receivedAPDUs.contains { $0.hasPrefix("ffc20001") && $0.contains("22b302") }, "\(reader.receivedAPDUs)")
            #expect(reader.receivedAPDUs.contains { $0.hasPrefix("ffc20001") && $0.contains("22a102") }, "\(reader.receivedAPDUs)")
            let info = try await runTool(tool, ["info", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(info.output.contains("ST25DV04K") && info.output.contains("area 1 (blocks 0–127): write needs password 1"), "\(info.output)")
            let overwrite = try await runTool(tool, ["write", "--device", "pcsc", "--text", "intruder", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(overwrite.status != 0, "\(overwrite.output)")
            await reader.stopped()
            let protected = try TagFile(path: file, blocks: 128)
            #expect(protected.text == "behind RF_PWD_1")
            #expect(protected.rfa1ss == 0x05, "password 1, write-protected")
            let bytes: [UInt8] = [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]
            #expect(protected.passwords[0] == bytes && protected.passwords[1] == bytes)

            reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            let refused = try await runTool(tool, ["unprotect", "--device", "pcsc", "--password-file", wrong, "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(refused.status == 9, "\(refused.output)")
            await reader.stopped()
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == protected.raw, "a wrong password changes nothing")

            reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            let unprotect = try await runTool(tool, ["unprotect", "--device", "pcsc", "--password-file", password, "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(unprotect.status == 0, "\(unprotect.output)")
            await reader.stopped()
            let open = try TagFile(path: file, blocks: 128)
            #expect(open.rfa1ss == 0 && open.passwords.allSatisfy { $0 == [UInt8](repeating: 0, count: 8) })
            #expect(open.text == "behind RF_PWD_1")
        }

        @Test("ST25DV04K through an ACR1552U: protect --area 2 --from-block 64 --read-protect (ENDA1 07, RFA2SS 0A, password 2 in the session), info names both areas, a fresh read of area 2 is refused, unprotect --area 2 opens it and sets the passwords back")
        func protectAreaTwo() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("st25dv04k-areas.json").path
            let password = daemon.directory.appendingPathComponent("st25.pwd").path
            try "0011223344556677\n".write(toFile: password, atomically: true, encoding: .utf8)
            let device = "sim:st25dv04k?file=\(file)"
            var reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--text", "area 1 stays open", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(write.status == 0, "\(write.output)")
            let protect = try await runTool(
                tool, ["protect", "--device", "pcsc", "--password-file", password, "--area", "2", "--from-block", "64", "--read-protect", "--timeout", "5"],
                environment: daemon.environment, timeout: 30)
            #expect(protect.status == 0, "\(protect.output)")
            #expect(reader.receivedAPDUs.contains { $0.hasPrefix("ffc20001") && $0.contains("22b302") }, "\(reader.receivedAPDUs)")
            let info = try await runTool(tool, ["info", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(info.output.contains("area 1 (blocks 0–63): open") && info.output.contains("area 2 (blocks 64–127): read and write need password 2"), "\(info.output)")
            let read = try await runTool(tool, ["read", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(read.status == 0 && read.output.contains("area 1 stays open"), "area 1 holds the message: \(read.output)")
            await reader.stopped()
            let protected = try TagFile(path: file, blocks: 128)
            #expect(protected.registers == [0x00, 0x07, 0x0A, 0x0F, 0x00, 0x0F, 0x00])
            let bytes: [UInt8] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77], zero = [UInt8](repeating: 0, count: 8)
            #expect(protected.passwords == [bytes, zero, bytes, zero])
            #expect(protected.text == "area 1 stays open")

            reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            let unprotect = try await runTool(
                tool, ["unprotect", "--device", "pcsc", "--password-file", password, "--area", "2", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(unprotect.status == 0, "\(unprotect.output)")
            await reader.stopped()
            let open = try TagFile(path: file, blocks: 128)
            #expect(open.registers == [0x00, 0x07, 0x00, 0x0F, 0x00, 0x0F, 0x00], "area 2 open, its bounds kept")
            #expect(open.passwords.allSatisfy { $0 == zero })
        }

        @Test("ST25DV64K through an ACR1552U: format writes the 8-byte E2 CC from EXTENDED GET SYSTEM INFORMATION; lock on an ST25DV04K locks every block of the CC and NDEF area (tag file lock bytes)")
        func formatAndLock() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("st25dv64k.json").path
            var reader = try await VirtualReaderProcess(tag: "sim:st25dv64k?file=\(file)", daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let format = try await runTool(tool, ["format", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 120)
            #expect(format.status == 0, "\(format.output)")
            await reader.stopped()
            #expect(try TagFile(path: file, blocks: 2048).capabilityContainer == [0xE2, 0x40, 0x00, 0x09, 0x00, 0x00, 0x03, 0xFF])

            let small = daemon.directory.appendingPathComponent("st25dv04k.json").path
            reader = try await VirtualReaderProcess(tag: "sim:st25dv04k?file=\(small)", daemon: daemon, profile: "transparent-session")
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--text", "locked ST", "--lock", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 120)
            #expect(write.status == 0, "\(write.output)")
            await reader.stopped()
            let image = NFCTestSupport.hex(try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: small))) as? [String: Any])?["memory"] as? String ?? "")
            #expect(image.count == 128 * 5 + 42)
            // CC MLEN 3F: the T5T area ends at byte 508, so blocks 0–126 are locked, block 127 is not in it.
            #expect(image[512..<639].allSatisfy { $0 == 0x01 }, "every block of the CC and the NDEF area locked")
            #expect(image[1] & 0x03 == 0x03, "CC write access never")
            #expect(try TagFile(path: small, blocks: 128).text == "locked ST")
        }
    }
}
