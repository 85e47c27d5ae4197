import Foundation
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

extension PCSCEndToEnd {
    /// MIFARE DESFire EV1 behind the real pcscd and the virtual PC/SC reader: its native commands
    /// (CLA 90) and the Type 4 APDUs go to the card as ISO-DEP APDUs through the generic Part 3
    /// profile; what nfctool formatted and wrote there is read from the tag file by the simulator
    /// in a fresh process.
    @Suite(
        "MIFARE DESFire EV1 through pcscd and the virtual PC/SC reader", .tags(.pcsc, .endToEnd), .serialized, .timeLimit(.minutes(3)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct DESFireThroughPCSCTests {
        @Test("scan names the DESFire; format --yes, write and read through pcscd; the tag file holds the NDEF application and the message")
        func formatWriteReadThroughPCSC() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("desfire.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:desfire-ev1?file=\(file)", daemon: daemon)
            defer { reader.stop() }
            let scan = try await runTool(tool, ["scan", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(scan.output.contains("MIFARE DESFire EV1"), "\(scan.output)")
            let format = try await runTool(
                tool, ["format", "--device", "pcsc", "--yes", "--ndef-size", "512", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(format.status == 0, "\(format.output)")
            // CreateApplication (native CA, wrapped as 90 CA 00 00) reached the card as it is.
            #expect(reader.receivedAPDUs.contains { $0.hasPrefix("90ca0000") }, "\(reader.receivedAPDUs)")
            let write = try await runTool(
                tool, ["write", "--device", "pcsc", "--url", "https://example.com/desfire-via-pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(write.status == 0, "\(write.output)")
            let read = try await runTool(tool, ["read", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(read.output.contains("https://example.com/desfire-via-pcsc"), "\(read.output)")
            await reader.stopped()
            let back = try await runTool(tool, ["info", "--device", "sim:desfire-ev1?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(back.output.contains("000001 (NFC Forum Type 4, AN11004)"), "\(back.output)")
            let message = try await runTool(tool, ["read", "--device", "sim:desfire-ev1?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(message.output.contains("https://example.com/desfire-via-pcsc"), "\(message.output)")
        }

        @Test("DESFire EV2 with an AES PICC key through pcscd: format and lock with --keys run in EV2 secure messaging (AuthenticateEV2First 71, MAC-ed commands); a wrong key exits 9 with the tag file byte-identical; the tag file holds the application, EFFF and CC FF")
        func ev2SecureMessagingThroughPCSC() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("desfire-ev2.json").path
            let aes = "00112233445566778899AABBCCDDEEFF"
            let image = DESFireImage(piccKeySettings: 0x09, piccMasterKey: try Hex.decode(aes), piccKeyTypeBits: DESFire.KeyCount.aes)
            try TagFile(path: file).save(DESFireVirtualTag(uid: try Hex.decode("04AE5000000002"), image: image, generation: .ev2).tagState)
            let keys = daemon.directory.appendingPathComponent("keys").path
            try "picc aes \(aes)\napplication aes \(aes)\n".write(toFile: keys, atomically: true, encoding: .utf8)
            let wrong = daemon.directory.appendingPathComponent("wrong").path
            try "picc aes F0E1D2C3B4A5968778695A4B3C2D1E0F\n".write(toFile: wrong, atomically: true, encoding: .utf8)
            let blank = try Data(contentsOf: URL(fileURLWithPath: file))
            do {
                let reader = try await VirtualReaderProcess(tag: "sim:desfire-ev2?file=\(file)", daemon: daemon)
                defer { reader.stop() }
                let refused = try await runTool(tool, ["format", "--device", "pcsc", "--yes", "--keys", wrong, "--timeout", "5"], environment: daemon.environment, timeout: 60)
                #expect(refused.status == 9, "\(refused.output)")
                await reader.stopped()
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == blank, "a refused key changed the tag file")
            let format: ToolRun
            do {
                let reader = try await VirtualReaderProcess(tag: "sim:desfire-ev2?file=\(file)", daemon: daemon)
                defer { reader.stop() }
                format = try await runTool(
                    tool, ["format", "--device", "pcsc", "--yes", "--ndef-size", "256", "--keys", keys, "--timeout", "5"], environment: daemon.environment, timeout: 60)
                #expect(format.status == 0, "\(format.output)")
                // AuthenticateEV2First reached the card, and GetApplicationIDs carried MACt (Lc 08).
                #expect(reader.receivedAPDUs.contains { $0.hasPrefix("90710000") }, "\(reader.receivedAPDUs)")
                #expect(reader.receivedAPDUs.contains { $0.hasPrefix("906a000008") }, "\(reader.receivedAPDUs)")
                #expect(!reader.receivedAPDUs.contains { $0.hasPrefix("90aa") })
                await reader.stopped()
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) != blank)
            let formatted = try #require(try TagFile(path: file).loadTag() as? DESFireVirtualTag)
            #expect(formatted.image.applications.map(\.aid) == [DESFire.TypeFourMapping.applicationID])
            // The NDEF application's key 0 made AES, as a tool creating it with AES keys leaves it.
            var keyed = formatted.image
            keyed.applications[0].keyCount = 0xA1
            keyed.applications[0].keys = [try Hex.decode(aes)]
            try TagFile(path: file).save(DESFireVirtualTag(uid: formatted.uid, image: keyed, generation: .ev2).tagState)
            let before = try Data(contentsOf: URL(fileURLWithPath: file))
            let reader = try await VirtualReaderProcess(tag: "sim:desfire-ev2?file=\(file)", daemon: daemon)
            defer { reader.stop() }
            let wrongLock = try await runTool(tool, ["lock", "--device", "pcsc", "--yes", "--keys", wrong, "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(wrongLock.status == 9, "\(wrongLock.output)")
            await reader.stopped()
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "a refused lock changed the tag file")
            let again = try await VirtualReaderProcess(tag: "sim:desfire-ev2?file=\(file)", daemon: daemon)
            defer { again.stop() }
            let lock = try await runTool(tool, ["lock", "--device", "pcsc", "--yes", "--keys", keys, "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(lock.status == 0, "\(lock.output)")
            #expect(again.receivedAPDUs.contains { $0.hasPrefix("90710000") } && again.receivedAPDUs.contains { $0.hasPrefix("905f0000") }, "\(again.receivedAPDUs)")
            await again.stopped()
            let locked = try #require(try TagFile(path: file).loadTag() as? DESFireVirtualTag)
            let ndef = try #require(locked.image.applications.first?.files.first { $0.number == 2 })
            let cc = try #require(locked.image.applications.first?.files.first { $0.number == 1 })
            #expect(ndef.accessRights == 0xEFFF && cc.data[14] == 0xFF, "\(ndef.accessRights) \(cc.data)")
            for run in [format, wrongLock, lock] {
                #expect(!run.output.uppercased().contains("00112233") && !run.output.uppercased().contains("F0E1D2"))
            }
        }

        @Test("MIFARE DESFire Light (renamed) through pcscd: scan names it; format, write and lock (EV2 authentication, ChangeFileSettings in CommMode.Full as APDUs); the tag file holds FF EF, CC FF and the message")
        func desfireLightThroughPCSC() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("light.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:desfire-light-ndef?file=\(file)", daemon: daemon)
            defer { reader.stop() }
            let scan = try await runTool(tool, ["scan", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(scan.output.contains("MIFARE DESFire Light"), "\(scan.output)")
            let format = try await runTool(tool, ["format", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(format.status == 0, "\(format.output)")
            let write = try await runTool(
                tool, ["write", "--device", "pcsc", "--url", "https://example.com/light-via-pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(write.status == 0, "\(write.output)")
            let lock = try await runTool(tool, ["lock", "--device", "pcsc", "--yes", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(lock.status == 0, "\(lock.output)")
            // AuthenticateEV2First and ChangeFileSettings reached the card as wrapped native commands.
            #expect(reader.receivedAPDUs.contains { $0.hasPrefix("90710000") } && reader.receivedAPDUs.contains { $0.hasPrefix("905f0000") }, "\(reader.receivedAPDUs)")
            await reader.stopped()
            let message = try await runTool(tool, ["read", "--device", "sim:desfire-light-ndef?file=\(file)", "--json"], environment: daemon.environment, timeout: 30)
            #expect(message.output.contains("https://example.com/light-via-pcsc"), "\(message.output)")
            let info = try await runTool(tool, ["info", "--device", "sim:desfire-light-ndef?file=\(file)"], environment: daemon.environment, timeout: 30)
            #expect(info.output.contains("04 standard data, 256 B, plain: read free, write never, rw never"), "\(info.output)")
        }
    }
}
