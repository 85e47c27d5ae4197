public import NFCCore

extension Type2Command {
    /// PWD_AUTH (0x1B, 4 password bytes): answered by PACK, or a NAK (NTAG21x 10.7).
    public static let passwordAuthenticate: UInt8 = 0x1B
    /// READ_SIG (0x3C, 0x00): the 32-byte ECC originality signature (NTAG21x 10.8).
    public static let readSignature: UInt8 = 0x3C
    /// The length of an NTAG21x / Ultralight EV1 READ_SIG answer: `r ‖ s` on secp128r1.
    public static let signatureLength = 32
}

/// Locking, formatting, password protection and the originality signature of Type 2 tags: the
/// NFC Forum procedures (Type 2 Tag 1.2, 8) completed by the NTAG21x / Ultralight EV1
/// specifics of ``Type2ChipProfile``.
extension Type2Tag {
    // MARK: - Password

    /// PWD_AUTH with `password`, checking that the tag answers its PACK.
    ///
    /// A chip that refuses the password goes idle: poll again before the next command.
    /// - Throws: ``NFCTagError/Code/authenticationFailed`` for a NAK (wrong password, or
    ///   AUTHLIM reached) or a PACK other than the expected one; `connectionLost`. The password
    ///   never appears in the error.
    public func authenticate(with password: NTAGPassword) async throws(NFCTagError) {
        let answer: Bytes
        do {
            answer = try await reader.transceive(
                Bytes([Type2Command.passwordAuthenticate] + password.password), mode: .standard, timeout: commandTimeout)
        } catch where error.code == .nak || error.code == .authenticationFailed {
            let reason = error.detail == 0x4
                ? "the tag no longer accepts passwords (too many wrong attempts, AUTHLIM)"
                : "the tag refused the password"
            throw NFCTagError(.authenticationFailed, reason, readerError: error)
        } catch {
            throw NFCTagError(error, during: "PWD_AUTH")
        }
        guard answer.count == 2 else {
            throw NFCTagError(.tagResponse, "PWD_AUTH answered \(answer.count) bytes, not the 2 of PACK")
        }
        guard answer.array == password.acknowledge else {
            throw NFCTagError(.authenticationFailed, "the tag answered a PACK other than the expected one: it may not be genuine")
        }
    }

    /// PWD_AUTH when ``password`` is set; the Ultralight C authentication when
    /// ``ultralightCKey`` is; the Ultralight AES one on an Ultralight AES with
    /// ``ultralightAESKey``.
    func authenticateIfPasswordSet() async throws(NFCTagError) {
        if let password { try await authenticate(with: password) }
        if isUltralightAES {
            if let ultralightAESKey { try await authenticate(with: ultralightAESKey) }
        } else if let ultralightCKey {
            try await authenticate(with: ultralightCKey)
        }
    }

    /// Reads CFG0 and CFG1.
    /// - Throws: ``NFCTagError/Code/notSupported`` without a ``profile``;
    ///   `passwordRequired` when the chip refuses the READ (read protection) and no password is
    ///   set.
    public func readConfiguration() async throws(NFCTagError) -> Type2Configuration {
        guard let profile else {
            throw NFCTagError(.notSupported, "the chip model is unknown, so are its configuration pages")
        }
        var cache = Type2PageCache()
        return try await cache.configuration(profile, on: self)
    }

    /// Throws ``NFCTagError/Code/passwordRequired`` (before anything is written) when a page
    /// among `pages` needs the password and none is set. Costs one READ of the configuration
    /// when the model is known and no password is set; nothing otherwise.
    func requireWriteAccess(toPages pages: [Int]) async throws(NFCTagError) {
        guard profile != nil, password == nil, !pages.isEmpty else { return }
        try requireWriteAccess(toPages: pages, configuration: try await readConfiguration())
    }

    /// The check of ``requireWriteAccess(toPages:)`` with the configuration already read.
    func requireWriteAccess(toPages pages: [Int], configuration: Type2Configuration?) throws(NFCTagError) {
        guard password == nil, let configuration, let protected = pages.first(where: configuration.protects(page:)) else { return }
        throw NFCTagError(
            .passwordRequired, at: protected * Type2Command.pageSize,
            "pages from \(configuration.auth0) on are password-protected: the tag's password is needed")
    }

    /// Protects the tag with `new`: PACK, PWD, ACCESS (PROT, AUTHLIM), then AUTH0 last, so that
    /// an interruption before the end leaves the tag unprotected rather than protected by a
    /// half-written password. The capability container is never touched (phones must still see
    /// CC3 = 00 to read the tag; cf. nfcpy issue #236). Afterwards the configuration is read
    /// back and the new password authenticated.
    ///
    /// Changing a password needs the current one in ``password``.
    /// - Throws: ``NFCTagError`` `notSupported` (model unknown), `invalidParameter`, `readOnly`
    ///   (CFGLCK set), `passwordRequired` (protected and no current password) — nothing written —
    ///   or `authenticationFailed`, `connectionLost`, `verificationFailed`.
    public func setPassword(_ new: NTAGPassword, protection: NTAGProtection = NTAGProtection()) async throws(NFCTagError) {
        guard let profile else {
            throw NFCTagError(.notSupported, "the chip model is unknown: password protection needs an identified NTAG21x or Ultralight EV1")
        }
        guard (3..<profile.totalPages).contains(protection.firstProtectedPage) else {
            throw NFCTagError(.invalidParameter, "the first protected page must lie in 3…\(profile.totalPages - 1), not \(protection.firstProtectedPage)")
        }
        guard (0...7).contains(protection.authenticationLimit) else {
            throw NFCTagError(.invalidParameter, "the authentication limit is 0 (none) to 7, not \(protection.authenticationLimit)")
        }
        try await authenticateIfPasswordSet()
        let configuration = try await readConfiguration()
        guard !configuration.isLocked else {
            throw NFCTagError(.readOnly, at: profile.accessPage * 4, "the configuration is locked for good (CFGLCK): the password cannot change")
        }
        try requireWriteAccess(toPages: [profile.passwordPage], configuration: configuration)
        var access = configuration.access & ~(Type2Configuration.protBit | Type2Configuration.authenticationLimitMask)
        if protection.readProtected { access |= Type2Configuration.protBit }
        access |= UInt8(protection.authenticationLimit)
        var cfg0 = configuration.cfg0
        cfg0[3] = UInt8(protection.firstProtectedPage)
        try await write(page: profile.packPage, new.acknowledge + [0, 0])
        try await write(page: profile.passwordPage, new.password)
        try await write(page: profile.accessPage, [access] + configuration.cfg1[1...])
        try await write(page: profile.configurationPage, cfg0)
        var check = self
        check.password = new
        try await check.authenticate(with: new)
        let after = try await check.readConfiguration()
        guard after.auth0 == protection.firstProtectedPage, after.access == access else {
            throw NFCTagError(.verificationFailed, at: profile.configurationPage * 4, "the configuration read back differs from what was written")
        }
    }

    /// Removes the protection: AUTH0 = FFh first (the tag is unprotected from then on), then
    /// PROT and AUTHLIM cleared, PWD back to `FFFFFFFF` and PACK to `0000`. Needs the current
    /// password in ``password`` when the tag is protected.
    /// - Throws: as ``setPassword(_:protection:)``.
    public func removePassword() async throws(NFCTagError) {
        guard let profile else {
            throw NFCTagError(.notSupported, "the chip model is unknown: password protection needs an identified NTAG21x or Ultralight EV1")
        }
        try await authenticateIfPasswordSet()
        let configuration = try await readConfiguration()
        guard !configuration.isLocked else {
            throw NFCTagError(.readOnly, at: profile.accessPage * 4, "the configuration is locked for good (CFGLCK): the password cannot change")
        }
        try requireWriteAccess(toPages: [profile.configurationPage], configuration: configuration)
        var cfg0 = configuration.cfg0
        cfg0[3] = 0xFF
        let access = configuration.access & ~(Type2Configuration.protBit | Type2Configuration.authenticationLimitMask)
        if configuration.cfg0 != cfg0 { try await write(page: profile.configurationPage, cfg0) }
        if configuration.access != access { try await write(page: profile.accessPage, [access] + configuration.cfg1[1...]) }
        try await write(page: profile.passwordPage, NTAGPassword.factoryDefault.password)
        try await write(page: profile.packPage, NTAGPassword.factoryDefault.acknowledge + [0, 0])
        let after = try await readConfiguration()
        guard after.auth0 == 0xFF, after.access == access else {
            throw NFCTagError(.verificationFailed, at: profile.configurationPage * 4, "the configuration read back differs from what was written")
        }
    }

    // MARK: - Signature

    /// READ_SIG: the ECC originality signature NXP wrote at production, returned as read —
    /// 32 bytes on an NTAG21x or Ultralight EV1 (NTAG21x 10.8, MF0ULx1 8.9), 48 on an Ultralight
    /// AES (``UltralightAESCommand/signatureLength``; carried in secure messaging when a session
    /// runs). Verifying it needs NXP's public key and is left to the caller.
    /// - Throws: ``NFCTagError/Code/notSupported`` for chips without it; `tagResponse`,
    ///   `connectionLost`; `authenticationFailed` for a wrong answer MAC.
    public func readSignature() async throws(NFCTagError) -> Bytes {
        let expected: Int
        if isUltralightAES {
            expected = UltralightAESCommand.signatureLength
        } else if profile != nil {
            expected = Type2Command.signatureLength
        } else {
            throw NFCTagError(.notSupported, "READ_SIG needs an identified NTAG21x, Ultralight EV1 or Ultralight AES")
        }
        let answer = try await exchange([Type2Command.readSignature, 0x00], during: "READ_SIG")
        guard answer.count == expected else {
            throw NFCTagError(.tagResponse, "READ_SIG answered \(answer.count) bytes, not \(expected)")
        }
        return Bytes(answer)
    }

    /// READ_CNT (`39 nn`): one-way counter `number` (0–2) of an Ultralight EV1 or Ultralight AES,
    /// 24 bits sent least significant byte first (MF0ULx1 9.10; Proxmark3 reads the Ultralight
    /// AES's three counters so). Carried in secure messaging when a session runs.
    /// - Throws: ``NFCTagError/Code/invalidParameter`` for a number past 2; `tagResponse` for an
    ///   answer that is not 3 bytes; a NAK (a counter that needs authentication) as the reader
    ///   reports it.
    public func readCounter(_ number: Int) async throws(NFCTagError) -> Int {
        guard (0...2).contains(number) else { throw NFCTagError(.invalidParameter, "counter \(number) does not exist (0–2)") }
        let answer = try await exchange([Type2Command.readCounter, UInt8(number)], during: "READ_CNT \(number)")
        return try Self.counterValue(answer, number: number)
    }

    /// The value of a READ_CNT answer: 3 bytes, least significant first (0…FFFFFFh).
    /// - Throws: ``NFCTagError/Code/tagResponse`` for an answer of another length.
    public static func counterValue(_ answer: [UInt8], number: Int) throws(NFCTagError) -> Int {
        guard answer.count == 3 else {
            throw NFCTagError(.tagResponse, "READ_CNT \(number) answered \(answer.count) bytes, not 3")
        }
        return Int(answer[0]) | Int(answer[1]) << 8 | Int(answer[2]) << 16
    }

    /// Sends `command` (MACed when an Ultralight AES session runs) and returns the answer's
    /// data, its MAC checked and removed.
    private func exchange(_ command: [UInt8], during step: String) async throws(NFCTagError) -> [UInt8] {
        let protected = Bytes(try ultralightAESSession.protect(command))
        let raw: Bytes
        do {
            raw = try await reader.transceive(protected, mode: .standard, timeout: commandTimeout)
        } catch {
            throw NFCTagError(error, during: step)
        }
        return try ultralightAESSession.open(raw.array)
    }
}
