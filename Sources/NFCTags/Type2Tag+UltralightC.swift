import NFCCore

/// MIFARE Ultralight C: the 3DES mutual authentication and the protection by AUTH0, AUTH1 and
/// the key in pages 2Ch–2Fh (MF0ICU2 datasheet 7.5.5–7.5.8).
extension Type2Tag {
    /// Runs the mutual authentication with `key` (``UltralightCAuthentication``), RndA from the
    /// system's secure random source. Afterwards, pages from AUTH0 on can be read and written
    /// until the tag is halted or leaves the field.
    ///
    /// A chip that refuses the key goes idle: poll again before the next command.
    /// - Throws: ``NFCTagError/Code/authenticationFailed`` when the chip refuses (NAK: a wrong
    ///   key) or its answer does not prove the key; `notSupported` when the chip does not answer
    ///   AUTHENTICATE as an Ultralight C; `connectionLost`. The key never appears in an error.
    public func authenticate(with key: UltralightCKey) async throws(NFCTagError) {
        try await authenticateMutually(
            key: key, keyNumber: UltralightCCommand.keyNumber,
            refusal: (.notSupported, "the tag does not answer AUTHENTICATE: it is no MIFARE Ultralight C"))
    }

    /// Reads pages 28h–2Bh: lock bytes 2–3, the counter, AUTH0 and AUTH1.
    /// - Throws: ``NFCTagError/Code/notSupported`` unless the chip is an Ultralight C;
    ///   `passwordRequired` when the chip refuses (read protection) and no key is set.
    public func readUltralightCConfiguration() async throws(NFCTagError) -> UltralightCConfiguration {
        try requireUltralightC()
        do {
            return try UltralightCConfiguration(bytes: try await read(page: UltralightCMemory.lockPage))
        } catch where ultralightCKey == nil && error.readerError?.code == .nak {
            throw NFCTagError(
                .passwordRequired, at: UltralightCMemory.lockPage * Type2Command.pageSize,
                "the configuration pages are read-protected: the tag's 3DES key is needed", readerError: error.readerError)
        }
    }

    /// Protects the tag with `newKey`: reads need it too when `protection.readProtected`,
    /// writes from ``UltralightCProtection/firstProtectedPage`` on always.
    ///
    /// Tear-safe order (docs/tags.md): when the tag is protected already, AUTH0 = 30h is written
    /// first, so the tag is open, never guarded by a half-written key; then the four key pages,
    /// AUTH1, and AUTH0 last. Cut anywhere, the tag is protected by the old key, open, or
    /// protected by the new key. The capability container is not touched. Afterwards the tag is
    /// selected again (a new key only counts from the next activation, MF0ICU2 7.5.7), the new
    /// key authenticated and AUTH0/AUTH1 read back.
    ///
    /// Changing the key of a protected tag needs the current one in ``ultralightCKey``.
    /// - Throws: ``NFCTagError`` `notSupported` (not an Ultralight C), `invalidParameter`,
    ///   `passwordRequired` (protected and no current key) — nothing written — or
    ///   `authenticationFailed` (a wrong current key: nothing written), `connectionLost`,
    ///   `verificationFailed`.
    ///
    /// `verify` false leaves out the check afterwards: for a write plan, where the new key was
    /// never written and authenticating with it would only fail.
    public func protectUltralightC(
        with newKey: UltralightCKey, protection: UltralightCProtection = UltralightCProtection(), verify: Bool = true
    ) async throws(NFCTagError) {
        try requireUltralightC()
        guard (UltralightCMemory.auth0Lowest..<UltralightCMemory.totalPages).contains(protection.firstProtectedPage) else {
            throw NFCTagError(.invalidParameter, "the first protected page must lie in 3…47, not \(protection.firstProtectedPage)")
        }
        try await authenticateIfPasswordSet()
        let configuration = try await readUltralightCConfiguration()
        if configuration.protects(page: UltralightCMemory.auth0Page), ultralightCKey == nil {
            throw NFCTagError(
                .passwordRequired, at: UltralightCMemory.auth0Page * Type2Command.pageSize,
                "pages from \(configuration.auth0) on are protected: the tag's current 3DES key is needed")
        }
        let auth0Page = configuration.page(UltralightCMemory.auth0Page)
        let auth1Page = configuration.page(UltralightCMemory.auth1Page)
        if configuration.isProtected {
            try await write(page: UltralightCMemory.auth0Page, [UltralightCMemory.auth0Unprotected] + auth0Page[1...])
        }
        try await writeKeyPages(newKey.pageImage, UltralightCMemory.keyPages)
        try await write(page: UltralightCMemory.auth1Page, [protection.auth1] + auth1Page[1...])
        try await write(page: UltralightCMemory.auth0Page, [UInt8(protection.firstProtectedPage)] + auth0Page[1...])
        guard verify else { return }
        var check = self
        check.ultralightCKey = newKey
        try await check.reselect()
        try await check.authenticate(with: newKey)
        let after = try await check.readUltralightCConfiguration()
        guard after.auth0 == protection.firstProtectedPage, after.auth1 == protection.auth1 else {
            throw NFCTagError(
                .verificationFailed, at: UltralightCMemory.auth0Page * Type2Command.pageSize,
                "AUTH0/AUTH1 read back differ from what was written")
        }
    }

    /// Removes the protection: AUTH0 = 30h first (the tag is open from then on), AUTH1 back to
    /// 00h, then the key back to the factory key (``UltralightCKey/factoryDefault``). Needs the
    /// current key in ``ultralightCKey`` when the tag is protected.
    /// - Throws: as ``protectUltralightC(with:protection:)``.
    public func unprotectUltralightC() async throws(NFCTagError) {
        try requireUltralightC()
        try await authenticateIfPasswordSet()
        let configuration = try await readUltralightCConfiguration()
        if configuration.protects(page: UltralightCMemory.auth0Page), ultralightCKey == nil {
            throw NFCTagError(
                .passwordRequired, at: UltralightCMemory.auth0Page * Type2Command.pageSize,
                "pages from \(configuration.auth0) on are protected: the tag's 3DES key is needed")
        }
        let auth0Page = configuration.page(UltralightCMemory.auth0Page)
        let auth1Page = configuration.page(UltralightCMemory.auth1Page)
        if configuration.auth0 != Int(UltralightCMemory.auth0Unprotected) {
            try await write(page: UltralightCMemory.auth0Page, [UltralightCMemory.auth0Unprotected] + auth0Page[1...])
        }
        if configuration.auth1 != 0 { try await write(page: UltralightCMemory.auth1Page, [0x00] + auth1Page[1...]) }
        try await writeKeyPages(UltralightCKey.factoryDefault.pageImage, UltralightCMemory.keyPages)
        var check = self
        check.ultralightCKey = nil
        let after = try await check.readUltralightCConfiguration()
        guard after.auth0 == Int(UltralightCMemory.auth0Unprotected) else {
            throw NFCTagError(
                .verificationFailed, at: UltralightCMemory.auth0Page * Type2Command.pageSize, "AUTH0 read back is not 30h")
        }
    }

    /// Throws ``NFCTagError/Code/notSupported`` unless identification named an Ultralight C.
    func requireUltralightC() throws(NFCTagError) {
        guard isUltralightC else {
            throw NFCTagError(.notSupported, "3DES protection needs an identified MIFARE Ultralight C")
        }
    }
}
