import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// The PC/SC stack end to end: the tests' own pcscd with vpcd, `pcsc-reader-emulator` holding
    /// a virtual tag, judged by independent clients (pcsc_scan, scriptor, pyscard) and by nfctool
    /// in a fresh process; what was written is read back from the tag file by the simulator.
    @Suite(
        "a virtual PC/SC reader behind the real pcscd", .tags(.pcsc, .endToEnd), .serialized, .timeLimit(.minutes(3)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct VirtualReaderTests {
        static let ultralightATR = "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68"

        /// Whether Python imports pyscard (checked once, for a trait: a synchronous context).
        static let pyscardAvailable: Bool =
            (try? runToolSynchronously("/usr/bin/env", ["python3", "-c", "import smartcard"], environment: ProcessInfo.processInfo.environment, timeout: 20))?.status == 0


        @Test("pcsc_scan lists the reader and shows the NTAG215's PC/SC Part 3 ATR (ISO 14443-A part 3, MIFARE Ultralight)")
        func pcscScanSeesReaderAndATR() async throws {
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let reader = try await VirtualReaderProcess(tag: "sim:ntag215", daemon: daemon)
            defer { reader.stop() }
            let scan = try await runTool("/usr/bin/pcsc_scan", ["-c", "-t", "2"], environment: daemon.environment, timeout: 10)
            #expect(scan.output.contains(daemon.readerName))
            #expect(scan.output.contains("ATR: " + Self.ultralightATR))
        }

        @Test("scriptor sends FF CA 00 00 00 and gets the UID with 9000; an unknown pseudo-APDU gets 6A81")
        func scriptorGetsUID() async throws {
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let reader = try await VirtualReaderProcess(tag: "sim:ntag215", daemon: daemon)
            defer { reader.stop() }
            let run = try await runTool(
                "/usr/bin/scriptor", ["-r", daemon.readerName], environment: daemon.environment,
                input: "FF CA 00 00 00\nFF CA 00 00 04\nFF 12 00 00 00\nFF B0 00 00 10\n", timeout: 10)
            #expect(run.status == 0, "\(run.output)")
            // Default UID of the NTAG215 model, then 9000 (scriptor prints `< ` and the response).
            #expect(run.output.contains("04 53 49 4D 00 00 01 90 00"), "\(run.output)")
            #expect(run.output.contains("6C 07"), "Le shorter than the UID: 6C and the exact length\n\(run.output)")
            #expect(run.output.contains("6A 81"), "\(run.output)")
            #expect(reader.receivedAPDUs == ["ffca000000", "ffca000004", "ff12000000", "ffb0000010"])
        }

        @Test(
            "pyscard connects, reads the ATR and gets the ICODE SLIX2's UID from FF CA 00 00 00 (least significant byte first, as on the air)",
            .enabled(if: pyscardAvailable || isContinuousIntegration, "pyscard (pip) is not installed"))
        func pyscardGetsUID() async throws {
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let reader = try await VirtualReaderProcess(tag: "sim:slix2", daemon: daemon)
            defer { reader.stop() }
            let script = """
                from smartcard.System import readers
                r = [x for x in readers() if str(x) == "\(daemon.readerName)"][0]
                c = r.createConnection(); c.connect()
                print("ATR", bytes(c.getATR()).hex())
                data, sw1, sw2 = c.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00])
                print("UID", bytes(data).hex(), "%02x%02x" % (sw1, sw2))
                data, sw1, sw2 = c.transmit([0xFF, 0xB0, 0x00, 0x00, 0x00])
                print("BLOCK0", bytes(data).hex(), "%02x%02x" % (sw1, sw2))
                data, sw1, sw2 = c.transmit([0xFF, 0xCA, 0x01, 0x00, 0x00])
                print("ATS", "%02x%02x" % (sw1, sw2))
                """
            let run = try await runTool("/usr/bin/env", ["python3", "-c", script], environment: daemon.environment, timeout: 30)
            #expect(run.status == 0, "\(run.output)")
            // ISO 15693 part 3 (SS 0B), card name 0014 (ICODE SLI) for an NXP ICODE card: the ATR a
            // real reader gave an ICODE card (pcsc-tools' smartcard_list.txt, "Philips ICode";
            // Tests/Fixtures/captures/pcsc-tools-icode-atr.json).
            #expect(run.output.contains("ATR 3b8f8001804f0ca0000003060b00140000000077"), "\(run.output)")
            // The model's UID E0 04 01 08 53 49 4D 01, least significant byte first.
            #expect(run.output.contains("UID 014d4953080104e0 9000"), "\(run.output)")
            #expect(run.output.contains("BLOCK0 e1"), "the SLIX2 model is NDEF formatted: its CC starts E1\n\(run.output)")
            #expect(run.output.contains("ATS 6a81"), "no ATS on an ISO 15693 card\n\(run.output)")
        }

        @Test("nfctool write --device pcsc on a virtual NTAG215: the tag file holds the message, read back by the simulator in a fresh process")
        func writeNTAG215ThroughPCSC() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("ntag215.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:ntag215?file=\(file)", daemon: daemon)
            defer { reader.stop() }
            let scan = try await runTool(tool, ["scan", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(scan.status == 0, "\(scan.output)")
            #expect(scan.output.contains("04 53 49 4D 00 00 01"), "\(scan.output)")
            #expect(scan.output.contains("model unknown"), "the generic profile cannot send GET_VERSION: the model is not guessed\n\(scan.output)")
            let write = try await runTool(
                tool, ["write", "--device", "pcsc:NFCKit test PCD", "--url", "https://example.com/through-pcscd", "--timeout", "5"],
                environment: daemon.environment, timeout: 30)
            #expect(write.status == 0, "\(write.output)")
            await reader.stopped()
            let back = try await runTool(tool, ["read", "--device", "sim:ntag215?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(back.status == 0, "\(back.output)")
            #expect(back.output.contains("https://example.com/through-pcscd"), "\(back.output)")
            #expect(!reader.receivedAPDUs.contains { !$0.hasPrefix("ff") }, "only pseudo-APDUs reach a Type 2 tag's reader")
        }

        @Test("nfctool write and read --device pcsc:#0 on a virtual ICODE SLIX2 through FF B0/FF D6; the tag file holds the message")
        func writeSLIX2ThroughPCSC() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("slix2.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:slix2?file=\(file)", daemon: daemon)
            defer { reader.stop() }
            let write = try await runTool(
                tool, ["write", "--device", "pcsc:#0", "--text", "vicinity via PC/SC", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(write.status == 0, "\(write.output)")
            let read = try await runTool(tool, ["read", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(read.status == 0, "\(read.output)")
            #expect(read.output.contains("ICODE SLIX2"), "\(read.output)")
            #expect(read.output.contains("vicinity via PC/SC"), "\(read.output)")
            #expect(reader.receivedAPDUs.contains { $0.hasPrefix("ffd6") }, "the write went as UPDATE BINARY")
            await reader.stopped()
            let back = try await runTool(tool, ["read", "--device", "sim:slix2?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(back.output.contains("vicinity via PC/SC"), "\(back.output)")
        }

        @Test("nfctool write --device pcsc on a virtual Type 4 tag: plain APDUs through pcscd; the tag file holds the message")
        func writeType4ThroughPCSC() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("type4.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:type4?file=\(file)", daemon: daemon)
            defer { reader.stop() }
            let scan = try await runTool(tool, ["scan", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(scan.output.contains("SAK:        20"), "an ISO-DEP ATR gives SAK 20\n\(scan.output)")
            let write = try await runTool(
                tool, ["write", "--device", "pcsc", "--url", "https://example.com/type4-via-pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(write.status == 0, "\(write.output)")
            // SELECT of the NDEF Tag Application went to the tag as it is.
            #expect(reader.receivedAPDUs.contains("00a4040007d2760000850101" + "00"), "\(reader.receivedAPDUs)")
            await reader.stopped()
            let back = try await runTool(tool, ["read", "--device", "sim:type4?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(back.output.contains("https://example.com/type4-via-pcsc"), "\(back.output)")
        }

        @Test("a Type 4 tag on a reader whose GET DATA of the ATS answers 6A81 (Identiv) or only the historical bytes (HID): scan, write and read through pcscd, the ATS taken from the ATR",
              arguments: ["unsupported", "historical"])
        func type4WithoutATSByGetData(answer: String) async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("type4.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:type4?file=\(file)", daemon: daemon, extra: ["--get-data-ats", answer])
            defer { reader.stop() }
            let scan = try await runTool(tool, ["scan", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(scan.status == 0, "\(scan.output)")
            #expect(scan.output.contains("SAK:        20"), "\(scan.output)")
            let write = try await runTool(
                tool, ["write", "--device", "pcsc", "--url", "https://example.com/no-ats", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(write.status == 0, "\(write.output)")
            #expect(reader.receivedAPDUs.contains("ffca010000"), "\(reader.receivedAPDUs)")
            await reader.stopped()
            let back = try await runTool(tool, ["read", "--device", "sim:type4?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(back.output.contains("https://example.com/no-ats"), "\(back.output)")
        }

        @Test("a card name NFCKit does not know (0031, MIFARE Plus SL2 0038) is 'unsupported card (name)', exit 10, and gets no Type 2 command; the tag file is unchanged",
              arguments: [("0031", "card name 0x0031"), ("0038", "MIFARE Plus SL2 2K")])
        func unknownCardName(name: String, label: String) async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("tag.json").path
            #expect(try await runTool(tool, ["scan", "--device", "sim:ntag215?file=\(file)"], environment: daemon.environment, timeout: 30).status == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: file))
            let reader = try await VirtualReaderProcess(tag: "sim:ntag215?file=\(file)", daemon: daemon, extra: ["--card-name", name])
            defer { reader.stop() }
            let write = try await runTool(
                tool, ["write", "--device", "pcsc", "--url", "https://example.com/x", "--timeout", "3"], environment: daemon.environment, timeout: 30)
            #expect(write.status == 10, "\(write.output)")
            #expect(write.output.contains("unsupported card (\(label))"), "\(write.output)")
            #expect(!reader.receivedAPDUs.contains { $0.hasPrefix("ffb0") || $0.hasPrefix("ffd6") }, "\(reader.receivedAPDUs)")
            await reader.stopped()
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        }

        @Test("nfctool watch --device pcsc reports the tag's arrival, its removal (card taken off the reader) and its return")
        func watchSeesArrivalAndRemoval() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let reader = try await VirtualReaderProcess(tag: "sim:ntag215", daemon: daemon)
            defer { reader.stop() }
            let watch = try PCSCWatchProcess(tool: tool, daemon: daemon)
            defer { watch.stop() }
            func waitFor(_ text: String, count: Int) async -> Bool {
                await watch.waitUntil { $0.components(separatedBy: text).count > count }
            }
            #expect(await waitFor("arrived 0453494D000001", count: 0), "\(watch.printed)")
            try await reader.send("remove")
            #expect(await waitFor("left 0453494D000001", count: 0), "\(watch.printed)")
            try await reader.send("present")
            #expect(await waitFor("arrived 0453494D000001", count: 1), "\(watch.printed)")
        }

        @Test("a card the generic profile cannot handle (FeliCa) is no tag: watch goes on to its timeout and ends cleanly, scan says no tag (2)")
        func unsupportedCardIsNoTag() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let reader = try await VirtualReaderProcess(tag: "sim:felica-lite-s", daemon: daemon)
            defer { reader.stop() }
            // Before: PCSCReader.poll threw notSupported, which TagWatcher treats as fatal.
            let watch = try await runTool(tool, ["watch", "--device", "pcsc", "--timeout", "2"], environment: daemon.environment, timeout: 30)
            #expect(watch.status == 0, "\(watch.output)")
            #expect(!watch.output.contains("arrived"), "\(watch.output)")
            let scan = try await runTool(tool, ["scan", "--device", "pcsc", "--timeout", "1"], environment: daemon.environment, timeout: 30)
            #expect(scan.status == 2, "\(scan.output)")
        }

        @Test("lock on an ICODE SLIX2 through the generic profile: notSupported (exit 10) naming the reader's limit, nothing written")
        func lockSLIX2IsNotSupported() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("slix2.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:slix2?file=\(file)", daemon: daemon)
            defer { reader.stop() }
            let before = try Data(contentsOf: URL(fileURLWithPath: file))
            let lock = try await runTool(tool, ["lock", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(lock.status == 10, "\(lock.output)")
            #expect(lock.output.contains("LOCK BLOCK"), "\(lock.output)")
            #expect(lock.output.contains("transparent session"), "\(lock.output)")
            #expect(!reader.receivedAPDUs.contains { $0.hasPrefix("ffd6") }, "nothing was written: \(reader.receivedAPDUs)")
            await reader.stopped()
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "the tag file is unchanged")
        }

        @Test("lock on an NTAG215 through the generic profile: notSupported (exit 10) because GET_VERSION cannot be sent; no UPDATE BINARY, the tag file unchanged")
        func lockNTAGIsNotSupported() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("ntag215.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:ntag215?file=\(file)", daemon: daemon)
            defer { reader.stop() }
            let before = try Data(contentsOf: URL(fileURLWithPath: file))
            let lock = try await runTool(tool, ["lock", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(lock.status == 10, "\(lock.output)")
            #expect(lock.output.contains("GET_VERSION"), "\(lock.output)")
            #expect(!reader.receivedAPDUs.contains { $0.hasPrefix("ffd6") }, "nothing was written: \(reader.receivedAPDUs)")
            await reader.stopped()
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "the tag file is unchanged")
        }

        @Test("read with an NTAG password through the generic profile: notSupported (exit 10) naming PWD_AUTH, no PWD_AUTH sent")
        func passwordReadIsNotSupported() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let reader = try await VirtualReaderProcess(tag: "sim:ntag215", daemon: daemon)
            defer { reader.stop() }
            let passwordFile = daemon.directory.appendingPathComponent("password").path
            try "12345678".write(toFile: passwordFile, atomically: true, encoding: .utf8)
            let read = try await runTool(
                tool, ["read", "--device", "pcsc", "--password-file", passwordFile, "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(read.status == 10, "\(read.output)")
            #expect(read.output.contains("PWD_AUTH"), "\(read.output)")
            #expect(read.output.contains("transparent session"), "\(read.output)")
            #expect(reader.receivedAPDUs.allSatisfy { $0.hasPrefix("ffca") || $0.hasPrefix("ffb0") }, "only identification and reads: \(reader.receivedAPDUs)")
        }

        @Test("nfctool devices lists the PC/SC reader as pcsc:NAME; a name no reader has gives exit 3")
        func devicesAndUnknownReader() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let devices = try await runTool(tool, ["devices"], environment: daemon.environment, timeout: 30)
            #expect(devices.status == 0, "\(devices.output)")
            #expect(devices.output.contains("connection: pcsc:\(daemon.readerName)"), "\(devices.output)")
            let missing = try await runTool(tool, ["scan", "--device", "pcsc:No such reader", "--timeout", "1"], environment: daemon.environment, timeout: 30)
            #expect(missing.status == 3, "\(missing.output)")
            #expect(missing.output.contains("no PC/SC reader matches"), "\(missing.output)")
        }
    }
}
