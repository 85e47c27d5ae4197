import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// A Type 4 virtual tag behind a filter that misbehaves as real cards may: a replaced CC, no
/// NDEF Tag Application, response chaining (61xx answered by GET RESPONSE), or 6Cxx for a READ
/// BINARY asking more than `wrongLeAbove`.
final class QuirkyType4Tag: ISODEPVirtualTag {
    let inner: Type4VirtualTag
    /// CC file contents served instead of the real one.
    var capabilityContainer: [UInt8]?
    /// Whether SELECT of the NDEF Tag Application succeeds.
    var hasNDEFApplication = true
    /// Response data is handed out this many bytes at a time with 61xx.
    var chainingPartLength: Int?
    /// READ BINARY with a larger Le is answered 6C and this number.
    var wrongLeAbove: Int?
    private var ccSelected = false
    private var pending: [UInt8] = []

    init(_ inner: Type4VirtualTag) { self.inner = inner }

    var modelName: String { inner.modelName }
    var targetInfo: TargetInfo { inner.targetInfo }
    var ats: [UInt8] { inner.ats }
    func respond(to frame: [UInt8]) -> TagAnswer { .silence }
    func powerOn() {
        inner.powerOn()
        ccSelected = false
        pending = []
    }
    func halt() { powerOn() }

    func respond(toAPDU apdu: [UInt8]) -> [UInt8] {
        if apdu.count == 5, apdu[1] == 0xC0 {  // GET RESPONSE
            return hand(Array(pending))
        }
        if apdu.count > 4, apdu[1] == 0xA4, apdu[2] == 0x04, !hasNDEFApplication { return [0x6A, 0x82] }
        if apdu.count == 7, apdu[1] == 0xA4, apdu[2] == 0x00 { ccSelected = apdu[5] == 0xE1 && apdu[6] == 0x03 }
        if apdu.count == 5, apdu[1] == 0xB0, let limit = wrongLeAbove {
            let le = apdu[4] == 0 ? 256 : Int(apdu[4])
            if le > limit { return [0x6C, UInt8(limit)] }
        }
        var answer: [UInt8]
        if apdu.count == 5, apdu[1] == 0xB0, ccSelected, let cc = capabilityContainer {
            let offset = Int(apdu[2]) << 8 | Int(apdu[3])
            let le = apdu[4] == 0 ? 256 : Int(apdu[4])
            answer = offset < cc.count ? Array(cc[offset..<min(cc.count, offset + le)]) + [0x90, 0x00] : [0x6B, 0x00]
        } else {
            answer = inner.respond(toAPDU: apdu)
        }
        guard chainingPartLength != nil, answer.count > 2 else { return answer }
        return hand(Array(answer.dropLast(2)), final: Array(answer.suffix(2)))
    }

    private var finalStatus: [UInt8] = [0x90, 0x00]

    /// The next part of `data` with 61xx while more remains.
    private func hand(_ data: [UInt8], final: [UInt8]? = nil) -> [UInt8] {
        if let final { finalStatus = final }
        let part = Array(data.prefix(chainingPartLength ?? data.count))
        pending = Array(data.dropFirst(part.count))
        return pending.isEmpty ? part + finalStatus : part + [0x61, UInt8(min(pending.count, 256) & 0xFF)]
    }
}

/// NFC Forum Type 4 NDEF over the reader seam against the virtual Type 4 tag in the simulator:
/// the exact APDUs, every check before the first UPDATE BINARY, tear safety.
@Suite("Type 4 NDEF on the virtual Type 4 tag", .timeLimit(.minutes(10)))
struct Type4NDEFTests {
    static let uid: [UInt8] = [0x04, 0x54, 0x34, 0x00, 0x00, 0x00, 0x01]

    static func url(_ text: String) throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: text)])
    }

    /// A virtual Type 4 tag with the given file and limits, `message` stored, on a traced simulator.
    static func open(
        size: Int = 2048, readOnly: Bool = false, mle: Int = 0x3B, mlc: Int = 0x34, message: NDEFMessage? = nil,
        quirks: (@Sendable (QuirkyType4Tag) -> Void)? = nil
    ) async throws -> (SimulatedReader, Type4Tag) {
        let chip = Type4VirtualTag(uid: uid, ndefFileSize: size, readOnly: readOnly, maximumReadLength: mle, maximumUpdateLength: mlc)
        if let message { #expect(chip.setNDEFMessage(try message.encoded())) }
        let quirky = QuirkyType4Tag(chip)
        quirks?(quirky)
        let reader = SimulatedReader(tags: [quirky], emptyFieldWait: .zero)
        await reader.withField { $0.isTracing = true }
        _ = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        return (reader, Type4Tag(reader: reader))
    }

    static func trace(_ reader: SimulatedReader) async -> [[UInt8]] {
        await reader.withField { $0.trace.map(\.command) }
    }

    static func updates(_ reader: SimulatedReader) async -> Int {
        await trace(reader).filter { $0.count > 1 && $0[1] == Type4Command.updateBinary }.count
    }


    static let selectApplication = hex("00 A4 04 00 07 D2 76 00 00 85 01 01 00")
    static let selectCC = hex("00 A4 00 0C 02 E1 03")
    static let readCC = hex("00 B0 00 00 0F")
    static let selectNDEF = hex("00 A4 00 0C 02 E1 04")
    static let detection = [selectApplication, selectCC, readCC, selectNDEF]

    @Test("a factory tag: 5 APDUs of the detection procedure, read-write, capacity 2046, empty message")
    func factoryQuery() async throws {
        let (reader, tag) = try await Self.open()
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 2046, messageLength: 0))
        #expect(await Self.trace(reader) == Self.detection + [hex("00 B0 00 00 02")])
        #expect(try await tag.readNDEF() == .empty)
        #expect(await Self.updates(reader) == 0)
    }

    /// Blank tag, 20-byte message: detection (4 APDUs), READ BINARY of the last byte the write
    /// reaches (offset 21: the file must be as large as the CC says), UPDATE NLEN 0, UPDATE 20
    /// bytes at offset 2 (≤ MLc 52), UPDATE NLEN 20, read-back READ BINARY of 22 bytes.
    @Test("writing a 20-byte URL record sends exactly the documented APDUs")
    func exactWriteTrace() async throws {
        let (reader, tag) = try await Self.open()
        let message = try Self.url("https://www.example.com/abc")
        let encoded = try message.encoded()
        #expect(encoded.count == 20)
        try await tag.writeNDEF(message)
        #expect(
            await Self.trace(reader) == Self.detection + [
                hex("00 B0 00 15 01"),
                hex("00 D6 00 00 02 00 00"),
                hex("00 D6 00 02 14") + encoded,
                hex("00 D6 00 00 02 00 14"),
                hex("00 B0 00 00 16"),
            ])
        await reader.withField { $0.trace.removeAll() }
        #expect(try await tag.readNDEF() == message)
        // Reading: detection + one READ BINARY of MLe bytes (NLEN and the message together).
        #expect(await Self.trace(reader) == Self.detection + [hex("00 B0 00 00 3B")])
    }

    @Test("a 300-byte message goes in MLc chunks and comes back in MLe chunks", arguments: [(0x3B, 0x34), (0xFF, 0xFF), (0x0F, 0x02)])
    func chunking(mle: Int, mlc: Int) async throws {
        let (reader, tag) = try await Self.open(mle: mle, mlc: mlc)
        let message = try Self.url("https://example.com/" + String(repeating: "c", count: 280))
        let count = try message.encoded().count
        try await tag.writeNDEF(message, verify: false)
        #expect(try await tag.readNDEF() == message)
        let trace = await Self.trace(reader)
        let updates = trace.filter { $0[1] == Type4Command.updateBinary }
        let chunk = min(mlc, Type4Tag.defaultMaximumChunkLength)
        #expect(updates.count == 2 + (count + chunk - 1) / chunk)
        #expect(updates.allSatisfy { Int($0[4]) <= chunk })
        let reads = trace.filter { $0[1] == Type4Command.readBinary && $0 != Self.readCC }
        #expect(reads.allSatisfy { Int($0[4]) <= min(mle, Type4Tag.defaultMaximumChunkLength) })
    }

    @Test("MLc 1 cannot change NLEN in one command: write and format refused with no UPDATE BINARY")
    func mlcBelowNLEN() async throws {
        let (reader, tag) = try await Self.open(mlc: 1, message: try Self.url("https://example.com/kept"))
        await #expect { try await tag.writeNDEF(try Self.url("https://example.com")) } throws: {
            ($0 as! NFCTagError).code == .notSupported && ($0 as! NFCTagError).offset == 5
        }
        await #expect { try await tag.format(force: true) } throws: { ($0 as! NFCTagError).code == .notSupported }
        #expect(await Self.updates(reader) == 0)
    }

    @Test("the reader's frame limit caps chunks below MLe/MLc")
    func readerFrameLimit() async throws {
        let (reader, _) = try await Self.open(mle: 0xFF, mlc: 0xFF)
        let tag = Type4Tag(reader: reader, maximumChunkLength: 100)
        let message = try Self.url("https://example.com/" + String(repeating: "d", count: 280))
        try await tag.writeNDEF(message)
        #expect(try await tag.readNDEF() == message)
        let sizes = await Self.trace(reader).filter { $0[1] == Type4Command.updateBinary }.map { Int($0[4]) }
        #expect(sizes.max() == 100)
    }

    @Test("a message of exactly the capacity fits; N bytes more fail with no UPDATE BINARY", arguments: [1, 7])
    func capacityEdge(over: Int) async throws {
        let (reader, tag) = try await Self.open(size: 64)
        let capacity = try await tag.queryNDEFStatus().capacity
        #expect(capacity == 62)
        func message(_ length: Int) -> NDEFMessage {
            NDEFMessage(records: [NDEFPayload(format: .unknown, type: Bytes(), payload: Bytes([UInt8](repeating: 0x5A, count: length - 3)))])
        }
        await #expect {
            try await tag.writeNDEF(message(capacity + over))
        } throws: { error in
            let error = error as! NFCTagError
            return error.code == .capacityExceeded && error.reason.hasSuffix("by \(over) byte\(over == 1 ? "" : "s")")
        }
        #expect(await Self.updates(reader) == 0)
        try await tag.writeNDEF(message(capacity))
        #expect(try await tag.readNDEF() == message(capacity))
    }

    /// `nfctool read` wants both; queried then read, the NDEF file is selected (and, on an NTAG
    /// 424 DNA with SDM, counted as read) twice.
    @Test("status and message in one reading: the detection once, one READ BINARY, the same answers as query then read",
          arguments: [(false, "https://www.example.com/abc"), (true, "https://read.only.example"), (false, "")])
    func readingWithStatus(readOnly: Bool, url: String) async throws {
        let stored: NDEFMessage? = url.isEmpty ? nil : try Self.url(url)
        let (reader, tag) = try await Self.open(readOnly: readOnly, message: stored)
        let reading = try await tag.readNDEFWithStatus()
        #expect(await Self.trace(reader) == Self.detection + [hex("00 B0 00 00 3B")])
        #expect(await Self.trace(reader).filter { $0 == Self.selectNDEF }.count == 1)
        await reader.withField { $0.trace.removeAll() }
        let query = try await tag.queryNDEFStatus()
        #expect(reading == NDEFReading(query: query, message: try await tag.readNDEF()))
        #expect(reading.message == (stored ?? .empty))
        #expect(reading.query.status == (readOnly ? .readOnly : .readWrite))
        #expect(await Self.trace(reader).filter { $0 == Self.selectNDEF }.count == 2)
    }

    @Test("a reading of a tag without the NDEF application: notSupported, no message, nothing but the SELECT")
    func readingWithoutNDEF() async throws {
        let (reader, tag) = try await Self.open(quirks: { $0.hasNDEFApplication = false })
        #expect(try await tag.readNDEFWithStatus() == NDEFReading(query: NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0), message: nil))
        #expect(await Self.trace(reader) == [Self.selectApplication])
    }

    @Test("a read-only NDEF file: query says so, write and format are refused with no UPDATE BINARY, read works")
    func readOnly() async throws {
        let stored = try Self.url("https://read.only.example")
        let (reader, tag) = try await Self.open(readOnly: true, message: stored)
        let query = try await tag.queryNDEFStatus()
        let storedLength = try stored.encoded().count
        #expect(query.status == .readOnly && query.messageLength == storedLength)
        await #expect {
            try await tag.writeNDEF(try Self.url("https://example.com"))
        } throws: { ($0 as! NFCTagError).code == .readOnly && ($0 as! NFCTagError).offset == 14 }
        await #expect { try await tag.format(force: true) } throws: { ($0 as! NFCTagError).code == .readOnly }
        #expect(await Self.updates(reader) == 0)
        #expect(try await tag.readNDEF() == stored)
    }

    @Test("a malformed CC gives malformedTag with the CC offset; no UPDATE BINARY", arguments: [
        ("00 0F 20 00 0E 00 34 04 06 E1 04 08 00 00 00", 3),
        ("00 0F 20 00 3B 00 34 04 06 E1 04 00 02 00 00", 11),
        ("00 0F 20 00 3B 00 34 05 06 E1 04 08 00 00 00", 7),
        ("00 0F 20 00 3B", 5),
    ])
    func malformedCC(cc: String, offset: Int) async throws {
        let (reader, tag) = try await Self.open { $0.capabilityContainer = hex(cc) }
        func isMalformed(_ error: any Error) -> Bool {
            (error as? NFCTagError)?.code == .malformedTag && (error as? NFCTagError)?.offset == offset
        }
        let message = try Self.url("https://example.com")
        await #expect { _ = try await tag.queryNDEFStatus() } throws: { isMalformed($0) }
        await #expect { _ = try await tag.readNDEF() } throws: { isMalformed($0) }
        await #expect { try await tag.writeNDEF(message) } throws: { isMalformed($0) }
        await #expect { try await tag.format(force: true) } throws: { isMalformed($0) }
        #expect(await Self.updates(reader) == 0)
    }

    @Test("an unsupported mapping version reads as not NDEF; write refused with no UPDATE BINARY")
    func unsupportedVersion() async throws {
        let (reader, tag) = try await Self.open { $0.capabilityContainer = hex("00 0F 10 00 3B 00 34 04 06 E1 04 08 00 00 00") }
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0))
        await #expect { try await tag.writeNDEF(try Self.url("https://example.com")) } throws: {
            ($0 as! NFCTagError).code == .notNDEFFormatted
        }
        #expect(await Self.updates(reader) == 0)
    }

    @Test("NLEN beyond the file is malformedTag at offset 0; stored bytes that do not decode are malformedMessage")
    func malformedFile() async throws {
        let (reader, tag) = try await Self.open(size: 64)
        for apdu in Self.detection { _ = try await reader.transceive(Bytes(apdu)) }
        _ = try await reader.transceive(Bytes(hex("00 D6 00 00 02 00 3F")))  // NLEN 63 > 62
        await #expect { _ = try await tag.readNDEF() } throws: {
            ($0 as! NFCTagError).code == .malformedTag && ($0 as! NFCTagError).offset == 0
        }
        await #expect { _ = try await tag.queryNDEFStatus() } throws: { ($0 as! NFCTagError).code == .malformedTag }
        // NLEN 4, then a record header claiming a 200-byte payload.
        _ = try await reader.transceive(Bytes(hex("00 D6 00 00 06 00 04 D1 01 C8 55")))
        await #expect { _ = try await tag.readNDEF() } throws: { error in
            let error = error as! NFCTagError
            return error.code == .malformedMessage && (2...6).contains(error.offset ?? -1)
        }
    }

    @Test("a mapping 3.0 CC with the extended NDEF File Control TLV: 4-byte ENLEN, data from offset 4")
    func extendedLengthFile() async throws {
        let cc = hex("00 11 30 00 3B 00 34 06 08 E1 04 00 00 FF FF 00 00")
        let (reader, tag) = try await Self.open { $0.capabilityContainer = cc }
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 0x8000 - 4, messageLength: 0))
        await reader.withField { $0.trace.removeAll() }
        let message = try Self.url("https://www.example.com/abc")
        try await tag.writeNDEF(message, verify: false)
        let updates = await Self.trace(reader).filter { $0[1] == Type4Command.updateBinary }
        #expect(updates == [
            hex("00 D6 00 00 04 00 00 00 00"),
            hex("00 D6 00 04 14") + (try message.encoded()),
            hex("00 D6 00 00 04 00 00 00 14"),
        ])
        #expect(try await tag.readNDEF() == message)
        // The CC is 17 bytes: a second READ BINARY fetches its last 2.
        #expect(await Self.trace(reader).contains(hex("00 B0 00 0F 02")))
    }

    @Test("a message that cannot be encoded is invalidMessage before any APDU")
    func invalidMessage() async throws {
        let (reader, tag) = try await Self.open()
        let bad = NDEFMessage(records: [NDEFPayload(format: .unknown, type: Bytes([0x01]), payload: Bytes([0x02]))])
        await #expect { try await tag.writeNDEF(bad) } throws: { ($0 as! NFCTagError).code == .invalidMessage }
        #expect(await Self.trace(reader).isEmpty)
    }

    @Test("writing the empty message over a stored one reads back as empty")
    func writeEmpty() async throws {
        let (_, tag) = try await Self.open(message: try Self.url("https://example.com/was-here"))
        try await tag.writeNDEF(.empty)
        #expect(try await tag.readNDEF() == .empty)
        #expect(try await tag.queryNDEFStatus().messageLength == 3)
    }

    @Test("writeLock is notSupported with its reason, and sends nothing")
    func writeLock() async throws {
        let (reader, tag) = try await Self.open(message: try Self.url("https://example.com"))
        await #expect { try await tag.writeLock() } throws: { error in
            let error = error as! NFCTagError
            return error.code == .notSupported && error.reason.contains("this tag cannot be locked permanently")
        }
        #expect(await Self.trace(reader).isEmpty)
    }

    @Test("format: an empty tag is left alone, a message needs force, then NLEN 0 alone is written")
    func format() async throws {
        let (emptyReader, empty) = try await Self.open()
        try await empty.format()
        #expect(await Self.trace(emptyReader) == Self.detection + [hex("00 B0 00 00 02")])

        let (reader, tag) = try await Self.open(message: try Self.url("https://example.com/format-me"))
        await #expect { try await tag.format() } throws: { ($0 as! NFCTagError).code == .alreadyFormatted }
        #expect(await Self.updates(reader) == 0)
        await reader.withField { $0.trace.removeAll() }
        try await tag.format(force: true)
        #expect(await Self.trace(reader) == Self.detection + [hex("00 B0 00 00 02"), hex("00 D6 00 00 02 00 00")])
        #expect(try await tag.readNDEF() == .empty)
    }

    @Test("a card without the NDEF Tag Application: not supported, format says creating it is out of scope, nothing written")
    func noApplication() async throws {
        let (reader, tag) = try await Self.open { $0.hasNDEFApplication = false }
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0))
        await #expect { try await tag.format(force: true) } throws: { error in
            let error = error as! NFCTagError
            return error.code == .notSupported && error.reason.contains("out of scope")
        }
        await #expect { try await tag.writeNDEF(try Self.url("https://example.com")) } throws: {
            ($0 as! NFCTagError).code == .notNDEFFormatted
        }
        await #expect { _ = try await tag.readNDEF() } throws: { ($0 as! NFCTagError).code == .notNDEFFormatted }
        #expect(await Self.updates(reader) == 0)
    }

    @Test("a card chaining its answers with 61xx, or asking for a smaller Le with 6Cxx, reads and writes the same")
    func chainingCard() async throws {
        let message = try Self.url("https://example.com/" + String(repeating: "g", count: 150))
        let (reader, tag) = try await Self.open(mle: 0xFF, mlc: 0xFF) { $0.chainingPartLength = 16 }
        try await tag.writeNDEF(message)
        #expect(try await tag.readNDEF() == message)
        #expect(await Self.trace(reader).contains { $0 == hex("00 C0 00 00 10") })

        let (shortReader, short) = try await Self.open { $0.wrongLeAbove = 0x20 }
        try await short.writeNDEF(message)
        #expect(try await short.readNDEF() == message)
        #expect(await Self.trace(shortReader).contains { $0 == hex("00 B0 00 00 20") })
    }

    @Test("through NFCTag.connect: an ISO-DEP tag is iso7816, its NDEF is Type 4, selectedAID follows")
    func throughNFCTag() async throws {
        let chip = Type4VirtualTag(uid: Self.uid)
        let reader = SimulatedReader(tags: [chip], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        guard case .iso7816(let tag) = try await NFCTag.connect(to: target, on: reader) else {
            Issue.record("not an ISO 7816 tag")
            return
        }
        #expect(tag.identity.platform == .type4)
        let message = try Self.url("https://example.com/iso7816")
        try await tag.writeNDEF(message)
        #expect(try await tag.readNDEF() == message)
        #expect(tag.selectedAID == "D2760000850101")
        #expect(tag.historicalBytes.array == [0x80])
    }

    @Test("tearing sweep of writeNDEF: old, empty or new, never corrupt", arguments: [
        ("https://example.com/old", "https://example.org/" + String(repeating: "n", count: 200)),
        ("https://example.com/" + String(repeating: "o", count: 200), "https://n.example"),
    ])
    func tearingWrite(old: String, new: String) async throws {
        let oldMessage = try Self.url(old)
        let newMessage = try Self.url(new)
        let chip = Type4VirtualTag(uid: Self.uid)
        #expect(chip.setNDEFMessage(try oldMessage.encoded()))
        let outcomes = try await TearingSweep.run(
            "type4 write", initial: chip.tagState, modulations: [.iso14443A],
            makeTag: { reader, _ in Type4Tag(reader: reader) },
            operation: { tag throws(NFCTagError) in try await tag.writeNDEF(newMessage) },
            classify: TearingSweep.messageClassifier(old: oldMessage, new: newMessage))
        #expect(outcomes["empty", default: 0] >= 1)
        #expect(outcomes["new", default: 0] >= 1)
        #expect(outcomes["old", default: 0] >= 1)
    }

    @Test("tearing sweep of format(force:): old or empty, never corrupt")
    func tearingFormat() async throws {
        let oldMessage = try Self.url("https://example.com/" + String(repeating: "f", count: 100))
        let chip = Type4VirtualTag(uid: Self.uid)
        #expect(chip.setNDEFMessage(try oldMessage.encoded()))
        let outcomes = try await TearingSweep.run(
            "type4 format", initial: chip.tagState, modulations: [.iso14443A],
            makeTag: { reader, _ in Type4Tag(reader: reader) },
            operation: { tag throws(NFCTagError) in try await tag.format(force: true) },
            classify: TearingSweep.messageClassifier(old: oldMessage, new: .empty))
        #expect(outcomes["commands"] == 6)
        #expect(outcomes["empty", default: 0] >= 1)
    }
}
