import NFCCore

/// STMicroelectronics ST25DV area passwords and protection (``ST25Command``), addressed as
/// every other command of ``ISO15693Tag``.
extension ISO15693Tag {
    /// Whether the chip takes the ST25DV's area passwords: an ST chip (UID maker `02`) whose
    /// IC reference is an ST25DV's (``ISO15693ChipTable/st25DVICReferences``).
    public var hasST25DVPasswords: Bool {
        icManufacturerCode == ST25Command.manufacturerCode
            && identity.icReference.map(ISO15693ChipTable.st25DVICReferences.contains) == true
    }

    /// READ CONFIGURATION (`A0`): the register at `pointer`.
    /// - Throws: ``NFCTagError`` `notSupported` for another maker's chip (nothing sent);
    ///   `tagResponse` (an error, or not 1 byte); `connectionLost`.
    public func st25ReadConfiguration(_ pointer: UInt8) async throws(NFCTagError) -> UInt8 {
        try requireST()
        let answer = try await send(
            ST25Command.readConfiguration, [pointer], manufacturerCode: ST25Command.manufacturerCode,
            what: "READ CONFIGURATION \(hexByte(pointer))", expect: 1)
        return answer[0]
    }

    /// WRITE CONFIGURATION (`A1`): `value` into the register at `pointer`; needs password 0's
    /// session (``st25PresentPassword(_:_:)``).
    /// - Throws: ``NFCTagError`` `tagResponse` (refused: no session), `connectionLost`.
    public func st25WriteConfiguration(_ pointer: UInt8, _ value: UInt8) async throws(NFCTagError) {
        try requireST()
        _ = try await send(
            ST25Command.writeConfiguration, [pointer, value], option: writeOptionFlag, manufacturerCode: ST25Command.manufacturerCode,
            what: "WRITE CONFIGURATION \(hexByte(pointer))", expect: 0)
    }

    /// PRESENT PASSWORD (`B3`): opens password `number`'s security session (0 configuration,
    /// 1–3 areas) until the chip leaves the field.
    /// - Throws: ``NFCTagError`` `authenticationFailed` when the chip refuses it or stays silent;
    ///   `notSupported` for another maker's chip (nothing sent).
    public func st25PresentPassword(_ number: UInt8, _ password: ST25Password) async throws(NFCTagError) {
        try requireST()
        do {
            _ = try await send(
                ST25Command.presentPassword, [number] + password.bytes, manufacturerCode: ST25Command.manufacturerCode,
                what: "PRESENT PASSWORD \(number)", expect: 0)
        } catch where error.code == .connectionLost || error.code == .tagResponse {
            throw NFCTagError(.authenticationFailed, "the chip did not take password \(number) (\(error.reason))")
        }
    }

    /// WRITE PASSWORD (`B1`): password `number` becomes `password`; its session must be open.
    /// - Throws: ``NFCTagError`` `tagResponse` (refused), `connectionLost`.
    public func st25WritePassword(_ number: UInt8, _ password: ST25Password) async throws(NFCTagError) {
        try requireST()
        _ = try await send(
            ST25Command.writePassword, [number] + password.bytes, option: writeOptionFlag, manufacturerCode: ST25Command.manufacturerCode,
            what: "WRITE PASSWORD \(number)", expect: 0)
    }

    /// The security status of area 1 (RFA1SS), read with READ CONFIGURATION.
    /// - Throws: as ``st25ReadConfiguration(_:)``.
    public func st25AreaSecurity(_ area: Int) async throws(NFCTagError) -> ST25AreaSecurity {
        guard let pointer = ST25DVRegister.areaSecurity(area) else {
            throw NFCTagError(.invalidParameter, "an ST25DV has areas 1–4")
        }
        return ST25AreaSecurity(register: try await st25ReadConfiguration(pointer))
    }

    /// What protects each area, in words (`area 1 (blocks 0–2047): write needs password 1`),
    /// from ENDA1–3 and RFA1SS–RFA4SS. Reads only. Areas past the memory (an ENDA at the last
    /// unit) are left out.
    /// - Throws: as ``st25ReadConfiguration(_:)``.
    public func st25AreaSummary(blockCount: Int?) async throws(NFCTagError) -> String {
        let ends = [
            try await st25ReadConfiguration(ST25DVRegister.enda1), try await st25ReadConfiguration(ST25DVRegister.enda2),
            try await st25ReadConfiguration(ST25DVRegister.enda3),
        ].map { (Int($0) + 1) * ST25DVRegister.endUnit / 4 }
        let lastBlock = (blockCount ?? ends[2]) - 1
        var parts: [String] = []
        var first = 0
        for area in 1...4 where first <= lastBlock {
            let last = area == 4 ? lastBlock : min(ends[area - 1] - 1, lastBlock)
            guard last >= first else { continue }
            let security = try await st25AreaSecurity(area)
            let what: String
            switch security.protection {
            case ST25AreaSecurity.open: what = "open"
            case ST25AreaSecurity.writeProtected: what = "write needs password \(security.password)"
            case ST25AreaSecurity.readWriteProtected:
                what = area == 1 ? "write needs password \(security.password)" : "read and write need password \(security.password)"
            default: what = area == 1 ? "never writable" : "read needs password \(security.password), never writable"
            }
            parts.append("area \(area) (blocks \(first)–\(last)): \(what)")
            first = last + 1
        }
        return parts.joined(separator: "; ")
    }

    /// Write-protects area 1 of an ST25DV (all of its memory while ENDA1 is the last unit, as
    /// delivered) behind `new`, which becomes both the area's password RF_PWD_1 and the
    /// configuration password RF_PWD_0 (with RF_PWD_0 left at its factory value, anyone could
    /// write RFA1SS back). Order, so that an interruption leaves the area open or behind
    /// passwords the user holds (old or new): (1) PRESENT PASSWORD 0 and 1, `current` first,
    /// `new` when refused (a run cut after a password change); (2) RFA1SS = password 1,
    /// write-protected; (3) WRITE PASSWORD 1, then 0; (4) RFA1SS read back.
    /// - Throws: ``NFCTagError`` `notSupported` (not an ST25DV; nothing sent);
    ///   `authenticationFailed` (neither password taken: nothing was written);
    ///   `verificationFailed` (RFA1SS reads back otherwise); `tagResponse`, `connectionLost`.
    public func st25Protect(password new: ST25Password, current: ST25Password) async throws(NFCTagError) {
        try requireST25DV()
        for number: UInt8 in [0, 1] { try await presentEither(number, current, new) }
        let wanted = ST25AreaSecurity(password: 1, protection: ST25AreaSecurity.writeProtected)
        try await st25WriteConfiguration(ST25DVRegister.rfa1ss, wanted.register)
        for number: UInt8 in [1, 0] { try await st25WritePassword(number, new) }
        let after = try await st25AreaSecurity(1)
        guard after == wanted else {
            throw NFCTagError(.verificationFailed, "RFA1SS reads back \(hexByte(after.register)), not \(hexByte(wanted.register))")
        }
    }

    /// Opens area 1 of an ST25DV again: (1) PRESENT PASSWORD 0 and 1 with `current`; (2) RFA1SS
    /// = open; (3) the passwords back to the factory zeros, 1 then 0; (4) RFA1SS read back.
    /// - Throws: as ``st25Protect(password:current:)``.
    public func st25Unprotect(current: ST25Password) async throws(NFCTagError) {
        try requireST25DV()
        for number: UInt8 in [0, 1] { try await presentEither(number, current, nil) }
        try await st25WriteConfiguration(ST25DVRegister.rfa1ss, ST25AreaSecurity(password: 0, protection: ST25AreaSecurity.open).register)
        if current != .factoryDefault {
            for number: UInt8 in [1, 0] { try await st25WritePassword(number, .factoryDefault) }
        }
        let after = try await st25AreaSecurity(1)
        guard !after.protectsWrites else {
            throw NFCTagError(.verificationFailed, "RFA1SS reads back \(hexByte(after.register)): area 1 is still protected")
        }
    }

    /// PRESENT PASSWORD `number` with `first`, then with `second` when the chip refuses the first.
    private func presentEither(_ number: UInt8, _ first: ST25Password, _ second: ST25Password?) async throws(NFCTagError) {
        do {
            try await st25PresentPassword(number, first)
        } catch where error.code == .authenticationFailed {
            guard let second, second != first else { throw error }
            try await st25PresentPassword(number, second)
        }
    }

    private func requireST() throws(NFCTagError) {
        guard icManufacturerCode == ST25Command.manufacturerCode else {
            throw NFCTagError(.notSupported, "ST25 commands are ST's; this chip's manufacturer code is \(hexByte(icManufacturerCode))")
        }
    }

    private func requireST25DV() throws(NFCTagError) {
        guard hasST25DVPasswords else {
            throw NFCTagError(.notSupported, "area passwords are an ST25DV's; this is a \(identity.model)")
        }
    }
}
