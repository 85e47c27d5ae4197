import NFCCore

extension DESFireTag {
    /// What a forced format does on a DESFire holding other applications: the end of the
    /// reason it is refused with unforced (so a front end does not add a hint that says
    /// otherwise).
    public static let forceAddsBesideOthers = "with force the NDEF application is added beside them and none is deleted"

    /// The memory a file takes here: its size rounded up to 32 bytes, the allocation unit
    /// DESFire EV1 reports free memory in.
    public static let allocationUnit = 32

    /// Formats the DESFire as an NFC Forum Type 4 tag as NXP AN11004 (mapping 2.0) describes,
    /// holding an empty NDEF message; returns the NDEF file's size.
    ///
    /// The commands, in order: SelectApplication `000000`; Authenticate with the PICC master key
    /// (`0A` for DES / 2K3DES, `1A` for 3K3DES, `AA` for AES, whose EV1 session then MACs the
    /// PICC-level commands that follow; for an AES key on an EV2 or later (identification's
    /// GetVersion, ``hardware``; else GetVersion first) AuthenticateEV2First `71` instead of
    /// `AA`, whose EV2 secure messaging carries them: ``takesEV2Authentication()``); GetApplicationIDs; GetFreeMemory; CreateApplication `000001` (key settings
    /// `0F`, `21`: one DES key (`61` 3K3DES, `A1` AES for such an application key) and ISO file IDs, ISO ID `E110`, DF name `D2760000850101`);
    /// SelectApplication `000001`; Authenticate with its key 0 (the factory key of the
    /// application key's type; a given application key is set by ChangeKey `00` and
    /// authenticated with, ``DESFireFormatOptions/applicationKey``); GetFileIDs; CreateStdDataFile `01` (ISO `E103`, plain,
    /// access `E000`, 15 bytes); CreateStdDataFile `02` (ISO `E104`, plain, access `EEE0`, the
    /// NDEF size); WriteData of the CC. A new file reads as zeros, so NLEN is 0. (AN11004 and
    /// libfreefare write the CC before creating the NDEF file; here the CC comes last, so that
    /// no cut leaves a CC naming a file that does not exist.)
    ///
    /// Tear-safe by resuming: what an earlier, cut run created (the application, the CC file,
    /// the NDEF file) is kept and the rest made, so a re-run completes; until the CC is
    /// written the tag reads as not formatted (no CC file, or one of zeros:
    /// ``DESFireNDEFTag/queryNDEFStatus()``).
    /// - Throws: ``DESFireError`` `holdsApplications` for other applications without
    ///   ``DESFireFormatOptions/force``; `authenticationFailed` for a refused PICC master key;
    ///   `invalidParameter` for an NDEF size below 32 bytes, over 7FFFh or past free memory;
    ///   `status`, `malformed`, `transport` as the commands fail.
    @discardableResult
    public func formatTypeFour(_ options: DESFireFormatOptions = DESFireFormatOptions()) async throws(DESFireError) -> Int {
        let mapping = DESFire.TypeFourMapping.self
        try await selectApplication(DESFire.piccApplicationID)
        // An AES key (PICC or application) on an EV2 or later takes AuthenticateEV2First: the
        // chip's generation comes from identification (``hardware``), else it is asked once,
        // before anything is planned or written.
        let ev2 = options.piccKey.type == .aes || options.applicationKey.type == .aes ? try await takesEV2Authentication() : false
        var session: DESFireSession? = try await authenticate(keyNumber: 0, key: options.piccKey, ev2: ev2)
        if options.planning { session = session?.planningWrites }
        let applications = try await applicationIDs(session: &session)
        let others = applications.filter { $0 != mapping.applicationID }
        guard others.isEmpty || options.force else {
            let names = others.map { Hex.encode($0.reversed(), uppercase: true) }.joined(separator: ", ")
            throw DESFireError(
                .holdsApplications, "the DESFire holds \(others.count) other application\(others.count == 1 ? "" : "s") (\(names)); \(Self.forceAddsBesideOthers)")
        }
        let free = try await freeMemory(session: &session)
        let ccMemory = Self.allocated(mapping.capabilityContainerSize)
        let creates = !applications.contains(mapping.applicationID)
        if creates {
            // Checked before anything is created: a size that does not fit writes nothing.
            _ = try Self.ndefFileSize(options.ndefFileSize, freeMemory: free - ccMemory)
            _ = try await command(
                DESFire.Command.createApplication,
                try Self.createApplicationData(
                    mapping.applicationID, keySettings: mapping.keySettings, keyCount: mapping.keyCount | options.applicationKey.type.typeBits,
                    isoFileID: mapping.isoFileID, dfName: Type4Command.ndefTagApplicationID),
                session: &session, answerLimit: 0)
        }
        try await selectApplication(mapping.applicationID)
        // The CC file's write access is key 0 (E000): the application master key.
        var application = try await applicationSession(options, created: creates, ev2: ev2)
        let files = try await fileIDs(session: &application)
        let hasCC = files.contains(mapping.capabilityContainerFileNumber), hasNDEF = files.contains(mapping.ndefFileNumber)
        let size: Int
        if hasNDEF {
            size = try await fileSettings(mapping.ndefFileNumber, session: &application).size
        } else {
            size = try Self.ndefFileSize(options.ndefFileSize, freeMemory: free - (hasCC ? 0 : ccMemory))
        }
        if !hasCC {
            try await createStandardDataFile(
                mapping.capabilityContainerFileNumber, isoFileID: Type4Command.capabilityContainerFileID,
                accessRights: mapping.capabilityContainerAccessRights, size: mapping.capabilityContainerSize, session: &application)
        }
        if !hasNDEF {
            try await createStandardDataFile(
                mapping.ndefFileNumber, isoFileID: mapping.ndefFileID, accessRights: mapping.ndefAccessRights, size: size, session: &application)
        }
        // The CC last: until it is written no reader finds an NDEF file it names.
        try await writeData(mapping.capabilityContainerFileNumber, offset: 0, mapping.capabilityContainer(ndefFileSize: size), session: &application)
        return size
    }

    /// The session with the NDEF application's key 0 that formatting goes on in: the
    /// application key of `options`. A new application holds the factory key of that type
    /// (zeros); a key other than that one is then set first: ChangeKey `00` under the factory
    /// key's session, then an authentication with the given key. An application `created` by
    /// this run goes straight to the factory key; one an earlier, cut run created is tried with
    /// the given key first (taken: that run's ChangeKey went through).
    /// - Throws: ``DESFireError`` `authenticationFailed` when neither the given key nor the
    ///   factory key of its type is taken; as ``changeKey(_:to:from:version:piccLevel:session:)``.
    private func applicationSession(_ options: DESFireFormatOptions, created: Bool, ev2: Bool) async throws(DESFireError) -> DESFireSession? {
        let key = options.applicationKey, factory = DESFireKey.factory(options.applicationKey.type)
        func planned(_ session: DESFireSession) -> DESFireSession { options.planning ? session.planningWrites : session }
        guard key.cipherKey != factory.cipherKey else { return planned(try await authenticate(keyNumber: 0, key: key, ev2: ev2)) }
        if !created {
            do {
                return planned(try await authenticate(keyNumber: 0, key: key, ev2: ev2))
            } catch let error where error.refusedKey {}
        }
        var session: DESFireSession? = planned(try await authenticate(keyNumber: 0, key: factory, ev2: ev2))
        try await changeKey(0, to: key, piccLevel: false, session: &session)
        // A plan never sent the ChangeKey to an application the chip holds: its commands go on
        // without a session. One the plan created holds the given key now (its stand-in chip ran
        // the ChangeKey), as the chip will: authenticated with, as the run does.
        return options.planning && !created ? nil : planned(try await authenticate(keyNumber: 0, key: key, ev2: ev2))
    }

    /// The memory `size` bytes take: rounded up to ``allocationUnit``.
    public static func allocated(_ size: Int) -> Int { (size + allocationUnit - 1) / allocationUnit * allocationUnit }

    /// The NDEF file size: `requested`, checked against `freeMemory`, or the most free memory
    /// holds in whole allocation units, at most 7FFFh.
    /// - Throws: ``DESFireError`` `invalidParameter`.
    public static func ndefFileSize(_ requested: Int?, freeMemory: Int) throws(DESFireError) -> Int {
        let mapping = DESFire.TypeFourMapping.self
        if let requested {
            guard (mapping.minimumNDEFFileSize...mapping.maximumNDEFFileSize).contains(requested) else {
                throw DESFireError(.invalidParameter, "the NDEF file size is \(requested); it must be \(mapping.minimumNDEFFileSize) to \(mapping.maximumNDEFFileSize) bytes")
            }
            guard allocated(requested) <= freeMemory else {
                throw DESFireError(.invalidParameter, "an NDEF file of \(requested) bytes needs \(allocated(requested)) bytes; the DESFire has \(max(freeMemory, 0)) free")
            }
            return requested
        }
        let size = min(mapping.maximumNDEFFileSize, freeMemory / allocationUnit * allocationUnit)
        guard size >= mapping.minimumNDEFFileSize else {
            throw DESFireError(.invalidParameter, "the DESFire has \(max(freeMemory, 0)) bytes free, too little for an NDEF file")
        }
        return size
    }
}
