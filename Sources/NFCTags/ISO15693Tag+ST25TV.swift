import NFCCore

/// ST25TV02K / ST25TV512 area protection (``ST25TVAreaSecurity``, ``ST25TVAreaPassword``): one
/// call per operation that checks, plans and performs every step, so `nfctool protect` and
/// `unprotect` (and `--plan`, through a ``PlanningReader``) run the same sequence.
extension ISO15693Tag {
    /// The ST25TV02K's memory organisation and area attributes, read with READ CONFIGURATION
    /// (`06` LOCK_CFG, `00` area 1, `01` area 2). Reads only.
    public struct ST25TVAreaState: Sendable, Hashable {
        /// Area 1's attribute byte.
        public var area1: UInt8
        /// Area 2's attribute byte.
        public var area2: UInt8
        /// LOCK_CFG.
        public var lockConfiguration: UInt8

        /// One user area (MEM_ORG set): password 1 is 64 bits, area 2 does not exist.
        public var singleArea: Bool { area1 & ST25TVRegister.singleAreaBit != 0 }
        /// Whether the configuration is locked for good (LOCK_CFG bit 0).
        public var configurationLocked: Bool { lockConfiguration & 0x01 != 0 }
        /// The security bits of `area`.
        public func security(_ area: Int) -> ST25TVAreaSecurity { ST25TVAreaSecurity(area == 1 ? area1 : area2) }
        /// Whether any area that exists is protected.
        public var anyProtected: Bool { security(1).protectsWrites || (!singleArea && security(2).protectsWrites) }
    }

    /// Reads LOCK_CFG and both area attributes.
    /// - Throws: ``NFCTagError`` `notSupported` (not an ST25TV02K; nothing sent); as
    ///   ``st25ReadConfiguration(_:)``.
    public func st25tvAreaState() async throws(NFCTagError) -> ST25TVAreaState {
        guard hasST25TVConfiguration else {
            throw NFCTagError(.notSupported, "area attributes are an ST25TV02K's; this is a \(identity.model)")
        }
        let lock = try await st25ReadConfiguration(ST25TVRegister.lockConfiguration)
        let area1 = try await st25ReadConfiguration(ST25TVRegister.area1Security)
        let area2 = try await st25ReadConfiguration(ST25TVRegister.area2Security)
        return ST25TVAreaState(area1: area1, area2: area2, lockConfiguration: lock)
    }

    /// Protects one ST25TV02K area behind `new`, which becomes the area's password (64 bits
    /// with one area: passwords 1 and 2 hold its halves) and, by its first 4 bytes, the
    /// configuration password 3 (left at its factory value, anyone could write the attribute
    /// back). `current` is the password now (nil: the factory zeros).
    ///
    /// Steps, so that an interruption leaves the area open, or protected only behind a password
    /// the user holds: (1) READ CONFIGURATION of LOCK_CFG and both attributes: a locked
    /// configuration, a missing area 2 or a password of the wrong length is refused here,
    /// nothing written; (2) PRESENT PASSWORD 3 with the current, else the new configuration
    /// password (a check: nothing is written after a refusal); (3) PRESENT PASSWORD of the area
    /// with the current, the new, the half-changed (a 64-bit change cut between its two WRITE
    /// PASSWORDs) or the factory password, then WRITE PASSWORD with the new one (one or two
    /// halves); (4) PRESENT PASSWORD 3 again (a PRESENT of another password closes its session),
    /// WRITE CONFIGURATION of the area attribute (bits 1–0; MEM_ORG kept), WRITE PASSWORD 3;
    /// (5) the attribute read back. A rerun with the same passwords finishes a cut run.
    /// - Throws: ``NFCTagError`` `notSupported` (not an ST25TV02K; nothing sent);
    ///   `invalidParameter` (area 2 with one area, a 4-byte password with one area or 8 with
    ///   two: nothing written); `readOnly` (LOCK_CFG set: nothing written);
    ///   `authenticationFailed` (a password not taken: nothing written); `verificationFailed`
    ///   (the attribute reads back otherwise); `tagResponse`, `connectionLost`.
    public func st25tvProtect(_ protection: ST25TVProtection, password new: ST25TVAreaPassword, current: ST25TVAreaPassword?) async throws(NFCTagError) {
        let state = try await st25tvAreaState()
        let current = try st25tvCheck(state, area: protection.area, new, current: current)
        try await st25tvPresentAny(ST25TVCommand.configurationPassword, [current.configuration, new.configuration])
        let factory = ST25TVAreaPassword.factoryDefault(sixtyFourBit: new.isSixtyFourBit)
        let halfway = new.firstHalf(over: current).map { [$0] } ?? []
        try await st25tvPresentArea(protection.passwordNumber, [current, new] + halfway + [factory])
        try await st25tvWriteAreaPassword(protection.passwordNumber, new)
        try await st25tvPresentPassword(ST25TVCommand.configurationPassword, current.configuration, orElse: new.configuration)
        let register = protection.register
        let old = protection.area == 1 ? state.area1 : state.area2
        let wanted = (old & ~ST25TVRegister.protectionMask) | protection.protection
        try await st25WriteConfiguration(register, wanted)
        try await st25tvWritePassword(ST25TVCommand.configurationPassword, new.configuration.bytes)
        let read = try await st25ReadConfiguration(register)
        guard read == wanted else {
            throw NFCTagError(.verificationFailed, "area \(protection.area)'s attribute reads back \(hexByte(read)), not \(hexByte(wanted))")
        }
    }

    /// Opens one ST25TV02K area again with its password `current` (its first 4 bytes are the
    /// configuration password, as ``st25tvProtect(_:password:current:)`` sets them, unless
    /// `configuration` names password 3: another area protected later with another password
    /// made password 3 that area's).
    ///
    /// Steps: (1) READ CONFIGURATION as for protect (a locked configuration is refused, nothing
    /// written); (2) checks, nothing written yet: when `current` is not the factory password,
    /// PRESENT PASSWORD of the area (current, half-cleared, factory), then PRESENT PASSWORD 3
    /// (`configuration`, the current's first 4 bytes, else the factory zeros: a rerun after the
    /// last step) — a password refused here exits with nothing written; (3) the attribute's bits
    /// 1–0 cleared with WRITE CONFIGURATION when set; (4) the area's password PRESENTed again (a
    /// PRESENT PASSWORD, taken or not, closes the session opened before it) and WRITE PASSWORD
    /// back to zeros; (5) when no area is protected any more, password 3 PRESENTed again and
    /// back to zeros; (6) the attribute read back (last, so that a `--plan` lists every step).
    /// The area is open before any password changes, so a cut run leaves it open or protected
    /// behind `current`.
    /// - Throws: as ``st25tvProtect(_:password:current:)``; `authenticationFailed` (the area's
    ///   password or password 3 not taken: nothing written); `verificationFailed` when the
    ///   attribute still reads protected.
    /// - Returns: the other area, when it exists and still needs a password to write.
    @discardableResult
    public func st25tvUnprotect(
        area: Int, current: ST25TVAreaPassword, configuration: ST25TVPassword? = nil
    ) async throws(NFCTagError) -> [Int] {
        let protection = try ST25TVProtection(area: area)
        var state = try await st25tvAreaState()
        _ = try st25tvCheck(state, area: area, current, current: current)
        let factory = ST25TVAreaPassword.factoryDefault(sixtyFourBit: current.isSixtyFourBit)
        // Every password needed is checked before the first write.
        var areaPassword: ST25TVAreaPassword?
        if current != factory {
            let halfway = factory.firstHalf(over: current).map { [$0] } ?? []
            do {
                areaPassword = try await st25tvPresentArea(protection.passwordNumber, [current] + halfway + [factory])
            } catch where error.code == .authenticationFailed {
                throw NFCTagError(.authenticationFailed, "\(error.reason): nothing was written, area \(area) is still protected")
            }
        }
        let configurationCandidates = (configuration.map { [$0] } ?? []) + [current.configuration, factory.configuration]
        let configurationPassword: ST25TVPassword
        do {
            configurationPassword = try await st25tvPresentAny(ST25TVCommand.configurationPassword, configurationCandidates)
        } catch where error.code == .authenticationFailed {
            let hint = configuration == nil
                ? "password 3 is not the first 8 digits of this password (another area protected later with another password sets it): give it with --configuration-password-file"
                : "password 3 is neither the configuration password given nor the first 8 digits of this password"
            throw NFCTagError(.authenticationFailed, "\(error.reason); \(hint): nothing was written, area \(area) is still protected")
        }
        let register = protection.register
        let old = area == 1 ? state.area1 : state.area2
        let wanted = old & ~ST25TVRegister.protectionMask
        if ST25TVAreaSecurity(old).protectsWrites {
            try await st25WriteConfiguration(register, wanted)
            if area == 1 { state.area1 = wanted } else { state.area2 = wanted }
        }
        if let areaPassword, areaPassword != factory {
            try await st25tvPresentArea(protection.passwordNumber, [areaPassword])
            try await st25tvWriteAreaPassword(protection.passwordNumber, factory)
        }
        if current != factory, !state.anyProtected, configurationPassword != factory.configuration {
            try await st25tvPresentAny(ST25TVCommand.configurationPassword, [configurationPassword])
            try await st25tvWritePassword(ST25TVCommand.configurationPassword, factory.configuration.bytes)
        }
        // Read back last, so that a --plan (writes held back) still lists every step.
        let read = try await st25ReadConfiguration(register)
        guard ST25TVAreaSecurity(read) == ST25TVAreaSecurity(wanted) else {
            throw NFCTagError(.verificationFailed, "area \(area)'s attribute reads back \(hexByte(read)): area \(area) is still protected")
        }
        let other = 3 - area
        return !state.singleArea && state.security(other).protectsWrites ? [other] : []
    }

    /// The current password to use (`current`, else the factory zeros of the area's length),
    /// after checking the state allows the area and `password`'s length.
    private func st25tvCheck(
        _ state: ST25TVAreaState, area: Int, _ password: ST25TVAreaPassword, current: ST25TVAreaPassword?
    ) throws(NFCTagError) -> ST25TVAreaPassword {
        if state.configurationLocked {
            throw NFCTagError(.readOnly, "the \(identity.model)'s configuration is locked for good (LOCK_CFG): its area protection cannot change")
        }
        if state.singleArea && area != 1 {
            throw NFCTagError(.invalidParameter, "this \(identity.model) has one user area (MEM_ORG set): there is no area 2")
        }
        let sixtyFour = state.singleArea && area == 1
        let digits = sixtyFour ? "16 hex digits (64 bits: the chip has one user area)" : "8 hex digits (32 bits: the chip has two user areas)"
        guard password.isSixtyFourBit == sixtyFour, current.map({ $0.isSixtyFourBit == sixtyFour }) ?? true else {
            throw NFCTagError(.invalidParameter, "this \(identity.model)'s area \(area) password is \(digits)")
        }
        return current ?? .factoryDefault(sixtyFourBit: sixtyFour)
    }

    /// PRESENT PASSWORD `number` (4 bytes) with each candidate in turn until one is taken; the
    /// one taken.
    @discardableResult
    private func st25tvPresentAny(_ number: UInt8, _ candidates: [ST25TVPassword]) async throws(NFCTagError) -> ST25TVPassword {
        var tried: [ST25TVPassword] = []
        var last: NFCTagError?
        for candidate in candidates where !tried.contains(candidate) {
            tried.append(candidate)
            do {
                try await st25tvPresentPassword(number, candidate)
                return candidate
            } catch where error.code == .authenticationFailed {
                last = error
            }
        }
        throw last ?? NFCTagError(.authenticationFailed, "no password to present")
    }

    /// PRESENT PASSWORD `number` with `first`, else `second`.
    private func st25tvPresentPassword(_ number: UInt8, _ first: ST25TVPassword, orElse second: ST25TVPassword) async throws(NFCTagError) {
        try await st25tvPresentAny(number, [first, second])
    }

    /// PRESENT PASSWORD of an area password (4 or 8 bytes, covered) with each candidate in turn;
    /// the one taken.
    @discardableResult
    private func st25tvPresentArea(_ number: UInt8, _ candidates: [ST25TVAreaPassword]) async throws(NFCTagError) -> ST25TVAreaPassword {
        var tried: [ST25TVAreaPassword] = []
        var last: NFCTagError?
        for candidate in candidates where !tried.contains(candidate) {
            tried.append(candidate)
            let random = try await st25tvRandomNumber()
            guard let covered = candidate.covered(by: random) else {
                throw NFCTagError(.tagResponse, "GET RANDOM NUMBER answered \(random.count) bytes, not 2")
            }
            do {
                _ = try await send(
                    ST25Command.presentPassword, [number] + covered, manufacturerCode: ST25Command.manufacturerCode,
                    what: "PRESENT PASSWORD \(number)", expect: 0)
                return candidate
            } catch where error.code == .connectionLost || error.code == .tagResponse {
                last = NFCTagError(.authenticationFailed, "the chip did not take password \(number) (\(error.reason))")
                if error.code == .connectionLost { break }
            }
        }
        throw last ?? NFCTagError(.authenticationFailed, "no password to present")
    }

    /// WRITE PASSWORD of an area: 4 bytes, or (64 bits) bytes 0–3 to password 1 and 4–7 to
    /// password 2, in the session of password 1.
    private func st25tvWriteAreaPassword(_ number: UInt8, _ password: ST25TVAreaPassword) async throws(NFCTagError) {
        if password.isSixtyFourBit {
            try await st25tvWritePassword(ST25TVCommand.area1Password, Array(password.bytes.prefix(4)))
            try await st25tvWritePassword(ST25TVCommand.area2Password, Array(password.bytes.suffix(4)))
        } else {
            try await st25tvWritePassword(number, password.bytes)
        }
    }

    /// WRITE PASSWORD `number` with 4 clear bytes (as the ST25 SDK sends them).
    private func st25tvWritePassword(_ number: UInt8, _ bytes: [UInt8]) async throws(NFCTagError) {
        _ = try await send(
            ST25Command.writePassword, [number] + bytes, manufacturerCode: ST25Command.manufacturerCode,
            what: "WRITE PASSWORD \(number)", expect: 0)
    }
}
