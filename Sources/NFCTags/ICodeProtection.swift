import NFCCore

/// How ``ISO15693Tag/icodeProtect(passwords:current:protection:)`` protects an ICODE SLIX2 or
/// SLIX-S: which blocks, reads too or writes only, 64-bit mode, and whether the passwords are
/// locked.
public struct ICodeProtection: Sendable, Hashable {
    /// Reading needs the read password too (phones then cannot read the protected blocks).
    public var readProtected: Bool
    /// The first protected block: the SLIX2's protection pointer (blocks from it on form the
    /// high page), rounded down to a page of 4 blocks on a SLIX-S. Default 0: the whole memory.
    public var firstProtectedBlock: Int
    /// 64-BIT PASSWORD PROTECTION: the read and write passwords together guard every protected
    /// page. Irreversible.
    public var sixtyFourBit: Bool
    /// LOCK PASSWORD on the passwords used: they can never change. Irreversible.
    public var lockPasswords: Bool
    /// LOCK PAGE PROTECTION CONDITION after PROTECT PAGE: the protection of the protected pages
    /// (SLIX-S: each of them; SLIX2 and NTAG 5: both pages and the protection pointer) can never
    /// change, so the memory can never be made public again. Irreversible.
    public var lockCondition: Bool

    /// Creates a protection.
    public init(
        readProtected: Bool = false, firstProtectedBlock: Int = 0, sixtyFourBit: Bool = false, lockPasswords: Bool = false,
        lockCondition: Bool = false
    ) {
        self.readProtected = readProtected
        self.firstProtectedBlock = firstProtectedBlock
        self.sixtyFourBit = sixtyFourBit
        self.lockPasswords = lockPasswords
        self.lockCondition = lockCondition
    }

    /// Whether anything here cannot be undone.
    public var isIrreversible: Bool { sixtyFourBit || lockPasswords || lockCondition }

    /// The read/write bits of ``ICodeBlockProtection`` `block` shows once protected so on
    /// `variant`: none below ``protectedFrom(on:)``.
    func expectedStatus(of block: Int, on variant: ICodeVariant) -> UInt8 {
        guard block >= protectedFrom(on: variant) else { return 0 }
        return ICodeBlockProtection.writeProtected | (readProtected ? ICodeBlockProtection.readProtected : 0)
    }

    /// The block protection really starts at on `variant`: ``firstProtectedBlock`` on a chip
    /// with a protection pointer (SLIX2, NTAG 5), else rounded down to its page of
    /// ``ICodeVariant/blocksPerPage`` blocks (a SLIX-S protects whole pages: SL2S5302 "PROTECT
    /// PAGE").
    public func protectedFrom(on variant: ICodeVariant) -> Int {
        variant.usesProtectionPointer ? firstProtectedBlock : firstProtectedBlock / ICodeVariant.blocksPerPage * ICodeVariant.blocksPerPage
    }
}

/// What GET MULTIPLE BLOCK PROTECTION STATUS says of a chip's blocks, summed up.
public struct ICodeProtectionState: Sendable, Hashable {
    /// One ``ICodeBlockProtection`` byte per block, from block 0.
    public var statuses: [UInt8]

    /// Creates it.
    public init(statuses: [UInt8]) { self.statuses = statuses }

    /// The blocks whose status has `bit`.
    public func blocks(with bit: UInt8) -> [Int] { statuses.indices.filter { statuses[$0] & bit != 0 } }

    /// `none`, or e.g. `write-protected: blocks 0–79; read-protected: blocks 0–79`.
    public var summary: String {
        var parts: [String] = []
        for (bit, what) in [(ICodeBlockProtection.writeProtected, "write-protected"),
                            (ICodeBlockProtection.readProtected, "read-protected"),
                            (ICodeBlockProtection.protectionLocked, "condition locked")] {
            let list = blocks(with: bit)
            if !list.isEmpty { parts.append("\(what): \(Self.ranges(list))") }
        }
        return parts.isEmpty ? "none" : parts.joined(separator: "; ")
    }

    /// `blocks 0–3, 8` style (``Type2Tag/ranges(_:)`` with the noun).
    static func ranges(_ blocks: [Int]) -> String {
        (blocks.count == 1 ? "block " : "blocks ") + Type2Tag.ranges(blocks)
    }
}

extension ISO15693Tag {
    /// The ICODE chip whose memory can be password protected, or `notSupported` naming what the
    /// chip has instead.
    private func protectableVariant() throws(NFCTagError) -> ICodeVariant {
        guard let variant = icodeVariant else {
            throw NFCTagError(.notSupported, "ICODE passwords need an ICODE SLIX2, SLIX-S or an NTAG 5; this is a \(identity.model)")
        }
        guard variant.hasPageProtection else {
            let has = variant.passwords.sorted { $0.rawValue < $1.rawValue }.map(\.description).joined(separator: ", ")
            throw NFCTagError(
                .notSupported,
                "the \(variant.model.rawValue) has no memory passwords (only \(has)); its memory can only be locked for good")
        }
        return variant
    }

    /// The protection state of every block: GET MULTIPLE BLOCK PROTECTION STATUS, 32 blocks a
    /// command; on an NTAG 5, GET NXP SYSTEM INFORMATION's protection pointer and condition
    /// (``NXPSystemInformation/blockStatuses(blockCount:)``), the one public way it reports them.
    /// - Throws: ``NFCTagError`` `notSupported` (not a SLIX2, SLIX-S or NTAG 5), `tagResponse`, `connectionLost`.
    public func icodeProtectionState() async throws(NFCTagError) -> ICodeProtectionState {
        let variant = try protectableVariant()
        if variant.isNTAG5 {
            let blocks = identity.blockCount ?? variant.blockCount
            return ICodeProtectionState(statuses: try await nxpSystemInformation().blockStatuses(blockCount: blocks))
        }
        var statuses: [UInt8] = []
        while statuses.count < variant.blockCount {
            let first = statuses.count
            statuses += try await icodeBlockProtectionStatus(first..<min(variant.blockCount, first + 32))
        }
        return ICodeProtectionState(statuses: statuses)
    }

    /// Password-protects an ICODE SLIX2, SLIX-S or NTAG 5, in an order that an interruption leaves the
    /// chip open or protected by the old or the new passwords: (1) SET PASSWORD write (and read
    /// when reads are protected or 64-bit mode is asked) with `current`; (2) WRITE PASSWORD of
    /// each new password that differs, then SET PASSWORD with it; (3) PROTECT PAGE — the SLIX2's
    /// protection pointer (an NTAG 5's NFC_PP_AREA_0H, up to block 255) with the high page's
    /// read/write bits, each SLIX-S page from the first
    /// protected one; (4) with ``ICodeProtection/lockCondition``, LOCK PAGE PROTECTION
    /// CONDITION (`B7`) on the pointer (SLIX2, NTAG 5) or each protected page (SLIX-S), after
    /// every PROTECT PAGE, so a locked condition always guards a protected page; (5) 64-BIT
    /// PASSWORD PROTECTION, (6) LOCK PASSWORD when asked; (7) the protection status read back.
    /// The status is read first: a page whose condition is locked already is left alone when it
    /// is protected as asked (a rerun after an interruption completes), and refused before
    /// anything is written when it is not.
    /// - Throws: ``NFCTagError`` `notSupported` (another chip; SLIX and SLIX-L have no memory
    ///   passwords; nothing sent); `invalidParameter` (first block outside the memory; nothing
    ///   sent); `readOnly` (a condition locked already on a page not protected as asked;
    ///   nothing written); `authenticationFailed` (a current
    ///   password refused: nothing was written);
    ///   `verificationFailed` (a block not protected after the commands were acknowledged);
    ///   `tagResponse`, `connectionLost`.
    public func icodeProtect(passwords new: ICodePasswords, current: ICodePasswords, protection: ICodeProtection) async throws(NFCTagError) {
        let variant = try protectableVariant()
        // The pointer is one byte: past block 255 nothing can start the high page.
        let firstLimit = variant.usesProtectionPointer ? min(variant.blockCount, 256) : variant.blockCount
        guard (0..<firstLimit).contains(protection.firstProtectedBlock) else {
            throw NFCTagError(.invalidParameter, "the first protected block must be 0…\(firstLimit - 1)")
        }
        // Pages (SLIX-S) or the pointer (page 0 here: SLIX2, NTAG 5) whose condition is locked
        // already with the protection asked: neither PROTECT PAGE nor LOCK PAGE PROTECTION
        // CONDITION is sent to them again (the chip would refuse both).
        // Read before anything is written, with or without --lock-protection: a locked
        // condition the protection would change is refused here, not after the passwords.
        let lockedAsAsked = try await lockedPagesProtectedAsAsked(protection, variant)
        let usesRead = protection.readProtected || protection.sixtyFourBit
        try await icodeSetPassword(.write, current.write)
        if usesRead { try await icodeSetPassword(.read, current.read) }
        if new.write != current.write {
            try await icodeWritePassword(.write, new.write)
            try await icodeSetPassword(.write, new.write)
        }
        if usesRead, new.read != current.read {
            try await icodeWritePassword(.read, new.read)
            try await icodeSetPassword(.read, new.read)
        }
        let first = protection.firstProtectedBlock
        switch variant {
        case .slix2, .ntag5Switch, .ntag5LinkOrBoost:
            if !lockedAsAsked.contains(0) {
                let status = ICodePageProtection.writeHigh | (protection.readProtected ? ICodePageProtection.readHigh : 0)
                try await icodeProtectPage(UInt8(first), status: status)
                if protection.lockCondition { try await icodeLockPageProtectionCondition(UInt8(first)) }
            }
        default:
            let status = protection.readProtected ? ICodePageProtection.readAndWrite : ICodePageProtection.writeByWritePassword
            let pages = Array((first / ICodeVariant.blocksPerPage)...((variant.blockCount - 1) / ICodeVariant.blocksPerPage))
                .filter { !lockedAsAsked.contains($0) }
            for page in pages { try await icodeProtectPage(UInt8(page), status: status) }
            // Every page protected before any is locked: an interruption never leaves a locked
            // condition on a page still public.
            if protection.lockCondition {
                for page in pages { try await icodeLockPageProtectionCondition(UInt8(page)) }
            }
        }
        if protection.sixtyFourBit { try await icodeEnable64BitPasswordProtection() }
        if protection.lockPasswords {
            try await icodeLockPassword(.write)
            if usesRead { try await icodeLockPassword(.read) }
        }
        let protectedFrom = protection.protectedFrom(on: variant)
        let state = try await icodeProtectionState()
        for block in protectedFrom..<state.statuses.count {
            let status = state.statuses[block]
            let wanted = ICodeBlockProtection.writeProtected | (protection.readProtected ? ICodeBlockProtection.readProtected : 0)
            guard status & wanted == wanted else {
                throw NFCTagError(
                    .verificationFailed, at: block * variant.blockSize,
                    "block \(block) reads back protection status \(hexByte(status)) after PROTECT PAGE was acknowledged")
            }
            guard !protection.lockCondition || status & ICodeBlockProtection.protectionLocked != 0 else {
                throw NFCTagError(
                    .verificationFailed, at: block * variant.blockSize,
                    "block \(block) reads back protection status \(hexByte(status)), its condition not locked, after LOCK PAGE PROTECTION CONDITION was acknowledged")
            }
        }
    }

    /// Before ``icodeProtect(passwords:current:protection:)`` writes anything: the pages
    /// (SLIX-S page numbers; `0` for the pointer of a SLIX2 or NTAG 5) whose condition is locked
    /// and whose blocks are protected as `protection` asks. A locked condition on anything else
    /// the protection would change is refused (nothing written yet).
    private func lockedPagesProtectedAsAsked(_ protection: ICodeProtection, _ variant: ICodeVariant) async throws(NFCTagError) -> Set<Int> {
        let state = try await icodeProtectionState()
        let guardBits = ICodeBlockProtection.readProtected | ICodeBlockProtection.writeProtected
        let matches = { (block: Int) in state.statuses[block] & guardBits == protection.expectedStatus(of: block, on: variant) }
        let refuse = { (block: Int) -> NFCTagError in
            NFCTagError(
                .readOnly, at: block * variant.blockSize,
                "the protection condition of block \(block) is locked (LOCK PAGE PROTECTION CONDITION, status \(hexByte(state.statuses[block]))) with another protection than asked: it can never change; nothing was written")
        }
        let locked = state.blocks(with: ICodeBlockProtection.protectionLocked)
        if variant.usesProtectionPointer {
            guard !locked.isEmpty else { return [] }
            // The pointer and both pages are locked together: all of the memory must match.
            if let block = state.statuses.indices.first(where: { !matches($0) }) { throw refuse(block) }
            return [0]
        }
        var pages: Set<Int> = []
        let firstPage = protection.protectedFrom(on: variant) / ICodeVariant.blocksPerPage
        for block in locked where block / ICodeVariant.blocksPerPage >= firstPage {
            let page = block / ICodeVariant.blocksPerPage
            let blocks = (page * ICodeVariant.blocksPerPage)..<min(state.statuses.count, (page + 1) * ICodeVariant.blocksPerPage)
            if let mismatch = blocks.first(where: { !matches($0) }) { throw refuse(mismatch) }
            pages.insert(page)
        }
        return pages
    }

    /// Removes the password protection of an ICODE SLIX2, SLIX-S or NTAG 5: the protection status is
    /// read, SET PASSWORD gives the write password (and the read password when a block is
    /// read-protected), PROTECT PAGE makes every protected page public (SLIX2 and NTAG 5: pointer 0, status
    /// `00`; refused after the write password alone, as in 64-bit mode, the read password is
    /// given and PROTECT PAGE sent again), then WRITE PASSWORD sets the passwords given back to
    /// `00000000`, and the status is read back.
    /// A protected block whose protection condition is locked is refused first.
    /// - Throws: ``NFCTagError`` `notSupported` (nothing sent); `readOnly` (a protected block's
    ///   condition locked: nothing written); `authenticationFailed` (a wrong
    ///   password: nothing was written); `verificationFailed`; `tagResponse`, `connectionLost`.
    public func icodeUnprotect(current: ICodePasswords) async throws(NFCTagError) {
        let variant = try protectableVariant()
        let before = try await icodeProtectionState()
        // A protected page whose condition is locked can never be made public (SL2S5302,
        // SL2S2602 "LOCK PAGE PROTECTION CONDITION"): refused before any password is given or
        // written, so nothing is left half-done.
        let guardBits = ICodeBlockProtection.readProtected | ICodeBlockProtection.writeProtected
        if let block = before.statuses.indices.first(where: {
            before.statuses[$0] & guardBits != 0 && before.statuses[$0] & ICodeBlockProtection.protectionLocked != 0
        }) {
            throw NFCTagError(
                .readOnly, at: block * variant.blockSize,
                "block \(block) is protected and its protection condition is locked (LOCK PAGE PROTECTION CONDITION, status \(hexByte(before.statuses[block]))): it can never be made public; nothing was changed")
        }
        var readInvolved = !before.blocks(with: ICodeBlockProtection.readProtected).isEmpty
        try await icodeSetPassword(.write, current.write)
        if readInvolved { try await icodeSetPassword(.read, current.read) }
        // 64-bit mode guards even a write-only page with the read plus the write password, and
        // no command tells whether the mode is on: a refusal after the write password alone is
        // answered by giving the read password and sending PROTECT PAGE again.
        let makePublic = { (address: UInt8) async throws(NFCTagError) in
            do throws(NFCTagError) {
                try await self.icodeProtectPage(address, status: ICodePageProtection.publicPage)
            } catch where error.code == .tagResponse && !readInvolved {
                try await self.icodeSetPassword(.read, current.read)
                readInvolved = true
                try await self.icodeProtectPage(address, status: ICodePageProtection.publicPage)
            }
        }
        switch variant {
        case .slix2, .ntag5Switch, .ntag5LinkOrBoost:
            try await makePublic(0)
        default:
            let protectedPages = Set(before.statuses.indices.filter {
                before.statuses[$0] & (ICodeBlockProtection.readProtected | ICodeBlockProtection.writeProtected) != 0
            }.map { $0 / ICodeVariant.blocksPerPage })
            for page in protectedPages.sorted() { try await makePublic(UInt8(page)) }
        }
        if current.write != .factoryDefault { try await icodeWritePassword(.write, .factoryDefault) }
        if readInvolved, current.read != .factoryDefault { try await icodeWritePassword(.read, .factoryDefault) }
        let after = try await icodeProtectionState()
        if let block = after.statuses.firstIndex(where: { $0 & (ICodeBlockProtection.readProtected | ICodeBlockProtection.writeProtected) != 0 }) {
            throw NFCTagError(
                .verificationFailed, at: block * variant.blockSize,
                "block \(block) is still protected (status \(hexByte(after.statuses[block]))) after PROTECT PAGE was acknowledged")
        }
    }
}

/// What can be said of an ICODE chip's passwords from outside: which ones it has (its data
/// sheet), and that whether each was changed from the factory value or locked is unknown — no
/// command reads a password or its lock (SL2S2602, SL2S5302, SL2S2002: WRITE PASSWORD and LOCK
/// PASSWORD answer nothing but success or an error; GET MULTIPLE BLOCK PROTECTION STATUS tells
/// only which blocks are guarded).
public struct ICodePasswordReport: Sendable, Hashable {
    /// The passwords the chip has, by identifier.
    public var passwords: [ICodePasswordIdentifier]

    /// The report of `variant`.
    public init(_ variant: ICodeVariant) {
        passwords = variant.passwords.sorted { $0.rawValue < $1.rawValue }
    }

    /// `read, write, privacy, destroy, EAS/AFI (state unknown)`: whether each is set or locked,
    /// the chip does not report.
    public var summary: String {
        passwords.map(\.description).joined(separator: ", ") + " (state unknown)"
    }
}

/// What ``ISO15693Tag/icodeApply(_:password:current:)`` changes on an ICODE chip besides page
/// protection: one password, the EAS mode, the EAS/AFI password protection, or DESTROY.
public struct ICodeSettings: Sendable, Hashable {
    /// How the EAS mode changes (SET EAS, RESET EAS, LOCK EAS).
    public enum EASChange: String, Sendable, Hashable, CaseIterable {
        /// SET EAS.
        case on
        /// RESET EAS.
        case off
        /// LOCK EAS: frozen as it is. Irreversible.
        case lock
    }

    /// The password to change to the new one (SET PASSWORD with the current one, WRITE
    /// PASSWORD, SET PASSWORD with the new one).
    public var password: ICodePasswordIdentifier?
    /// LOCK PASSWORD on ``password`` after the change. Irreversible.
    public var lockPassword: Bool
    /// The EAS mode change.
    public var eas: EASChange?
    /// PASSWORD PROTECT EAS/AFI with the option flag clear: the EAS commands need the EAS/AFI
    /// password from then on. Irreversible.
    public var protectEAS: Bool
    /// PASSWORD PROTECT EAS/AFI with the option flag set: WRITE AFI and LOCK AFI need it.
    /// Irreversible.
    public var protectAFI: Bool
    /// DESTROY with the destroy password: the chip never answers again. Alone; irreversible.
    public var destroy: Bool
    /// WRITE EAS ID: the new 16-bit EAS ID (SLIX-S, SLIX-L, SLIX2). Reversible until LOCK EAS.
    public var easID: UInt16?

    /// Creates settings; the default changes nothing.
    public init(
        password: ICodePasswordIdentifier? = nil, lockPassword: Bool = false, eas: EASChange? = nil, protectEAS: Bool = false,
        protectAFI: Bool = false, destroy: Bool = false, easID: UInt16? = nil
    ) {
        self.password = password
        self.lockPassword = lockPassword
        self.eas = eas
        self.protectEAS = protectEAS
        self.protectAFI = protectAFI
        self.destroy = destroy
        self.easID = easID
    }

    /// Whether anything is asked.
    public var isEmpty: Bool { self == ICodeSettings() }
    /// Whether anything here cannot be undone.
    public var isIrreversible: Bool { lockPassword || eas == .lock || protectEAS || protectAFI || destroy }
    /// Whether the EAS/AFI password is needed (EAS commands and EAS/AFI protection).
    var touchesEASAFI: Bool { eas != nil || protectEAS || protectAFI || easID != nil }
}

extension ISO15693Tag {
    /// Changes an ICODE chip's settings (``ICodeSettings``), in this order: (1) DESTROY alone
    /// with `password` as the destroy password; else (2) the password ``ICodeSettings/password``:
    /// SET PASSWORD with `current`, WRITE PASSWORD `password` when it differs, SET PASSWORD
    /// with it, LOCK PASSWORD when asked; (3) for EAS changes and EAS/AFI protection, SET
    /// PASSWORD EAS/AFI with `password` (unless step 2 gave it; skipped when `password` is nil,
    /// for a chip whose EAS is not protected), then WRITE EAS ID, SET/RESET/LOCK EAS, then PASSWORD PROTECT
    /// EAS/AFI for EAS and for AFI. An interruption leaves each password old or new (WRITE
    /// PASSWORD is one command) and each setting before or after its one command.
    /// - Throws: ``NFCTagError`` `notSupported` (not an ICODE chip, or a password or DESTROY the
    ///   member lacks; nothing sent); `invalidParameter` (DESTROY with anything else, or a step
    ///   that needs `password` without it; nothing sent); `authenticationFailed` (a password
    ///   refused: nothing written after it); `tagResponse`, `connectionLost`.
    public func icodeApply(_ settings: ICodeSettings, password: ICodePassword?, current: ICodePassword) async throws(NFCTagError) {
        guard let variant = icodeVariant else {
            throw NFCTagError(.notSupported, "ICODE settings need an NXP ICODE SLIX, SLIX-S, SLIX-L or SLIX2; this is a \(identity.model)")
        }
        if let identifier = settings.password, !variant.passwords.contains(identifier) {
            throw NFCTagError(.notSupported, "the \(variant.model.rawValue) has no \(identifier) password")
        }
        if settings.touchesEASAFI, !variant.passwords.contains(.easAFI) {
            throw NFCTagError(.notSupported, "the \(variant.model.rawValue) has no EAS/AFI password")
        }
        if settings.easID != nil, !variant.hasEASID {
            throw NFCTagError(.notSupported, "the \(variant.model.rawValue) has no EAS ID NFCKit knows of (ICODE SLIX-S, SLIX-L and SLIX2 have one)")
        }
        if settings.destroy {
            guard settings == ICodeSettings(destroy: true) else {
                throw NFCTagError(.invalidParameter, "DESTROY goes alone: nothing is left to change afterwards")
            }
            guard let password else { throw NFCTagError(.invalidParameter, "DESTROY needs the destroy password") }
            try await icodeDestroy(password)
            return
        }
        var givenEASAFI = false
        if let identifier = settings.password {
            guard let password else { throw NFCTagError(.invalidParameter, "a new \(identifier) password is needed") }
            try await icodeSetPassword(identifier, current)
            if password != current {
                try await icodeWritePassword(identifier, password)
                try await icodeSetPassword(identifier, password)
            }
            if settings.lockPassword { try await icodeLockPassword(identifier) }
            givenEASAFI = identifier == .easAFI
        }
        guard settings.touchesEASAFI else { return }
        if !givenEASAFI, let password { try await icodeSetPassword(.easAFI, password) }
        // Before LOCK EAS, which freezes the EAS ID with the EAS mode.
        if let easID = settings.easID { try await icodeWriteEASID(easID) }
        if let eas = settings.eas {
            switch eas {
            case .on: try await icodeSetEAS(true)
            case .off: try await icodeSetEAS(false)
            case .lock: try await icodeLockEAS()
            }
        }
        if settings.protectEAS { try await icodePasswordProtect(afi: false) }
        if settings.protectAFI { try await icodePasswordProtect(afi: true) }
    }
}
