import NFCCore
import NFCTags
import NFCTestSupport
import Testing

/// NFCTestSupport's fake reader and hex literals fail the test that misuses them: a command the
/// script does not expect, an exchange never reached, a malformed literal are test issues (seen
/// here as known issues), never silent.
@Suite("ScriptedReader and hex literals fail loudly", .timeLimit(.minutes(1)))
struct ScriptedReaderTests {
    static let read3: [UInt8] = [0x30, 0x03]

    @Test("a script answers its commands in order and keeps the trace")
    func inOrder() async throws {
        let reader = ScriptedReader(script: [
            ScriptedExchange(Self.read3, answer: hex("E1 10 3E 00")),
            ScriptedExchange([0x30, 0x04], .nak(0)),
        ])
        #expect(try await reader.transceive(Bytes(Self.read3)).array == [0xE1, 0x10, 0x3E, 0x00])
        await #expect(throws: NFCReaderDeviceError(.nak, "NAK (scripted)", detail: 0)) { try await reader.transceive(Bytes([0x30, 0x04])) }
        #expect(await reader.trace.lines == ["30 03 -> E1 10 3E 00", "30 04 !! nak"])
        await reader.expectScriptFinished()
    }

    @Test("a command the script does not expect is a test issue, and the command fails")
    func unexpectedCommand() async {
        let reader = ScriptedReader(script: [ScriptedExchange(Self.read3, answer: [0x00])])
        await withKnownIssue {
            await #expect(throws: NFCReaderDeviceError.self) { try await reader.transceive(Bytes([0x30, 0x04])) }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("unexpected command 30 04 at exchange 1; the script expects 30 03") }
        }
    }

    @Test("a command after the script ended is a test issue unless afterScript answers it")
    func afterTheScript() async throws {
        let strict = ScriptedReader(script: [])
        await withKnownIssue {
            await #expect(throws: NFCReaderDeviceError.self) { try await strict.transceive(Bytes(Self.read3)) }
        } matching: { $0.comments.contains { $0.rawValue.contains("after the script's 0 exchange(s) ended") } }
        let lenient = ScriptedReader(script: [], afterScript: .answer([0x0A]))
        #expect(try await lenient.transceive(Bytes(Self.read3)).array == [0x0A])
    }

    @Test("exchanges never reached are a test issue")
    func leftOver() async {
        let reader = ScriptedReader(script: [ScriptedExchange(Self.read3, answer: [0x00])])
        await withKnownIssue {
            await reader.expectScriptFinished()
        } matching: { $0.comments.contains { $0.rawValue.contains("1 scripted exchange(s) never came, first 30 03") } }
    }

    @Test("a table without an otherwise reply fails on other commands; with one it answers them")
    func table() async throws {
        let strict = ScriptedReader(answers: [Self.read3: [0x01]])
        #expect(try await strict.transceive(Bytes(Self.read3)).array == [0x01])
        await withKnownIssue {
            await #expect(throws: NFCReaderDeviceError.self) { try await strict.transceive(Bytes([0x60])) }
        } matching: { $0.comments.contains { $0.rawValue.contains("unexpected command 60, which the table does not hold") } }
        let ignoring = ScriptedReader(answers: [:], otherwise: .timeout)
        await #expect(throws: NFCReaderDeviceError.self) { try await ignoring.transceive(Bytes([0x60])) }
        #expect(await ignoring.trace.lines == ["60 !! timeout"])
    }

    @Test("a removed tag: the command fails tagLost, so do later ones, presence and polling end")
    func tagRemoval() async throws {
        let target = TargetInfo.iso14443A(ISO14443ATarget(uid: [4, 1, 2, 3, 4, 5, 6], atqa: [0x44, 0x00], sak: 0x00))
        let reader = ScriptedReader(script: [ScriptedExchange(Self.read3, answer: [0x00]), ScriptedExchange([0x30, 0x04], .tagRemoved)],
                                    target: target)
        #expect(try await reader.poll(for: [.iso14443A], timeout: .zero) == target)
        _ = try await reader.transceive(Bytes(Self.read3))
        #expect(await reader.isTargetPresent())
        for command in [[0x30, 0x04], [0x30, 0x05]] as [[UInt8]] {
            await #expect { try await reader.transceive(Bytes(command)) } throws: { ($0 as? NFCReaderDeviceError)?.code == .tagLost }
        }
        #expect(await !reader.isTargetPresent())
        #expect(try await reader.poll(for: [.iso14443A], timeout: .zero) == nil)
    }

    @Test("Classic authentications are script steps 60/61 + block")
    func authentication() async throws {
        let reader = ScriptedReader(script: [
            ScriptedExchange([0x60, 0x04], answer: []),
            ScriptedExchange([0x61, 0x08], .error(NFCReaderDeviceError(.authenticationFailed, "refused"))),
        ])
        try await reader.authenticateClassic(block: 4, keyType: .a, key: Bytes([0xFF]), uid: Bytes([1, 2, 3, 4]))
        await #expect(throws: NFCReaderDeviceError.self) {
            try await reader.authenticateClassic(block: 8, keyType: .b, key: Bytes([0xFF]), uid: Bytes([1, 2, 3, 4]))
        }
        #expect(await reader.trace.commandLines == ["60 04", "61 08"])
    }

    @Test("hex literals: separators allowed; a bad digit or an odd count is a test issue naming the offset")
    func hexLiterals() {
        #expect(hex("04 a1:B2-c3") == [0x04, 0xA1, 0xB2, 0xC3])
        #expect(hexString([0x04, 0xA1]) == "04 A1")
        withKnownIssue {
            #expect(hex("04 AG") == [])
        } matching: { $0.comments.contains { $0.rawValue.contains("offset 4") } }
        withKnownIssue {
            _ = hex("04 A")
        } matching: { $0.comments.contains { $0.rawValue.contains("odd number of hex digits") } }
    }
}
