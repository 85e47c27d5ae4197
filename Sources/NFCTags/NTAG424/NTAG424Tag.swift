import NFCCore

/// GetVersion's answer (datasheet 10.5.2): hardware and software version, then the UID, batch
/// number and production date.
public struct NTAG424Version: Sendable, Hashable {
    /// Hardware: vendor `04`, type `04`, subtype, major, minor, storage size, protocol.
    public var hardware: [UInt8]
    /// Software, the same fields.
    public var software: [UInt8]
    /// The third part: UID (7), batch number and fab key (5), calendar week and year of production.
    public var production: [UInt8]

    /// The UID (the third part's first 7 bytes).
    public var uid: [UInt8] { Array(production.prefix(NTAG424.uidLength)) }
    /// Whether vendor and type say an NXP NTAG DNA chip (`04`, `04`: NTAG 424 DNA, NTAG 413 DNA).
    public var isNTAGDNA: Bool { hardware.count >= 2 && hardware[0] == 0x04 && hardware[1] == 0x04 }

    /// Parses the three parts; total.
    /// - Throws: ``NTAG424Error`` `malformed` for parts of the wrong length (offset in the
    ///   concatenation).
    public init(parts: [[UInt8]]) throws(NTAG424Error) {
        guard parts.count == 3 else { throw NTAG424Error(.malformed, "GetVersion answered \(parts.count) parts, not 3") }
        guard parts[0].count == 7 else { throw NTAG424Error(.malformed, at: parts[0].count, "GetVersion part 1 has \(parts[0].count) bytes, not 7") }
        guard parts[1].count == 7 else { throw NTAG424Error(.malformed, at: 7 + parts[1].count, "GetVersion part 2 has \(parts[1].count) bytes, not 7") }
        guard (14...15).contains(parts[2].count) else {
            throw NTAG424Error(.malformed, at: 14 + parts[2].count, "GetVersion part 3 has \(parts[2].count) bytes, not 14 or 15")
        }
        hardware = parts[0]
        software = parts[1]
        production = parts[2]
    }
}

/// An NTAG 424 DNA spoken to through an ISO-DEP tag (datasheet NT4H2421Gx; AN12196): the NDEF
/// application, GetVersion, Read_Sig, AES authentication (EV2First/NonFirst) and secure
/// messaging, file settings, data, keys.
///
/// A value type: commands that change the session (every command sent while authenticated
/// advances the command counter) are `mutating`. After a failure the session is dropped, as the
/// chip drops its authentication on errors.
public struct NTAG424Tag: Sendable {
    /// The ISO-DEP tag the commands go through.
    public let tag: ISO7816Tag
    /// The authenticated session, or nil.
    public private(set) var session: NTAG424Session?
    /// Random bytes for RndA: the system's generator unless a test injects its own.
    public var random: @Sendable (Int) -> [UInt8]
    /// The most data one ReadData or WriteData carries; longer transfers are split.
    public var maximumChunk = 128
    /// Whether a write plan (`--plan`, ``PlanningReader``) answers the writes: its `91 00`
    /// carries no MAC (the plan holds no key) and is taken as it is; the command counter stays
    /// where the chip, which never saw the command, keeps it.
    public var plannedWrites = false

    /// Wraps an ISO-DEP tag.
    public init(_ tag: ISO7816Tag, random: @escaping @Sendable (Int) -> [UInt8] = NTAG424Tag.systemRandom) {
        self.tag = tag
        self.random = random
    }

    /// `count` bytes from the system's cryptographically secure generator.
    public static let systemRandom: @Sendable (Int) -> [UInt8] = { count in
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    // MARK: Transport

    /// Sends one wrapped native command (`90 INS 00 00 Lc data 00`) and returns its status and
    /// data; follows `91 AF` with `90 AF` when `followFrames`.
    func exchange(_ command: UInt8, _ data: [UInt8]) async throws(NTAG424Error) -> (NTAG424Status, [UInt8]) {
        let apdu = ISO7816APDU(unchecked: NTAG424.wrappedClass, command, 0x00, 0x00, data: Bytes(data), expectedResponseLength: 256)
        let answer: (Bytes, UInt8, UInt8)
        do { answer = try await tag.sendCommand(apdu: apdu) } catch {
            throw NTAG424Error(.transport, "command \(Hex.encode([command], uppercase: true)): \(error.reason)", underlying: error)
        }
        guard answer.1 == NTAG424.statusPrefix else {
            throw NTAG424Error(
                .notSupported, "command \(Hex.encode([command], uppercase: true)) answered \(Hex.encode([answer.1, answer.2], uppercase: true)), not a native status: not an NTAG 424 DNA")
        }
        return (NTAG424Status(rawValue: answer.2), answer.0.array)
    }

    /// One native command through the session: sealed in `mode` when authenticated (plain
    /// otherwise), the response opened in `responseMode`.
    mutating func run(_ name: String, _ command: UInt8, header: [UInt8] = [], data: [UInt8] = [], mode: NTAG424CommMode, responseMode: NTAG424CommMode? = nil)
        async throws(NTAG424Error) -> [UInt8]
    {
        let body = try session?.sealCommand(command, header: header, data: data, mode: mode) ?? (header + data)
        let (status, response) = try await exchange(command, body)
        guard status == .ok else {
            session = nil
            throw Self.failure(name, status)
        }
        guard var current = session else { return response }
        if plannedWrites, response.isEmpty, (responseMode ?? mode) != .plain {
            // Held back: the chip never counted it, so the command counter stays for the next
            // command the chip does see.
            return []
        }
        do {
            let opened = try current.openResponse(status: status.rawValue, body: response, mode: responseMode ?? mode)
            session = current
            return opened
        } catch {
            session = nil
            throw NTAG424Error(error.code, at: error.offset, "\(name): \(error.reason)")
        }
    }

    /// The error for a status other than OPERATION_OK: `authenticationFailed` for `91 AE`,
    /// `status` for the others; the reason names the command and the status word.
    static func failure(_ name: String, _ status: NTAG424Status) -> NTAG424Error {
        NTAG424Error(status == .authenticationError ? .authenticationFailed : .status, status: status, "\(name) answered \(status)")
    }

    func requireSession(_ name: String) throws(NTAG424Error) -> NTAG424Session {
        guard let session else { throw NTAG424Error(.notAuthenticated, "\(name) needs an authenticated session; nothing was sent") }
        return session
    }

    // MARK: ISO commands

    /// ISOSelectFile of the NDEF application by DF name (`00 A4 04 0C 07 D2760000850101 00`).
    /// - Throws: ``NTAG424Error`` `notSupported` when the chip has no such application.
    public func selectApplication() async throws(NTAG424Error) {
        let apdu = ISO7816APDU(unchecked: 0x00, NTAG424.ISOCommand.select, NTAG424.ISOCommand.selectByName, NTAG424.ISOCommand.selectNoResponseData,
            data: Bytes(NTAG424.applicationName), expectedResponseLength: 256)
        try await iso(apdu, "ISOSelectFile of the NDEF application")
    }

    /// ISOSelectFile of a file by its ISO identifier (`00 A4 00 0C 02 ID`).
    public func selectFile(_ file: NTAG424.File) async throws(NTAG424Error) {
        let id = file.isoFileID
        let apdu = ISO7816APDU(unchecked: 0x00, NTAG424.ISOCommand.select, NTAG424.ISOCommand.selectByFileID, NTAG424.ISOCommand.selectNoResponseData,
            data: [UInt8(id >> 8), UInt8(id & 0xFF)])
        try await iso(apdu, "ISOSelectFile of \(file)")
    }

    /// ISOReadBinary of the selected file: `length` bytes (1–256) from `offset`.
    public func readBinary(offset: Int, length: Int) async throws(NTAG424Error) -> [UInt8] {
        guard (0...0x7FFF).contains(offset), (1...256).contains(length) else { throw NTAG424Error(.invalidParameter, "ISOReadBinary offset or length out of range") }
        let apdu = ISO7816APDU(unchecked: 0x00, NTAG424.ISOCommand.readBinary, UInt8(offset >> 8), UInt8(offset & 0xFF), expectedResponseLength: length)
        return try await iso(apdu, "ISOReadBinary at \(offset)")
    }

    @discardableResult
    func iso(_ apdu: ISO7816APDU, _ name: String) async throws(NTAG424Error) -> [UInt8] {
        let answer: (Bytes, UInt8, UInt8)
        do { answer = try await tag.sendCommand(apdu: apdu) } catch {
            throw NTAG424Error(.transport, "\(name): \(error.reason)", underlying: error)
        }
        guard answer.1 == 0x90, answer.2 == 0x00 else {
            throw NTAG424Error(.notSupported, "\(name) answered \(Hex.encode([answer.1, answer.2], uppercase: true))")
        }
        return answer.0.array
    }

    // MARK: Native commands

    /// GetVersion (`60`, then `AF` twice), plain: hardware, software and production data.
    public mutating func getVersion() async throws(NTAG424Error) -> NTAG424Version {
        guard session == nil else { throw NTAG424Error(.invalidParameter, "GetVersion is sent here before authenticating only") }
        var parts: [[UInt8]] = []
        var (status, data) = try await exchange(NTAG424.Command.getVersion, [])
        while status == .additionalFrame, parts.count < 3 {
            parts.append(data)
            (status, data) = try await exchange(NTAG424.Command.additionalFrame, [])
        }
        guard status == .ok else { throw Self.failure("GetVersion", status) }
        parts.append(data)
        return try NTAG424Version(parts: parts)
    }

    /// Read_Sig: the 56-byte originality signature (plain, before authenticating).
    public func readSignature() async throws(NTAG424Error) -> [UInt8] {
        do { return try await tag.readNXPSignature().array } catch {
            throw NTAG424Error(error.code == .notSupported ? .notSupported : .transport, "Read_Sig: \(error.reason)", underlying: error)
        }
    }

    /// AuthenticateEV2First with `key` as key `keyNumber`: a new session, command counter 0.
    /// - Throws: ``NTAG424Error`` `authenticationFailed` for `91 AE` or an answer that does not
    ///   prove the key; `invalidParameter` for a key of the wrong length or number.
    public mutating func authenticateEV2First(keyNumber: UInt8, key: [UInt8]) async throws(NTAG424Error) {
        try await authenticate(keyNumber: keyNumber, key: key, first: true)
    }

    /// AuthenticateEV2NonFirst: new session keys, TI and command counter kept.
    /// - Throws: as ``authenticateEV2First(keyNumber:key:)``; `notAuthenticated` without a session.
    public mutating func authenticateEV2NonFirst(keyNumber: UInt8, key: [UInt8]) async throws(NTAG424Error) {
        _ = try requireSession("AuthenticateEV2NonFirst")
        try await authenticate(keyNumber: keyNumber, key: key, first: false)
    }

    private mutating func authenticate(keyNumber: UInt8, key: [UInt8], first: Bool) async throws(NTAG424Error) {
        guard NTAG424.keyNumbers.contains(keyNumber), key.count == NTAG424.keyLength else {
            throw NTAG424Error(.invalidParameter, "a key number 0–4 and a 16-byte AES key are needed")
        }
        let name = first ? "AuthenticateEV2First" : "AuthenticateEV2NonFirst"
        let previous = session
        session = nil
        let (status1, challenge) = try await exchange(
            first ? NTAG424.Command.authenticateEV2First : NTAG424.Command.authenticateEV2NonFirst,
            NTAG424Authentication.part1Data(keyNumber: keyNumber, first: first))
        guard status1 == .additionalFrame else { throw Self.failure("\(name) part 1", status1) }
        let rndA = random(16)
        let (part2, rndB) = try NTAG424Authentication.answerChallenge(key: key, encryptedRndB: challenge, rndA: rndA)
        let (status2, answer) = try await exchange(NTAG424.Command.additionalFrame, part2)
        guard status2 == .ok else { throw Self.failure("\(name) part 2", status2) }
        if first {
            session = try NTAG424Authentication.finishFirst(key: key, keyNumber: keyNumber, rndA: rndA, rndB: rndB, response: answer).session
        } else if let previous {
            session = try NTAG424Authentication.finishNonFirst(key: key, keyNumber: keyNumber, rndA: rndA, rndB: rndB, response: answer, previous: previous)
        }
    }

    /// GetFileSettings (CommMode.MAC when authenticated).
    public mutating func getFileSettings(_ file: NTAG424.File) async throws(NTAG424Error) -> NTAG424FileSettings {
        let data = try await run("GetFileSettings", NTAG424.Command.getFileSettings, header: [file.rawValue], mode: .mac)
        return try NTAG424FileSettings(parsing: data)
    }

    /// ChangeFileSettings (CommMode.Full): FileOption, access rights and SDM of `file`
    /// (its size is the chip's).
    public mutating func changeFileSettings(_ file: NTAG424.File, to settings: NTAG424FileSettings) async throws(NTAG424Error) {
        _ = try requireSession("ChangeFileSettings")
        _ = try await run("ChangeFileSettings", NTAG424.Command.changeFileSettings, header: [file.rawValue], data: try settings.changeData(), mode: .full, responseMode: .mac)
    }

    /// ReadData: `length` bytes from `offset` (0: to the end of the file), in `mode` (the
    /// file's CommMode; plain when the read access is free). Split into ``maximumChunk``s.
    public mutating func readData(_ file: NTAG424.File, offset: Int = 0, length: Int, mode: NTAG424CommMode) async throws(NTAG424Error) -> [UInt8] {
        let total = length == 0 ? file.size - offset : length
        guard offset >= 0, total >= 0, offset + total <= file.size else {
            throw NTAG424Error(.invalidParameter, "ReadData of \(total) bytes at \(offset) runs past the \(file.size)-byte \(file)")
        }
        var out: [UInt8] = []
        while out.count < total {
            let n = min(maximumChunk, total - out.count)
            let header = [file.rawValue] + Self.uint24(offset + out.count) + Self.uint24(n)
            let part = try await run("ReadData", NTAG424.Command.readData, header: header, mode: mode == .plain ? .plain : .mac, responseMode: mode)
            guard part.count == n else { throw NTAG424Error(.malformed, at: part.count, "ReadData answered \(part.count) bytes, not \(n)") }
            out += part
        }
        return out
    }

    /// WriteData: `data` at `offset` in `mode` (the file's CommMode). Split into ``maximumChunk``s.
    public mutating func writeData(_ file: NTAG424.File, offset: Int = 0, data: [UInt8], mode: NTAG424CommMode) async throws(NTAG424Error) {
        guard offset >= 0, offset + data.count <= file.size else {
            throw NTAG424Error(.invalidParameter, "WriteData of \(data.count) bytes at \(offset) runs past the \(file.size)-byte \(file)")
        }
        var done = 0
        while done < data.count {
            let n = min(maximumChunk, data.count - done)
            let header = [file.rawValue] + Self.uint24(offset + done) + Self.uint24(n)
            _ = try await run("WriteData", NTAG424.Command.writeData, header: header, data: Array(data[done..<(done + n)]), mode: mode,
                responseMode: mode == .plain ? .plain : .mac)
            done += n
        }
    }

    /// ChangeKey (CommMode.Full; datasheet 10.6.1): key `keyNumber` becomes `newKey` with
    /// `version`. Changing the key the session was opened with sends `NewKey ‖ KeyVer` and ends
    /// the session (the chip answers without a MAC); another key sends `(NewKey ⊕ OldKey) ‖
    /// KeyVer ‖ CRC32(NewKey)`, which needs the old key.
    public mutating func changeKey(_ keyNumber: UInt8, to newKey: [UInt8], version: UInt8, oldKey: [UInt8]?) async throws(NTAG424Error) {
        let current = try requireSession("ChangeKey")
        guard NTAG424.keyNumbers.contains(keyNumber), newKey.count == NTAG424.keyLength else {
            throw NTAG424Error(.invalidParameter, "ChangeKey needs a key number 0–4 and a 16-byte key")
        }
        if keyNumber == current.keyNumber {
            _ = try await run("ChangeKey", NTAG424.Command.changeKey, header: [keyNumber], data: newKey + [version], mode: .full, responseMode: .plain)
            session = nil
            return
        }
        guard let oldKey, oldKey.count == NTAG424.keyLength else {
            throw NTAG424Error(.invalidParameter, "changing key \(keyNumber) needs its current value (16 bytes)")
        }
        let data = try NTAG424Session.changeKeyData(newKey: newKey, version: version, oldKey: oldKey, sameKey: false)
        _ = try await run("ChangeKey", NTAG424.Command.changeKey, header: [keyNumber], data: data, mode: .full, responseMode: .mac)
    }

    /// GetKeyVersion (CommMode.MAC when authenticated).
    public mutating func getKeyVersion(_ keyNumber: UInt8) async throws(NTAG424Error) -> UInt8 {
        let data = try await run("GetKeyVersion", NTAG424.Command.getKeyVersion, header: [keyNumber], mode: .mac)
        guard data.count == 1 else { throw NTAG424Error(.malformed, at: data.count, "GetKeyVersion answered \(data.count) bytes, not 1") }
        return data[0]
    }

    /// GetCardUID (CommMode.Full, authenticated only): the 7-byte UID, also when the chip
    /// hides it behind a random ID.
    public mutating func getCardUID() async throws(NTAG424Error) -> [UInt8] {
        _ = try requireSession("GetCardUID")
        let data = try await run("GetCardUID", NTAG424.Command.getCardUID, mode: .full)
        guard data.count == NTAG424.uidLength else { throw NTAG424Error(.malformed, at: data.count, "GetCardUID answered \(data.count) bytes, not 7") }
        return data
    }

    static func uint24(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)] }
}

extension NTAG424 {
    /// CRC32NK of ChangeKey (datasheet 10.6.1): the CRC-32 of ISO/IEC 13239 (reflected
    /// polynomial EDB88320, preset FFFFFFFF) without the final inversion, least significant byte
    /// first.
    public static func keyChecksum(_ data: [UInt8]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
    }
}
