import Foundation
import LibNFC
import NFCCore
import NFCKit
import NFCTestSupport
import NFCTags
import Testing

/// The real libnfc (`pn532_uart`) driving the PN532 emulator on a pty, through NFCKit's
/// `LibNFCReader`: what a user with a PN532 on a serial port gets.
@Suite("LibNFCReader through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct LibNFCReaderEndToEndTests {
    /// Starts the emulator with one tag and opens a reader on it.
    static func open(_ tag: String) async throws -> (EmulatorProcess, LibNFCReader) {
        let emulator = try await EmulatorProcess.start(["--tag", tag])
        let reader = try await LibNFCReader.open(emulator.connectionString)
        return (emulator, reader)
    }

    @Test("an NTAG215 is selected with its UID, ATQA and SAK; READ, WRITE and GET_VERSION go through")
    func ntag215() async throws {
        let (emulator, reader) = try await Self.open("ntag215")
        defer { _ = emulator }
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        guard case .iso14443A(let a) = target else { Issue.record("not type A: \(target)"); return }
        #expect(a.uid == [0x04, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01])
        #expect(a.atqa == [0x44, 0x00])
        #expect(a.atqaValue == 0x0044)
        #expect(a.sak == 0x00)
        #expect(a.ats.isEmpty)

        // READ page 0: UID0-2 and BCC0 = 0x88 ^ 04 ^ 53 ^ 49.
        let page0 = try await reader.transceive(Bytes([0x30, 0x00]), mode: .standard, timeout: .seconds(1))
        #expect(page0.count == 16)
        #expect(Array(page0.prefix(4)) == [0x04, 0x53, 0x49, 0x88 ^ 0x04 ^ 0x53 ^ 0x49])

        _ = try await reader.transceive(Bytes([0xA2, 0x04, 0xDE, 0xAD, 0xBE, 0xEF]), mode: .standard, timeout: .seconds(1))
        let page4 = try await reader.transceive(Bytes([0x30, 0x04]), mode: .standard, timeout: .seconds(1))
        #expect(Array(page4.prefix(4)) == [0xDE, 0xAD, 0xBE, 0xEF])

        let version = try await reader.transceive(Bytes([0x60]), mode: .raw, timeout: .seconds(1))
        #expect(version == [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
        // Easy framing is back after a raw command.
        #expect(try await reader.transceive(Bytes([0x30, 0x04]), mode: .standard, timeout: .seconds(1)).count == 16)
        #expect(await reader.isTargetPresent())
        await reader.close()
    }

    @Test("a write to a page the chip refuses comes back as an error, not as success")
    func ntagRefusedWrite() async throws {
        let (emulator, reader) = try await Self.open("ntag215")
        defer { _ = emulator }
        _ = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        // Page 0 (UID) is read-only on every NTAG21x.
        await #expect(throws: NFCReaderDeviceError.self) {
            _ = try await reader.transceive(Bytes([0xA2, 0x00, 1, 2, 3, 4]), mode: .standard, timeout: .seconds(1))
        }
        await reader.close()
    }

    /// A NAK comes from the PN532 as status 13 and from libnfc as NFC_ERFTRANS, like a lost
    /// answer (status 02) or a tag gone (01). The reader tells them apart by the tag: one that
    /// NAKed is IDLE and answers only a re-selection; one whose answer was lost still answers.
    @Test("NFC_ERFTRANS told apart: a NAK is .nak (tag selected again), a lost answer .rfError, a gone tag .tagLost")
    func refusedLostAndGone() async throws {
        let refuse = try await EmulatorProcess.start(["--tag", "ntag215"])
        let reader = try await LibNFCReader.open(refuse.connectionString)
        _ = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        do {
            _ = try await reader.transceive(Bytes([0xA2, 0x00, 1, 2, 3, 4]), mode: .standard, timeout: .seconds(1))
            Issue.record("a write to page 0 was accepted")
        } catch {
            #expect(error.code == .nak, "\(error)")
        }
        #expect(refuse.trace.contains { $0.hasSuffix("< D5 41 13") })
        // Selected again: the next command is answered without a poll.
        #expect(try await reader.transceive(Bytes([0x30, 0x04]), mode: .standard, timeout: .seconds(1)).count == 16)
        await reader.close()
        refuse.stop()

        // The answer to the 1st command sent to the tag after the poll is lost (status 02).
        let lossy = try await EmulatorProcess.start(["--tag", "ntag215", "--rf-error-on", "1"])
        let second = try await LibNFCReader.open(lossy.connectionString)
        _ = try #require(try await second.poll(for: [.iso14443A], timeout: .seconds(2)))
        do {
            _ = try await second.transceive(Bytes([0x30, 0x04]), mode: .standard, timeout: .seconds(1))
            Issue.record("a lost answer was taken for data")
        } catch {
            #expect(error.code == .rfError, "\(error)")
        }
        await second.close()
        lossy.stop()

        let leaving = try await EmulatorProcess.start(["--tag", "ntag215", "--leave-after", "1"])
        let third = try await LibNFCReader.open(leaving.connectionString)
        _ = try #require(try await third.poll(for: [.iso14443A], timeout: .seconds(2)))
        _ = try await third.transceive(Bytes([0x30, 0x04]), mode: .standard, timeout: .seconds(1))
        do {
            _ = try await third.transceive(Bytes([0x30, 0x08]), mode: .standard, timeout: .seconds(1))
            Issue.record("a gone tag answered")
        } catch {
            #expect(error.code == .tagLost, "\(error)")
        }
        await third.close()
        leaving.stop()
    }

    @Test("MIFARE Classic 1K: the transport key authenticates and reads a block; a wrong key is refused")
    func classic() async throws {
        let (emulator, reader) = try await Self.open("classic1k")
        defer { _ = emulator }
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        guard case .iso14443A(let a) = target else { Issue.record("not type A"); return }
        #expect(a.sak == 0x08)
        #expect(a.atqaValue == 0x0004)
        try await reader.authenticateClassic(block: 4, keyType: .a, key: Bytes([UInt8](repeating: 0xFF, count: 6)), uid: a.uid)
        let block = try await reader.transceive(Bytes([0x30, 0x04]), mode: .standard, timeout: .seconds(1))
        #expect(block.count == 16)

        _ = try await reader.poll(for: [.iso14443A], timeout: .seconds(2))
        await #expect {
            try await reader.authenticateClassic(block: 8, keyType: .a, key: Bytes([1, 2, 3, 4, 5, 6]), uid: a.uid)
        } throws: { ($0 as? NFCReaderDeviceError)?.code == .authenticationFailed }
        await reader.close()
    }

    @Test("a Type 4 tag is activated with its ATS and answers SELECT of the NDEF application")
    func type4() async throws {
        let (emulator, reader) = try await Self.open("type4")
        defer { _ = emulator }
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        guard case .iso14443A(let a) = target else { Issue.record("not type A"); return }
        #expect(a.sak == 0x20)
        #expect(a.ats == [0x06, 0x75, 0x77, 0x81, 0x02, 0x80])
        #expect(a.historicalBytes == [0x80])
        let select = Bytes([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00])
        #expect(try await reader.transceive(select, mode: .standard, timeout: .seconds(1)) == [0x90, 0x00])
        await reader.close()
    }

    @Test("a FeliCa Lite-S answers polling at 212 kbit/s with its IDm and PMm")
    func felica() async throws {
        let (emulator, reader) = try await Self.open("felica-lite-s")
        defer { _ = emulator }
        let target = try #require(try await reader.poll(for: [.felica212], timeout: .seconds(2)))
        guard case .felica(let f) = target else { Issue.record("not FeliCa"); return }
        #expect(f.idm == [0x01, 0x2E, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01])
        #expect(f.pmm == [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00])
        #expect(f.bitRate == 212)
        await reader.close()
    }

    @Test("a FeliCa frame goes without its length byte, as on the simulator: the same block comes back")
    func felicaFraming() async throws {
        let (emulator, reader) = try await Self.open("felica-lite-s")
        defer { _ = emulator }
        let target = try #require(try await reader.poll(for: [.felica212], timeout: .seconds(2)))
        // Read Without Encryption, service 000B, block 0 (the attribute information block).
        let read = Bytes([0x06] + target.identifier.array + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00])
        let viaLibNFC = try await reader.transceive(read, mode: .standard, timeout: .seconds(1))
        await reader.close()
        let simulator = try await ReaderConnection.open("sim:felica-lite-s")
        _ = try await simulator.poll(for: [.felica212], timeout: .seconds(1))
        let viaSimulator = try await simulator.transceive(read, mode: .standard, timeout: .seconds(1))
        await simulator.close()
        #expect(viaLibNFC.count == 28)
        #expect(viaLibNFC == viaSimulator)
    }

    @Test("ISO 15693 asked of a libnfc reader is a clear 'not supported'; an empty field polls to nil")
    func iso15693AndEmptyField() async throws {
        let (emulator, reader) = try await Self.open("felica-lite-s")
        defer { _ = emulator }
        #expect(!(await reader.supportedModulations.contains(.iso15693)))
        await #expect { _ = try await reader.poll(for: [.iso15693], timeout: .milliseconds(100)) } throws: {
            let e = $0 as? NFCReaderDeviceError
            return e?.code == .notSupported && e?.reason.contains("ISO 15693") == true
        }
        // Only a FeliCa tag is there: a type A poll finds nothing within its timeout.
        #expect(try await reader.poll(for: [.iso14443A], timeout: .milliseconds(300)) == nil)
        await reader.close()
        await #expect { _ = try await reader.poll(for: [.iso14443A], timeout: .milliseconds(10)) } throws: {
            ($0 as? NFCReaderDeviceError)?.code == .closed
        }
    }

    @Test("--device default opens libnfc's default device, here set by LIBNFC_DEFAULT_DEVICE")
    func libnfcDefaultDevice() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "classic1k"])
        let nfctool = try #require(Executables.built("nfctool"))
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIBNFC_") }
        environment["LIBNFC_DEFAULT_DEVICE"] = emulator.connectionString
        environment["LIBNFC_LOG_LEVEL"] = "0"
        let run = try await runTool(nfctool.path, ["scan", "--device", "default", "--timeout", "3"], environment: environment)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("MIFARE Classic 1K"))
        #expect(run.output.contains("Tag on default device"))
    }

    @Test("nfctool scan names the tag through libnfc exactly as through the simulator")
    func scanThroughLibNFC() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        let nfctool = try #require(Executables.built("nfctool"))
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIBNFC_") }
        environment["LIBNFC_LOG_LEVEL"] = "0"
        let viaLibNFC = try await runTool(nfctool.path, ["scan", "--device", emulator.connectionString, "--json", "--timeout", "3"], environment: environment)
        #expect(viaLibNFC.status == 0, "\(viaLibNFC.output)")
        let viaSimulator = try await runTool(nfctool.path, ["scan", "--device", "sim:ntag215", "--json", "--timeout", "3"], environment: environment)
        func fields(_ json: String) throws -> [String: String] {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            return object.filter { $0.key != "reader" && $0.key != "readerName" }.mapValues { "\($0)" }
        }
        #expect(try fields(viaLibNFC.output) == fields(viaSimulator.output))
        // Each names its own reader: the connection string, and libnfc's name for the emulated PN532.
        let libnfcObject = try #require(try JSONSerialization.jsonObject(with: Data(viaLibNFC.output.utf8)) as? [String: Any])
        #expect(libnfcObject["reader"] as? String == emulator.connectionString)
        let name = try #require(libnfcObject["readerName"] as? String, "\(viaLibNFC.output)")
        #expect(!name.isEmpty && !name.hasPrefix("simulator"), "\(viaLibNFC.output)")
    }
}
