import NFCCore

/// A MIFARE DESFire spoken to with its native commands wrapped in ISO/IEC 7816-4 (class `90`):
/// the directory (GetVersion, GetApplicationIDs, GetFreeMemory, key and file settings), legacy
/// authentication, and what formatting it as an NFC Forum Type 4 tag needs (CreateApplication,
/// CreateStdDataFile, WriteData; NXP AN11004). The NDEF itself then goes through ``Type4Tag``.
///
/// Every answer is checked before it is used: a parser here never traps on what a chip (or
/// something posing as one) sends.
public struct DESFireTag: Sendable {
    /// The reader the tag is selected on.
    public let reader: any NFCReader
    /// How long one frame may take.
    public let commandTimeout: Duration
    /// GetVersion's hardware part when identification read it already
    /// (``ChipIdentity/hardwareVersion``, ``MiFareTag/desfire``): what the chip's generation
    /// decides (``takesEV2Authentication()``) is then taken from it, with no GetVersion sent;
    /// nil: asked of the chip when needed.
    public var hardware: DESFireVersion.Part?

    /// A DESFire on `reader`; `hardware`: GetVersion's hardware part, when identification read it.
    public init(reader: any NFCReader, commandTimeout: Duration = .seconds(1), hardware: DESFireVersion.Part? = nil) {
        self.reader = reader
        self.commandTimeout = commandTimeout
        self.hardware = hardware
    }

    /// The wrapped form of a native command: `90 code 00 00 [Lc data] 00`.
    public static func wrap(_ code: UInt8, _ data: [UInt8]) -> [UInt8] {
        [DESFire.wrappedClass, code, 0x00, 0x00] + (data.isEmpty ? [] : [UInt8(data.count)] + data) + [0x00]
    }

    /// One frame: the answer's data and native status.
    /// - Throws: ``DESFireError`` `transport` (the reader's failure underneath), `malformed` for
    ///   an answer that does not end `91 xx`.
    public func frame(_ code: UInt8, _ data: [UInt8]) async throws(DESFireError) -> (data: [UInt8], status: UInt8) {
        let answer: Bytes
        do {
            answer = try await reader.transceive(Bytes(Self.wrap(code, data)), mode: .standard, timeout: commandTimeout)
        } catch {
            let tagError = NFCTagError(error, during: "DESFire command \(Hex.encode([code], uppercase: true))")
            throw DESFireError(.transport, tagError.reason, underlying: tagError)
        }
        return try Self.split(answer.array, command: code)
    }

    /// An answer's data and status.
    /// - Throws: ``DESFireError`` `malformed` unless it ends `91 xx`.
    public static func split(_ answer: [UInt8], command: UInt8) throws(DESFireError) -> (data: [UInt8], status: UInt8) {
        guard answer.count >= 2, answer[answer.count - 2] == DESFire.statusPrefix else {
            throw DESFireError(
                .malformed, "DESFire command \(Hex.encode([command], uppercase: true)): the answer \(Hex.encode(answer.prefix(8), uppercase: true)) does not end 91 xx")
        }
        return (Array(answer.dropLast(2)), answer[answer.count - 1])
    }

    /// A whole command: the first frame carries `data`'s first ``DESFire/maximumCommandFrameData``
    /// bytes, `AF` frames the rest; answer frames are gathered while the chip says `AF`, up to
    /// `answerLimit` bytes.
    /// - Throws: ``DESFireError`` `status` for a final status other than `00`, `malformed` for an
    ///   answer past `answerLimit` or a chip asking for more data than there is, `transport`.
    public func command(_ code: UInt8, _ data: [UInt8] = [], answerLimit: Int = 4096) async throws(DESFireError) -> [UInt8] {
        var rest = data[...]
        var first = Array(rest.prefix(DESFire.maximumCommandFrameData))
        rest = rest.dropFirst(first.count)
        var (body, status) = try await frame(code, first)
        while !rest.isEmpty {
            guard status == DESFire.Status.additionalFrame.rawValue, body.isEmpty else {
                throw statusError(code, status)
            }
            first = Array(rest.prefix(DESFire.maximumFrameData))
            rest = rest.dropFirst(first.count)
            (body, status) = try await frame(DESFire.Command.additionalFrame, first)
        }
        var answer = body
        while status == DESFire.Status.additionalFrame.rawValue {
            guard answer.count <= answerLimit else { break }
            (body, status) = try await frame(DESFire.Command.additionalFrame, [])
            answer += body
        }
        guard answer.count <= answerLimit else {
            throw DESFireError(.malformed, "DESFire command \(Hex.encode([code], uppercase: true)): the answer runs past \(answerLimit) bytes")
        }
        guard status == DESFire.Status.ok.rawValue else { throw statusError(code, status) }
        return answer
    }

    func statusError(_ code: UInt8, _ status: UInt8) -> DESFireError {
        let name = DESFire.Status(rawValue: status).name ?? Hex.encode([status], uppercase: true)
        return DESFireError(.status, status: status, "DESFire command \(Hex.encode([code], uppercase: true)) answered 91 \(Hex.encode([status], uppercase: true)): \(name)")
    }

    // MARK: Directory

    /// GetVersion: hardware, software, UID and production data.
    /// - Throws: ``DESFireError``.
    public func version() async throws(DESFireError) -> DESFireVersion {
        try DESFireVersion(parsing: try await command(DESFire.Command.getVersion, answerLimit: 64))
    }

    /// GetApplicationIDs at the PICC level: the AIDs as sent (least significant byte first).
    /// - Throws: ``DESFireError``; `malformed` when the answer is not whole 3-byte AIDs.
    public func applicationIDs() async throws(DESFireError) -> [[UInt8]] {
        var session: DESFireSession?
        return try await applicationIDs(session: &session)
    }

    /// GetApplicationIDs inside `session` (``command(_:_:session:answerLimit:)``).
    /// - Throws: as ``applicationIDs()``.
    public func applicationIDs(session: inout DESFireSession?) async throws(DESFireError) -> [[UInt8]] {
        let bytes = try await command(DESFire.Command.getApplicationIDs, session: &session, answerLimit: 3 * 64)
        guard bytes.count % DESFire.applicationIDLength == 0 else {
            throw DESFireError(.malformed, "GetApplicationIDs answered \(bytes.count) bytes, not whole 3-byte AIDs")
        }
        return stride(from: 0, to: bytes.count, by: 3).map { Array(bytes[$0..<($0 + 3)]) }
    }

    /// GetFreeMemory (EV1): free bytes.
    /// - Throws: ``DESFireError``; `malformed` unless the answer has 3 bytes.
    public func freeMemory() async throws(DESFireError) -> Int {
        var session: DESFireSession?
        return try await freeMemory(session: &session)
    }

    /// GetFreeMemory inside `session`.
    /// - Throws: as ``freeMemory()``.
    public func freeMemory(session: inout DESFireSession?) async throws(DESFireError) -> Int {
        let bytes = try await command(DESFire.Command.getFreeMemory, session: &session, answerLimit: 3)
        guard let value = DESFire.uint24LE(bytes) else { throw DESFireError(.malformed, "GetFreeMemory answered \(bytes.count) bytes, not 3") }
        return value
    }

    /// GetKeySettings of the selected level: the settings byte and the number-of-keys byte.
    /// - Throws: ``DESFireError``; `malformed` unless the answer has 2 bytes.
    public func keySettings() async throws(DESFireError) -> (settings: UInt8, keyCount: UInt8) {
        let bytes = try await command(DESFire.Command.getKeySettings, answerLimit: 2)
        guard bytes.count == 2 else { throw DESFireError(.malformed, "GetKeySettings answered \(bytes.count) bytes, not 2") }
        return (bytes[0], bytes[1])
    }

    /// GetFileIDs of the selected application.
    /// - Throws: ``DESFireError``.
    public func fileIDs() async throws(DESFireError) -> [UInt8] {
        var session: DESFireSession?
        return try await fileIDs(session: &session)
    }

    /// GetFileIDs inside `session`.
    /// - Throws: as ``fileIDs()``.
    public func fileIDs(session: inout DESFireSession?) async throws(DESFireError) -> [UInt8] {
        try await command(DESFire.Command.getFileIDs, session: &session, answerLimit: 32)
    }

    /// GetFileSettings of file `number` in the selected application.
    /// - Throws: ``DESFireError``; `malformed` for settings that do not parse.
    public func fileSettings(_ number: UInt8) async throws(DESFireError) -> DESFireFileSettings {
        var session: DESFireSession?
        return try await fileSettings(number, session: &session)
    }

    /// GetFileSettings inside `session`.
    /// - Throws: as ``fileSettings(_:)``.
    public func fileSettings(_ number: UInt8, session: inout DESFireSession?) async throws(DESFireError) -> DESFireFileSettings {
        try DESFireFileSettings(parsing: try await command(DESFire.Command.getFileSettings, [number], session: &session, answerLimit: 32))
    }

    /// SelectApplication: `aid` as sent (``DESFire/piccApplicationID`` for the PICC level).
    /// - Throws: ``DESFireError`` (`status` `A0` for no such application).
    public func selectApplication(_ aid: [UInt8]) async throws(DESFireError) {
        guard aid.count == DESFire.applicationIDLength else { throw DESFireError(.invalidParameter, "an AID has 3 bytes") }
        _ = try await command(DESFire.Command.selectApplication, aid, answerLimit: 0)
    }

    // MARK: Authentication

    /// The legacy authentication (`0A`) with key `number` of the selected level; returns the
    /// session key (``DESFireLegacyAuthentication/sessionKey(key:rndA:rndB:)``).
    /// - Parameter random: RndA's source (8 bytes); the system generator by default.
    /// - Throws: ``DESFireError`` `authenticationFailed` (the chip refused the key, `AE`, or
    ///   did not prove it holds it), `status`, `malformed`, `transport`.
    @discardableResult
    public func authenticateLegacy(keyNumber: UInt8, key: [UInt8], random: [UInt8]? = nil) async throws(DESFireError) -> [UInt8] {
        let rndA = random ?? (0..<DESFireLegacyAuthentication.randomLength).map { _ in UInt8.random(in: 0...255) }
        let (challenge, status) = try await frame(DESFire.Command.authenticateLegacy, [keyNumber])
        guard status == DESFire.Status.additionalFrame.rawValue, challenge.count == DESFireLegacyAuthentication.randomLength else {
            if status == DESFire.Status.additionalFrame.rawValue { throw DESFireError(.malformed, "Authenticate: the challenge has \(challenge.count) bytes, not 8") }
            throw statusError(DESFire.Command.authenticateLegacy, status)
        }
        let (part2, rndB) = try DESFireLegacyAuthentication.answer(key: key, challenge: challenge, rndA: rndA)
        let (confirmation, final) = try await frame(DESFire.Command.additionalFrame, part2)
        guard final == DESFire.Status.ok.rawValue else {
            if final == DESFire.Status.authenticationError.rawValue {
                throw DESFireError(.authenticationFailed, status: final, "the DESFire refused key \(keyNumber) (91 AE)")
            }
            throw statusError(DESFire.Command.authenticateLegacy, final)
        }
        try DESFireLegacyAuthentication.verify(key: key, rndA: rndA, confirmation: confirmation)
        return try DESFireLegacyAuthentication.sessionKey(key: key, rndA: rndA, rndB: rndB)
    }

    /// AuthenticateEV2First (`71`) with AES key `keyNumber` of the selected application (EV2 and
    /// later), through the EV2 code NTAG 424 DNA uses (``EV2Authentication``): returns the
    /// session (TI, session keys, command counter 0) for EV2 secure messaging.
    /// - Parameter random: RndA (16 bytes); the system generator by default.
    /// - Throws: ``DESFireError`` `authenticationFailed` (`AE`, or a chip whose RndA' does not
    ///   prove the key), `status` (`1C` on an EV1), `malformed`, `invalidParameter` (a key that is
    ///   not 16 bytes), `crypto`, `transport`.
    public func authenticateEV2First(keyNumber: UInt8, key: [UInt8], random: [UInt8]? = nil) async throws(DESFireError) -> EV2Session {
        let rndA = random ?? (0..<16).map { _ in UInt8.random(in: 0...255) }
        guard key.count == 16, rndA.count == 16 else { throw DESFireError(.invalidParameter, "an AES key and RndA have 16 bytes") }
        let code = DESFire.Command.authenticateEV2First
        let (challenge, status) = try await frame(code, EV2Authentication.part1Data(keyNumber: keyNumber, first: true))
        guard status == DESFire.Status.additionalFrame.rawValue else {
            if status == DESFire.Status.authenticationError.rawValue { throw DESFireError(.authenticationFailed, status: status, "the DESFire refused AES key \(keyNumber) (91 AE)") }
            throw statusError(code, status)
        }
        let (part2, rndB) = try Self.ev2 { () throws(NTAG424Error) in try EV2Authentication.answerChallenge(key: key, encryptedRndB: challenge, rndA: rndA) }
        let (confirmation, final) = try await frame(DESFire.Command.additionalFrame, part2)
        guard final == DESFire.Status.ok.rawValue else {
            if final == DESFire.Status.authenticationError.rawValue {
                throw DESFireError(.authenticationFailed, status: final, "the DESFire refused AES key \(keyNumber) (91 AE)")
            }
            throw statusError(code, final)
        }
        return try Self.ev2 { () throws(NTAG424Error) in
            try EV2Authentication.finishFirst(key: key, keyNumber: keyNumber, rndA: rndA, rndB: rndB, response: confirmation).session
        }
    }

    /// The EV2 code's errors as DESFire's.
    static func ev2<T>(_ body: () throws(NTAG424Error) -> T) throws(DESFireError) -> T {
        do { return try body() } catch {
            switch error.code {
            case .authenticationFailed: throw DESFireError(.authenticationFailed, error.reason)
            case .malformed: throw DESFireError(.malformed, error.reason)
            case .integrity: throw DESFireError(.authenticationFailed, error.reason)
            case .invalidParameter: throw DESFireError(.invalidParameter, error.reason)
            default: throw DESFireError(.crypto, error.reason)
            }
        }
    }

    /// ChangeFileSettings (`5F`) of file `number` in the selected application: communication
    /// settings and access rights. A file whose change right is free takes them plain; any
    /// other needs the authentication with that key first, whose `sessionKey` enciphers them
    /// (legacy scheme, ``DESFireLegacyAuthentication/encipherForSending(sessionKey:_:)``), as
    /// libfreefare's `mifare_desfire_change_file_settings` sends them.
    /// - Throws: ``DESFireError`` `status` (`9D` change never, `AE` not authenticated, `1E`
    ///   integrity), `transport`.
    public func changeFileSettings(_ number: UInt8, communication: UInt8, accessRights: UInt16, sessionKey: [UInt8]?) async throws(DESFireError) {
        let settings = [communication, UInt8(accessRights & 0xFF), UInt8(accessRights >> 8)]
        let field = try sessionKey.map { key throws(DESFireError) in try DESFireLegacyAuthentication.encipherForSending(sessionKey: key, settings) } ?? settings
        _ = try await command(DESFire.Command.changeFileSettings, [number] + field, answerLimit: 0)
    }

    // MARK: Creating

    /// CreateApplication (`CA`) at the PICC level: `aid`, key settings, the number-of-keys byte
    /// and, with ISO file IDs (bit 5), the application's ISO file ID (sent least significant
    /// byte first) and DF name.
    /// - Throws: ``DESFireError`` `invalidParameter` for a DF name over 16 bytes; `status`
    ///   (`DE` duplicate, `CE` too many, `0E` out of memory, `AE`/`9D` not allowed).
    public func createApplication(_ aid: [UInt8], keySettings: UInt8, keyCount: UInt8, isoFileID: UInt16? = nil, dfName: [UInt8] = []) async throws(DESFireError) {
        _ = try await command(DESFire.Command.createApplication, try Self.createApplicationData(aid, keySettings: keySettings, keyCount: keyCount, isoFileID: isoFileID, dfName: dfName), answerLimit: 0)
    }

    /// The data of CreateApplication.
    /// - Throws: ``DESFireError`` `invalidParameter`.
    public static func createApplicationData(_ aid: [UInt8], keySettings: UInt8, keyCount: UInt8, isoFileID: UInt16?, dfName: [UInt8]) throws(DESFireError) -> [UInt8] {
        guard aid.count == DESFire.applicationIDLength, dfName.count <= DESFire.maximumDFNameLength else {
            throw DESFireError(.invalidParameter, "an AID has 3 bytes and a DF name at most 16")
        }
        var data = aid + [keySettings, keyCount]
        if let isoFileID { data += [UInt8(isoFileID & 0xFF), UInt8(isoFileID >> 8)] + dfName }
        return data
    }

    /// CreateStdDataFile (`CD`) in the selected application: file `number`, its ISO file ID
    /// (when the application has them), communication settings, access rights (read, write,
    /// read-write, change nibbles from the top) and size. The new file reads as zeros.
    /// - Throws: ``DESFireError`` `status` (`DE` duplicate, `0E` out of memory, `9D`).
    public func createStandardDataFile(_ number: UInt8, isoFileID: UInt16?, communication: UInt8 = 0x00, accessRights: UInt16, size: Int) async throws(DESFireError) {
        var session: DESFireSession?
        try await createStandardDataFile(number, isoFileID: isoFileID, communication: communication, accessRights: accessRights, size: size, session: &session)
    }

    /// CreateStdDataFile inside `session`.
    /// - Throws: as ``createStandardDataFile(_:isoFileID:communication:accessRights:size:)``.
    public func createStandardDataFile(
        _ number: UInt8, isoFileID: UInt16?, communication: UInt8 = 0x00, accessRights: UInt16, size: Int, session: inout DESFireSession?
    ) async throws(DESFireError) {
        var data = [number]
        if let isoFileID { data += [UInt8(isoFileID & 0xFF), UInt8(isoFileID >> 8)] }
        data += [communication, UInt8(accessRights & 0xFF), UInt8(accessRights >> 8)] + DESFire.uint24LE(size)
        _ = try await command(DESFire.Command.createStdDataFile, data, session: &session, answerLimit: 0)
    }

    /// WriteData (`3D`), plain: `data` at `offset` of file `number`.
    /// - Throws: ``DESFireError`` `status` (`BE` past the end, `9D`, `AE`).
    public func writeData(_ number: UInt8, offset: Int, _ data: [UInt8]) async throws(DESFireError) {
        var session: DESFireSession?
        try await writeData(number, offset: offset, data, session: &session)
    }

    /// WriteData inside `session`. `mode`: how the data travels in an EV2 session
    /// (``DESFireEV2Messaging/dataMode(_:write:)`` of the file's settings); an EV1 or legacy
    /// session writes plain only.
    /// - Throws: as ``writeData(_:offset:_:)``; `invalidParameter` for a MAC or Full mode
    ///   outside an EV2 session (nothing sent).
    public func writeData(_ number: UInt8, offset: Int, _ data: [UInt8], mode: EV2CommMode = .plain, session: inout DESFireSession?) async throws(DESFireError) {
        let header = [number] + DESFire.uint24LE(offset) + DESFire.uint24LE(data.count)
        if case .ev2(let ev2, let planned)? = session {
            let modes = DESFireEV2Messaging.dataModes(mode, write: true)
            _ = try await ev2Command(
                DESFire.Command.writeData, header: header, data: data, mode: modes.command, responseMode: modes.response, session: ev2, planned: planned,
                outer: &session, answerLimit: 0)
            return
        }
        guard mode == .plain else { throw DESFireError(.invalidParameter, "WriteData in \(mode) mode needs an EV2 session; nothing was sent") }
        _ = try await command(DESFire.Command.writeData, header + data, session: &session, answerLimit: 0)
    }

    /// ReadData (`BD`), plain: `length` bytes at `offset` of file `number` (0: to the end).
    /// - Throws: ``DESFireError``; `malformed` when the answer is longer than asked.
    public func readData(_ number: UInt8, offset: Int, length: Int) async throws(DESFireError) -> [UInt8] {
        var session: DESFireSession?
        return try await readData(number, offset: offset, length: length, session: &session)
    }

    /// ReadData inside `session`. `mode`: how the answer travels in an EV2 session
    /// (``DESFireEV2Messaging/dataMode(_:write:)`` of the file's settings; the command itself
    /// is plain or MAC-ed); an EV1 or legacy session reads plain only.
    /// - Throws: as ``readData(_:offset:length:)``; `invalidParameter` for a MAC or Full mode
    ///   outside an EV2 session (nothing sent).
    public func readData(_ number: UInt8, offset: Int, length: Int, mode: EV2CommMode = .plain, session: inout DESFireSession?) async throws(DESFireError) -> [UInt8] {
        let header = [number] + DESFire.uint24LE(offset) + DESFire.uint24LE(length), limit = length == 0 ? 0x8000 : length
        let bytes: [UInt8]
        if case .ev2(let ev2, let planned)? = session {
            let modes = DESFireEV2Messaging.dataModes(mode, write: false)
            bytes = try await ev2Command(
                DESFire.Command.readData, header: header, data: [], mode: modes.command, responseMode: modes.response, session: ev2, planned: planned,
                outer: &session, answerLimit: limit)
        } else {
            guard mode == .plain else { throw DESFireError(.invalidParameter, "ReadData in \(mode) mode needs an EV2 session; nothing was sent") }
            bytes = try await command(DESFire.Command.readData, header, session: &session, answerLimit: limit)
        }
        guard length == 0 || bytes.count == length else { throw DESFireError(.malformed, "ReadData answered \(bytes.count) bytes for \(length)") }
        return bytes
    }
}
