import NFCCore

extension DESFireTag {
    /// Makes the NDEF file of a DESFire formatted as NXP AN11004 describes read-only for good.
    ///
    /// The commands, in order: SelectApplication `000001`; Authenticate with the NDEF
    /// application's key 0 (`applicationKey`: the factory DES key that formatting gives it by
    /// default; `0A` for DES / 2K3DES, `1A` for 3K3DES, `AA` for AES, whose EV1 session MACs the
    /// commands after it; for an AES key on an EV2 or later (identification's
    /// GetVersion, else GetVersion first) AuthenticateEV2First, whose EV2 secure messaging carries them: ``takesEV2Session(_:)``); GetFileSettings `02`; ReadData of the CC file; ChangeFileSettings
    /// `02` to plain, access rights `EFFF` (read free; write, read-write and change never),
    /// enciphered in the session since the change right is key 0; WriteData of `FF` at the
    /// CC's NDEF write access byte (offset 14). The CC comes last, so a Type 4 reader reports
    /// read-only only once the chip refuses writing. `planning`: a write plan answers the writes
    /// (``DESFireEV1Session/plannedWrites``); the reads come before them.
    ///
    /// Tear-safe by resuming: a file already `EFFF`-like (write, read-write and change never) is
    /// not changed again (it could not be: change never), a CC already `FF` is not rewritten,
    /// so running it again after a cut completes the lock.
    /// - Throws: ``DESFireError`` `status` (`A0`: no NDEF application; `F0`: no CC or NDEF
    ///   file), `authenticationFailed` (the application key refused), `malformed` (a CC that is
    ///   not the 15-byte AN11004 one), `transport`.
    public func lockTypeFour(applicationKey: DESFireKey = .factoryDES, planning: Bool = false) async throws(DESFireError) {
        let mapping = DESFire.TypeFourMapping.self
        try await selectApplication(mapping.applicationID)
        var session: DESFireSession? = try await authenticate(keyNumber: 0, key: applicationKey, ev2: try await takesEV2Session(applicationKey))
        if planning { session = session?.planningWrites }
        let settings = try await fileSettings(mapping.ndefFileNumber, session: &session)
        let cc = try await readData(mapping.capabilityContainerFileNumber, offset: 0, length: mapping.capabilityContainerSize, session: &session)
        let offset = mapping.capabilityContainerWriteAccessOffset
        guard cc.count == mapping.capabilityContainerSize, cc[7] == 0x04 else {
            throw DESFireError(.malformed, "the CC file does not hold an NDEF File Control TLV at offset 7: not formatted as AN11004 describes")
        }
        if !Self.isLockedForGood(settings) {
            try await changeFileSettings(
                mapping.ndefFileNumber, communication: DESFire.plainCommunication, accessRights: mapping.lockedNDEFAccessRights,
                enciphered: settings.changeAccess != DESFire.freeAccess, session: &session)
        }
        if cc[offset] != Type4CapabilityContainer.writeAccessNever {
            try await writeData(mapping.capabilityContainerFileNumber, offset: offset, [Type4CapabilityContainer.writeAccessNever], session: &session)
        }
    }

    /// Whether `key` opens an EV2 session here: an AES key on a chip that takes
    /// AuthenticateEV2First (``takesEV2Authentication()``); such a chip takes AuthenticateAES
    /// too, but NFCKit uses the newer scheme where there is one.
    /// - Throws: ``DESFireError`` as ``version()`` (sent only for an AES key on a tag whose
    ///   ``hardware`` is not known).
    public func takesEV2Session(_ key: DESFireKey) async throws(DESFireError) -> Bool {
        guard key.type == .aes else { return false }
        return try await takesEV2Authentication()
    }

    /// Whether the chip takes AuthenticateEV2First (a DESFire EV2 or later,
    /// ``DESFireEV2Messaging/takesEV2Authentication(_:)``): from ``hardware`` when
    /// identification read it, else from GetVersion, asked here.
    /// - Throws: ``DESFireError`` as ``version()``.
    public func takesEV2Authentication() async throws(DESFireError) -> Bool {
        let part: DESFireVersion.Part
        if let hardware { part = hardware } else { part = try await version().hardware }
        return DESFireEV2Messaging.takesEV2Authentication(part)
    }

    /// Whether a file's settings keep it read-only for good: write, read-write and change access
    /// all never (`F`).
    public static func isLockedForGood(_ settings: DESFireFileSettings) -> Bool {
        [settings.writeAccess, settings.readWriteAccess, settings.changeAccess].allSatisfy { $0 == DESFire.neverAccess }
    }
}
