import NDEF
import NFCCore
import NFCTags
import Testing
import VirtualTags

/// Type 2 writeLock, format, password protection and READ_SIG against virtual NTAG21x and
/// Ultralight EV1 chips: the bytes the chip ends up holding, the exact writes, and that the chip
/// itself (not only our code) then refuses what it should.
@Suite("Type 2 lock, format, password", .timeLimit(.minutes(10)))
struct Type2LockFormatPasswordTests {
    static let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]

    /// A traced simulator holding `chip`.
    static func reader(_ chip: sending Type2VirtualTag) async -> SimulatedReader {
        let reader = SimulatedReader(tags: [chip], emptyFieldWait: .zero)
        await reader.withField { $0.isTracing = true }
        return reader
    }

    /// The tag on `reader`, polled (activated: new lock bits take effect) and identified; the
    /// trace starts after identification.
    static func open(_ reader: SimulatedReader, password: NTAGPassword? = nil) async throws -> (SimulatedReader, MiFareTag, Type2Tag) {
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        guard case .miFare(var tag) = try await NFCTag.connect(to: target, on: reader) else {
            Issue.record("not a MIFARE tag")
            throw NFCTagError(.notSupported, "not a MIFARE tag")
        }
        tag.password = password
        _ = try await reader.poll(for: [.iso14443A], timeout: .zero)
        await reader.withField { $0.trace = [] }
        let type2 = try #require(tag.type2)
        return (reader, tag, type2)
    }

    /// The (code, page) of every command since the trace was cleared.
    static func commands(_ reader: SimulatedReader) async -> [[UInt8]] {
        await reader.withField { field in field.trace.map { Array($0.command.prefix(2)) } }
    }

    static func writes(_ reader: SimulatedReader) async -> [Int] {
        await commands(reader).filter { $0.first == Type2Command.write }.map { Int($0[1]) }
    }

    static func page(_ reader: SimulatedReader, _ page: Int) async -> [UInt8] {
        await reader.withField { field in
            let memory = (field.currentTag as? Type2VirtualTag)?.memory ?? []
            return page * 4 + 4 <= memory.count ? Array(memory[(page * 4)..<(page * 4 + 4)]) : []
        }
    }

    static func lastUserPage(_ reader: SimulatedReader) async -> Int {
        await reader.withField { field in ((field.currentTag as? Type2VirtualTag)?.layout.userPages.upperBound ?? 5) - 1 }
    }

    static func url(_ text: String) throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: text)])
    }

    // MARK: - writeLock

    @Test("writeLock sets CC3, the dynamic and static lock bits and CFGLCK, in that order", arguments: [
        (NTAG21xTag.Model.ntag213, 0x28, [UInt8]([0xFF, 0x0F, 0x3F, 0xBD]), 0x2A),
        (.ntag215, 0x82, [0xFF, 0x00, 0x0F, 0xBD], 0x84),
        (.ntag216, 0xE2, [0xFF, 0x3F, 0x7F, 0xBD], 0xE4),
    ])
    func writeLockNTAG(model: NTAG21xTag.Model, lockPage: Int, lockBytes: [UInt8], accessPage: Int) async throws {
        let chip = NTAG21xTag(model, uid: Self.uid)
        #expect(chip.setNDEFMessage(try Self.url("https://example.com/locked").encoded()))
        let chipReader = await Self.reader(chip)
        let (reader, _, tag) = try await Self.open(chipReader)
        try await tag.writeLock()
        #expect(await Self.writes(reader) == [3, lockPage, 2, accessPage])
        #expect(await Self.page(chipReader, 3)[3] == 0x0F)
        #expect(await Self.page(chipReader, lockPage) == lockBytes)
        #expect(await Self.page(chipReader, 2)[2...] == [0xFF, 0xFF])
        #expect(await Self.page(chipReader, accessPage)[0] & Type2Configuration.configurationLockBit != 0)

        // After the next activation the chip itself refuses writes anywhere in user memory.
        let (again, _, lockedTag) = try await Self.open(chipReader)
        #expect(try await lockedTag.queryNDEFStatus().status == .readOnly)
        #expect(try await lockedTag.readNDEF() == (try Self.url("https://example.com/locked")))
        for page in [4, 15, 16, await Self.lastUserPage(chipReader)] {
            await #expect(throws: NFCReaderDeviceError.self) {
                _ = try await again.transceive(Bytes([Type2Command.write, UInt8(page), 1, 2, 3, 4]))
            }
            _ = try await again.poll(for: [.iso14443A], timeout: .zero)
        }
        // Running it again sends no write.
        await again.withField { $0.trace = [] }
        try await lockedTag.writeLock()
        #expect(await Self.writes(again) == [])
    }

    @Test("writeLock on an Ultralight EV1 MF0UL11 (no dynamic lock bytes) sets CC3, static bytes, CFGLCK")
    func writeLockUltralight() async throws {
        let chipReader = await Self.reader(UltralightEV1Tag(.mf0ul11, uid: Self.uid))
        let (reader, _, tag) = try await Self.open(chipReader)
        try await tag.format()
        await reader.withField { $0.trace = [] }
        try await tag.writeLock()
        #expect(await Self.writes(reader) == [3, 2, 0x11])
        let (_, _, again) = try await Self.open(chipReader)
        #expect(try await again.queryNDEFStatus().status == .readOnly)
    }

    @Test("writeLock refuses an unformatted tag and a protected one without password, writing nothing")
    func writeLockRefusals() async throws {
        let blankChip = await Self.reader(UltralightEV1Tag(.mf0ul21, uid: Self.uid))
        let (reader, _, tag) = try await Self.open(blankChip)
        await #expect { try await tag.writeLock() } throws: { ($0 as? NFCTagError)?.code == .notNDEFFormatted }
        #expect(await Self.writes(reader) == [])

        let chipReader = await Self.reader(NTAG21xTag(.ntag215, uid: Self.uid))
        let password = try NTAGPassword(hex: "12345678:ABCD")
        let (_, _, owner) = try await Self.open(chipReader)
        try await owner.setPassword(password)
        let (other, _, stranger) = try await Self.open(chipReader)
        await #expect { try await stranger.writeLock() } throws: { ($0 as? NFCTagError)?.code == .passwordRequired }
        #expect(await Self.writes(other) == [])
        let (_, _, withPassword) = try await Self.open(chipReader, password: password)
        try await withPassword.writeLock()
        #expect(await Self.page(chipReader, 3)[3] == 0x0F)
    }

    @Test("tearing sweep of writeLock: the message stays, the tag is read-write or read-only, a rerun completes")
    func writeLockTearing() async throws {
        let message = try Self.url("https://example.com/lock-me")
        let chip = NTAG21xTag(.ntag213, uid: Self.uid)
        #expect(chip.setNDEFMessage(try message.encoded()))
        let outcomes = try await TearingSweep.run(
            "NTAG213 writeLock", initial: chip.tagState,
            makeTag: { reader, target in
                guard case .miFare(let tag) = try await NFCTag.connect(to: target, on: reader) else { throw NFCTagError(.notSupported, "") }
                _ = try await reader.poll(for: [.iso14443A], timeout: .zero)
                return try #require(tag.type2)
            },
            operation: { tag throws(NFCTagError) in try await tag.writeLock() },
            classify: { tag in
                let read = try await tag.readNDEF()
                guard read == message else { return "corrupt: \(read)" }
                let status = try await tag.queryNDEFStatus().status
                // A rerun finishes the job.
                try await tag.writeLock()
                return status.rawValue
            })
        #expect(outcomes["readOnly", default: 0] >= 1)
        #expect(outcomes["readWrite", default: 0] >= 1)
    }

    // MARK: - format

    @Test("format writes the empty TLV area, then the CC, on a blank Ultralight EV1", arguments: [
        (UltralightEV1Tag.Model.mf0ul11, [UInt8]([0xE1, 0x10, 0x06, 0x00]), 46),
        (.mf0ul21, [0xE1, 0x10, 0x10, 0x00], 126),
    ])
    func formatBlank(model: UltralightEV1Tag.Model, cc: [UInt8], capacity: Int) async throws {
        let chipReader = await Self.reader(UltralightEV1Tag(model, uid: Self.uid))
        let (reader, _, tag) = try await Self.open(chipReader)
        #expect(try await tag.queryNDEFStatus().status == .notSupported)
        await reader.withField { $0.trace = [] }
        try await tag.format()
        #expect(await Self.writes(reader) == [4, 3])
        #expect(await Self.page(chipReader, 3) == cc)
        #expect(await Self.page(chipReader, 4) == [0x03, 0x00, 0xFE, 0x00])
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: capacity, messageLength: 0))
        #expect(try await tag.readNDEF() == .empty)
        let message = try Self.url("https://example.com/after-format")
        try await tag.writeNDEF(message)
        #expect(try await tag.readNDEF() == message)
    }

    @Test("format refuses data unless forced; forced, it empties the message with one write")
    func formatRefusesData() async throws {
        let chip = NTAG21xTag(.ntag215, uid: Self.uid)
        #expect(chip.setNDEFMessage(try Self.url("https://example.com/keep").encoded()))
        let chipReader = await Self.reader(chip)
        let (reader, _, tag) = try await Self.open(chipReader)
        await #expect { try await tag.format() } throws: { ($0 as? NFCTagError)?.code == .alreadyFormatted }
        #expect(await Self.writes(reader) == [])
        try await tag.format(force: true)
        #expect(await Self.writes(reader) == [4])
        #expect(try await tag.readNDEF() == .empty)
        // Formatted and empty: nothing to do.
        await reader.withField { $0.trace = [] }
        try await tag.format()
        #expect(await Self.writes(reader) == [])

        let blankChip = await Self.reader(UltralightEV1Tag(.mf0ul21, uid: Self.uid))
        let (blankReader, _, blankTag) = try await Self.open(blankChip)
        _ = try await blankReader.transceive(Bytes([Type2Command.write, 20, 0xDE, 0xAD, 0xBE, 0xEF]))
        await blankReader.withField { $0.trace = [] }
        await #expect { try await blankTag.format() } throws: { ($0 as? NFCTagError)?.code == .alreadyFormatted && ($0 as? NFCTagError)?.offset == 80 }
        #expect(await Self.writes(blankReader) == [])
        try await blankTag.format(force: true)
        #expect(await Self.page(blankChip, 20) == [0, 0, 0, 0])
        #expect(try await blankTag.readNDEF() == .empty)
    }

    @Test("tearing sweep of format: a blank tag ends blank or formatted and empty")
    func formatTearing() async throws {
        let outcomes = try await TearingSweep.run(
            "MF0UL21 format", initial: UltralightEV1Tag(.mf0ul21, uid: Self.uid).tagState,
            makeTag: { reader, target in
                guard case .miFare(let tag) = try await NFCTag.connect(to: target, on: reader) else { throw NFCTagError(.notSupported, "") }
                _ = try await reader.poll(for: [.iso14443A], timeout: .zero)
                return try #require(tag.type2)
            },
            operation: { tag throws(NFCTagError) in try await tag.format(force: false) },
            classify: { tag in
                let query = try await tag.queryNDEFStatus()
                if query.status == .notSupported {
                    try await tag.format(force: false)  // a rerun completes without force
                    return "blank"
                }
                return try await tag.readNDEF() == .empty ? "empty" : "corrupt"
            })
        #expect(outcomes["blank", default: 0] >= 1)
        #expect(outcomes["empty", default: 0] >= 1)
    }

    // MARK: - Password

    @Test("a password blocks writes but not reads, keeps the CC as phones need it, and can be removed")
    func passwordLifecycle() async throws {
        let chipReader = await Self.reader(NTAG21xTag(.ntag215, uid: Self.uid))
        let password = try NTAGPassword(hex: "CAFEF00D:1234")
        let (reader, _, tag) = try await Self.open(chipReader)
        let ccBefore = await Self.page(chipReader, 3)
        try await tag.setPassword(password)
        #expect(await Self.writes(reader) == [0x86, 0x85, 0x84, 0x83])
        #expect(await Self.page(chipReader, 3) == ccBefore)
        #expect(await Self.page(chipReader, 0x83)[3] == 0x04)

        // Without the password: reads work, a write is refused before any WRITE is sent.
        let (other, _, stranger) = try await Self.open(chipReader)
        #expect(try await stranger.readNDEF() == .empty)
        await #expect { try await stranger.writeNDEF(try Self.url("https://evil.example")) } throws: { error in
            let error = error as? NFCTagError
            return error?.code == .passwordRequired && error?.offset == 16
        }
        #expect(await Self.writes(other) == [])

        // A wrong password: authenticationFailed, its bytes nowhere in the error.
        let wrong = try NTAGPassword(hex: "00000001")
        let (_, _, guesser) = try await Self.open(chipReader, password: wrong)
        do {
            try await guesser.writeNDEF(try Self.url("https://evil.example"))
            Issue.record("a wrong password was accepted")
        } catch {
            #expect((error as? NFCTagError)?.code == .authenticationFailed)
            #expect(!"\(error)".contains("00000001") && !"\(error)".contains("CAFEF00D"))
        }

        // The owner writes; then removes the password; then anyone writes.
        let (_, _, owner) = try await Self.open(chipReader, password: password)
        let message = try Self.url("https://example.com/owned")
        try await owner.writeNDEF(message)
        #expect(try await stranger.readNDEF() == message)
        try await owner.removePassword()
        #expect(await Self.page(chipReader, 0x83)[3] == 0xFF)
        let (_, _, anyone) = try await Self.open(chipReader)
        try await anyone.writeNDEF(try Self.url("https://example.com/free"))
        #expect("\(password)" == "NTAGPassword(redacted)")
    }

    @Test("read protection: without the password even reads are refused; with it everything works")
    func readProtection() async throws {
        let chipReader = await Self.reader(NTAG21xTag(.ntag213, uid: Self.uid))
        let password = try NTAGPassword(hex: "11223344:5566")
        let (_, _, tag) = try await Self.open(chipReader)
        try await tag.setPassword(password, protection: NTAGProtection(firstProtectedPage: 4, readProtected: true))
        let (_, _, stranger) = try await Self.open(chipReader)
        await #expect(throws: NFCTagError.self) { _ = try await stranger.readNDEF() }
        let (_, _, owner) = try await Self.open(chipReader, password: password)
        let message = try Self.url("https://example.com/secret")
        try await owner.writeNDEF(message)
        #expect(try await owner.readNDEF() == message)
    }

    @Test("bad password input is refused with invalidParameter and never echoed")
    func passwordParsing() throws {
        for text in ["1234567", "123456789", "zzzzzzzz", "12345678:1", "12345678:ABCD:EF"] {
            #expect { try NTAGPassword(hex: text) } throws: { error in
                (error as? NFCTagError)?.code == .invalidParameter && !"\(error)".contains(text)
            }
        }
        #expect(try NTAGPassword(hex: "12345678").acknowledge == [0, 0])
        #expect(try NTAGPassword(hex: "12 34 56 78 : AB CD").acknowledge == [0xAB, 0xCD])
    }

    // MARK: - Signature

    @Test("READ_SIG returns the chip's 32-byte signature")
    func signature() async throws {
        let chipReader = await Self.reader(NTAG21xTag(.ntag216, uid: Self.uid))
        let (reader, _, tag) = try await Self.open(chipReader)
        let signature = try await tag.readSignature()
        #expect(signature.count == 32)
        #expect(await Self.commands(reader) == [[Type2Command.readSignature, 0x00]])
        let plain = Type2Tag(reader: reader)
        await #expect { _ = try await plain.readSignature() } throws: { ($0 as? NFCTagError)?.code == .notSupported }
    }
}
