import NFCCore

extension DESFireTag {
    // MARK: Authentication by key type

    /// Authenticates with key `keyNumber` of the selected level: the legacy `0A` for a DES or
    /// 2K3DES key (what every DESFire takes), AuthenticateISO (`1A`) for 3K3DES, AuthenticateAES
    /// (`AA`) for AES — or, with `ev2` and an AES key, AuthenticateEV2First (`71`), whose EV2
    /// secure messaging then carries the commands (``DESFireEV2Messaging``).
    /// - Parameter random: RndA (8 or 16 bytes as the key type needs); the system generator by default.
    /// - Throws: ``DESFireError`` as ``authenticateLegacy(keyNumber:key:random:)``,
    ///   ``authenticateEV1(keyNumber:key:random:)`` and ``authenticateEV2First(keyNumber:key:random:)``.
    public func authenticate(keyNumber: UInt8, key: DESFireKey, ev2: Bool = false, random: [UInt8]? = nil) async throws(DESFireError) -> DESFireSession {
        if ev2, key.type == .aes {
            return .ev2(try await authenticateEV2First(keyNumber: keyNumber, key: key.bytes, random: random))
        }
        if key.isLegacyCapable {
            return .legacy(keyNumber: keyNumber, sessionKey: try await authenticateLegacy(keyNumber: keyNumber, key: key.cipherKey, random: random))
        }
        return .ev1(try await authenticateEV1(keyNumber: keyNumber, key: key, random: random))
    }

    /// AuthenticateISO (`1A`, DES / 2K3DES / 3K3DES) or AuthenticateAES (`AA`) with key
    /// `keyNumber` of the selected level (``DESFireEV1Authentication``): the EV1 session.
    /// - Parameter random: RndA; the system generator by default.
    /// - Throws: ``DESFireError`` `authenticationFailed` (`AE`: the key refused or of another
    ///   type; or a confirmation that does not prove the key), `status`, `malformed`,
    ///   `invalidParameter`, `crypto`, `transport`.
    public func authenticateEV1(keyNumber: UInt8, key: DESFireKey, random: [UInt8]? = nil) async throws(DESFireError) -> DESFireEV1Session {
        let length = key.type.randomLength
        let rndA = random ?? (0..<length).map { _ in UInt8.random(in: 0...255) }
        let code = DESFireEV1Authentication.command(for: key.type)
        let (challenge, status) = try await frame(code, [keyNumber])
        guard status == DESFire.Status.additionalFrame.rawValue else {
            if status == DESFire.Status.authenticationError.rawValue {
                throw DESFireError(.authenticationFailed, status: status, "the DESFire refused \(key.type.rawValue.uppercased()) key \(keyNumber) (91 AE)")
            }
            throw statusError(code, status)
        }
        guard challenge.count == length else { throw DESFireError(.malformed, "the challenge has \(challenge.count) bytes, not \(length)") }
        let (part2, rndB) = try DESFireEV1Authentication.answer(key: key, challenge: challenge, rndA: rndA)
        let (confirmation, final) = try await frame(DESFire.Command.additionalFrame, part2)
        guard final == DESFire.Status.ok.rawValue else {
            if final == DESFire.Status.authenticationError.rawValue {
                throw DESFireError(.authenticationFailed, status: final, "the DESFire refused \(key.type.rawValue.uppercased()) key \(keyNumber) (91 AE)")
            }
            throw statusError(code, final)
        }
        try DESFireEV1Authentication.verify(key: key, rndA: rndA, part2: part2, confirmation: confirmation)
        return DESFireEV1Session(keyNumber: keyNumber, key: try DESFireEV1Authentication.sessionKey(key: key, rndA: rndA, rndB: rndB))
    }

    // MARK: Commands in a session

    /// A plain command inside `session`: in an EV1 session the CMAC runs over the command and
    /// the answer's MAC is checked and taken off; a legacy session (or none) sends it as it is.
    /// - Throws: ``DESFireError`` as ``command(_:_:answerLimit:)``; `authenticationFailed` for an
    ///   answer whose MAC does not match. A failure ends the session (`session` nil).
    public func command(_ code: UInt8, _ data: [UInt8] = [], session: inout DESFireSession?, answerLimit: Int = 4096) async throws(DESFireError) -> [UInt8] {
        if case .ev2(let ev2, let planned)? = session {
            let modes = DESFireEV2Messaging.modes(for: code, dataLength: data.count)
            let header = Array(data.prefix(modes.headerLength)), rest = Array(data.dropFirst(modes.headerLength))
            return try await ev2Command(
                code, header: header, data: rest, mode: modes.command, responseMode: modes.response, session: ev2, planned: planned, outer: &session,
                answerLimit: answerLimit)
        }
        guard case .ev1(var ev1)? = session else {
            do { return try await command(code, data, answerLimit: answerLimit) } catch {
                if error.code == .status { session = nil }
                throw error
            }
        }
        do {
            try ev1.absorbCommand([code] + data)
            let answer = try await command(code, data, answerLimit: answerLimit + DESFireEV1Session.macLength)
            let verified = try Self.checkAnswer(answer, &ev1)
            session = .ev1(ev1)
            return verified
        } catch {
            session = nil
            throw error
        }
    }

    /// An enciphered command inside an authenticated `session`: `header` in clear, `data`
    /// enciphered with a CRC (EV1: CRC32 over command, header and data, CBC with the session's
    /// IV; legacy: CRC_A over the data, "send mode"), the answer's MAC checked in EV1.
    /// - Throws: ``DESFireError`` `invalidParameter` without a session; as
    ///   ``command(_:_:session:answerLimit:)``.
    public func encipheredCommand(_ code: UInt8, header: [UInt8], _ data: [UInt8], session: inout DESFireSession?) async throws(DESFireError) -> [UInt8] {
        switch session {
        case nil: throw DESFireError(.invalidParameter, "an enciphered command needs an authentication first")
        case .legacy(_, let key)?:
            let field = try DESFireLegacyAuthentication.encipherForSending(sessionKey: key, data)
            return try await command(code, header + field, session: &session, answerLimit: 0)
        case .ev1(var ev1)?:
            return try await sendEnciphered(code, header: header, field: try ev1.encipher(command: code, header: header, data), session: ev1, ends: false, outer: &session)
        case .ev2(let ev2, let planned)?:
            let modes = DESFireEV2Messaging.modes(for: code, dataLength: header.count + data.count)
            return try await ev2Command(code, header: header, data: data, mode: .full, responseMode: modes.response, session: ev2, planned: planned, outer: &session, answerLimit: 16)
        }
    }

    private func sendEnciphered(_ code: UInt8, header: [UInt8], field: [UInt8], session ev1: DESFireEV1Session, ends: Bool, outer: inout DESFireSession?) async throws(DESFireError) -> [UInt8] {
        var ev1 = ev1
        do throws(DESFireError) {
            let answer = try await command(code, header + field, answerLimit: DESFireEV1Session.macLength)
            if ends {
                outer = nil
                guard answer.isEmpty else { throw DESFireError(.malformed, "ChangeKey of the authenticated key answered \(answer.count) bytes, not none") }
                return []
            }
            let verified = try Self.checkAnswer(answer, &ev1)
            outer = .ev1(ev1)
            return verified
        } catch {
            outer = nil
            throw error
        }
    }

    /// An EV1 answer with its MAC checked; an empty answer when the session was told that a
    /// write plan answers its writes (``DESFireEV1Session/plannedWrites``), which no chip MACs.
    static func checkAnswer(_ answer: [UInt8], _ ev1: inout DESFireEV1Session) throws(DESFireError) -> [UInt8] {
        if ev1.plannedWrites, answer.isEmpty { return [] }
        return try ev1.verifyAnswer(answer)
    }

    /// ChangeFileSettings (`5F`) of file `number` inside `session`: enciphered when the file's
    /// change right is a key (the one `session` holds), plain when it is free (`session` nil
    /// or not).
    /// - Throws: ``DESFireError`` `status` (`9D` change never, `AE`, `1E` integrity), `transport`.
    public func changeFileSettings(_ number: UInt8, communication: UInt8, accessRights: UInt16, enciphered: Bool, session: inout DESFireSession?) async throws(DESFireError) {
        let settings = [communication, UInt8(accessRights & 0xFF), UInt8(accessRights >> 8)]
        if enciphered {
            _ = try await encipheredCommand(DESFire.Command.changeFileSettings, header: [number], settings, session: &session)
        } else if case .ev2(let ev2, let planned)? = session {
            // A free change right: plain, the counter advancing (DESFireEV2Messaging).
            _ = try await ev2Command(
                DESFire.Command.changeFileSettings, header: [number] + settings, data: [], mode: .plain, responseMode: .plain, session: ev2, planned: planned,
                outer: &session, answerLimit: 0)
        } else {
            _ = try await command(DESFire.Command.changeFileSettings, [number] + settings, session: &session, answerLimit: 0)
        }
    }

    /// ChangeKeySettings (`54`) of the selected level, enciphered in `session` (authenticated
    /// with its master key).
    /// - Throws: ``DESFireError`` `status` (`9D` settings frozen, `AE`, `1E`), `transport`.
    public func changeKeySettings(_ settings: UInt8, session: inout DESFireSession?) async throws(DESFireError) {
        _ = try await encipheredCommand(DESFire.Command.changeKeySettings, header: [], [settings], session: &session)
    }

    /// ChangeKey (`C4`) of key `keyNumber` in the selected level to `newKey`, inside `session`.
    ///
    /// The cryptogram, as libfreefare's `mifare_desfire_change_key` builds it: the new key (DES
    /// doubled to 16 bytes), or, for a key other than the authenticated one, the new key XOR the
    /// old (`oldKey`, the factory key when nil); an AES key's version byte; then EV1: CRC32 over
    /// `C4 ‖ key number ‖ that` and, for another key, CRC32 of the new key; legacy: CRC_A of that
    /// and, for another key, CRC_A of the new key; zero-padded and enciphered. At the PICC level
    /// the key number carries the new key's type in bits 7–6 (`40` 3K3DES, `80` AES).
    /// Changing the authenticated key ends the session.
    /// - Throws: ``DESFireError`` `invalidParameter` (no session, key lengths), `status` (`9D`,
    ///   `AE`, `1E`, `40` no such key), `transport`.
    public func changeKey(_ keyNumber: UInt8, to newKey: DESFireKey, from oldKey: DESFireKey? = nil, version: UInt8 = 0, piccLevel: Bool, session: inout DESFireSession?) async throws(DESFireError) {
        guard let current = session else { throw DESFireError(.invalidParameter, "ChangeKey needs an authentication with the change key first") }
        let sameKey = current.keyNumber & 0x0F == keyNumber & 0x0F
        let number = keyNumber | (piccLevel ? newKey.type.typeBits : 0)
        if case .ev2(let ev2, let planned) = current {
            // EV2: the cryptogram NTAG 424 DNA sends (EV2Session.changeKeyData), Full mode.
            let old = sameKey ? nil : (oldKey ?? DESFireKey.factory(newKey.type)).changeKeyBytes
            let data = try Self.ev2 { () throws(NTAG424Error) in
                try EV2Session.changeKeyData(newKey: newKey.changeKeyBytes, version: newKey.type == .aes ? version : nil, oldKey: old, sameKey: sameKey)
            }
            _ = try await ev2Command(
                DESFire.Command.changeKey, header: [number], data: data, mode: .full, responseMode: .mac, ends: sameKey, session: ev2, planned: planned,
                outer: &session, answerLimit: 0)
            return
        }
        var keyData = newKey.changeKeyBytes
        if !sameKey {
            let old = (oldKey ?? DESFireKey.factory(newKey.type)).changeKeyBytes
            guard old.count == keyData.count else { throw DESFireError(.invalidParameter, "the old key has \(old.count) bytes, the new \(keyData.count): ChangeKey of another key keeps its type") }
            keyData = zip(keyData, old).map { $0 ^ $1 }
        }
        if newKey.type == .aes { keyData.append(version) }
        let code = DESFire.Command.changeKey
        switch current {
        case .legacy(_, let key):
            var plain = keyData + ISO14443ACRC.bytes(of: keyData)
            if !sameKey { plain += ISO14443ACRC.bytes(of: newKey.changeKeyBytes) }
            let field = try DESFireLegacyAuthentication.encipherBlocksForSending(sessionKey: key, plain)
            _ = try await command(code, [number] + field, session: &session, answerLimit: 0)
            if sameKey { session = nil }
        case .ev1(var ev1):
            var plain = keyData + DESFireCipher.crc32([code, number] + keyData)
            if !sameKey { plain += DESFireCipher.crc32(newKey.changeKeyBytes) }
            let field = try ev1.encipherBlocks(plain)
            _ = try await sendEnciphered(code, header: [number], field: field, session: ev1, ends: sameKey, outer: &session)
        case .ev2: break  // sent above
        }
    }
}
