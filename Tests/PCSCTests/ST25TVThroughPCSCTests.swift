import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// ST25TV02K area protection end to end: fresh nfctool processes reach a virtual ST25TV02K
    /// behind pcscd and the PC/SC reader emulator, an ACR1552U whose transparent session carries
    /// ST's custom commands. The tag file is read from the image layout of docs/simulator.md
    /// (64 blocks, a lock byte per block, DSFID, AFI, flags, registers 00–06, 4 passwords) and
    /// the text by the Type 5 rules (`T5TJudge`), not by NFCTags.
    @Suite(
        "ST25TV02K protect through the real pcscd", .tags(.pcsc, .endToEnd, .emulator), .serialized, .timeLimit(.minutes(5)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct ST25TVThroughPCSCTests {
        static let acr1552u = "ACS ACR1552 1S CL Reader PICC"

        static func image(_ path: String) throws -> [UInt8] {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            let image = NFCTestSupport.hex(try #require(json["memory"] as? String))
            try #require(image.count == 64 * 5 + 3 + 7 + 32)
            return image
        }

        @Test("ST25TV02K through an ACR1552U: protect --read-protect (GET RANDOM NUMBER, PRESENT PASSWORD, WRITE CONFIGURATION 00 02 in the session), a fresh read is refused, a wrong unprotect exits 9 with the file unchanged, unprotect opens it and the text reads again")
        func protectAndUnprotect() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("st25tv02k.json").path
            let password = daemon.directory.appendingPathComponent("tv.pwd").path
            let wrong = daemon.directory.appendingPathComponent("wrong.pwd").path
            try "5EC2E7A1\n".write(toFile: password, atomically: true, encoding: .utf8)
            try "00000001".write(toFile: wrong, atomically: true, encoding: .utf8)
            let device = "sim:st25tv02k?file=\(file)"
            var reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let env = daemon.environment
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--text", "ST25TV secret", "--timeout", "5"], environment: env, timeout: 30)
            #expect(write.status == 0, "\(write.output)")
            let protect = try await runTool(
                tool, ["protect", "--device", "pcsc", "--password-file", password, "--read-protect", "--timeout", "5"], environment: env, timeout: 30)
            #expect(protect.status == 0, "\(protect.output)")
            #expect(!protect.output.lowercased().contains("5ec2e7a1"), "no password in the output")
            // Transceive objects carrying GET RANDOM NUMBER (22 B4 02), PRESENT PASSWORD (22 B3 02) and
            // WRITE CONFIGURATION of area 1's attribute to 02 (22 A1 02 UID 00 02).
            let apdus = reader.receivedAPDUs
            #expect(apdus.contains { $0.hasPrefix("ffc20001") && $0.contains("22b402") }, "\(apdus)")
            #expect(apdus.contains { $0.hasPrefix("ffc20001") && $0.contains("22b302") }, "\(apdus)")
            #expect(apdus.contains { $0.hasPrefix("ffc20001") && $0.contains("22a102") && $0.contains("0002") }, "\(apdus)")
            let read = try await runTool(tool, ["read", "--device", "pcsc", "--timeout", "5"], environment: env, timeout: 30)
            #expect(read.status != 0 && !read.output.contains("ST25TV secret"), "\(read.output)")
            await reader.stopped()
            let protected = try Self.image(file)
            let registers = 64 * 5 + 3
            #expect(protected[registers] == 0x02, "area 1: read and write need password 1")
            #expect(Array(protected[(registers + 15)..<(registers + 19)]) == [0x5E, 0xC2, 0xE7, 0xA1], "password 1")
            #expect(Array(protected[(registers + 31)..<(registers + 35)]) == [0x5E, 0xC2, 0xE7, 0xA1], "password 3")
            let raw = try Data(contentsOf: URL(fileURLWithPath: file))

            reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            let refused = try await runTool(tool, ["unprotect", "--device", "pcsc", "--password-file", wrong, "--timeout", "5"], environment: env, timeout: 60)
            #expect(refused.status == 9, "\(refused.output)")
            await reader.stopped()
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == raw, "a wrong password changes nothing")

            reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            let unprotect = try await runTool(tool, ["unprotect", "--device", "pcsc", "--password-file", password, "--timeout", "5"], environment: env, timeout: 30)
            #expect(unprotect.status == 0, "\(unprotect.output)")
            let again = try await runTool(tool, ["read", "--device", "pcsc", "--timeout", "5"], environment: env, timeout: 30)
            #expect(again.status == 0 && again.output.contains("ST25TV secret"), "\(again.output)")
            await reader.stopped()
            let open = try Self.image(file)
            #expect(open[registers] == 0 && open[(registers + 7)...].allSatisfy { $0 == 0 })
            #expect(T5TJudge(memory: Array(open.prefix(256)))?.text == "ST25TV secret")
        }
    }
}
