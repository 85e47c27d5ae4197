import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// NTAG 5 link passwords end to end: fresh nfctool processes reach a virtual NTAG 5 link
    /// behind pcscd and the PC/SC reader emulator named as an ACS ACR1552U, whose transparent
    /// session carries the NXP custom commands (GET RANDOM NUMBER, SET PASSWORD, PROTECT PAGE,
    /// GET NXP SYSTEM INFORMATION). The tag file is judged by ``T5TJudge`` and by the tag-file
    /// layout of the ICODE security attributes (docs/simulator.md), not by NFCTags.
    @Suite(
        "NTAG 5 passwords through the real pcscd", .tags(.pcsc, .endToEnd, .emulator), .serialized, .timeLimit(.minutes(5)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct NTAG5PasswordsThroughPCSCTests {
        static let acr1552u = "ACS ACR1552 1S CL Reader PICC"

        @Test("NTAG 5 link through an ACR1552U: protect (SET PASSWORD, PROTECT PAGE and GET NXP SYSTEM INFORMATION in the session), info shows it, a wrong password exits 9 with the file unchanged, unprotect opens it")
        func linkProtectAndUnprotect() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("ntag5-link.json").path
            let passwords = daemon.directory.appendingPathComponent("ntag5.pwd").path
            let wrong = daemon.directory.appendingPathComponent("wrong.pwd").path
            try "55667788\n".write(toFile: passwords, atomically: true, encoding: .utf8)
            try "99999999".write(toFile: wrong, atomically: true, encoding: .utf8)
            let device = "sim:ntag5-link?file=\(file)"
            var reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--text", "link guarded", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(write.status == 0, "\(write.output)")
            let protect = try await runTool(
                tool, ["protect", "--device", "pcsc", "--password-file", passwords, "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(protect.status == 0, "\(protect.output)")
            #expect(!protect.output.contains("55667788"), "no password in the output")
            let apdus = reader.receivedAPDUs
            // Transceive objects carrying SET PASSWORD (22 B3 04 …), PROTECT PAGE and GET NXP SYSTEM INFORMATION.
            for command in ["22b304", "22b604", "22ab04"] {
                #expect(apdus.contains { $0.hasPrefix("ffc20001") && $0.contains(command) }, "\(command): \(apdus)")
            }
            let info = try await runTool(tool, ["info", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(info.output.contains("write-protected: blocks 0–511"), "\(info.output)")
            await reader.stopped()
            let protected = try Data(contentsOf: URL(fileURLWithPath: file))
            let json = try #require(try JSONSerialization.jsonObject(with: protected) as? [String: Any])
            let attributes = try #require(json["attributes"] as? [String: String])
            #expect(attributes["icodePasswords"]?.contains("02=55667788") == true)
            #expect(Array(NFCTestSupport.hex(try #require(attributes["icodeProtection"])).dropFirst(3).prefix(2)) == [0x00, 0x20])

            reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            let refused = try await runTool(tool, ["unprotect", "--device", "pcsc", "--password-file", wrong, "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(refused.status == 9, "\(refused.output)")
            await reader.stopped()
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == protected, "a wrong password changes nothing")

            reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            let unprotect = try await runTool(tool, ["unprotect", "--device", "pcsc", "--password-file", passwords, "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(unprotect.status == 0, "\(unprotect.output)")
            await reader.stopped()
            let judged = try #require(try T5TJudge.TagFile(path: file, blocks: 512).judged)
            #expect(judged.text == "link guarded")
            let again = try await runTool(tool, ["write", "--device", device, "--text", "open"], environment: daemon.environment, timeout: 30)
            #expect(again.status == 0, "\(again.output)")
        }
    }
}
