import NFCCore

/// NXP ICODE passwords, privacy and page protection (``ICodeCommand``), addressed as every
/// other command of ``ISO15693Tag``.
extension ISO15693Tag {
    /// The ICODE family member, from identification; nil for other chips.
    public var icodeVariant: ICodeVariant? { ICodeVariant(model: identity.knownModel) }

    /// GET RANDOM NUMBER (`B2`): the 2 bytes, least significant first.
    /// - Throws: ``NFCTagError`` `notSupported` for a chip of another maker (nothing sent);
    ///   `tagResponse` (an error, or not 2 bytes); `connectionLost`.
    public func icodeGetRandomNumber() async throws(NFCTagError) -> [UInt8] {
        try requireNXP()
        return try await send(
            ICodeCommand.getRandomNumber, manufacturerCode: ISO15693Command.nxpManufacturerCode, what: "GET RANDOM NUMBER", expect: 2)
    }

    /// SET PASSWORD (`B3`): a fresh GET RANDOM NUMBER, then `password` XOR it twice
    /// (``ICodePassword/xored(with:)``). A chip given a wrong password answers nothing and
    /// ignores every command until it leaves the field (SL2S2602 9.5.3.2).
    /// - Throws: ``NFCTagError`` `authenticationFailed` when the chip refuses or stays silent;
    ///   `notSupported` for another maker's chip; `connectionLost`, `tagResponse` for GET RANDOM NUMBER.
    public func icodeSetPassword(_ identifier: ICodePasswordIdentifier, _ password: ICodePassword) async throws(NFCTagError) {
        let random = try await icodeGetRandomNumber()
        do {
            _ = try await send(
                ICodeCommand.setPassword, [identifier.rawValue] + password.xored(with: random),
                manufacturerCode: ISO15693Command.nxpManufacturerCode, what: "SET PASSWORD (\(identifier))", expect: 0)
        } catch where error.code == .connectionLost || error.code == .tagResponse {
            throw NFCTagError(
                .authenticationFailed,
                "the chip did not take the \(identifier) password (\(error.reason)); it answers nothing more until it leaves the field")
        }
    }

    /// WRITE PASSWORD (`B4`): the new password in plain; the old one must have been given with
    /// SET PASSWORD. Takes effect at once: give the new one before protected commands.
    /// - Throws: ``NFCTagError`` `tagResponse` (refused: not given, or locked), `connectionLost`.
    public func icodeWritePassword(_ identifier: ICodePasswordIdentifier, _ password: ICodePassword) async throws(NFCTagError) {
        try requireNXP()
        _ = try await send(
            ICodeCommand.writePassword, [identifier.rawValue] + password.bytesOnAir, option: writeOptionFlag,
            manufacturerCode: ISO15693Command.nxpManufacturerCode, what: "WRITE PASSWORD (\(identifier))", expect: 0)
    }

    /// LOCK PASSWORD (`B5`): the password can never change again. Irreversible.
    /// - Throws: ``NFCTagError`` `tagResponse`, `connectionLost`.
    public func icodeLockPassword(_ identifier: ICodePasswordIdentifier) async throws(NFCTagError) {
        try requireNXP()
        _ = try await send(
            ICodeCommand.lockPassword, [identifier.rawValue], option: writeOptionFlag,
            manufacturerCode: ISO15693Command.nxpManufacturerCode, what: "LOCK PASSWORD (\(identifier))", expect: 0)
    }

    /// PROTECT PAGE (`B6`): `address` is the page number (SLIX-S) or the protection pointer
    /// (SLIX2), `status` an ``ICodePageProtection`` value.
    /// - Throws: ``NFCTagError`` `tagResponse`, `connectionLost`.
    public func icodeProtectPage(_ address: UInt8, status: UInt8) async throws(NFCTagError) {
        try requireNXP()
        _ = try await send(
            ICodeCommand.protectPage, [address, status], option: writeOptionFlag, manufacturerCode: ISO15693Command.nxpManufacturerCode,
            what: "PROTECT PAGE \(address) (\(hexByte(status)))", expect: 0)
    }

    /// LOCK PAGE PROTECTION CONDITION (`B7`). Irreversible.
    /// - Throws: ``NFCTagError`` `tagResponse`, `connectionLost`.
    public func icodeLockPageProtectionCondition(_ address: UInt8) async throws(NFCTagError) {
        try requireNXP()
        _ = try await send(
            ICodeCommand.lockPageProtectionCondition, [address], option: writeOptionFlag,
            manufacturerCode: ISO15693Command.nxpManufacturerCode, what: "LOCK PAGE PROTECTION CONDITION \(address)", expect: 0)
    }

    /// GET MULTIPLE BLOCK PROTECTION STATUS (`B8`): one ``ICodeBlockProtection`` byte per block
    /// of `range` (at most 256 blocks).
    /// - Throws: ``NFCTagError`` `invalidParameter`; `tagResponse` (error, or not one byte per
    ///   block); `connectionLost`.
    public func icodeBlockProtectionStatus(_ range: Range<Int>) async throws(NFCTagError) -> [UInt8] {
        try requireNXP()
        let parameters = try Self.rangeParameters(range, extended: false)
        return try await send(
            ICodeCommand.getMultipleBlockProtectionStatus, parameters, manufacturerCode: ISO15693Command.nxpManufacturerCode,
            what: "GET MULTIPLE BLOCK PROTECTION STATUS \(range.lowerBound)–\(range.upperBound - 1)", expect: range.count)
    }

    /// ENABLE PRIVACY (`BA`): with the right privacy password the chip answers nothing but GET
    /// RANDOM NUMBER and SET PASSWORD until SET PASSWORD gives the privacy password again.
    /// - Throws: ``NFCTagError`` `authenticationFailed` (refused or silent), `connectionLost`.
    public func icodeEnablePrivacy(_ password: ICodePassword) async throws(NFCTagError) {
        let random = try await icodeGetRandomNumber()
        do {
            _ = try await send(
                ICodeCommand.enablePrivacy, password.xored(with: random), option: writeOptionFlag,
                manufacturerCode: ISO15693Command.nxpManufacturerCode, what: "ENABLE PRIVACY", expect: 0)
        } catch where error.code == .connectionLost || error.code == .tagResponse {
            throw NFCTagError(.authenticationFailed, "the chip did not take the privacy password (\(error.reason))")
        }
    }

    /// Leaves privacy mode: SET PASSWORD with the privacy password (SL2S2602 ENABLE PRIVACY).
    /// - Throws: as ``icodeSetPassword(_:_:)``.
    public func icodeLeavePrivacy(_ password: ICodePassword) async throws(NFCTagError) {
        try await icodeSetPassword(.privacy, password)
    }

    /// 64-BIT PASSWORD PROTECTION (`BB`): from then on protected pages need the read and the
    /// write password together. Irreversible.
    /// - Throws: ``NFCTagError`` `tagResponse`, `connectionLost`.
    public func icodeEnable64BitPasswordProtection() async throws(NFCTagError) {
        try requireNXP()
        _ = try await send(
            ICodeCommand.enable64BitPasswordProtection, option: writeOptionFlag, manufacturerCode: ISO15693Command.nxpManufacturerCode,
            what: "64-BIT PASSWORD PROTECTION", expect: 0)
    }

    /// DESTROY (`B9`): the destroy password XOR a fresh random number twice, as ENABLE
    /// PRIVACY; the chip then answers nothing, ever again (SL2S2602, SL2S5302, SL2S5002
    /// "DESTROY"). Irreversible.
    /// - Throws: ``NFCTagError`` `notSupported` (a chip without a destroy password; nothing
    ///   sent); `authenticationFailed` (refused or silent: a wrong password, nothing destroyed);
    ///   `connectionLost`.
    public func icodeDestroy(_ password: ICodePassword) async throws(NFCTagError) {
        guard icodeVariant?.passwords.contains(.destroy) == true else {
            throw NFCTagError(.notSupported, "the \(identity.model) has no DESTROY command")
        }
        let random = try await icodeGetRandomNumber()
        do {
            _ = try await send(
                ICodeCommand.destroy, password.xored(with: random), option: writeOptionFlag,
                manufacturerCode: ISO15693Command.nxpManufacturerCode, what: "DESTROY", expect: 0)
        } catch where error.code == .connectionLost || error.code == .tagResponse {
            throw NFCTagError(.authenticationFailed, "the chip did not take the destroy password (\(error.reason))")
        }
    }

    /// SET EAS (`A2`) when `on`, else RESET EAS (`A3`): the EAS mode; with EAS password
    /// protection on, the EAS/AFI password must have been given (SET PASSWORD `10`).
    /// - Throws: ``NFCTagError`` `tagResponse` (refused: locked, or the password not given),
    ///   `notSupported` (another maker's chip), `connectionLost`.
    public func icodeSetEAS(_ on: Bool) async throws(NFCTagError) {
        try requireNXP()
        let code = on ? ICodeCommand.setEAS : ICodeCommand.resetEAS
        _ = try await send(code, option: writeOptionFlag, manufacturerCode: ISO15693Command.nxpManufacturerCode, what: ICodeCommand.name(code), expect: 0)
    }

    /// LOCK EAS (`A4`): the EAS mode stays as it is. Irreversible.
    /// - Throws: ``NFCTagError`` `tagResponse`, `notSupported`, `connectionLost`.
    public func icodeLockEAS() async throws(NFCTagError) {
        try requireNXP()
        _ = try await send(
            ICodeCommand.lockEAS, option: writeOptionFlag, manufacturerCode: ISO15693Command.nxpManufacturerCode, what: "LOCK EAS", expect: 0)
    }

    /// PASSWORD PROTECT EAS/AFI (`A6`): from then on the EAS commands (`afi` false: option flag
    /// clear) or WRITE AFI and LOCK AFI (`afi` true: option flag set) need the EAS/AFI password
    /// (SL2S2002 "PASSWORD PROTECT EAS/AFI"). The EAS/AFI password must have been given.
    /// Irreversible.
    /// - Throws: ``NFCTagError`` `tagResponse`, `notSupported`, `connectionLost`.
    public func icodePasswordProtect(afi: Bool) async throws(NFCTagError) {
        try requireNXP()
        _ = try await send(
            ICodeCommand.passwordProtectEASAFI, option: afi, manufacturerCode: ISO15693Command.nxpManufacturerCode,
            what: "PASSWORD PROTECT EAS/AFI (\(afi ? "AFI" : "EAS"))", expect: 0)
    }

    /// EAS ALARM (`A5`, option flag clear, the ICODE SLI form every member takes): whether the
    /// EAS mode is on. The chip answers only then; its silence (a reader timeout) is `false`.
    /// - Throws: ``NFCTagError`` `notSupported` (another maker's chip, or a reader that cannot
    ///   send custom commands; nothing sent); `tagResponse` (an error answer); `connectionLost`
    ///   (the tag left the field).
    public func icodeEASAlarm() async throws(NFCTagError) -> Bool {
        try requireNXP()
        guard let answer = try await easAlarm(option: false, []) else { return false }
        guard ICodeEASAlarm.isAlarm(answer: answer) else {
            throw NFCTagError(.tagResponse, "EAS ALARM answered \(Hex.encode(answer))")
        }
        return true
    }

    /// EAS ALARM with the option flag and EAS ID mask length 0: the chip's 16-bit EAS ID
    /// (SLIX-S, SLIX-L, SLIX2; ``ICodeVariant/hasEASID``).
    /// - Throws: ``NFCTagError`` `notSupported` (a chip without an EAS ID, another maker's, or
    ///   a reader that cannot send custom commands; nothing sent); `tagResponse` (silence, an
    ///   error, or fewer than 2 bytes); `connectionLost`.
    public func icodeEASID() async throws(NFCTagError) -> UInt16 {
        try requireEASID()
        guard let answer = try await easAlarm(option: true, ICodeEASAlarm.easIDRequest) else {
            throw NFCTagError(.tagResponse, "EAS ALARM (EAS ID mask length 0) was not answered")
        }
        guard let id = ICodeEASAlarm.easID(answer: answer) else {
            throw NFCTagError(.tagResponse, "EAS ALARM (EAS ID mask length 0) answered \(Hex.encode(answer)), not an EAS ID")
        }
        return id
    }

    /// WRITE EAS ID (`A7`): the new EAS ID, least significant byte first; with EAS password
    /// protection on, SET PASSWORD EAS/AFI must come first; refused once LOCK EAS froze it.
    /// - Throws: ``NFCTagError`` `notSupported` (a chip without an EAS ID; nothing sent);
    ///   `readOnly` (locked); `tagResponse` (refused: the password not given); `connectionLost`.
    public func icodeWriteEASID(_ id: UInt16) async throws(NFCTagError) {
        try requireEASID()
        _ = try await send(
            ICodeCommand.writeEASID, [UInt8(truncatingIfNeeded: id), UInt8(truncatingIfNeeded: id >> 8)], option: writeOptionFlag,
            manufacturerCode: ISO15693Command.nxpManufacturerCode, what: "WRITE EAS ID \(Hex.number(id, width: 4))", expect: 0)
    }

    /// What `info` says of the EAS: `on (EAS ALARM answered), EAS ID 1234`, `off (EAS ALARM not
    /// answered), EAS ID 0000`, the EAS ID left out on a chip without one, and `unknown (…)`
    /// with the reason when a command could not be sent or was refused. Never throws: each part
    /// says what it could learn.
    public func icodeEASSummary() async -> String {
        let mode: String
        do throws(NFCTagError) {
            mode = try await icodeEASAlarm() ? "on (EAS ALARM answered)" : "off (EAS ALARM not answered)"
        } catch {
            return "unknown (\(error.reason))"
        }
        guard icodeVariant?.hasEASID == true else { return mode }
        do throws(NFCTagError) {
            return "\(mode), EAS ID \(Hex.number(try await icodeEASID(), width: 4))"
        } catch {
            return "\(mode), EAS ID unknown (\(error.reason))"
        }
    }

    /// Sends EAS ALARM; nil when the chip stayed silent (the reader timed out).
    private func easAlarm(option: Bool, _ parameters: [UInt8]) async throws(NFCTagError) -> [UInt8]? {
        do {
            return try await reader.transceive(
                Bytes(frame(ICodeCommand.easAlarm, parameters, option: option, manufacturerCode: ISO15693Command.nxpManufacturerCode)),
                mode: .standard, timeout: commandTimeout).array
        } catch where error.code == .timeout {
            return nil
        } catch {
            throw NFCTagError(error, during: "EAS ALARM")
        }
    }

    private func requireEASID() throws(NFCTagError) {
        try requireNXP()
        guard icodeVariant?.hasEASID == true else {
            throw NFCTagError(.notSupported, "the \(identity.model) has no EAS ID NFCKit knows of (ICODE SLIX-S, SLIX-L and SLIX2 have one)")
        }
    }

    func requireNXP() throws(NFCTagError) {
        guard icManufacturerCode == ISO15693Command.nxpManufacturerCode else {
            throw NFCTagError(.notSupported, "ICODE commands are NXP's; this chip's manufacturer code is \(hexByte(icManufacturerCode))")
        }
    }
}
