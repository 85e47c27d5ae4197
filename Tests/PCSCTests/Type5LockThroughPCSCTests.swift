import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// `lock` and `protect` on the ISO 15693 chips behind the real pcscd and the PC/SC reader
    /// emulator named as an ACS ACR1552U (its transparent session carries LOCK BLOCK, EXTENDED
    /// LOCK BLOCK and the custom commands), in fresh nfctool processes. The tag files are judged
    /// by ``T5TJudge`` (the NFC Forum Type 5 rules written for tests) and the tag-file layout of
    /// docs/simulator.md (memory, a lock byte per block, …), not by NFCTags.
    @Suite(
        "Type 5 lock and protect through the real pcscd", .tags(.pcsc, .endToEnd, .emulator), .serialized, .timeLimit(.minutes(5)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct Type5LockThroughPCSCTests {
        static let acr1552u = "ACS ACR1552 1S CL Reader PICC"

        /// A Type 5 tag file: the memory judged and the lock byte of each block.
        struct LockedFile {
            var judged: T5TJudge
            var locks: [Bool]
            var raw: Data

            /// Reads the tag file at `path` of a chip with `blocks` blocks of 4 bytes.
            init(path: String, blocks: Int) throws {
                raw = try Data(contentsOf: URL(fileURLWithPath: path))
                let json = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any])
                let image = NFCTestSupport.hex(try #require(json["memory"] as? String))
                try #require(image.count >= blocks * 5 + 3, "\(image.count) bytes")
                judged = try #require(T5TJudge(memory: Array(image.prefix(blocks * 4))))
                locks = image[(blocks * 4)..<(blocks * 5)].map { $0 & 0x01 != 0 }
            }

            /// The URL of the first record (a URI record with prefix `04`, `https://`).
            var url: String { String(decoding: (judged.message ?? []).dropFirst(5), as: UTF8.self) }
            /// Whether the CC says read-only and every block of the CC and T5T area is locked.
            var readOnly: Bool {
                judged.writeAccess == 3 && locks.prefix(min(locks.count, (judged.capabilityContainer.count + judged.area + 3) / 4)).allSatisfy { $0 }
            }
        }

        @Test("write, a fresh read, lock --yes, then a fresh write exits 5 with the tag file unchanged; the file is read-only with the URL (icode-slix: its first PC/SC test)", arguments: [
            ("icode-slix", 28), ("icode-slix-s", 40), ("icode-slix-l", 8), ("st25tv02k", 64), ("st25dv64k", 2048), ("ntag5", 128), ("icode-dna", 63),
        ])
        func lock(model: String, blocks: Int) async throws {
            let started = ContinuousClock.now
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("\(model).json").path
            let device = "sim:\(model)?file=\(file)"
            let url = "https://t5.io/\(blocks)"
            if blocks > 256 {
                // An ST25DV64K whose 8-byte E2 CC states a 128-byte T5T area (MLEN 0010): the lock
                // goes as EXTENDED LOCK BLOCK all the same, 34 of them instead of 2048 (110 s
                // through pcscd; the whole-memory lock is ST25BatchTests' on the simulator).
                let seed = try await runTool(tool, ["write", "--device", device, "--url", url], environment: daemon.environment, timeout: 60)
                #expect(seed.status == 0, "\(seed.output)")
                var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
                let memory = try #require(json["memory"] as? String)
                try #require(memory.hasPrefix("e2400001000003ff"), "\(memory.prefix(16))")
                json["memory"] = "e240000100000010" + memory.dropFirst(16)
                try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: file))
            }
            var reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            for arguments in [["write", "--url", url], ["read"], ["lock", "--yes"]] {
                let run = try await runTool(tool, arguments + ["--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 120)
                #expect(run.status == 0, "\(model) \(arguments): \(run.output)")
                if arguments == ["read"] { #expect(run.output.contains(url), "\(model): \(run.output)") }
            }
            if blocks > 256 {
                #expect(reader.receivedAPDUs.contains { $0.hasPrefix("ffc20001") && $0.contains("2232") }, "EXTENDED LOCK BLOCK in the session")
            }
            await reader.stopped()
            let locked = try LockedFile(path: file, blocks: blocks)
            #expect(locked.url == "t5.io/\(blocks)" && locked.readOnly, "\(model): \(locked.judged) \(locked.locks)")

            reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            let refused = try await runTool(tool, ["write", "--device", "pcsc", "--url", "https://t5.io/x", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(refused.status == 5, "\(model): \(refused.output)")
            await reader.stopped()
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == locked.raw, "\(model): a refused write changes nothing")
            print("\(model) lock through pcscd: \(ContinuousClock.now - started)")
        }

        @Test("protect through an ACR1552U on an ST25DV64K (PRESENT PASSWORD, WRITE CONFIGURATION with ST's 02) and an NTAG 5 switch (SET PASSWORD, PROTECT PAGE with NXP's 04): a fresh write is refused with the message kept, unprotect opens it, a fresh write then goes through", arguments: [
            ("st25dv64k", 2048, "0123456789ABCDEF", ["22b302", "22a102"], "write needs password 1"),
            ("ntag5", 128, "55667788", ["22b304", "22b604"], "write-protected"),
        ])
        func protect(model: String, blocks: Int, password: String, commands: [String], infoLine: String) async throws {
            let started = ContinuousClock.now
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("\(model).json").path
            let passwordFile = daemon.directory.appendingPathComponent("\(model).pwd").path
            try "\(password)\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
            let device = "sim:\(model)?file=\(file)"
            var reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            for arguments in [["write", "--url", "https://t5.io/p"], ["protect", "--password-file", passwordFile]] {
                let run = try await runTool(tool, arguments + ["--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 120)
                #expect(run.status == 0, "\(model) \(arguments): \(run.output)")
                #expect(!run.output.lowercased().contains(password.lowercased()), "no password in the output")
            }
            for command in commands {
                #expect(reader.receivedAPDUs.contains { $0.hasPrefix("ffc20001") && $0.contains(command) }, "\(model) \(command): \(reader.receivedAPDUs.suffix(20))")
            }
            let info = try await runTool(tool, ["info", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(info.status == 0 && info.output.contains(infoLine), "\(model): \(info.output)")
            let overwrite = try await runTool(tool, ["write", "--device", "pcsc", "--url", "https://t5.io/intruder", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(overwrite.status != 0, "\(model): \(overwrite.output)")
            let unprotect = try await runTool(
                tool, ["unprotect", "--device", "pcsc", "--password-file", passwordFile, "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(unprotect.status == 0, "\(model): \(unprotect.output)")
            await reader.stopped()
            #expect(try LockedFile(path: file, blocks: blocks).url == "t5.io/p", "\(model): the refused write changed nothing")

            reader = try await VirtualReaderProcess(tag: device, daemon: daemon, profile: "transparent-session")
            let again = try await runTool(tool, ["write", "--device", "pcsc", "--url", "https://t5.io/open", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(again.status == 0, "\(model): \(again.output)")
            await reader.stopped()
            #expect(try LockedFile(path: file, blocks: blocks).url == "t5.io/open")
            print("\(model) protect through pcscd: \(ContinuousClock.now - started)")
        }
    }
}
