import NFCCore
import NFCTags
import NFCTestSupport
import Testing

/// The trace format (docs/traces.md): round trip, one refusal per rule with its line and
/// offset, every truncated line refused; the redactor; the replay reader's matching.
@Suite("Reader traces: format, redaction, replay", .timeLimit(.minutes(1)))
struct ReaderTraceTests {
    static let header = ReaderTraceHeader(
        tool: "test", connection: "pn532_uart:/dev/x", reader: "PN532", libnfcVersion: "1.8.0",
        modulations: [.iso14443A, .felica212], listsSeveralTargets: true, redacted: true)
    static let ntag = TargetInfo.iso14443A(ISO14443ATarget(uid: Bytes(hex("04 53 49 4D 00 00 01")), atqa: Bytes(hex("44 00")), sak: 0))
    static let classic = TargetInfo.iso14443A(ISO14443ATarget(uid: Bytes(hex("01 02 03 04")), atqa: Bytes(hex("04 00")), sak: 0x08))

    /// One event of every call and every result.
    static let everyCall: ReaderTrace = {
        let felica = TargetInfo.felica(FeliCaTarget(idm: Bytes(hex("01 2E 4C 00 00 00 00 01")), pmm: Bytes(hex("00 F1 00 00 00 01 43 00")), systemCode: 0x12FC))
        let requests: [(ReaderTraceRequest, ReaderTraceResult)] = [
            (.poll([.iso14443A]), .found(nil)),
            (.poll([.iso14443A, .felica212]), .found(ntag)),
            (.checkCanSend(TraceBytes(hex("60")), .raw), .done),
            (.transceive(TraceBytes(hex("30 04")), .standard), .answer(TraceBytes(hex("03 00 FE 00 00 00 00 00 00 00 00 00 00 00 00 00")))),
            (.transceive(TraceBytes(values: [0x1B, nil, nil, nil, nil]), .standard), .answer(TraceBytes(hex("99 88")))),
            (.transceive(TraceBytes(hex("30 FF")), .standard), .failed(NFCReaderDeviceError(.nak, "NAK 0", detail: 0))),
            (.authenticateClassic(block: 7, keyType: .b, key: TraceBytes(values: Array(repeating: nil, count: 6)), uid: Bytes(hex("01 02 03 04"))), .done),
            (.isTargetPresent, .present(true)),
            (.waitForRemoval, .removal(.stillPresent)),
            (.listTargets([.felica212], limit: 2), .targets([felica])),
            (.listTargetsAlongside(ntag, limit: 2), .targets([ntag, classic])),
            (.select(classic), .failed(NFCReaderDeviceError(.tagLost, "gone \"quoted\" é\n"))),
            (.deselect, .done),
            (.signal(.done), .sent(false)),
            (.unsupportedCardReason, .reason(nil)),
            (.unsupportedCardReason, .reason("unsupported card (Topaz)")),
            (.transceiveUnselected(TraceBytes(hex("02 B2 04"))), .answer(TraceBytes(hex("00 3C 5A")))),
            (.transceiveUnselected(TraceBytes(values: [0x02, 0xB3, 0x04, 0x04, nil, nil, nil, nil])), .failed(NFCReaderDeviceError(.timeout, "no answer"))),
        ]
        return ReaderTrace(header: header, events: requests.enumerated().map { index, pair in
            ReaderTraceEvent(number: index + 1, request: pair.0, result: pair.1, microseconds: index * 100)
        })
    }()

    static func parse(_ text: String) -> Result<ReaderTrace, ReaderTraceError> {
        Result { () throws(ReaderTraceError) in try ReaderTrace.parse(Array(text.utf8)) }
    }

    static func refusal(_ text: String) -> ReaderTraceError? {
        if case .failure(let error) = parse(text) { return error }
        return nil
    }

    @Test("every call and result writes as JSON lines and parses back to the same trace")
    func roundTrip() throws {
        let text = Self.everyCall.jsonLines
        #expect(text.split(separator: "\n").count == Self.everyCall.events.count + 1)
        #expect(try Self.parse(text).get() == Self.everyCall)
        // No final newline, blank lines, CRLF: the same trace.
        #expect(try Self.parse(String(text.dropLast())).get() == Self.everyCall)
        #expect(try Self.parse(text.replacingOccurrences(of: "\n", with: "\r\n\n")).get() == Self.everyCall)
    }

    @Test("the header's fields are written in a fixed order, null where unknown")
    func headerLine() {
        #expect(Self.header.jsonLine == #"{"format":"nfckit-reader-trace","version":1,"tool":"test","connection":"pn532_uart:/dev/x","reader":"PN532","firmware":null,"profile":null,"libnfc":"1.8.0","pcscLite":null,"modulations":["iso14443a","felica212"],"listsSeveralTargets":true,"feedback":null,"redacted":true}"#)
    }

    static let headerLine = header.jsonLine

    /// (trace text, code, line, offset, words of the reason): one per rule.
    static let refusals: [(String, ReaderTraceError.Code, Int, Int, String)] = [
        ("", .size, 1, 0, "no header"),
        ("{\"format\":\"other\"}", .notATrace, 1, 0, "not a trace header"),
        (headerLine.replacingOccurrences(of: "\"version\":1", with: "\"version\":2"), .unsupportedVersion, 1, 0, "newer"),
        (headerLine.replacingOccurrences(of: "\"version\":1", with: "\"version\":0"), .invalidField, 1, 0, "at least 1"),
        (headerLine.replacingOccurrences(of: ",\"redacted\":true", with: ""), .invalidField, 1, 0, "'redacted' is missing"),
        (headerLine.replacingOccurrences(of: "\"redacted\":true", with: "\"redacted\":true,\"extra\":1"), .invalidField, 1, 0, "'extra' is not a field"),
        (headerLine.replacingOccurrences(of: "\"tool\":\"test\"", with: "\"tool\":7"), .invalidField, 1, 0, "'tool' must be a string"),
        (headerLine.replacingOccurrences(of: "\"felica212\"", with: "\"nfc-f\""), .invalidField, 1, 0, "not a modulation"),
        (headerLine + "\n{\"n\":2,\"call\":\"deselect\",\"us\":0}", .outOfOrder, 2, 0, "event 2 where 1"),
        (headerLine + "\n{\"n\":1,\"call\":\"fly\",\"us\":0}", .invalidField, 2, 0, "not a reader call"),
        (headerLine + "\n{\"n\":1,\"call\":\"transceive\",\"mode\":\"standard\",\"command\":\"3\",\"answer\":\"\",\"us\":0}", .invalidField, 2, 0, "must be hex"),
        (headerLine + "\n{\"n\":1,\"call\":\"transceive\",\"mode\":\"fast\",\"command\":\"30\",\"answer\":\"\",\"us\":0}", .invalidField, 2, 0, "standard or raw"),
        (headerLine + "\n{\"n\":1,\"call\":\"deselect\",\"us\":-1}", .invalidField, 2, 0, "must not be negative"),
        (headerLine + "\n{\"n\":1,\"call\":\"deselect\",\"us\":1.5}", .syntax, 2, 31, "not an integer"),
        (headerLine + "\n{\"n\":1,\"n\":1}", .syntax, 2, 7, "appears twice"),
        (headerLine + "\n{\"n\":1,\"call\":\"deselect\",\"us\":0} x", .syntax, 2, 33, "text after"),
        (headerLine + "\n{\"n\":1,\"call\":\"poll\",\"modulations\":[],\"found\":{\"type\":\"iso14443a\",\"uid\":\"**\",\"atqa\":\"\",\"sak\":\"00\",\"ats\":\"\"},\"us\":0}", .invalidField, 2, 0, "cannot be redacted"),
        (headerLine + "\n{\"n\":1,\"call\":\"select\",\"target\":{\"type\":\"nfc-v\"},\"us\":0}", .invalidField, 2, 0, "not a target type"),
        (headerLine + "\n{\"n\":1,\"call\":\"deselect\",\"error\":{\"code\":\"oops\",\"reason\":\"\",\"detail\":null},\"us\":0}", .invalidField, 2, 0, "not a reader error code"),
        (headerLine + "\n" + String(repeating: "[", count: 20), .syntax, 2, 8, "nested deeper"),
        (headerLine + "\n{\"n\":1,\"call\":\"deselect\",\"us\":0,\"x\":\"\u{01}\"}", .syntax, 2, 37, "control character"),
    ]

    @Test("each rule refuses its input with the line and offset", arguments: 0..<refusals.count)
    func refused(_ index: Int) throws {
        let (text, code, line, offset, words) = Self.refusals[index]
        let error = try #require(Self.refusal(text), "accepted: \(text)")
        #expect(error.code == code, "\(error)")
        #expect(error.line == line, "\(error)")
        #expect(error.offset == offset, "\(error)")
        #expect(error.reason.contains(words), "\(error)")
    }

    @Test("every truncated prefix of every event line is refused, never trapping")
    func truncatedLines() {
        for event in Self.everyCall.events {
            let line = Array(event.jsonLine.utf8)
            for count in 0..<line.count {
                let text = Self.headerLine + "\n" + String(decoding: line[..<count], as: UTF8.self)
                if count == 0 { continue }  // an empty line is skipped
                #expect(Self.refusal(text) != nil, "prefix \(count) of \(event.jsonLine) accepted")
            }
        }
    }

    @Test("PWD_AUTH's password and a write of a password page are redacted; the PACK and other writes stay")
    func redactsPasswords() {
        var redactor = ReaderTraceRedactor()
        _ = redactor.redact(.poll([.iso14443A]), .found(Self.ntag))
        let (auth, answer) = redactor.redact(.transceive(TraceBytes(hex("1B 5A 6B 7C 8D")), .standard), .answer(TraceBytes(hex("99 88"))))
        #expect(auth == .transceive(TraceBytes(values: [0x1B, nil, nil, nil, nil]), .standard))
        #expect(answer == .answer(TraceBytes(hex("99 88"))))
        // NTAG215's PWD page is 0x85.
        let (write, _) = redactor.redact(.transceive(TraceBytes(hex("A2 85 5A 6B 7C 8D")), .standard), .answer(TraceBytes(hex("0A"))))
        #expect(write == .transceive(TraceBytes(values: [0xA2, 0x85, nil, nil, nil, nil]), .standard))
        let (user, _) = redactor.redact(.transceive(TraceBytes(hex("A2 04 03 00 FE 00")), .standard), .answer(TraceBytes(hex("0A"))))
        #expect(user == .transceive(TraceBytes(hex("A2 04 03 00 FE 00")), .standard))
    }

    @Test("ICODE SET PASSWORD, WRITE PASSWORD, DESTROY and ENABLE PRIVACY (NXP's 04) lose their 4 password bytes, addressed, unaddressed and sent to no selected tag; GET RANDOM NUMBER, LOCK PASSWORD and another maker's B3 stay")
    func redactsICodePasswords() {
        var redactor = ReaderTraceRedactor()
        let uid = hex("E0 04 01 08 12 34 56 78")
        _ = redactor.redact(.poll([.iso15693]), .found(.iso15693(ISO15693Target(uid: Bytes(uid)))))
        let onAir = Array(uid.reversed())
        let hidden = [UInt8?](repeating: nil, count: 4)
        for frame in [[0x22, 0xB3, 0x04] + onAir + [0x04, 1, 2, 3, 4], [0x02, 0xB4, 0x04, 0x01, 1, 2, 3, 4], [0x62, 0xB9, 0x04] + onAir + [1, 2, 3, 4],
                      [0x22, 0xBA, 0x04] + onAir + [1, 2, 3, 4]] {
            let (sent, _) = redactor.redact(.transceive(TraceBytes(frame), .standard), .answer(TraceBytes([0x00])))
            #expect(sent == .transceive(TraceBytes(values: frame.dropLast(4).map { Optional($0) } + hidden), .standard), "\(frame)")
        }
        let unselected = [UInt8](hex("02 B3 04 04 11 22 33 44"))
        #expect(redactor.redact(.transceiveUnselected(TraceBytes(unselected)), .answer(TraceBytes([0x00]))).0
            == .transceiveUnselected(TraceBytes(values: unselected.dropLast(4).map { Optional($0) } + hidden)))
        for kept in [hex("02 B2 04"), [0x22, 0xB5, 0x04] + onAir + [0x04], [0x22, 0xB3, 0x07] + onAir + [0x04, 1, 2, 3, 4]] {
            #expect(redactor.redact(.transceive(TraceBytes(kept), .standard), .answer(TraceBytes([0x00, 1, 2]))).0 == .transceive(TraceBytes(kept), .standard))
        }
        #expect(redactor.redact(.transceiveUnselected(TraceBytes(hex("02 B2 04"))), .answer(TraceBytes(hex("00 01 02"))))
            == (.transceiveUnselected(TraceBytes(hex("02 B2 04"))), .answer(TraceBytes(hex("00 01 02")))))
    }

    @Test("replay answers transceiveUnselected from the trace (a redacted password matching any), and a transceive in its place diverges")
    func replayUnselected() async throws {
        var trace = Self.everyCall
        trace.events = Array(trace.events.suffix(2)).enumerated().map { index, event in
            ReaderTraceEvent(number: index + 1, request: event.request, result: event.result, microseconds: 0)
        }
        let reader = ReplayReader(trace)
        #expect(try await reader.transceiveUnselected(Bytes(hex("02 B2 04")), timeout: .seconds(1)) == Bytes(hex("00 3C 5A")))
        await #expect(throws: NFCReaderDeviceError.self) {
            try await reader.transceiveUnselected(Bytes(hex("02 B3 04 04 9A 8B 7C 6D")), timeout: .seconds(1))
        }
        #expect(await reader.divergence == nil, "the recorded timeout, not a divergence")
        #expect(await reader.isAtEnd)
        let other = ReplayReader(trace)
        await #expect(throws: NFCReaderDeviceError.self) { try await other.transceive(Bytes(hex("02 B2 04"))) }
        #expect(await other.divergence == "diverged at exchange 1: sent 02 B2 04, trace has unselected 02 B2 04")
    }

    @Test("Ultralight C AUTHENTICATE's cryptograms and key-page writes are redacted; codes stay, and a chip that answered GET_VERSION keeps pages 2Ch–2Fh")
    func redactsUltralightCKeys() {
        var redactor = ReaderTraceRedactor()
        _ = redactor.redact(.poll([.iso14443A]), .found(Self.ntag))
        _ = redactor.redact(.transceive(TraceBytes(hex("60")), .raw), .failed(NFCReaderDeviceError(.nak, "NAK 0", detail: 0)))
        let (first, challenge) = redactor.redact(
            .transceive(TraceBytes(hex("1A 00")), .standard), .answer(TraceBytes(hex("AF 57 7A 2D 53 7B 83 CE 3B"))))
        #expect(first == .transceive(TraceBytes(hex("1A 00")), .standard))
        #expect(challenge == .answer(TraceBytes(values: [0xAF] + Array(repeating: nil, count: 8))))
        let (second, proof) = redactor.redact(
            .transceive(TraceBytes([0xAF] + Array(repeating: 0x5C, count: 16)), .standard), .answer(TraceBytes(hex("00 1D 8B 2B 56 F3 5E 9C 4D"))))
        #expect(second == .transceive(TraceBytes(values: [0xAF] + Array(repeating: nil, count: 16)), .standard))
        #expect(proof == .answer(TraceBytes(values: [0x00] + Array(repeating: nil, count: 8))))
        for page: UInt8 in 0x2C...0x2F {
            let (write, _) = redactor.redact(.transceive(TraceBytes([0xA2, page, 0x42, 0x52, 0x45, 0x41]), .standard), .answer(TraceBytes(hex("0A"))))
            #expect(write == .transceive(TraceBytes(values: [0xA2, page, nil, nil, nil, nil]), .standard))
        }
        let (auth0, _) = redactor.redact(.transceive(TraceBytes(hex("A2 2A 04 00 00 00")), .standard), .answer(TraceBytes(hex("0A"))))
        #expect(auth0 == .transceive(TraceBytes(hex("A2 2A 04 00 00 00")), .standard))
        // An AF with no AUTHENTICATE before it stays.
        let (lone, _) = redactor.redact(.transceive(TraceBytes(hex("AF 01 02")), .standard), .answer(TraceBytes(hex("00"))))
        #expect(lone == .transceive(TraceBytes(hex("AF 01 02")), .standard))
        // An NTAG215 (it answers GET_VERSION): page 2Ch is user memory.
        _ = redactor.redact(.poll([.iso14443A]), .found(Self.ntag))
        _ = redactor.redact(.transceive(TraceBytes(hex("60")), .raw), .answer(TraceBytes(hex("00 04 04 02 01 00 11 03"))))
        let (user, _) = redactor.redact(.transceive(TraceBytes(hex("A2 2C 61 62 63 64")), .standard), .answer(TraceBytes(hex("0A"))))
        #expect(user == .transceive(TraceBytes(hex("A2 2C 61 62 63 64")), .standard))
    }

    @Test("a Classic key is redacted whole; a trailer's keys are redacted in writes and reads, its access bits kept")
    func redactsClassicKeys() {
        var redactor = ReaderTraceRedactor()
        _ = redactor.redact(.poll([.iso14443A]), .found(Self.classic))
        let (auth, _) = redactor.redact(
            .authenticateClassic(block: 4, keyType: .a, key: TraceBytes(hex("A0 A1 A2 A3 A4 A5")), uid: Bytes(hex("01 02 03 04"))), .done)
        #expect(auth == .authenticateClassic(block: 4, keyType: .a, key: TraceBytes(values: Array(repeating: nil, count: 6)), uid: Bytes(hex("01 02 03 04"))))
        let trailer = hex("A0 A1 A2 A3 A4 A5 FF 07 80 69 B0 B1 B2 B3 B4 B5")
        let (write, _) = redactor.redact(.transceive(TraceBytes([0xA0, 0x07] + trailer), .standard), .answer(TraceBytes(hex("0A"))))
        #expect(write == .transceive(TraceBytes(values: [0xA0, 0x07] + Array(repeating: nil, count: 6) + [0xFF, 0x07, 0x80, 0x69] + Array(repeating: nil, count: 6)), .standard))
        let (_, read) = redactor.redact(.transceive(TraceBytes(hex("30 07")), .standard), .answer(TraceBytes(trailer)))
        #expect(read == .answer(TraceBytes(values: Array(repeating: nil, count: 6) + [0xFF, 0x07, 0x80, 0x69] + Array(repeating: nil, count: 6))))
        // A data block stays.
        let (_, data) = redactor.redact(.transceive(TraceBytes(hex("30 04")), .standard), .answer(TraceBytes(trailer)))
        #expect(data == .answer(TraceBytes(trailer)))
    }

    @Test("NTAG 424 authentication parts, ChangeKey and the secure-messaging session after it are redacted; status words stay")
    func redactsSecureMessaging() {
        var redactor = ReaderTraceRedactor()
        let type4 = TargetInfo.iso14443A(ISO14443ATarget(uid: Bytes(hex("04 11 22 33 44 55 66")), atqa: Bytes(hex("44 03")), sak: 0x20, ats: Bytes(hex("06 77 77 71 02 80"))))
        _ = redactor.redact(.poll([.iso14443A]), .found(type4))
        let select = TraceBytes(hex("00 A4 04 00 07 D2 76 00 00 85 01 01 00"))
        #expect(redactor.redact(.transceive(select, .standard), .answer(TraceBytes(hex("90 00")))).0 == .transceive(select, .standard))
        let (first, rndB) = redactor.redact(.transceive(TraceBytes(hex("90 71 00 00 02 00 00 00")), .standard),
                                            .answer(TraceBytes(hex("01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F 10 91 AF"))))
        #expect(first == .transceive(TraceBytes(values: [0x90, 0x71, 0x00, 0x00, 0x02, nil, nil, 0x00]), .standard))
        #expect(rndB == .answer(TraceBytes(values: Array(repeating: nil, count: 16) + [0x91, 0xAF])))
        let (second, _) = redactor.redact(.transceive(TraceBytes([0x90, 0xAF, 0, 0, 0x20] + Array(repeating: 0x55, count: 32) + [0]), .standard),
                                          .answer(TraceBytes(Array(repeating: 0x66, count: 32) + [0x91, 0x00])))
        #expect(second == .transceive(TraceBytes(values: [0x90, 0xAF, 0, 0, 0x20] + Array(repeating: nil, count: 32) + [0]), .standard))
        // Secure messaging: GetFileSettings' MAC and answer.
        let (settings, answer) = redactor.redact(.transceive(TraceBytes(hex("90 F5 00 00 09 02 01 02 03 04 05 06 07 08 00")), .standard),
                                                 .answer(TraceBytes(hex("00 40 EE EE 00 01 02 03 04 05 06 07 91 00"))))
        #expect(settings == .transceive(TraceBytes(values: [0x90, 0xF5, 0, 0, 0x09] + Array(repeating: nil, count: 9) + [0]), .standard))
        #expect(answer == .answer(TraceBytes(values: Array(repeating: nil, count: 12) + [0x91, 0x00])))
        // A new poll ends the session.
        _ = redactor.redact(.poll([.iso14443A]), .found(type4))
        let plain = TraceBytes(hex("90 F5 00 00 01 02 00"))
        #expect(redactor.redact(.transceive(plain, .standard), .answer(TraceBytes(hex("91 00")))).0 == .transceive(plain, .standard))
    }

    /// A DESFire as the reader selects it: ISO-DEP.
    static let desfire = TargetInfo.iso14443A(ISO14443ATarget(uid: Bytes(hex("04 AE 50 00 00 00 02")), atqa: Bytes(hex("44 03")), sak: 0x20, ats: Bytes(hex("06 75 77 81 02 80"))))

    /// The `(code, random length)` of each DESFire authentication whose three steps are cryptograms.
    static let desfireAuthentications: [(UInt8, Int)] = [(0x0A, 8), (0x1A, 8), (0x1A, 16), (0xAA, 16)]

    @Test("DESFire legacy, ISO and AES authentication (wrapped 90 0A/1A/AA): ek(RndB), the AF frame's ek(RndA ‖ RndB′) and ek(RndA′) are redacted; codes, key number, Lc and status words stay",
          arguments: desfireAuthentications)
    func redactsDESFireWrappedAuthentication(code: UInt8, length: Int) {
        var redactor = ReaderTraceRedactor()
        _ = redactor.redact(.poll([.iso14443A]), .found(Self.desfire))
        let (first, challenge) = redactor.redact(.transceive(TraceBytes([0x90, code, 0, 0, 1, 0x00, 0]), .standard),
                                                 .answer(TraceBytes(Array(repeating: 0xA9, count: length) + [0x91, 0xAF])))
        #expect(first == .transceive(TraceBytes([0x90, code, 0, 0, 1, 0x00, 0]), .standard))
        #expect(challenge == .answer(TraceBytes(values: Array(repeating: nil, count: length) + [0x91, 0xAF])))
        let (second, proof) = redactor.redact(
            .transceive(TraceBytes([0x90, 0xAF, 0, 0, UInt8(2 * length)] + Array(repeating: 0xAD, count: 2 * length) + [0]), .standard),
            .answer(TraceBytes(Array(repeating: 0xE9, count: length) + [0x91, 0x00])))
        #expect(second == .transceive(TraceBytes(values: [0x90, 0xAF, 0, 0, UInt8(2 * length)] + Array(repeating: nil, count: 2 * length) + [0]), .standard))
        #expect(proof == .answer(TraceBytes(values: Array(repeating: nil, count: length) + [0x91, 0x00])))
        // Legacy authentication opens no EV2 secure messaging: the next command stays readable.
        let keySettings = TraceBytes(hex("90 45 00 00 00"))
        #expect(redactor.redact(.transceive(keySettings, .standard), .answer(TraceBytes(hex("0F 01 91 00")))) ==
                (.transceive(keySettings, .standard), .answer(TraceBytes(hex("0F 01 91 00")))))
    }

    @Test("a refused DESFire authentication (91 AE) leaves the next AF frame alone; GetVersion's and ReadData's AF frames stay readable")
    func keepsDESFireAdditionalFrames() {
        var redactor = ReaderTraceRedactor()
        _ = redactor.redact(.poll([.iso14443A]), .found(Self.desfire))
        let exchanges: [(String, String)] = [
            ("90 60 00 00 00", "04 01 01 01 00 18 05 91 AF"),
            ("90 AF 00 00 00", "04 01 01 01 04 18 05 91 AF"),
            ("90 AF 00 00 00", "04 AE 50 00 00 00 02 BA 44 F8 5A 70 20 12 91 00"),
            ("90 0A 00 00 01 00 00", "91 AE"),
            ("90 AF 00 00 10 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F 10 00", "91 1C"),
            ("90 BD 00 00 07 01 00 00 00 00 00 00 00", "03 0B D1 01 91 AF"),
            ("90 AF 00 00 00", "07 55 02 65 78 61 6D 91 00"),
        ]
        for (command, answer) in exchanges {
            let (sent, got) = redactor.redact(.transceive(TraceBytes(hex(command)), .standard), .answer(TraceBytes(hex(answer))))
            #expect(sent == .transceive(TraceBytes(hex(command)), .standard), "\(command)")
            #expect(got == .answer(TraceBytes(hex(answer))), "\(answer)")
        }
    }

    @Test("DESFire native (unwrapped) authentication frames: 0A/1A/AA answered AF ek(RndB), then AF ek(RndA ‖ RndB′) answered 00 ek(RndA′), are redacted after their codes; a native GetVersion's AF frames stay",
          arguments: desfireAuthentications)
    func redactsDESFireNativeAuthentication(code: UInt8, length: Int) {
        var redactor = ReaderTraceRedactor()
        _ = redactor.redact(.poll([.iso14443A]), .found(Self.desfire))
        let (first, challenge) = redactor.redact(.transceive(TraceBytes([code, 0x00]), .standard),
                                                 .answer(TraceBytes([0xAF] + Array(repeating: 0xA9, count: length))))
        #expect(first == .transceive(TraceBytes([code, 0x00]), .standard))
        #expect(challenge == .answer(TraceBytes(values: [0xAF] + Array(repeating: nil, count: length))))
        let (second, proof) = redactor.redact(.transceive(TraceBytes([0xAF] + Array(repeating: 0xAD, count: 2 * length)), .standard),
                                              .answer(TraceBytes([0x00] + Array(repeating: 0xE9, count: length))))
        #expect(second == .transceive(TraceBytes(values: [0xAF] + Array(repeating: nil, count: 2 * length)), .standard))
        #expect(proof == .answer(TraceBytes(values: [0x00] + Array(repeating: nil, count: length))))
        for (command, answer) in [("60", "AF 04 01 01 01 00 18 05"), ("AF", "AF 04 01 01 01 04 18 05"), ("AF", "00 04 AE 50 00 00 00 02 BA 44 F8 5A 70 20 12")] {
            let (sent, got) = redactor.redact(.transceive(TraceBytes(hex(command)), .standard), .answer(TraceBytes(hex(answer))))
            #expect(sent == .transceive(TraceBytes(hex(command)), .standard) && got == .answer(TraceBytes(hex(answer))), "\(command)")
        }
    }

    @Test("DESFire EV2/EV3 and DESFire Light AuthenticateEV2First (90 71) and its AF frame are redacted, key number and status words aside")
    func redactsDESFireEV2First() {
        var redactor = ReaderTraceRedactor()
        _ = redactor.redact(.poll([.iso14443A]), .found(Self.desfire))
        let (first, rndB) = redactor.redact(.transceive(TraceBytes(hex("90 71 00 00 02 00 00 00")), .standard),
                                            .answer(TraceBytes(Array(repeating: 0xA9, count: 16) + [0x91, 0xAF])))
        #expect(first == .transceive(TraceBytes(values: [0x90, 0x71, 0, 0, 0x02, nil, nil, 0]), .standard))
        #expect(rndB == .answer(TraceBytes(values: Array(repeating: nil, count: 16) + [0x91, 0xAF])))
        let (second, proof) = redactor.redact(.transceive(TraceBytes([0x90, 0xAF, 0, 0, 0x20] + Array(repeating: 0xAD, count: 32) + [0]), .standard),
                                              .answer(TraceBytes(Array(repeating: 0xE9, count: 32) + [0x91, 0x00])))
        #expect(second == .transceive(TraceBytes(values: [0x90, 0xAF, 0, 0, 0x20] + Array(repeating: nil, count: 32) + [0]), .standard))
        #expect(proof == .answer(TraceBytes(values: Array(repeating: nil, count: 32) + [0x91, 0x00])))
    }

    @Test("replay answers the recorded calls in order; a redacted byte matches any byte; a different command diverges, and stays diverged")
    func replayMatching() async throws {
        let reader = ReplayReader(Self.everyCall)
        #expect(await reader.name == "PN532")
        #expect(await reader.connectionString == "pn532_uart:/dev/x")
        #expect(try await reader.poll(for: [.iso14443A], timeout: .zero) == nil)
        #expect(try await reader.poll(for: [.iso14443A, .felica212], timeout: .zero) == Self.ntag)
        try await reader.checkCanSend(Bytes([0x60]), mode: .raw)
        #expect(try await reader.transceive(Bytes(hex("30 04"))).first == 0x03)
        #expect(try await reader.transceive(Bytes(hex("1B 01 02 03 04"))) == Bytes(hex("99 88")))
        do {
            _ = try await reader.transceive(Bytes(hex("30 FE")))
            Issue.record("a different command was answered")
        } catch {
            #expect(error.reason == "diverged at exchange 6: sent 30 FE, trace has 30 FF")
        }
        #expect(await reader.divergence == "diverged at exchange 6: sent 30 FE, trace has 30 FF")
        await #expect(throws: NFCReaderDeviceError.self) { try await reader.transceive(Bytes(hex("30 FF"))) }
    }

    @Test("replay gives recorded errors as they were; past the end a poll finds nothing and any other call diverges")
    func replayEnd() async throws {
        var short = Self.everyCall
        short.events = Array(short.events.prefix(6))
        let reader = ReplayReader(short)
        _ = try await reader.poll(for: [.iso14443A], timeout: .zero)
        _ = try await reader.poll(for: [.iso14443A, .felica212], timeout: .zero)
        try await reader.checkCanSend(Bytes([0x60]), mode: .raw)
        _ = try await reader.transceive(Bytes(hex("30 04")))
        _ = try await reader.transceive(Bytes(hex("1B FF FF FF FF")))
        do {
            _ = try await reader.transceive(Bytes(hex("30 FF")))
        } catch {
            #expect(error.code == .nak && error.detail == 0)
        }
        #expect(await reader.isAtEnd)
        #expect(try await reader.poll(for: [.iso14443A], timeout: .milliseconds(1)) == nil)
        #expect(await reader.divergence == nil)
        await #expect(throws: NFCReaderDeviceError.self) { try await reader.deselect() }
        #expect(await reader.divergence == "diverged at exchange 7: sent deselect, trace has no more exchanges")
    }

    @Test("a replay stopped with events left says how far it got (exchange N of M); none once every event is played, none after a divergence")
    func replayUnusedRemainder() async throws {
        var short = Self.everyCall
        short.events = Array(short.events.prefix(4))
        let reader = ReplayReader(short)
        #expect(await reader.unusedRemainder == "replay ended at exchange 0 of 4: the rest of the trace was not used")
        _ = try await reader.poll(for: [.iso14443A], timeout: .zero)
        _ = try await reader.poll(for: [.iso14443A, .felica212], timeout: .zero)
        #expect(await reader.unusedRemainder == "replay ended at exchange 2 of 4: the rest of the trace was not used")
        try await reader.checkCanSend(Bytes([0x60]), mode: .raw)
        _ = try await reader.transceive(Bytes(hex("30 04")))
        #expect(await reader.unusedRemainder == nil)

        let diverging = ReplayReader(short)
        _ = try await diverging.poll(for: [.iso14443A], timeout: .zero)
        await #expect(throws: NFCReaderDeviceError.self) { try await diverging.deselect() }
        #expect(await diverging.unusedRemainder == nil)
    }
}
