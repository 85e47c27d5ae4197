import NFCCore

extension DESFireTag {
    /// Changes the NDEF application's key 0 and/or the PICC master key of a DESFire formatted as
    /// NXP AN11004 describes (``DESFireKeyChange``); returns what became of each.
    ///
    /// When both keys change, SelectApplication `000000` and Authenticate with the PICC master
    /// key come first (a refused one writes nothing). The commands, in order, for the
    /// application key: SelectApplication `000001`;
    /// Authenticate with its key 0 (`0A` DES / 2K3DES, `1A` 3K3DES, `AA` AES; an AES key on a
    /// DESFire EV2 or later AuthenticateEV2First `71`, the chip's generation from
    /// identification's GetVersion, ``hardware``, else asked once before anything is sent);
    /// GetKeySettings (the application's key type, checked before anything is written);
    /// ChangeKey `00` (the authenticated key: the new key, its CRC, enciphered under the
    /// session key; after `71` in EV2 Full mode, the cryptogram NTAG 424 DNA sends,
    /// ``EV2Session/changeKeyData(newKey:version:oldKey:sameKey:)``; the session ends); Authenticate with the new key (the chip proves it holds it). Then for the PICC
    /// master key: SelectApplication `000000`; Authenticate with it; ChangeKey with the new
    /// key's type in bits 7–6 of the key number (`00` DES / 2K3DES, `40` 3K3DES, `80` AES: the
    /// PICC master key may change type, an application key only within its family);
    /// Authenticate with the new key.
    ///
    /// Tear-safe by resuming: NXP's public DESFire EV1 short data sheet (MF3ICDx21_41_81)
    /// promises an anti-tear mechanism whose rollback runs before the next command, so a cut
    /// ChangeKey leaves the old key or the new one, never a mix; which one, NFCKit cannot know
    /// (the answer was lost). Run again with the same keys: a current key the chip refuses is
    /// followed by an authentication with the new key, and a chip that takes it counts as
    /// ``DESFireKeyChange/Step/alreadyChanged``.
    /// - Throws: ``DESFireError`` `authenticationFailed` (neither the current nor the new key
    ///   taken: nothing written), `invalidParameter` (an application key of another family than
    ///   the application's), `status` (`A0`: no NDEF application; `9D`: the key settings forbid
    ///   changing the master key), `transport` (a cut: its reason says the key is the old or the
    ///   new one), `malformed`, `crypto`.
    @discardableResult
    public func changeKeys(_ change: DESFireKeyChange) async throws(DESFireError) -> DESFireKeyChange.Outcome {
        var outcome = DESFireKeyChange.Outcome(application: .unchanged, picc: .unchanged)
        // An AES key on an EV2 or later takes AuthenticateEV2First: the generation comes from
        // identification (``hardware``), else it is asked once, before anything is written.
        let keys = [change.currentPICCKey, change.currentApplicationKey] + [change.newPICCKey, change.newApplicationKey].compactMap { $0 }
        let asksGeneration = keys.contains { $0.type == .aes }
        if asksGeneration, hardware == nil {
            // GetVersion outside any authentication: in an EV1 session its answer carries a MAC.
            try await selectApplication(DESFire.piccApplicationID)
        }
        let ev2 = asksGeneration ? try await takesEV2Authentication() : false
        if change.newPICCKey != nil, change.newApplicationKey != nil {
            // The PICC master key is checked first: a refused one must leave the application
            // key unchanged too.
            try await selectApplication(DESFire.piccApplicationID)
            try await checkKey(
                of: "PICC", current: change.currentPICCKey, new: change.newPICCKey.map { key in change.piccKeyVersion.map(key.withVersion) ?? key }, ev2: ev2)
        }
        if let newKey = change.newApplicationKey {
            let key = change.applicationKeyVersion.map(newKey.withVersion) ?? newKey
            try await selectApplication(DESFire.TypeFourMapping.applicationID)
            outcome.application = try await changeMasterKey(
                of: "NDEF application", from: change.currentApplicationKey, to: key, version: change.applicationKeyVersion ?? 0,
                piccLevel: false, planning: change.planning, ev2: ev2)
        }
        if let newKey = change.newPICCKey {
            let key = change.piccKeyVersion.map(newKey.withVersion) ?? newKey
            try await selectApplication(DESFire.piccApplicationID)
            outcome.picc = try await changeMasterKey(
                of: "PICC", from: change.currentPICCKey, to: key, version: change.piccKeyVersion ?? 0, piccLevel: true, planning: change.planning, ev2: ev2)
        }
        return outcome
    }

    /// Key 0 of the selected level from `current` to `new`: authenticate (the new key when the
    /// current one is refused: already changed), check the family, ChangeKey, authenticate with
    /// the new key. `ev2`: an AES key authenticates with AuthenticateEV2First and ChangeKey
    /// travels in EV2 secure messaging (Full mode).
    private func changeMasterKey(
        of level: String, from current: DESFireKey, to new: DESFireKey, version: UInt8, piccLevel: Bool, planning: Bool, ev2: Bool
    ) async throws(DESFireError) -> DESFireKeyChange.Step {
        var session: DESFireSession?
        do {
            session = try await authenticate(keyNumber: 0, key: current, ev2: ev2)
        } catch let error where error.refusedKey {
            guard (try? await authenticate(keyNumber: 0, key: new, ev2: ev2)) != nil else {
                throw DESFireError(
                    .authenticationFailed, status: error.status,
                    "the DESFire refused the current \(level) key (\(current.type.rawValue.uppercased())), and the new one too: nothing was written")
            }
            return .alreadyChanged
        }
        if planning { session = session?.planningWrites }
        if !piccLevel {
            let settings = try await keySettings(session: &session)
            guard let family = DESFireKey.KeyType.family(ofTypeBits: settings.keyCount), family.contains(new.type) else {
                let names = DESFireKey.KeyType.family(ofTypeBits: settings.keyCount)?.map { $0.rawValue.uppercased() }.joined(separator: "/") ?? "unknown"
                throw DESFireError(
                    .invalidParameter,
                    "the \(level)'s keys are \(names); an application's key type is fixed when it is created, so it cannot become \(new.type.rawValue.uppercased()) (format a blank DESFire with that application key instead): nothing was written")
            }
        }
        do {
            try await changeKey(0, to: new, version: version, piccLevel: piccLevel, session: &session)
        } catch let error where error.code == .transport {
            throw DESFireError(
                .transport,
                "\(error.reason): the \(level) key is now the old one or the new one, which cannot be known here; run the key change again with the same keys (it tries the current key, then the new one)",
                underlying: error.underlying)
        }
        if !planning { _ = try await authenticate(keyNumber: 0, key: new, ev2: ev2) }
        return .changed
    }

    /// Authenticates with key 0 of the selected level: `current`, else `new` (a change done
    /// already); nothing else. `ev2`: as for the key change itself.
    /// - Throws: ``DESFireError`` `authenticationFailed` when neither is taken.
    private func checkKey(of level: String, current: DESFireKey, new: DESFireKey?, ev2: Bool) async throws(DESFireError) {
        do {
            _ = try await authenticate(keyNumber: 0, key: current, ev2: ev2)
        } catch let error where error.refusedKey {
            guard let new, (try? await authenticate(keyNumber: 0, key: new, ev2: ev2)) != nil else {
                throw DESFireError(
                    .authenticationFailed, status: error.status,
                    "the DESFire refused the current \(level) key (\(current.type.rawValue.uppercased())), and the new one too: nothing was written")
            }
        }
    }

    /// GetKeyVersion (`64`) of key `keyNumber` of the selected level.
    /// - Throws: ``DESFireError``; `status` `40` for no such key, `malformed` unless one byte.
    public func keyVersion(_ keyNumber: UInt8) async throws(DESFireError) -> UInt8 {
        let bytes = try await command(DESFire.Command.getKeyVersion, [keyNumber], answerLimit: 1)
        guard bytes.count == 1 else { throw DESFireError(.malformed, "GetKeyVersion answered \(bytes.count) bytes, not 1") }
        return bytes[0]
    }
}
