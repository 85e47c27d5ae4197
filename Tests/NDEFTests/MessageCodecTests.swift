import Foundation
import NFCCore
import NFCTestSupport
import Testing
@testable import NDEF

@Suite("NDEF 1.0 message codec", .timeLimit(.minutes(5)))
struct MessageCodecTests {
    struct Vector: Decodable, CustomTestStringConvertible {
        var name: String
        var hex: String
        var kind: String
        var value: String?
        var lang: String?
        var encoding: String?
        var id: String?
        var testDescription: String { name }
    }

    static let vectors: [Vector] = {
        struct File: Decodable { var vectors: [Vector] }
        let url = fixturesDirectory.appendingPathComponent("ndef/vectors.json")
        guard let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(File.self, from: data) else {
            return []
        }
        return file.vectors
    }()

    @Test("the fixture file of known vectors loads") func vectorsLoad() {
        #expect(Self.vectors.count >= 10)
    }

    @Test("known vectors decode to the expected content", arguments: vectors)
    func knownVectorDecodes(_ vector: Vector) throws {
        let message = try NDEFMessage(bytes: hex(vector.hex))
        #expect(message.records.count == 1)
        let record = try #require(message.records.first)
        let content = try record.content()
        #expect(content.kind == vector.kind)
        switch content {
        case .uri(let uri): #expect(uri == vector.value)
        case .text(let t):
            #expect(t.text == vector.value)
            #expect(t.language == vector.lang)
            #expect(t.encoding.rawValue == vector.encoding)
        case .mime(let type, _): #expect(type == vector.value)
        case .external(let type, _): #expect(type == vector.value)
        case .androidApplication(let name): #expect(name == vector.value)
        case .empty: #expect(vector.value == nil)
        default: Issue.record("unexpected content \(content)")
        }
        if let id = vector.id { #expect(record.identifier == Bytes(utf8: id)) }
    }

    @Test("known vectors re-encode to the same bytes, except non-canonical forms", arguments: vectors)
    func knownVectorReencodes(_ vector: Vector) throws {
        let bytes = hex(vector.hex)
        let message = try NDEFMessage(bytes: bytes)
        let canonical = !vector.name.contains("SR clear")
        if canonical { #expect(try message.encoded() == bytes) }
        // Building from the content gives the same record for URIs and UTF-8 texts.
        if vector.kind == "uri" || (vector.kind == "text" && vector.encoding == "utf-8") {
            var rebuilt = try NDEFPayload(content: try message.records[0].content())
            rebuilt.identifier = message.records[0].identifier
            #expect(rebuilt == message.records[0])
        }
    }

    @Test("the empty message is D0 00 00 both ways")
    func emptyMessage() throws {
        #expect(try NDEFMessage.empty.encoded() == [0xD0, 0x00, 0x00])
        #expect(try NDEFMessage(records: []).encoded() == [0xD0, 0x00, 0x00])
        let decoded = try NDEFMessage(bytes: [0xD0, 0x00, 0x00])
        #expect(decoded == .empty)
        #expect(decoded.isEmpty)
    }

    @Test("MB is set on the first record only and ME on the last only")
    func flagsAcrossRecords() throws {
        let a = try NDEFPayload.wellKnownTypeURIPayload(url: "https://a.example")
        let b = try NDEFPayload.wellKnownTypeTextPayload(string: "b", locale: "en")
        let c = NDEFPayload(format: .unknown, type: Bytes(), payload: [1, 2, 3])
        let bytes = try NDEFMessage(records: [a, b, c]).encoded()
        let decoded = try NDEFMessage(bytes: bytes)
        #expect(decoded.records == [a, b, c])
        #expect(bytes[0] & 0xC0 == 0x80)  // first: MB, not ME
        let second = a.encodedLength
        #expect(bytes[second] & 0xC0 == 0x00)
        let third = second + b.encodedLength
        #expect(bytes[third] & 0xC0 == 0x40)
    }

    @Test("a payload of 256 bytes or more uses a 4-byte length (SR clear)")
    func longRecord() throws {
        let record = NDEFPayload(format: .media, type: "application/octet-stream", payload: Bytes([UInt8](repeating: 7, count: 300)))
        let bytes = try NDEFMessage(records: [record]).encoded()
        #expect(bytes[0] == 0xC2)
        #expect(Array(bytes[2..<6]) == [0, 0, 0x01, 0x2C])
        #expect(try NDEFMessage(bytes: bytes).records == [record])
        let short = NDEFPayload(format: .media, type: "a/b", payload: Bytes([UInt8](repeating: 7, count: 255)))
        #expect(try NDEFMessage(records: [short]).encoded()[0] == 0xD2)
    }

    @Test("chunked records are produced on request and reassembled on decode", arguments: [1, 2, 5, 99, 100])
    func chunking(chunkSize: Int) throws {
        let payload = Bytes((0..<100).map { UInt8($0) })
        let record = NDEFPayload(format: .media, type: "a/b", identifier: "x", payload: payload)
        let tail = try NDEFPayload.wellKnownTypeURIPayload(url: "https://example.com")
        let bytes = try NDEFMessage(records: [record, tail]).encoded(chunkSize: chunkSize)
        let decoded = try NDEFMessage(bytes: bytes)
        #expect(decoded.records == [record, tail])
        if chunkSize < 100 {
            #expect(bytes[0] & 0x20 != 0)  // CF on the first chunk
            #expect(bytes.count > (try NDEFMessage(records: [record, tail]).encoded()).count)
        }
    }

    @Test("a chunk size below 1 is refused")
    func badChunkSize() {
        #expect(throws: NDEFError.self) { try NDEFMessage.empty.encoded(chunkSize: 0) }
    }

    @Test("decoding from Bytes shares the input's storage: payloads are not copied")
    func zeroCopy() throws {
        let record = NDEFPayload(format: .media, type: "a/b", payload: Bytes([UInt8](repeating: 1, count: 4096)))
        let input = Bytes(try NDEFMessage(records: [record, record]).encoded())
        let decoded = try NDEFMessage(bytes: input)
        let inputStart = input.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        for r in decoded.records {
            let payloadStart = r.payload.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
            #expect(payloadStart > inputStart && payloadStart < inputStart + UInt(input.count))
        }
        // From an array, the input is copied once and every record shares that copy.
        let fromArray = try NDEFMessage(bytes: input.array)
        let starts = fromArray.records.map { r in r.payload.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) } }
        #expect(starts[1] - starts[0] == UInt(record.encodedLength))
    }
}

@Suite("NDEF 1.0 decoding rules: one negative test each", .timeLimit(.minutes(5)))
struct DecodingRuleTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var hex: String
        var code: NDEFError.Code
        var offset: Int?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "no bytes", hex: "", code: .emptyInput, offset: 0),
        Case(name: "header without type length", hex: "d1", code: .truncatedHeader, offset: 1),
        Case(name: "short record without payload length", hex: "d101", code: .truncatedHeader, offset: 2),
        Case(name: "long record with 2 of 4 length bytes", hex: "c1010000", code: .truncatedHeader, offset: 2),
        Case(name: "IL set without ID length", hex: "d90101", code: .truncatedHeader, offset: 3),
        Case(name: "payload past the end", hex: "d101055501", code: .lengthPastEnd, offset: 2),
        Case(name: "huge 4-byte length", hex: "c101ffffffff55", code: .lengthPastEnd, offset: 2),
        Case(name: "first record without MB", hex: "51010155" + "00", code: .missingMessageBegin, offset: 0),
        Case(name: "MB on a second record", hex: "91010155 00 d1010155 00", code: .messageBeginTwice, offset: 5),
        Case(name: "no record with ME", hex: "91010155 00", code: .missingMessageEnd, offset: 5),
        Case(name: "bytes after ME", hex: "d1010155 00 00", code: .trailingBytes, offset: 5),
        Case(name: "reserved TNF 7", hex: "d7000000", code: .reservedTypeNameFormat, offset: 0),
        Case(name: "TNF empty with a payload", hex: "d0000100", code: .emptyRecordNotEmpty, offset: 0),
        Case(name: "TNF unknown with a type", hex: "d5010055", code: .unexpectedType, offset: 0),
        Case(name: "well-known without type", hex: "d1000100", code: .missingType, offset: 0),
        Case(name: "TNF unchanged alone", hex: "d6000100", code: .unchangedOutsideChunk, offset: 0),
        Case(name: "middle chunk not TNF unchanged", hex: "b2030161 2f6201 52030162 2f6202", code: .badChunkSequence, offset: 7),
        Case(name: "ID on a later chunk", hex: "b2030161 2f6201 5e00010178 02", code: .badChunkSequence, offset: 7),
        Case(name: "ME on a first chunk", hex: "f2030161 2f6201", code: .badChunkSequence, offset: 0),
        Case(name: "chunked record never terminated", hex: "b2030161 2f6201 36000102", code: .badChunkSequence, offset: 0),
        Case(name: "ME inside a chunked record", hex: "b2030161 2f6201 76000102", code: .badChunkSequence, offset: 7),
    ]

    @Test("malformed bytes give the typed error at the right offset", arguments: cases)
    func rule(_ c: Case) {
        let error = decodeError(hex(c.hex))
        #expect(error?.code == c.code, "got \(String(describing: error))")
        if let offset = c.offset { #expect(error?.offset == offset, "got \(String(describing: error))") }
        #expect(error?.description.isEmpty == false)
    }

    @Test("lenient decoding returns what it can, with the same problems as warnings", arguments: cases)
    func lenientNeverFails(_ c: Case) {
        let result = NDEFMessage.decodeLeniently(hex(c.hex))
        #expect(result.warnings.first?.code == c.code)
    }

    @Test("lenient decoding keeps the good records before damage")
    func lenientKeepsRecords() throws {
        let good = try NDEFMessage(records: [
            .wellKnownTypeURIPayload(url: "https://a.example"), .wellKnownTypeURIPayload(url: "https://b.example"),
        ]).encoded()
        let damaged = Array(good.dropLast(3))  // second record cut short
        let result = NDEFMessage.decodeLeniently(damaged)
        #expect(result.message.records.count == 1)
        #expect(result.message.records[0].wellKnownTypeURIPayload() == "https://a.example")
        #expect(result.warnings.map(\.code) == [.lengthPastEnd])
        // Missing MB is a warning, not an end.
        var noMB = good
        noMB[0] &= ~0x80
        let r2 = NDEFMessage.decodeLeniently(noMB)
        #expect(r2.message.records.count == 2)
        #expect(r2.warnings.map(\.code) == [.missingMessageBegin])
    }

    @Test("every truncated prefix of a valid message fails cleanly")
    func truncatedPrefixes() throws {
        let message = try NDEFMessage(records: [
            .wellKnownTypeURIPayload(url: "https://example.com/t/04A1B2"),
            .wellKnownTypeTextPayload(string: "Grüße", locale: "de", encoding: .utf16),
            .smartPosterPayload(.init(uri: "tel:+1555", titles: [.init(text: "Call", language: "en")], action: .doAction)),
            NDEFPayload(format: .media, type: "application/octet-stream", identifier: "i", payload: Bytes([UInt8](repeating: 9, count: 300))),
        ])
        for chunkSize in [nil, 7] as [Int?] {
            let bytes = try message.encoded(chunkSize: chunkSize)
            #expect(try NDEFMessage(bytes: bytes) == message)
            for length in 0..<bytes.count {
                #expect(throws: NDEFError.self) { try NDEFMessage(bytes: Array(bytes[..<length])) }
            }
        }
    }
}
