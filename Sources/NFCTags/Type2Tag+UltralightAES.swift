import NFCCore

/// MIFARE Ultralight AES: the AES mutual authentication and the protection by AUTH0, PROT,
/// AUTH_LIM and the DataProtKey in pages 30h–33h (docs/tags.md, "MIFARE Ultralight AES").
extension Type2Tag {
    /// Runs the mutual authentication with `key` under key number `keyNumber`
    /// (``UltralightAESAuthentication``), RndA from the system's secure random source.
    /// Afterwards, pages from AUTH0 on can be read and written until the tag is halted or
    /// leaves the field.
    ///
    /// A chip that refuses the key goes idle: poll again before the next command.
    /// - Throws: ``NFCTagError/Code/authenticationFailed`` when the chip refuses (NAK: a wrong
    ///   key, or its AUTH_LIM reached) or its answer does not prove the key; `notSupported`
    ///   when the chip does not answer AUTHENTICATE; `connectionLost`. The key never appears in
    ///   an error.
    ///
    /// Secure messaging: the first DataProtKey authentication on a tag finds out whether
    /// SEC_MSG_ACT is on (a plain READ of CFG0 answered tells; refused, the chip wants MACs: it is
    /// selected and authenticated again). When it is on, a session starts
    /// (``UltralightAESSecureMessaging``) and READ and WRITE carry MACs until the next selection.
    public func authenticate(with key: UltralightAESKey, keyNumber: UltralightAESKeyNumber = .dataProtection) async throws(NFCTagError) {
        let refusal: (NFCTagError.Code, String) = (.authenticationFailed, "the tag refused AUTHENTICATE (its limit of failed authentications may be reached)")
        var randoms = try await authenticateMutually(key: key, keyNumber: keyNumber.rawValue, refusal: refusal)
        if ultralightAESSession.secureMessaging == nil, keyNumber == .dataProtection {
            do {
                let cfg0 = try await reader.transceive(
                    Bytes([Type2Command.read, UInt8(UltralightAESMemory.cfg0Page)]), mode: .standard, timeout: commandTimeout)
                ultralightAESSession.secureMessaging = cfg0.count == Type2Command.readSize && cfg0[0] & UltralightAESMemory.secureMessagingBit != 0
            } catch where error.code == .nak {
                // Authenticated, a plain READ of CFG0 is refused only when the chip wants MACs.
                ultralightAESSession.secureMessaging = true
                try await reselect()
                randoms = try await authenticateMutually(key: key, keyNumber: keyNumber.rawValue, refusal: refusal)
            } catch {
                throw NFCTagError(error, during: "READ of CFG0 after the authentication")
            }
        }
        if ultralightAESSession.secureMessaging == true {
            ultralightAESSession.start(try UltralightAESSecureMessaging(key: key, rndA: randoms.rndA, rndB: randoms.rndB))
        }
    }

    /// Reads pages 29h–2Ch: CFG0 (AUTH0, SEC_MSG_ACT) and CFG1 (PROT, AUTH_LIM).
    /// - Throws: ``NFCTagError/Code/notSupported`` unless the chip is an Ultralight AES;
    ///   `passwordRequired` when the chip refuses (read protection) and no key is set.
    public func readUltralightAESConfiguration() async throws(NFCTagError) -> UltralightAESConfiguration {
        try requireUltralightAES()
        do {
            return try UltralightAESConfiguration(bytes: try await read(page: UltralightAESMemory.cfg0Page))
        } catch where ultralightAESKey == nil && error.readerError?.code == .nak {
            throw NFCTagError(
                .passwordRequired, at: UltralightAESMemory.cfg0Page * Type2Command.pageSize,
                "the configuration pages are read-protected: the tag's AES key is needed", readerError: error.readerError)
        }
    }

    /// Protects the tag with `newKey` as its DataProtKey: reads need it too when
    /// `protection.readProtected` (PROT), writes from
    /// ``UltralightAESProtection/firstProtectedPage`` on always.
    ///
    /// Tear-safe order (docs/tags.md), as on the Ultralight C: when the tag is protected
    /// already, AUTH0 = 3Ch is written first, so the tag is open, never guarded by a
    /// half-written key; then the four key pages, CFG1 (PROT, AUTH_LIM), and AUTH0 last. Cut
    /// anywhere, the tag is protected by the old key, open, or protected by the new key. The
    /// capability container is not touched. Afterwards the tag is selected again, the new key
    /// authenticated and CFG0/CFG1 read back.
    ///
    /// Changing the key of a protected tag needs the current one in ``ultralightAESKey``.
    /// - Throws: ``NFCTagError`` `notSupported` (not an Ultralight AES), `invalidParameter`, `passwordRequired` (protected and no current key) —
    ///   nothing written — or `authenticationFailed` (a wrong current key: nothing written),
    ///   `connectionLost`, `verificationFailed`.
    ///
    /// `verify` false leaves out the check afterwards: for a write plan, where the new key was
    /// never written and authenticating with it would count as a failed authentication
    /// (AUTH_LIM).
    public func protectUltralightAES(
        with newKey: UltralightAESKey, protection: UltralightAESProtection = UltralightAESProtection(), verify: Bool = true
    ) async throws(NFCTagError) {
        try requireUltralightAES()
        guard (UltralightAESMemory.auth0Lowest..<UltralightAESMemory.totalPages).contains(protection.firstProtectedPage) else {
            throw NFCTagError(.invalidParameter, "the first protected page must lie in 3…59, not \(protection.firstProtectedPage)")
        }
        if let limit = protection.authenticationLimit, !(0...UltralightAESMemory.maximumAuthenticationLimit).contains(limit) {
            throw NFCTagError(.invalidParameter, "AUTH_LIM lies in 0…1023, not \(limit)")
        }
        let configuration = try await openConfiguration()
        let cfg0 = configuration.cfg0
        var cfg1 = configuration.cfg1
        if configuration.isProtected {
            try await write(page: UltralightAESMemory.cfg0Page, Array(cfg0[0..<3]) + [UltralightAESMemory.auth0Unprotected])
        }
        try await writeKeyPages(newKey.pageImage, UltralightAESMemory.dataProtectionKeyPages)
        cfg1[0] = protection.readProtected ? cfg1[0] | UltralightAESMemory.protBit : cfg1[0] & ~UltralightAESMemory.protBit
        if let limit = protection.authenticationLimit {
            cfg1[2] = UInt8(limit & 0xFF)
            cfg1[3] = (cfg1[3] & ~0x03) | UInt8(limit >> 8)
        }
        if cfg1 != configuration.cfg1 { try await write(page: UltralightAESMemory.cfg1Page, cfg1) }
        try await write(page: UltralightAESMemory.cfg0Page, Array(cfg0[0..<3]) + [UInt8(protection.firstProtectedPage)])
        guard verify else { return }
        var check = self
        check.ultralightAESKey = newKey
        try await check.reselect()
        try await check.authenticate(with: newKey)
        let after = try await check.readUltralightAESConfiguration()
        guard after.auth0 == protection.firstProtectedPage, after.readProtected == protection.readProtected else {
            throw NFCTagError(
                .verificationFailed, at: UltralightAESMemory.cfg0Page * Type2Command.pageSize, "AUTH0/PROT read back differ from what was written")
        }
    }

    /// Removes the protection: AUTH0 = 3Ch first (the tag is open from then on), PROT cleared,
    /// then the DataProtKey back to the factory key (``UltralightAESKey/factoryDefault``).
    /// AUTH_LIM is left as it is. Needs the current key in ``ultralightAESKey`` when the tag is
    /// protected.
    /// - Throws: as ``protectUltralightAES(with:protection:)``.
    public func unprotectUltralightAES() async throws(NFCTagError) {
        try requireUltralightAES()
        let configuration = try await openConfiguration()
        if configuration.auth0 != Int(UltralightAESMemory.auth0Unprotected) {
            try await write(page: UltralightAESMemory.cfg0Page, Array(configuration.cfg0[0..<3]) + [UltralightAESMemory.auth0Unprotected])
        }
        var cfg1 = configuration.cfg1
        cfg1[0] &= ~UltralightAESMemory.protBit
        if cfg1 != configuration.cfg1 { try await write(page: UltralightAESMemory.cfg1Page, cfg1) }
        try await writeKeyPages(UltralightAESKey.factoryDefault.pageImage, UltralightAESMemory.dataProtectionKeyPages)
        var check = self
        check.ultralightAESKey = nil
        let after = try await check.readUltralightAESConfiguration()
        guard after.auth0 == Int(UltralightAESMemory.auth0Unprotected) else {
            throw NFCTagError(.verificationFailed, at: UltralightAESMemory.cfg0Page * Type2Command.pageSize, "AUTH0 read back is not 3Ch")
        }
    }

    /// Makes an Ultralight AES read-only for good, as far as the public sources describe its
    /// lock bits: (1) CC3 = 0Fh, so NDEF readers see read-only at once; (2) the static lock
    /// bytes `FF FF` (pages 3–0Fh and their block-locking bits, as on every Type 2 tag); (3)
    /// CFGLCK in CFG1, so AUTH0, PROT and AUTH_LIM cannot change either. Each step is skipped when
    /// done already, so running it again after an interruption completes it; the bits are read
    /// back.
    ///
    /// The dynamic lock bytes (page 28h, guarding pages 10h–27h) are not written: their layout
    /// is only in NXP's data sheet. So a message that reaches past page 0Fh (more than 44 bytes
    /// with a 1-byte length) is refused before anything is written: only a message wholly under
    /// the static lock bits becomes read-only.
    /// - Throws: ``NFCTagError`` `notSupported` (the message reaches page 10h, or frozen lock
    ///   bits), `notNDEFFormatted`, `passwordRequired` — nothing written —;
    ///   `connectionLost` (partly locked: run again), `verificationFailed`.
    func writeUltralightAESLock() async throws(NFCTagError) {
        let configuration = try await openConfiguration()
        let snapshot = try await load()
        let memory = snapshot.memory
        let area = snapshot.area
        let tlvEnd = area.messageAddresses.last ?? (area.ndefTLVAddress + area.lengthFieldSize)
        let lastPage = tlvEnd / Type2Command.pageSize
        guard lastPage <= UltralightAESMemory.lastStaticallyLockedPage else {
            throw NFCTagError(
                .notSupported, at: tlvEnd,
                "the message reaches page \(lastPage): pages 10h–27h are locked by the Ultralight AES's dynamic lock bytes (page 28h), whose bit layout is only in NXP's data sheet, not in the public sources NFCKit rests on; a message of at most 44 bytes can be locked; the tag was not changed")
        }
        var plan: [PageWrite] = []
        let cc = Array(memory[Type2CapabilityContainer.address..<(Type2CapabilityContainer.address + 4)])
        if cc[3] & 0x0F != Type2CapabilityContainer.writeAccessDenied {
            plan.append(PageWrite(page: 3, data: [cc[0], cc[1], cc[2], cc[3] | Type2CapabilityContainer.writeAccessDenied]))
        }
        let lockAddress = Type2StaticLock.address
        if memory[lockAddress] != 0xFF || memory[lockAddress + 1] != 0xFF {
            plan.append(PageWrite(page: 2, data: [memory[8], memory[9], 0xFF, 0xFF]))
        }
        if !configuration.configurationLocked {
            var cfg1 = configuration.cfg1
            cfg1[0] |= UltralightAESMemory.configurationLockBit
            plan.append(PageWrite(page: UltralightAESMemory.cfg1Page, data: cfg1))
        }
        if let protected = plan.first(where: { configuration.protects(page: $0.page) }), ultralightAESKey == nil {
            throw NFCTagError(
                .passwordRequired, at: protected.page * Type2Command.pageSize,
                "pages from \(configuration.auth0) on are protected: the tag's AES key is needed (--keys FILE); the tag was not changed")
        }
        var cache = Type2PageCache(memory: memory)
        try requireLockable(plan, memory: memory, cache: &cache)
        for step in plan { try await write(page: step.page, step.data) }
        try await verifyBits(plan)
    }

    /// Authenticates when a key is set, reads CFG0/CFG1 and checks they can be written: the
    /// current key is there when the configuration is protected. With secure messaging on, the
    /// commands after the authentication carry MACs.
    private func openConfiguration() async throws(NFCTagError) -> UltralightAESConfiguration {
        try await authenticateIfPasswordSet()
        let configuration = try await readUltralightAESConfiguration()
        if configuration.protects(page: UltralightAESMemory.cfg0Page), ultralightAESKey == nil {
            throw NFCTagError(
                .passwordRequired, at: UltralightAESMemory.cfg0Page * Type2Command.pageSize,
                "pages from \(configuration.auth0) on are protected: the tag's current AES key is needed (--keys FILE)")
        }
        return configuration
    }

    /// Throws ``NFCTagError/Code/notSupported`` unless identification named an Ultralight AES.
    func requireUltralightAES() throws(NFCTagError) {
        guard isUltralightAES else {
            throw NFCTagError(.notSupported, "AES protection needs an identified MIFARE Ultralight AES")
        }
    }
}
