import Foundation
import NDEF
import NFCCore
import NFCTestSupport
import Testing
import VirtualTags

/// MIFARE Ultralight AES with secure messaging on (SEC_MSG_ACT), through real libnfc
/// (`pn532_uart`) and the PN532 emulator: `write --keys` and `read --keys` in fresh nfctool
/// processes authenticate, start the CMAC session and carry every READ and WRITE with MACs. The
/// tag file is judged by reading its bytes here; the session is judged from the emulator's own
/// trace of the host link with openssl alone: RndB and RndA deciphered with `openssl enc -d`, the
/// session key and every command and answer MAC recomputed with `openssl mac … CMAC`, following
/// the published construction (docs/tags.md, "Secure messaging") written out again below.
@Suite("MIFARE Ultralight AES secure messaging through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct UltralightAESSecureMessagingThroughLibNFCTests {
    static let key: [UInt8] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF]

    /// A tag file holding `message`, with SEC_MSG_ACT set, AUTH0 04h, PROT set and the
    /// DataProtKey ``key`` (stored byte-reversed), edited in the tag file's bytes.
    static func tagFile(_ directory: URL, message: NDEFMessage) throws -> String {
        let tag = UltralightAESTag(uid: [0x04, 0x41, 0x45, 0x53, 0x00, 0x00, 0x05])
        #expect(tag.setNDEFMessage(try message.encodedForTag()))
        var state = tag.tagState
        var memory = try Hex.decode(state.memory)
        memory[0x29 * 4] |= 0x02  // SEC_MSG_ACT
        memory[0x29 * 4 + 3] = 0x04  // AUTH0
        memory[0x2A * 4] |= 0x80  // PROT
        memory.replaceSubrange((0x30 * 4)..<(0x34 * 4), with: key.reversed())
        state.memory = Hex.encode(memory)
        let path = directory.appendingPathComponent("ulaes-sm.json").path
        try TagFile(path: path).save(state)
        return path
    }

    @Test("write --keys and read --keys with secure messaging on: the tag file holds the new message, and openssl accepts the session key and every MAC of the emulator's trace")
    func writeAndReadWithMACs() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Self.tagFile(directory, message: NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://example.com/before")]))
        let keyFile = directory.appendingPathComponent("aes.key")
        try "# DataProtKey\n\(Hex.encode(Self.key, uppercase: true))\n".write(to: keyFile, atomically: true, encoding: .utf8)
        let emulator = try await EmulatorProcess.start(["--tag", "ultralight-aes:\(file)"])
        defer { emulator.stop() }

        let write = try await KeyedUltralightThroughLibNFC.nfctool(["write", "--url", "https://example.org/sm", "--keys", keyFile.path], emulator)
        #expect(write.status == 0, "\(write.output)")
        // The tag file, read here: an NDEF TLV at page 4 holding one URI record, prefix 04
        // ("https://") and "example.org/sm".
        let memory = try Hex.decode(try TagFile(path: file).load().memory)
        let uri = [UInt8]([0x04]) + Array("example.org/sm".utf8)
        #expect(memory[16] == 0x03, "no NDEF TLV at page 4: \(Hex.encode(Array(memory[16..<32])))")
        let record = Array(memory[18..<(18 + 4 + uri.count)])
        #expect(record == [0xD1, 0x01, UInt8(uri.count), 0x55] + uri, "\(Hex.encode(record))")
        #expect(memory[0x29 * 4] & 0x02 == 0x02 && memory[0x29 * 4 + 3] == 0x04, "the protection changed")

        let read = try await KeyedUltralightThroughLibNFC.nfctool(["read", "--keys", keyFile.path], emulator)
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output.contains("https://example.org/sm"), "\(read.output)")

        let trace = emulator.trace
        let judged = try await SessionJudge.judge(trace: trace, key: Self.key)
        #expect(judged.authentications >= 2, "\(trace.joined(separator: "\n"))")
        #expect(judged.macedReads >= 2 && judged.macedWrites >= 1, "\(judged) \(trace.joined(separator: "\n"))")
        #expect(judged.failures.isEmpty, "\(judged.failures.joined(separator: "\n"))")
    }
}

/// Follows the Ultralight AES sessions in a PN532 emulator trace and checks each with openssl.
private struct SessionJudge: CustomStringConvertible {
    var authentications = 0
    var macedReads = 0
    var macedWrites = 0
    var failures: [String] = []

    var description: String { "\(authentications) authentications, \(macedReads) MACed READs, \(macedWrites) MACed WRITEs" }

    private enum Event {
        case selection
        case exchange(command: [UInt8], status: UInt8, answer: [UInt8])
    }

    /// The exchanges with the tag in trace order: InDataExchange (`D4 40 Tg`) and
    /// InCommunicateThru (`D4 42`) paired with their answers (`D5 41` / `D5 43`, status, data);
    /// InListPassiveTarget, InSelect, InDeselect, InRelease end a session.
    private static func events(_ trace: [String]) -> [Event] {
        var events: [Event] = []
        var pending: [UInt8]?
        for line in trace {
            let parts = line.split(separator: " ")
            guard parts.count >= 3, parts[1] == ">" || parts[1] == "<" else { continue }
            let bytes = parts[2...].compactMap { UInt8($0, radix: 16) }
            guard bytes.count == parts.count - 2, bytes.count >= 2 else { continue }
            if parts[1] == ">" {
                switch (bytes[0], bytes[1]) {
                case (0xD4, 0x40) where bytes.count >= 3: pending = Array(bytes[3...])
                case (0xD4, 0x42): pending = Array(bytes[2...])
                case (0xD4, 0x4A), (0xD4, 0x54), (0xD4, 0x44), (0xD4, 0x52): events.append(.selection); pending = nil
                default: break
                }
            } else if let command = pending, bytes[0] == 0xD5, bytes[1] == 0x41 || bytes[1] == 0x43, bytes.count >= 3 {
                events.append(.exchange(command: command, status: bytes[2], answer: Array(bytes[3...])))
                pending = nil
            }
        }
        return events
    }

    static func judge(trace: [String], key: [UInt8]) async throws -> SessionJudge {
        var judge = SessionJudge()
        let zero = [UInt8](repeating: 0, count: 16)
        var encryptedRndB: [UInt8]?
        var session: (key: [UInt8], counter: Int)?
        for event in events(trace) {
            guard case .exchange(let command, let status, let answer) = event else {
                session = nil
                encryptedRndB = nil
                continue
            }
            if command == [0x1A, 0x00], status == 0, answer.count == 17, answer[0] == 0xAF {
                encryptedRndB = Array(answer[1...])
                session = nil
                continue
            }
            if let ekRndB = encryptedRndB, command.count == 33, command[0] == 0xAF {
                encryptedRndB = nil
                guard status == 0, answer.count == 17, answer[0] == 0x00 else { continue }
                let rndB = try await OpenSSLCipherOracle.decryptCBC(cipher: "aes-128-cbc", key: key, iv: zero, ekRndB)
                let plain = try await OpenSSLCipherOracle.decryptCBC(cipher: "aes-128-cbc", key: key, iv: zero, Array(command[1...]))
                let rndA = Array(plain[0..<16])
                if Array(plain[16...]) != Array(rndB[1...]) + [rndB[0]] { judge.failures.append("RndB′ is not RndB rotated") }
                let answerA = try await OpenSSLCipherOracle.decryptCBC(cipher: "aes-128-cbc", key: key, iv: zero, Array(answer[1...]))
                if answerA != Array(rndA[1...]) + [rndA[0]] { judge.failures.append("RndA′ is not RndA rotated") }
                // SV = 5A A5 00 01 00 80 ‖ RndA[0–1] ‖ (RndA[2–7] ⊕ RndB[0–5]) ‖ RndB[6–15] ‖ RndA[8–15]
                let mixed = (0..<6).map { rndA[2 + $0] ^ rndB[$0] }
                let vector = [0x5A, 0xA5, 0x00, 0x01, 0x00, 0x80] + Array(rndA[0..<2]) + mixed + Array(rndB[6..<16]) + Array(rndA[8..<16])
                session = (try await OpenSSLCipherOracle.cmac(cipher: "AES-128-CBC", key: key, vector), 0)
                judge.authentications += 1
                continue
            }
            guard let current = session else { continue }
            // A command without a valid MAC must be refused (the plain probe of CFG0 the
            // library sends once to learn that the chip wants MACs); the session ends.
            let refused = status != 0 || answer.count <= 1
            guard command.count > 8 else {
                if !refused { judge.failures.append("a plain command \(Hex.encode(command)) was answered in a session") }
                session = nil
                continue
            }
            let body = Array(command.dropLast(8))
            let expected = try await mac(current.key, counter: current.counter, body)
            guard Array(command.suffix(8)) == expected else {
                if !refused { judge.failures.append("command \(Hex.encode(body)): MAC \(Hex.encode(Array(command.suffix(8)))), openssl \(Hex.encode(expected))") }
                session = nil
                continue
            }
            if refused {
                judge.failures.append("command \(Hex.encode(body)) with a valid MAC was refused")
                session = nil
                continue
            }
            guard answer.count >= 8 else {
                judge.failures.append("answer to \(Hex.encode(body)) has no MAC: \(Hex.encode(answer))")
                session = nil
                continue
            }
            let data = Array(answer.dropLast(8))
            let answerMAC = try await mac(current.key, counter: current.counter + 1, data)
            if Array(answer.suffix(8)) != answerMAC {
                judge.failures.append("answer to \(Hex.encode(body)): MAC \(Hex.encode(Array(answer.suffix(8)))), openssl \(Hex.encode(answerMAC))")
            }
            if body.first == 0x30 { judge.macedReads += 1 }
            if body.first == 0xA2 { judge.macedWrites += 1 }
            session = (current.key, current.counter + 2)
        }
        return judge
    }

    /// The odd-indexed bytes of AES-CMAC(session key, counter least significant byte first ‖ data).
    private static func mac(_ key: [UInt8], counter: Int, _ data: [UInt8]) async throws -> [UInt8] {
        let full = try await OpenSSLCipherOracle.cmac(cipher: "AES-128-CBC", key: key, [UInt8(counter & 0xFF), UInt8(counter >> 8 & 0xFF)] + data)
        return stride(from: 1, to: 16, by: 2).map { full[$0] }
    }
}
