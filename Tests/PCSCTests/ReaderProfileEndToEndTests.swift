import Foundation
import NFCTags
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// Reader profiles end to end: pcscd names the vpcd reader as a real family would be named, the
    /// virtual reader answers as that family, nfctool (a fresh process) picks the profile from the
    /// name and takes the family's path; the tag file, read back by the simulator in another fresh
    /// process, shows what happened.
    @Suite(
        "reader profiles through the real pcscd: transparent session and ACR122U direct transmit", .tags(.pcsc, .endToEnd, .emulator), .serialized, .timeLimit(.minutes(3)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct ReaderProfileEndToEndTests {
        static let acr1552u = "ACS ACR1552 1S CL Reader PICC"
        static let acr122u = "ACS ACR122U PICC Interface"


        @Test("lock on an ICODE SLIX2 through an ACR1552U's transparent session: start, switch to ISO 15693 layer 3, LOCK BLOCK, end; the tag file is read-only afterwards")
        func lockSLIX2ThroughTransparentSession() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("slix2.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:slix2?file=\(file)", daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--text", "locked via FF C2", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(write.status == 0, "\(write.output)")
            let lock = try await runTool(tool, ["lock", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(lock.status == 0, "\(lock.output)")
            let apdus = reader.receivedAPDUs
            #expect(apdus.contains("ffc2000002810000"), "start transparent session: \(apdus)")
            #expect(apdus.contains("ffc20002048f02020300"), "switch protocol to ISO 15693 layer 3: \(apdus)")
            // A transceive carrying the timer and a LOCK BLOCK (command 22).
            #expect(apdus.contains { $0.hasPrefix("ffc20001") && $0.contains("5f4604") && $0.contains("22") }, "\(apdus)")
            #expect(apdus.contains("ffc2000002820000"), "end transparent session: \(apdus)")
            await reader.stopped()
            // From the other side: the simulator, in a fresh process, finds the tag read-only with the text.
            let back = try await runTool(tool, ["read", "--device", "sim:slix2?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(back.output.contains("locked via FF C2"), "\(back.output)")
            let again = try await runTool(
                tool, ["write", "--device", "sim:slix2?file=\(file)", "--text", "overwrite", "--timeout", "2"], environment: daemon.environment, timeout: 30)
            #expect(again.status != 0, "a locked tag refuses the write\n\(again.output)")
        }

        @Test("NTAG215 through an ACR1552U: scan names the model (GET_VERSION in the session), lock sets the lock bytes; the simulator then refuses a write")
        func lockNTAGThroughTransparentSession() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("ntag215.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:ntag215?file=\(file)", daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let scan = try await runTool(tool, ["scan", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(scan.status == 0, "\(scan.output)")
            #expect(scan.output.contains("NTAG215"), "\(scan.output)")
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--url", "https://example.com/ff-c2", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(write.status == 0, "\(write.output)")
            let lock = try await runTool(tool, ["lock", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(lock.status == 0, "\(lock.output)")
            #expect(reader.receivedAPDUs.contains("ffc20002048f02000300"), "switch protocol to ISO 14443-A layer 3: \(reader.receivedAPDUs)")
            await reader.stopped()
            let back = try await runTool(tool, ["read", "--device", "sim:ntag215?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(back.output.contains("https://example.com/ff-c2"), "\(back.output)")
            let again = try await runTool(
                tool, ["write", "--device", "sim:ntag215?file=\(file)", "--url", "https://example.com/x", "--timeout", "2"], environment: daemon.environment, timeout: 30)
            #expect(again.status != 0, "a locked tag refuses the write\n\(again.output)")
        }

        @Test("NTAG215 through an ACR122U: GET_VERSION by direct transmit (FF 00 00 00 D4 42 60) names the model; lock works, read back by the simulator")
        func ntagThroughACR122U() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr122u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("ntag215.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:ntag215?file=\(file)", daemon: daemon, profile: "acr122u")
            defer { reader.stop() }
            let scan = try await runTool(tool, ["scan", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(scan.status == 0, "\(scan.output)")
            #expect(scan.output.contains("NTAG215"), "\(scan.output)")
            // GET_VERSION (60) and its CRC_A, the PN532's CRC handling being off for raw frames.
            #expect(reader.receivedAPDUs.contains("ff00000005d44260" + ISO14443ACRC.bytes(of: [0x60]).map { String(format: "%02x", $0) }.joined()), "\(reader.receivedAPDUs)")
            let lock = try await runTool(tool, ["lock", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(lock.status == 0, "\(lock.output)")
            await reader.stopped()
            let again = try await runTool(
                tool, ["write", "--device", "sim:ntag215?file=\(file)", "--url", "https://example.com/x", "--timeout", "2"], environment: daemon.environment, timeout: 30)
            #expect(again.status != 0, "a locked tag refuses the write\n\(again.output)")
        }

        @Test("an ISO 15693 lock on an ACR1252U-named reader (no ISO 15693 raw path): notSupported naming the profile, no FF C2 and no write sent")
        func acr1252uHasNoISO15693Session() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: "ACS ACR1252 1S CL Reader PICC")
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("slix2.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:slix2?file=\(file)", daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let before = try Data(contentsOf: URL(fileURLWithPath: file))
            let lock = try await runTool(tool, ["lock", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(lock.status == 10, "\(lock.output)")
            #expect(lock.output.contains("ACS ACR1252U profile"), "\(lock.output)")
            #expect(!reader.receivedAPDUs.contains { $0.hasPrefix("ffc2") || $0.hasPrefix("ffd6") }, "\(reader.receivedAPDUs)")
            await reader.stopped()
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        }

        @Test("NTAG215 password through an ACR1552U: protect --read-protect, then read with the password (PWD_AUTH in the session); the simulator without it cannot read the URL")
        func passwordThroughTransparentSession() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("ntag215.json").path
            let passwordFile = daemon.directory.appendingPathComponent("password").path
            try "A1B2C3D4".write(toFile: passwordFile, atomically: true, encoding: .utf8)
            let reader = try await VirtualReaderProcess(tag: "sim:ntag215?file=\(file)", daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--url", "https://example.com/secret", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(write.status == 0, "\(write.output)")
            let protect = try await runTool(
                tool, ["protect", "--device", "pcsc", "--password-file", passwordFile, "--read-protect", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(protect.status == 0, "\(protect.output)")
            let read = try await runTool(tool, ["read", "--device", "pcsc", "--password-file", passwordFile, "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(read.status == 0, "\(read.output)")
            #expect(read.output.contains("https://example.com/secret"), "\(read.output)")
            // PWD_AUTH (1B) with the password went in a transceive object.
            #expect(reader.receivedAPDUs.contains { $0.hasPrefix("ffc20001") && $0.contains("95051ba1b2c3d4") }, "\(reader.receivedAPDUs)")
            await reader.stopped()
            let back = try await runTool(tool, ["read", "--device", "sim:ntag215?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(!back.output.contains("https://example.com/secret"), "read-protected: no URL without the password\n\(back.output)")
        }

        @Test("a tag file written through PC/SC reads back identically through libnfc and the PN532 emulator")
        func writtenThroughPCSCReadThroughLibNFC() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("ntag215.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:ntag215?file=\(file)", daemon: daemon)
            defer { reader.stop() }
            let write = try await runTool(
                tool, ["write", "--device", "pcsc", "--url", "https://example.com/pcsc-to-libnfc", "--text", "both stacks", "--timeout", "5"],
                environment: daemon.environment, timeout: 30)
            #expect(write.status == 0, "\(write.output)")
            let viaPCSC = try await runTool(tool, ["dump", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            await reader.stopped()
            let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
            defer { emulator.stop() }
            let viaLibNFC = try await runTool(tool, ["read", "--device", emulator.connectionString, "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(viaLibNFC.status == 0, "\(viaLibNFC.output)")
            #expect(viaLibNFC.output.contains("https://example.com/pcsc-to-libnfc") && viaLibNFC.output.contains("both stacks"), "\(viaLibNFC.output)")
            let dumpLibNFC = try await runTool(tool, ["dump", "--device", emulator.connectionString, "--timeout", "5"], environment: daemon.environment, timeout: 30)
            // The same memory, page for page, through both stacks.
            #expect(viaPCSC.status == 0 && dumpLibNFC.status == 0)
            // The generic profile cannot tell the model (no GET_VERSION) and dumps the 16 pages every
            // Type 2 tag has; libnfc dumps all 135: the first 16 are the same, byte for byte.
            // (Compared without the column padding, which follows the page count.)
            let pages = { (text: String) in
                text.split(separator: "\n").filter { $0.hasPrefix("page ") }.map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
            }
            let pcscPages = pages(viaPCSC.output), libnfcPages = pages(dumpLibNFC.output)
            #expect(pcscPages.count == 16 && libnfcPages.count == 135, "PC/SC:\n\(viaPCSC.output)\nlibnfc:\n\(dumpLibNFC.output)")
            #expect(pcscPages == Array(libnfcPages.prefix(pcscPages.count)), "PC/SC:\n\(viaPCSC.output)\nlibnfc:\n\(dumpLibNFC.output)")
        }

        @Test("lock --plan through the generic profile refuses as lock does (the model cannot be learned without GET_VERSION): the plan never promises a lock the run would refuse")
        func lockPlanThroughGenericProfile() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("ntag215.json").path
            let seed = try await runTool(tool, ["write", "--device", "sim:ntag215?file=\(file)", "--url", "https://example.com/plan"], environment: daemon.environment, timeout: 30)
            #expect(seed.status == 0, "\(seed.output)")
            let reader = try await VirtualReaderProcess(tag: "sim:ntag215?file=\(file)", daemon: daemon)
            defer { reader.stop() }
            let lock = try await runTool(tool, ["lock", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            let plan = try await runTool(tool, ["lock", "--device", "pcsc", "--plan", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(lock.status != 0 && lock.output.contains("GET_VERSION"), "\(lock.output)")
            #expect(plan.status == lock.status, "plan: \(plan.output)\nlock: \(lock.output)")
            #expect(plan.output.contains("GET_VERSION"), "\(plan.output)")
        }

        @Test("format through PC/SC: NTAG215 (--force) on the generic profile; ICODE SLIX2 refused there (GET SYSTEM INFORMATION, nothing written) and done through an ACR1552U's session")
        func formatThroughPCSC() async throws {
            let tool = try Executables.nfctool()
            let generic = try await PrivatePCSCDaemon()
            defer { generic.stop() }
            let ntag = generic.directory.appendingPathComponent("ntag215.json").path
            let seed = try await runTool(tool, ["write", "--device", "sim:ntag215?file=\(ntag)", "--url", "https://example.com/old"], environment: generic.environment, timeout: 30)
            #expect(seed.status == 0, "\(seed.output)")
            var reader = try await VirtualReaderProcess(tag: "sim:ntag215?file=\(ntag)", daemon: generic)
            let formatNTAG = try await runTool(tool, ["format", "--device", "pcsc", "--force", "--yes", "--timeout", "5"], environment: generic.environment, timeout: 30)
            #expect(formatNTAG.status == 0, "\(formatNTAG.output)")
            await reader.stopped()
            let backNTAG = try await runTool(tool, ["read", "--device", "sim:ntag215?file=\(ntag)"], environment: generic.environment, timeout: 30)
            #expect(!backNTAG.output.contains("https://example.com/old"), "\(backNTAG.output)")
            let slix = generic.directory.appendingPathComponent("slix2.json").path
            let seedSLIX = try await runTool(tool, ["write", "--device", "sim:slix2?file=\(slix)", "--url", "https://example.com/old"], environment: generic.environment, timeout: 30)
            #expect(seedSLIX.status == 0, "\(seedSLIX.output)")
            let before = try Data(contentsOf: URL(fileURLWithPath: slix))
            reader = try await VirtualReaderProcess(tag: "sim:slix2?file=\(slix)", daemon: generic)
            let refused = try await runTool(tool, ["format", "--device", "pcsc", "--force", "--yes", "--timeout", "5"], environment: generic.environment, timeout: 30)
            #expect(refused.status == 10, "\(refused.output)")
            #expect(refused.output.contains("GET SYSTEM INFORMATION"), "\(refused.output)")
            await reader.stopped()
            #expect(try Data(contentsOf: URL(fileURLWithPath: slix)) == before, "nothing written")
            let session = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { session.stop() }
            reader = try await VirtualReaderProcess(tag: "sim:slix2?file=\(slix)", daemon: session, profile: "transparent-session")
            defer { reader.stop() }
            let done = try await runTool(tool, ["format", "--device", "pcsc", "--force", "--yes", "--timeout", "5"], environment: session.environment, timeout: 30)
            #expect(done.status == 0, "\(done.output)")
            await reader.stopped()
            let backSLIX = try await runTool(tool, ["read", "--device", "sim:slix2?file=\(slix)"], environment: session.environment, timeout: 30)
            #expect(!backSLIX.output.contains("https://example.com/old"), "\(backSLIX.output)")
        }
    }
}
