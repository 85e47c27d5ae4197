import Testing
import NFCTags
@testable import PN532Emulator

@Suite("PN532 host link frames (UM0701 §6.2.1)", .timeLimit(.minutes(5)))
struct FrameCodecTests {
    /// GetFirmwareVersion as libnfc sends it.
    static let getFirmwareVersion: [UInt8] = [0x00, 0x00, 0xFF, 0x02, 0xFE, 0xD4, 0x02, 0x2A, 0x00]

    @Test("Known frames encode to the manual's bytes")
    func knownVectors() {
        #expect(PN532Frame.command([0x02]).encoded == Self.getFirmwareVersion)
        #expect(PN532Frame.ack.encoded == [0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00])
        #expect(PN532Frame.nack.encoded == [0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00])
        #expect(PN532Frame.error.encoded == [0x00, 0x00, 0xFF, 0x01, 0xFF, 0x7F, 0x81, 0x00])
        #expect(PN532Frame.response([0x03, 0x32, 0x01, 0x06, 0x07]).encoded
            == [0x00, 0x00, 0xFF, 0x06, 0xFA, 0xD5, 0x03, 0x32, 0x01, 0x06, 0x07, 0xE8, 0x00])
    }

    @Test("Frames round trip through encode and parse", arguments: [0, 1, 2, 100, 253, 254, 255, 262, 264])
    func roundTrip(dataLength: Int) throws {
        let data = (0..<dataLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let frame = PN532Frame.response(data)
        let bytes = frame.encoded
        #expect(try PN532Frame.parse(bytes[...]) == frame)
        let isExtended = dataLength + 1 > 255
        #expect(bytes[3] == (isExtended ? 0xFF : UInt8(dataLength + 1)))
    }

    @Test("An extended frame of 263 data bytes is LENM LENL LCS = 01 08 F7")
    func extendedFrame() throws {
        let data = [UInt8](repeating: 0xA5, count: 263)
        let bytes = PN532Frame.command(data).encoded
        #expect(Array(bytes[0..<8]) == [0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x01, 0x08, 0xF7])
        #expect(bytes.count == 3 + 2 + 3 + 264 + 2)
        #expect(try PN532Frame.parse(bytes[...]) == .command(data))
    }

    @Test("Every truncated prefix of a frame is refused as truncated", arguments: [
        getFirmwareVersion, PN532Frame.ackBytes, PN532Frame.nackBytes, PN532Frame.errorBytes,
        PN532Frame.command([UInt8](repeating: 1, count: 300)).encoded,
    ])
    func truncatedPrefixes(bytes: [UInt8]) {
        for length in 0..<bytes.count {
            #expect(throws: PN532FrameError(.truncated, offset: length)) {
                try PN532Frame.parse(bytes[0..<length])
            }
        }
    }

    @Test("A wrong length checksum is refused at the LCS byte")
    func badLengthChecksum() {
        var bytes = Self.getFirmwareVersion
        bytes[4] = 0xFD
        #expect(throws: PN532FrameError(.lengthChecksumMismatch, offset: 4)) { try PN532Frame.parse(bytes[...]) }
    }

    @Test("A wrong extended length checksum is refused")
    func badExtendedLengthChecksum() {
        var bytes = PN532Frame.command([UInt8](repeating: 0, count: 300)).encoded
        bytes[7] &+= 1
        #expect(throws: PN532FrameError(.lengthChecksumMismatch, offset: 7)) { try PN532Frame.parse(bytes[...]) }
    }

    @Test("A wrong data checksum is refused at the DCS byte")
    func badDataChecksum() {
        var bytes = Self.getFirmwareVersion
        bytes[7] = 0x2B
        #expect(throws: PN532FrameError(.dataChecksumMismatch, offset: 7)) { try PN532Frame.parse(bytes[...]) }
    }

    @Test("A frame of length 0 that is not an ACK is refused")
    func emptyFrame() {
        #expect(throws: PN532FrameError(.emptyFrame, offset: 4)) { try PN532Frame.parse([0x00, 0x00, 0xFF, 0x00, 0x00, 0x00][...]) }
    }

    @Test("An extended frame longer than 265 bytes is refused")
    func tooLong() {
        #expect(throws: PN532FrameError(.lengthTooLong, offset: 7)) {
            try PN532Frame.parse([0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x01, 0x0A, 0xF5][...])
        }
    }

    @Test("A missing postamble and trailing bytes are refused")
    func postambleAndTrailing() {
        var bytes = Self.getFirmwareVersion
        bytes[8] = 0x01
        #expect(throws: PN532FrameError(.missingPostamble, offset: 8)) { try PN532Frame.parse(bytes[...]) }
        #expect(throws: PN532FrameError(.trailingBytes, offset: 9)) { try PN532Frame.parse((Self.getFirmwareVersion + [0x00])[...]) }
    }

    @Test("Noise before the start code is refused when parsing strictly")
    func noise() {
        #expect(throws: PN532FrameError(.unexpectedByte, offset: 0)) { try PN532Frame.parse(([0x12] + Self.getFirmwareVersion)[...]) }
    }

    @Test("The decoder yields the same frames fed byte by byte, whole, or in chunks")
    func incrementalDecoding() {
        let wakeUp: [UInt8] = [0x55, 0x55] + [UInt8](repeating: 0, count: 14)
        let stream = wakeUp + PN532Frame.command([0x14, 0x01]).encoded + PN532Frame.ackBytes
            + PN532Frame.command([UInt8](repeating: 9, count: 260)).encoded + Self.getFirmwareVersion
        let expected: [PN532DecoderEvent] = [
            .frame(.command([0x14, 0x01])), .frame(.ack),
            .frame(.command([UInt8](repeating: 9, count: 260))), .frame(.command([0x02])),
        ]
        var whole = PN532FrameDecoder()
        #expect(whole.feed(stream) == expected)
        var single = PN532FrameDecoder()
        #expect(stream.flatMap { single.feed([$0]) } == expected)
        for chunk in [2, 3, 5, 7, 64] {
            var chunked = PN532FrameDecoder()
            var events: [PN532DecoderEvent] = []
            var index = 0
            while index < stream.count {
                events += chunked.feed(stream[index..<min(stream.count, index + chunk)])
                index += chunk
            }
            #expect(events == expected, "chunks of \(chunk)")
        }
        #expect(whole.noiseByteCount == 0)
        #expect(whole.isIdle)
    }

    @Test("After a bad checksum the decoder resynchronises on the next frame")
    func resynchronises() {
        var bad = Self.getFirmwareVersion
        bad[7] = 0x00
        var decoder = PN532FrameDecoder()
        let events = decoder.feed(bad + Self.getFirmwareVersion)
        #expect(events == [.error(PN532FrameError(.dataChecksumMismatch, offset: 7)), .frame(.command([0x02]))])
    }

    @Test("The error frame decodes as .error")
    func errorFrame() throws {
        #expect(try PN532Frame.parse(PN532Frame.errorBytes[...]) == .error)
    }

    @Test("CRC_A matches ISO/IEC 14443-3 vectors")
    func crcA() {
        // ISO/IEC 14443-3 Annex B: CRC_A of 00 00 is 1E A0; HLTA 50 00 is 57 CD.
        #expect(ISO14443ACRC.bytes(of: [0x00, 0x00]) == [0xA0, 0x1E])
        #expect(ISO14443ACRC.bytes(of: [0x50, 0x00]) == [0x57, 0xCD])
        #expect(ISO14443ACRC.isValid([0x50, 0x00, 0x57, 0xCD]))
        #expect(!ISO14443ACRC.isValid([0x50, 0x00, 0x57, 0xCE]))
    }
}
