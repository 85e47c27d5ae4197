import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// ICODE passwords end to end: fresh nfctool processes reach a virtual ICODE SLIX-S (and
    /// SLIX2) behind pcscd and the PC/SC reader emulator named as an ACS ACR1552U, whose
    /// transparent session carries the NXP custom commands. The tag file is judged by the NFC
    /// Forum Type 5 rules written for tests (`T5TJudge`: CC, TLV) and the tag-file layout of the
    /// ICODE security attributes (docs/simulator.md), not by NFCTags.
    @Suite(
        "ICODE passwords through the real pcscd", .tags(.pcsc, .endToEnd, .emulator), .serialized, .timeLimit(.minutes(5)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct ICodePasswordsThroughPCSCTests {
        static let acr1552u = "ACS ACR1552 1S CL Reader PICC"

        /// What the test reads from a tag file: the T5T message's text payload, the page
        /// protection bytes and the passwords.
        struct TagFile {
            var text: String?
            var pageProtection: [UInt8]
            var passwords: [String: String]
            var raw: Data

            init(path: String) throws {
                raw = try Data(contentsOf: URL(fileURLWithPath: path))
                let json = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any])
                let memory = NFCTestSupport.hex(try #require(json["memory"] as? String))
                // The Type 5 rules (CC, TLVs) as NFCTestSupport's T5TJudge writes them.
                text = try #require(T5TJudge(memory: memory)).text
                let attributes = json["attributes"] as? [String: String] ?? [:]
                pageProtection = attributes["icodeProtection"].map { Array(NFCTestSupport.hex($0).dropFirst(7)) } ?? []
                passwords = Dictionary(uniqueKeysWithValues: (attributes["icodePasswords"] ?? "").split(separator: ",").compactMap { item in
                    let pair = item.split(separator: "=")
                    return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
                })
            }
        }

        @Test("SLIX-S through an ACR1552U: protect --read-protect (SET PASSWORD and PROTECT PAGE in the session), info shows it, a wrong password exits 9 with the file unchanged, unprotect opens it")
        func slixSProtectAndUnprotect() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("slix-s.json").path
            let passwords = daemon.directory.appendingPathComponent("icode.pwd").path
            let wrong = daemon.directory.appendingPathComponent("wrong.pwd").path
            try "11223344:55667788\n".write(toFile: passwords, atomically: true, encoding: .utf8)
            try "99999999:88888888".write(toFile: wrong, atomically: true, encoding: .utf8)
            let device = "sim:icode-slix-s?file=\(file)"
            var reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--text", "guarded by B6", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(write.status == 0, "\(write.output)")
            let plan = try await runTool(
                tool, ["protect", "--device", "pcsc", "--password-file", passwords, "--read-protect", "--plan", "--timeout", "5"],
                environment: daemon.environment, timeout: 30)
            #expect(plan.status == 0, "\(plan.output)")
            #expect(plan.output.contains("WRITE PASSWORD") && plan.output.contains("PROTECT PAGE") && !plan.output.contains("11223344"), "\(plan.output)")
            let protect = try await runTool(
                tool, ["protect", "--device", "pcsc", "--password-file", passwords, "--read-protect", "--timeout", "5"],
                environment: daemon.environment, timeout: 30)
            #expect(protect.status == 0, "\(protect.output)")
            #expect(!protect.output.contains("11223344") && !protect.output.contains("55667788"), "no password in the output")
            let apdus = reader.receivedAPDUs
            // Transceive objects carrying GET RANDOM NUMBER (22 B2 04 …) and SET PASSWORD (22 B3 04 …).
            #expect(apdus.contains { $0.hasPrefix("ffc20001") && $0.contains("22b204") }, "\(apdus)")
            #expect(apdus.contains { $0.hasPrefix("ffc20001") && $0.contains("22b304") }, "\(apdus)")
            let info = try await runTool(tool, ["info", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(info.output.contains("read-protected: blocks 0–39"), "\(info.output)")
            #expect(info.output.contains("ICODE SLIX-S") && info.output.contains("40 of 4 bytes"), "\(info.output)")
            await reader.stopped()
            let protected = try TagFile(path: file)
            #expect(protected.text == "guarded by B6")
            #expect(protected.pageProtection == [UInt8](repeating: 0x11, count: 10), "every page: read by the read, write by the write password")
            #expect(protected.passwords["01"] == "11223344" && protected.passwords["02"] == "55667788")

            reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            let refused = try await runTool(tool, ["unprotect", "--device", "pcsc", "--password-file", wrong, "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(refused.status == 9, "\(refused.output)")
            await reader.stopped()
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == protected.raw, "a wrong password changes nothing")

            reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            let unprotect = try await runTool(tool, ["unprotect", "--device", "pcsc", "--password-file", passwords, "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(unprotect.status == 0, "\(unprotect.output)")
            await reader.stopped()
            let open = try TagFile(path: file)
            #expect(open.pageProtection.isEmpty && open.passwords.isEmpty, "back to the factory state: no security attributes")
            #expect(open.text == "guarded by B6")
            let read = try await runTool(tool, ["read", "--device", device], environment: daemon.environment, timeout: 30)
            #expect(read.output.contains("guarded by B6"), "\(read.output)")
        }

        @Test("SLIX2: irreversible steps need --yes (64 without it, nothing sent); --64-bit --lock-password with --yes sets the pointer and locks the passwords")
        func slix2Irreversible() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("slix2.json").path
            let passwords = daemon.directory.appendingPathComponent("icode.pwd").path
            try "0A0B0C0D:01020304".write(toFile: passwords, atomically: true, encoding: .utf8)
            let reader = try await VirtualReaderProcess(tag: "sim:slix2?file=\(file)", daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let asked = try await runTool(
                tool, ["protect", "--device", "pcsc", "--password-file", passwords, "--lock-password", "--timeout", "5"],
                environment: daemon.environment, timeout: 30)
            #expect(asked.status == 64, "\(asked.output)")
            #expect(!reader.receivedAPDUs.contains { $0.contains("b404") || $0.contains("22b4") }, "nothing written")
            let done = try await runTool(
                tool, ["protect", "--device", "pcsc", "--password-file", passwords, "--from-block", "8", "--64-bit", "--lock-password", "--yes", "--timeout", "5"],
                environment: daemon.environment, timeout: 30)
            #expect(done.status == 0, "\(done.output)")
            await reader.stopped()
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
            let attributes = try #require(json["attributes"] as? [String: String])
            let protection = NFCTestSupport.hex(try #require(attributes["icodeProtection"]))
            // Locked-password mask 03 (read, write), privacy 0, 64-bit 1, pointer 08, status 20 (write high).
            #expect(Array(protection.prefix(5)) == [0x03, 0x00, 0x01, 0x08, 0x20], "\(protection)")
        }

        @Test("SLIX2 through an ACR1552U: protect --lock-protection --yes carries 22 B7 04 UID 08 in the transparent session after PROTECT PAGE; unprotect then exits 5 with no password given; the file holds pointer 08, status 20 and condition mask 0003")
        func slix2LockProtection() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("slix2-locked.json").path
            let passwords = daemon.directory.appendingPathComponent("icode.pwd").path
            try "0A0B0C0D".write(toFile: passwords, atomically: true, encoding: .utf8)
            let reader = try await VirtualReaderProcess(tag: "sim:slix2?file=\(file)", daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let done = try await runTool(
                tool, ["protect", "--device", "pcsc", "--password-file", passwords, "--from-block", "8", "--lock-protection", "--yes", "--timeout", "5"],
                environment: daemon.environment, timeout: 30)
            #expect(done.status == 0 && done.output.contains("condition is locked"), "\(done.output)")
            let apdus = reader.receivedAPDUs
            let b6 = try #require(apdus.firstIndex { $0.contains("22b604") }), b7 = try #require(apdus.firstIndex { $0.contains("22b704") })
            #expect(b6 < b7, "PROTECT PAGE before LOCK PAGE PROTECTION CONDITION")
            let sentBefore = apdus.count
            let unprotect = try await runTool(
                tool, ["unprotect", "--device", "pcsc", "--password-file", passwords, "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(unprotect.status == 5 && unprotect.output.contains("protection condition is locked"), "\(unprotect.output)")
            #expect(!reader.receivedAPDUs.dropFirst(sentBefore).contains { $0.contains("22b3") || $0.contains("22b6") }, "no password given, no page changed")
            await reader.stopped()
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
            let attributes = try #require(json["attributes"] as? [String: String])
            let protection = NFCTestSupport.hex(try #require(attributes["icodeProtection"]))
            #expect(Array(protection.prefix(7)) == [0x00, 0x00, 0x00, 0x08, 0x20, 0x03, 0x00], "\(protection)")
            let uidOnAir = Array(NFCTestSupport.hex(try #require(json["uid"] as? String)).reversed())
            let frame = ([0x22, 0xB7, 0x04] + uidOnAir + [0x08]).map { String(format: "%02x", $0) }.joined()
            #expect(apdus[b7].contains(frame), "\(apdus[b7])")
        }

        @Test("privacy through an ACR1552U: protect --privacy hides the SLIX2 (pcscd then sees no card: scan exits 2); unprotect --privacy cannot reach it through PC/SC (exit 10), the file unchanged")
        func privacyHidesFromPCSC() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("slix2-privacy.json").path
            let passwords = daemon.directory.appendingPathComponent("privacy.pwd").path
            try "7E7E7E7E".write(toFile: passwords, atomically: true, encoding: .utf8)
            let device = "sim:slix2?file=\(file)"
            let reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let hide = try await runTool(
                tool, ["protect", "--device", "pcsc", "--password-file", passwords, "--privacy", "--yes", "--timeout", "5"],
                environment: daemon.environment, timeout: 30)
            #expect(hide.status == 0, "\(hide.output)")
            #expect(reader.receivedAPDUs.contains { $0.hasPrefix("ffc20001") && $0.contains("22ba04") }, "ENABLE PRIVACY in the session: \(reader.receivedAPDUs)")
            let scan = try await runTool(tool, ["scan", "--device", "pcsc", "--timeout", "2"], environment: daemon.environment, timeout: 30)
            #expect(scan.status == 2, "no card for a chip in privacy mode: \(scan.output)")
            await reader.stopped()
            let hidden = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(String(decoding: hidden, as: UTF8.self).contains("icodeProtection"), "privacy recorded in the file")
            // The reader stays empty: nothing can reach the hidden chip through PC/SC.
            let leave = try await runTool(
                tool, ["unprotect", "--device", "pcsc", "--privacy", "--password-file", passwords, "--timeout", "2"],
                environment: daemon.environment, timeout: 30)
            #expect(leave.status == 10, "\(leave.output)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == hidden, "nothing changed")
        }

        @Test("EAS/AFI through an ACR1552U: --password eas-afi --protect-afi --yes sends SET PASSWORD 10 and A6 with the option flag in the session; the file records it")
        func easAFIThroughPCSC() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("slix-s-eas.json").path
            let passwords = daemon.directory.appendingPathComponent("eas.pwd").path
            try "13572468".write(toFile: passwords, atomically: true, encoding: .utf8)
            let reader = try await VirtualReaderProcess(tag: "sim:icode-slix-s?file=\(file)", daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let done = try await runTool(
                tool, ["protect", "--device", "pcsc", "--password", "eas-afi", "--password-file", passwords, "--protect-afi", "--eas", "on", "--yes", "--timeout", "5"],
                environment: daemon.environment, timeout: 30)
            #expect(done.status == 0, "\(done.output)")
            #expect(!done.output.contains("13572468"))
            #expect(reader.receivedAPDUs.contains { $0.hasPrefix("ffc20001") && $0.contains("62a604") }, "A6 with the option flag (AFI): \(reader.receivedAPDUs)")
            await reader.stopped()
            let tagFile = try TagFile(path: file)
            #expect(tagFile.passwords["10"] == "13572468")
            let json = try #require(try JSONSerialization.jsonObject(with: tagFile.raw) as? [String: Any])
            let attributes = try #require(json["attributes"] as? [String: String])
            // icodeEAS bits: 0 EAS on, 3 AFI protected.
            #expect(attributes["icodeEAS"] == "09", "\(attributes)")
        }

        @Test("EAS ID through an ACR1552U: info says EAS off (EAS ALARM unanswered in the session); --eas-id BEEF --eas on sends WRITE EAS ID (22 A7 04 … EF BE) and SET EAS; a fresh info reads EAS on and the ID")
        func easIDThroughPCSC() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("slix-l-eas-id.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:icode-slix-l?file=\(file)", daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let before = try await runTool(tool, ["info", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(before.status == 0 && before.output.contains("off (EAS ALARM not answered), EAS ID 0000"), "\(before.output)")
            let done = try await runTool(
                tool, ["protect", "--device", "pcsc", "--eas-id", "BEEF", "--eas", "on", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(done.status == 0, "\(done.output)")
            #expect(reader.receivedAPDUs.contains { $0.hasPrefix("ffc20001") && $0.contains("22a704") && $0.contains("efbe") }, "\(reader.receivedAPDUs)")
            let after = try await runTool(tool, ["info", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(after.status == 0 && after.output.contains("on (EAS ALARM answered), EAS ID BEEF"), "\(after.output)")
            await reader.stopped()
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
            let attributes = try #require(json["attributes"] as? [String: String])
            #expect(attributes["icodeEASID"] == "BEEF" && attributes["icodeEAS"] == "01", "\(attributes)")
        }
    }
}
