import NFCCore

/// STMicroelectronics ST25DV area passwords and protection (``ST25Command``) and ST25TV02K
/// passwords and configuration (``ST25TVCommand``), addressed as every other command of
/// ``ISO15693Tag``.
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

    /// The security status of an area (RFA1SS–RFA4SS), read with READ CONFIGURATION.
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
        var parts: [String] = []
        for (index, blocks) in try await st25AreaBlocks(blockCount: blockCount).enumerated() {
            guard let blocks else { continue }
            let area = index + 1
            let security = try await st25AreaSecurity(area)
            let what: String
            switch security.protection {
            case ST25AreaSecurity.open: what = "open"
            case ST25AreaSecurity.writeProtected: what = "write needs password \(security.password)"
            case ST25AreaSecurity.readWriteProtected:
                what = area == 1 ? "write needs password \(security.password)" : "read and write need password \(security.password)"
            default: what = area == 1 ? "never writable" : "read needs password \(security.password), never writable"
            }
            parts.append("area \(area) (blocks \(blocks.lowerBound)–\(blocks.upperBound)): \(what)")
        }
        return parts.joined(separator: "; ")
    }

    /// The blocks of ST25DV areas 1–4 (nil for an area that holds none: its end is the end of
    /// the area before it, or the memory ended before it), from ENDA1–3 (READ CONFIGURATION;
    /// DS10925 "user memory areas": area N ends at (ENDAN + 1) × 32 bytes) and `blockCount`
    /// (else ``ChipIdentity/blockCount``, else where ENDA3 ends). Reads only.
    /// - Throws: as ``st25ReadConfiguration(_:)``.
    public func st25AreaBlocks(blockCount: Int? = nil) async throws(NFCTagError) -> [ClosedRange<Int>?] {
        let ends = [
            try await st25ReadConfiguration(ST25DVRegister.enda1), try await st25ReadConfiguration(ST25DVRegister.enda2),
            try await st25ReadConfiguration(ST25DVRegister.enda3),
        ].map { (Int($0) + 1) * ST25DVRegister.endUnit / 4 }
        let lastBlock = (blockCount ?? identity.blockCount ?? ends[2]) - 1
        var areas: [ClosedRange<Int>?] = []
        var first = 0
        for area in 1...4 {
            let last = area == 4 ? lastBlock : min(ends[area - 1] - 1, lastBlock)
            if last >= first {
                areas.append(first...last)
                first = last + 1
            } else {
                areas.append(nil)
            }
        }
        return areas
    }

    /// Write-protects area 1 of an ST25DV behind `new` (``st25Protect(_:password:current:)``
    /// with area 1 and password 1).
    /// - Throws: as ``st25Protect(_:password:current:)``.
    public func st25Protect(password new: ST25Password, current: ST25Password) async throws(NFCTagError) {
        try await st25Protect(ST25AreaProtection(), password: new, current: current)
    }

    /// Protects one area of an ST25DV behind `new`, which becomes both the area's RF password
    /// (``ST25AreaProtection/passwordNumber``) and the configuration password RF_PWD_0 (with
    /// RF_PWD_0 left at its factory value, anyone could write the area's RFAxSS back). Order,
    /// so that an interruption leaves the area open or behind passwords the user holds (old,
    /// new, or the factory zeros of a password not set yet): (1) PRESENT PASSWORD 0 with
    /// `current`, else `new` (a run cut after a password change); PRESENT PASSWORD of the
    /// area's password with `current`, `new`, else the factory zeros; (2) the area's RFAxSS;
    /// (3) when ``ST25AreaProtection/firstBlock`` is given, ENDA of the area before it — after
    /// RFAxSS, so blocks moved into the area are protected from the moment they are in it;
    /// (4) WRITE PASSWORD of the area's password, then 0; (5) RFAxSS and ENDA read back.
    /// The new area bounds are checked against ENDA1–3 before anything is written.
    /// - Throws: ``NFCTagError`` `notSupported` (not an ST25DV; nothing sent);
    ///   `invalidParameter` (the first block does not fit between the neighbouring areas'
    ///   ends; nothing written); `authenticationFailed` (a password not taken: nothing
    ///   written); `verificationFailed` (a register reads back otherwise); `tagResponse`,
    ///   `connectionLost`. An area 2–4 that holds no block (ENDA1–3 as delivered, all at the
    ///   last unit) with no first block given is `invalidParameter`, nothing written: protecting
    ///   it would protect nothing.
    /// - Returns: the first block of the protected area.
    @discardableResult
    public func st25Protect(_ protection: ST25AreaProtection, password new: ST25Password, current: ST25Password) async throws(NFCTagError) -> Int {
        try requireST25DV()
        var firstBlock = protection.firstBlock ?? 0
        if protection.firstBlock == nil, protection.area > 1 {
            guard let blocks = try await st25AreaBlocks()[protection.area - 1] else {
                throw NFCTagError(
                    .invalidParameter,
                    "area \(protection.area) holds no block (it ends where area \(protection.area - 1) ends): give the block it is to begin at (--from-block); nothing was written")
            }
            firstBlock = blocks.lowerBound
        }
        let number = protection.passwordNumber
        try await presentAny(0, [current, new])
        try await presentAny(number, [current, new, .factoryDefault])
        var end: (pointer: UInt8, value: UInt8)?
        if let first = protection.firstBlock { end = try await st25EndBefore(area: protection.area, firstBlock: first) }
        guard let securityPointer = ST25DVRegister.areaSecurity(protection.area) else {
            throw NFCTagError(.invalidParameter, "an ST25DV has areas 1–4")
        }
        let wanted = protection.security
        try await st25WriteConfiguration(securityPointer, wanted.register)
        if let end { try await st25WriteConfiguration(end.pointer, end.value) }
        for password: UInt8 in [number, 0] { try await st25WritePassword(password, new) }
        let after = try await st25AreaSecurity(protection.area)
        guard after == wanted else {
            throw NFCTagError(.verificationFailed, "RFA\(protection.area)SS reads back \(hexByte(after.register)), not \(hexByte(wanted.register))")
        }
        if let end {
            let read = try await st25ReadConfiguration(end.pointer)
            guard read == end.value else {
                throw NFCTagError(.verificationFailed, "ENDA\(protection.area - 1) reads back \(hexByte(read)), not \(hexByte(end.value))")
            }
        }
        return firstBlock
    }

    /// Opens area 1 of an ST25DV again (``st25Unprotect(area:current:)`` with area 1).
    /// - Throws: as ``st25Unprotect(area:current:)``.
    /// - Returns: as ``st25Unprotect(area:current:)``.
    @discardableResult
    public func st25Unprotect(current: ST25Password) async throws(NFCTagError) -> [Int] {
        try await st25Unprotect(area: 1, current: current)
    }

    /// Opens one area of an ST25DV again: (1) PRESENT PASSWORD 0 with `current`; (2) the area's
    /// RFAxSS = open; (3) the area's password back to the factory zeros when no other area
    /// still uses it (PRESENT PASSWORD of it with `current` first), and RF_PWD_0 when no area
    /// is protected any more; (4) RFAxSS read back. Area bounds (ENDAx) are left as they are.
    /// - Throws: ``NFCTagError`` `invalidParameter` (no area 1–4); otherwise as
    ///   ``st25Protect(_:password:current:)``.
    /// - Returns: the other areas that still need a password to write (those holding blocks;
    ///   ENDA1–3 are read only when one is protected).
    @discardableResult
    public func st25Unprotect(area: Int, current: ST25Password) async throws(NFCTagError) -> [Int] {
        try requireST25DV()
        guard let pointer = ST25DVRegister.areaSecurity(area) else { throw NFCTagError(.invalidParameter, "an ST25DV has areas 1–4") }
        try await presentAny(0, [current])
        var securities: [ST25AreaSecurity] = []
        for index in 1...4 { securities.append(try await st25AreaSecurity(index)) }
        let number = securities[area - 1].password
        try await st25WriteConfiguration(pointer, ST25AreaSecurity(password: 0, protection: ST25AreaSecurity.open).register)
        securities[area - 1] = ST25AreaSecurity(password: 0, protection: ST25AreaSecurity.open)
        if current != .factoryDefault {
            if number != 0, !securities.contains(where: { $0.password == number && $0.protectsWrites }) {
                try await presentAny(number, [current])
                try await st25WritePassword(number, .factoryDefault)
            }
            if !securities.contains(where: \.protectsWrites) { try await st25WritePassword(0, .factoryDefault) }
        }
        let after = try await st25AreaSecurity(area)
        guard !after.protectsWrites else {
            throw NFCTagError(.verificationFailed, "RFA\(area)SS reads back \(hexByte(after.register)): area \(area) is still protected")
        }
        let others = (1...4).filter { $0 != area && securities[$0 - 1].protectsWrites }
        guard !others.isEmpty else { return [] }
        let blocks = try await st25AreaBlocks()
        return others.filter { blocks[$0 - 1] != nil }
    }

    /// The ENDA register (and its new value) that makes `area` begin at `firstBlock`, checked
    /// against the neighbouring ends: the area before keeps at least nothing (ENDA may equal the
    /// one before it), the area itself keeps at least one unit of 8 blocks.
    private func st25EndBefore(area: Int, firstBlock: Int) async throws(NFCTagError) -> (pointer: UInt8, value: UInt8) {
        let blocksPerUnit = ST25DVRegister.endUnit / 4
        let ends = [ST25DVRegister.enda1, ST25DVRegister.enda2, ST25DVRegister.enda3]
        guard (2...4).contains(area) else { throw NFCTagError(.invalidParameter, "area 1 always begins at block 0") }
        guard firstBlock > 0, firstBlock % blocksPerUnit == 0 else {
            throw NFCTagError(.invalidParameter, "an ST25DV area begins at a multiple of \(blocksPerUnit) blocks (units of 32 bytes)")
        }
        let blockCount = identity.blockCount ?? 0
        let lastUnit = blockCount * 4 / ST25DVRegister.endUnit - 1
        let value = firstBlock / blocksPerUnit - 1
        let below = area >= 3 ? Int(try await st25ReadConfiguration(ends[area - 3])) : -1
        let above = area <= 3 ? Int(try await st25ReadConfiguration(ends[area - 1])) : lastUnit
        guard value >= below, value < above, value <= 255 else {
            let from = (below + 1) * blocksPerUnit, to = above * blocksPerUnit
            throw NFCTagError(
                .invalidParameter,
                from <= to
                    ? "area \(area) can begin at blocks \(from)–\(to) (multiples of \(blocksPerUnit)) with the other areas' ends as they are"
                    : "area \(area) cannot begin anywhere with the other areas' ends as they are (area \(area) is empty and the next one begins right after area \(area - 1))")
        }
        return (ends[area - 2], UInt8(value))
    }

    /// PRESENT PASSWORD `number` with each candidate in turn until the chip takes one.
    private func presentAny(_ number: UInt8, _ candidates: [ST25Password]) async throws(NFCTagError) {
        var tried: [ST25Password] = []
        var last: NFCTagError?
        for candidate in candidates where !tried.contains(candidate) {
            tried.append(candidate)
            do {
                try await st25PresentPassword(number, candidate)
                return
            } catch where error.code == .authenticationFailed {
                last = error
            }
        }
        throw last ?? NFCTagError(.authenticationFailed, "no password to present")
    }

    // MARK: - ST25TV02K

    /// Whether the chip is an ST25TV02K or ST25TV512 (UID maker `02`, IC reference `23`), whose
    /// configuration registers and 32-bit passwords ``ST25TVCommand`` describes.
    public var hasST25TVConfiguration: Bool {
        icManufacturerCode == ST25Command.manufacturerCode && identity.icReference == ST25TVCommand.icReference
    }

    /// GET RANDOM NUMBER (`B4`): the 2 bytes the next PRESENT PASSWORD is covered with.
    /// - Throws: ``NFCTagError`` `notSupported` for another maker's chip (nothing sent);
    ///   `tagResponse` (an error, or not 2 bytes); `connectionLost`.
    public func st25tvRandomNumber() async throws(NFCTagError) -> [UInt8] {
        try requireST()
        return try await send(ST25TVCommand.getRandomNumber, manufacturerCode: ST25Command.manufacturerCode, what: "GET RANDOM NUMBER", expect: 2)
    }

    /// PRESENT PASSWORD on an ST25TV02K: GET RANDOM NUMBER, then `B3` with the password number
    /// and the 4 password bytes covered with that number (``ST25TVPassword/covered(by:)``).
    /// The session lasts until the chip leaves the field.
    /// - Throws: ``NFCTagError`` `authenticationFailed` when the chip refuses it or stays silent;
    ///   `notSupported` for another maker's chip; as ``st25tvRandomNumber()``.
    public func st25tvPresentPassword(_ number: UInt8, _ password: ST25TVPassword) async throws(NFCTagError) {
        let random = try await st25tvRandomNumber()
        guard let covered = password.covered(by: random) else {
            throw NFCTagError(.tagResponse, "GET RANDOM NUMBER answered \(random.count) bytes, not 2")
        }
        do {
            _ = try await send(
                ST25Command.presentPassword, [number] + covered, manufacturerCode: ST25Command.manufacturerCode,
                what: "PRESENT PASSWORD \(number)", expect: 0)
        } catch where error.code == .connectionLost || error.code == .tagResponse {
            throw NFCTagError(.authenticationFailed, "the chip did not take password \(number) (\(error.reason))")
        }
    }

    /// Changes ST25TV02K password `number` (0 kill/untraceable, 1–2 areas, 3 configuration; 32
    /// bits) from `current` to `new`: (1) PRESENT PASSWORD with `current`, else with `new` (a
    /// run cut after the change); (2) WRITE PASSWORD with the 4 new bytes, clear, as the ST25
    /// SDK sends them; (3) PRESENT PASSWORD with `new` to check it. A single write: torn, the
    /// password is the old or the new one.
    /// - Throws: ``NFCTagError`` `invalidParameter` (no password 0–3); `authenticationFailed`
    ///   (neither password taken: nothing written; or the new one refused after the write);
    ///   `tagResponse`, `connectionLost`.
    public func st25tvChangePassword(_ number: UInt8, to new: ST25TVPassword, current: ST25TVPassword) async throws(NFCTagError) {
        guard number <= ST25TVCommand.configurationPassword else { throw NFCTagError(.invalidParameter, "an ST25TV02K has passwords 0–3") }
        do {
            try await st25tvPresentPassword(number, current)
        } catch where error.code == .authenticationFailed && new != current {
            try await st25tvPresentPassword(number, new)
        }
        _ = try await send(
            ST25Command.writePassword, [number] + new.bytes, manufacturerCode: ST25Command.manufacturerCode,
            what: "WRITE PASSWORD \(number)", expect: 0)
        try await st25tvPresentPassword(number, new)
    }

    /// Writes ST25TV02K configuration register `register` (``ST25TVRegister``): PRESENT PASSWORD 3
    /// with `password`, WRITE CONFIGURATION, the register read back.
    /// - Throws: ``NFCTagError`` `authenticationFailed` (password 3 refused: nothing written);
    ///   `verificationFailed` (reads back otherwise); `tagResponse` (refused: LOCK_CFG set, or a
    ///   read-only register), `connectionLost`.
    public func st25tvWriteConfiguration(_ register: UInt8, _ value: UInt8, password: ST25TVPassword) async throws(NFCTagError) {
        try await st25tvPresentPassword(ST25TVCommand.configurationPassword, password)
        try await st25WriteConfiguration(register, value)
        let read = try await st25ReadConfiguration(register)
        guard read == value else {
            throw NFCTagError(.verificationFailed, "configuration register \(hexByte(register)) reads back \(hexByte(read)), not \(hexByte(value))")
        }
    }

    /// What an ST25TV02K's configuration says (``ST25TVRegister/summary(area1:area2:lockConfiguration:blockCount:)``),
    /// from READ CONFIGURATION of `00`, `01` and `06`. Reads only.
    /// - Throws: as ``st25ReadConfiguration(_:)``.
    public func st25tvConfigurationSummary() async throws(NFCTagError) -> String {
        ST25TVRegister.summary(
            area1: try await st25ReadConfiguration(ST25TVRegister.area1Security),
            area2: try await st25ReadConfiguration(ST25TVRegister.area2Security),
            lockConfiguration: try await st25ReadConfiguration(ST25TVRegister.lockConfiguration),
            blockCount: identity.blockCount)
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
