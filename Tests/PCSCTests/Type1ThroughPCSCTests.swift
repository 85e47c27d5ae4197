import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// NFC Forum Type 1 (Topaz 96/512) behind the real pcscd and the virtual PC/SC reader, in
    /// fresh nfctool processes: the ATR names the card (Part 3's `0030`, the ACR122U's `F004`),
    /// shown by pcsc_scan and named by pcsc-tools' ATR_analysis from its own list; the commands go through the ACR1552U's
    /// transparent session (every Type 1 command) or the ACR122U's direct transmit of PN532
    /// InDataExchange (the byte commands only). What nfctool wrote is judged from the tag file:
    /// its bytes read here, the message by the simulator in another fresh process.
    @Suite(
        "Type 1 (Topaz) through pcscd and the virtual PC/SC reader", .tags(.pcsc, .endToEnd), .serialized, .timeLimit(.minutes(4)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct Type1ThroughPCSCTests {
        static let acr1552u = "ACS ACR1552 1S CL Reader PICC"
        static let acr122u = "ACS ACR122U PICC Interface"

        /// The tag file's memory, read with JSONSerialization (not NFCKit's TagFile).
        static func memory(ofTagFile path: String) throws -> [UInt8] {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            let hex = Array(try #require(object["memory"] as? String).utf8)
            return stride(from: 0, to: hex.count - 1, by: 2).compactMap { UInt8(String(decoding: hex[$0...($0 + 1)], as: UTF8.self), radix: 16) }
        }

        /// The ATR pcsc_scan shows for the reader's card, and what pcsc-tools' ATR_analysis names it
        /// (from pcsc-tools' own `smartcard_list.txt`).
        static func judgedATR(_ daemon: PrivatePCSCDaemon) async throws -> (atr: String, names: String) {
            let scan = try await runTool("/usr/bin/pcsc_scan", ["-c", "-t", "2"], environment: daemon.environment, timeout: 10)
            let line = try #require(scan.output.split(separator: "\n").first { $0.contains("ATR: ") }, "\(scan.output)")
            let label = try #require(line.range(of: "ATR: "))
            let atr = String(line[label.upperBound...]).trimmingCharacters(in: .whitespaces)
            let analysis = try await runTool("/usr/bin/ATR_analysis", [atr], environment: daemon.environment, timeout: 30)
            return (atr, analysis.output)
        }

        /// A Topaz tag file whose memory after the UID is all zero: never formatted.
        static func blankTagFile(_ path: String, model: String) throws {
            let uid = "0153494d000001"
            let memory = uid + String(repeating: "00", count: (model == "topaz96" ? 120 : 512) - 7)
            try #"{"model": "\#(model)", "uid": "\#(uid)", "memory": "\#(memory)"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        }

        @Test("ACR1552U transparent session, Topaz 512: pcsc_scan shows the Topaz ATR (0030), ATR_analysis names it; scan, a 300-byte write past byte 128 (WRITE-E8), read, info and lock; the tag file holds them")
        func topaz512ThroughTransparentSession() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("topaz512.json").path
            var reader = try await VirtualReaderProcess(tag: "sim:topaz512?file=\(file)", daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let judged = try await Self.judgedATR(daemon)
            #expect(judged.atr.hasPrefix("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 30 00 00 00 00"), "\(judged.atr)")
            #expect(judged.names.contains("Topaz NFC Tag (as per PCSC std part3)"), "pcsc-tools' list names the ATR\n\(judged.names)")
            let scan = try await runTool(tool, ["scan", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(scan.status == 0, "\(scan.output)")
            #expect(scan.output.contains("Topaz 512 (BCM20203T512)") && scan.output.contains("NDEF:       yes"), "\(scan.output)")
            #expect(scan.output.contains("UID:        01 53 49 4D"), "\(scan.output)")
            let text = String(repeating: "t", count: 300)
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--text", text, "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(write.status == 0, "\(write.output)")
            let apdus = reader.receivedAPDUs
            // Transceive objects (95 0E) of WRITE-E8 (54), READ8 (02) and RSEG (10) in the session.
            for code in ["54", "02", "10"] {
                #expect(apdus.contains { $0.hasPrefix("ffc20001") && $0.contains("950e" + code) }, "no \(code) in \(apdus)")
            }
            let read = try await runTool(tool, ["read", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(read.status == 0 && read.output.contains(text), "\(read.output)")
            let info = try await runTool(tool, ["info", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(info.status == 0 && info.output.contains("Topaz 512"), "\(info.output)")
            await reader.stopped()
            let memory = try Self.memory(ofTagFile: file)
            #expect(memory.count == 512 && Array(memory[8..<12]) == [0xE1, 0x10, 0x3F, 0x00], "\(memory.prefix(16))")
            // A 300-byte text takes the NDEF TLV's 3-byte length (03 FF …) after the control TLVs.
            #expect(Array(memory[12..<24]) == [0x01, 0x03, 0xF2, 0x30, 0x33, 0x02, 0x03, 0xF0, 0x02, 0x03, 0x03, 0xFF], "\(Array(memory[8..<32]))")
            let back = try await runTool(tool, ["read", "--device", "sim:topaz512?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(back.output.contains(text), "\(back.output)")

            reader = try await VirtualReaderProcess(tag: "sim:topaz512?file=\(file)", daemon: daemon, profile: "transparent-session")
            let lock = try await runTool(tool, ["lock", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(lock.status == 0, "\(lock.output)")
            let refused = try await runTool(tool, ["write", "--device", "pcsc", "--text", "no", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(refused.status == 5, "\(refused.output)")
            await reader.stopped()
            let locked = try Self.memory(ofTagFile: file)
            #expect(locked[11] == 0x0F && locked[112] == 0xFF && locked[113] == 0xFF, "CC3, LOCK0, LOCK1")
            #expect(Array(locked[0x7A..<0x80]).contains { $0 != 0 }, "dynamic lock bits")
        }

        @Test("ACR122U direct transmit (PN532 InDataExchange), Topaz 96: pcsc_scan shows the F004 ATR, ATR_analysis names it; format of a blank tag, write, read and lock; the tag file holds them")
        func topaz96ThroughACR122U() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr122u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("topaz96.json").path
            try Self.blankTagFile(file, model: "topaz96")
            var reader = try await VirtualReaderProcess(tag: "sim:topaz96?file=\(file)", daemon: daemon, profile: "acr122u")
            defer { reader.stop() }
            let judged = try await Self.judgedATR(daemon)
            #expect(judged.atr == "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 F0 04 00 00 00 00 9F", "\(judged.atr)")
            #expect(judged.names.contains("NFC FORUM TYPE 1 TAG"), "pcsc-tools' list names the ATR\n\(judged.names)")
            let scan = try await runTool(tool, ["scan", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(scan.output.contains("Topaz 96 (BCM20203T96)") && scan.output.contains("NDEF:       no"), "\(scan.output)")
            let format = try await runTool(tool, ["format", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(format.status == 0, "\(format.output)")
            let url = "https://example.com/topaz-acr122u"
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--url", url, "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(write.status == 0, "\(write.output)")
            // InDataExchange to target 1 (D4 40 01) carried RALL (00) and WRITE-E (53).
            let apdus = reader.receivedAPDUs
            #expect(apdus.contains { $0.hasPrefix("ff000000") && $0.contains("d4400100") }, "\(apdus)")
            #expect(apdus.contains { $0.hasPrefix("ff000000") && $0.contains("d4400153") }, "\(apdus)")
            let read = try await runTool(tool, ["read", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(read.status == 0 && read.output.contains(url), "\(read.output)")
            let lock = try await runTool(tool, ["lock", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(lock.status == 0, "\(lock.output)")
            await reader.stopped()
            let memory = try Self.memory(ofTagFile: file)
            #expect(Array(memory[8..<12]) == [0xE1, 0x10, 0x0E, 0x0F], "formatted, then CC3 read-only: \(Array(memory[8..<12]))")
            #expect(memory[112] == 0xFF && memory[113] == 0xFF, "LOCK0, LOCK1")
            let back = try await runTool(tool, ["read", "--device", "sim:topaz96?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(back.output.contains(url), "\(back.output)")
            reader = try await VirtualReaderProcess(tag: "sim:topaz96?file=\(file)", daemon: daemon, profile: "acr122u")
            let refused = try await runTool(tool, ["write", "--device", "pcsc", "--url", url + "/2", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(refused.status == 5, "\(refused.output)")
        }

        @Test("ACR122U: a Topaz 512 message past byte 127 needs WRITE-E8, which the PN532 lacks: refused (exit 10) before any write, the tag file unchanged")
        func topaz512PastStaticAreaThroughACR122U() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr122u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("topaz512.json").path
            #expect(try await runTool(tool, ["scan", "--device", "sim:topaz512?file=\(file)"], environment: daemon.environment, timeout: 30).status == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: file))
            let reader = try await VirtualReaderProcess(tag: "sim:topaz512?file=\(file)", daemon: daemon, profile: "acr122u")
            defer { reader.stop() }
            let long = try await runTool(
                tool, ["write", "--device", "pcsc", "--text", String(repeating: "x", count: 200), "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(long.status == 10, "\(long.output)")
            #expect(!reader.receivedAPDUs.contains { $0.contains("d4400153") || $0.contains("d4400154") }, "nothing written: \(reader.receivedAPDUs)")
            await reader.stopped()
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        }

        @Test("the generic profile names the Topaz but has no path for its commands: write exits 10 and sends no Type 1 command")
        func genericProfileRefuses() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let reader = try await VirtualReaderProcess(tag: "sim:topaz96", daemon: daemon)
            defer { reader.stop() }
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--text", "x", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(write.status == 10, "\(write.output)")
            #expect(write.output.contains("Type 1 tag"), "\(write.output)")
            #expect(reader.receivedAPDUs.allSatisfy { $0.hasPrefix("ffca") }, "\(reader.receivedAPDUs)")
        }
    }
}
