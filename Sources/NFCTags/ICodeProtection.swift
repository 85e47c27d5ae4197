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

    /// Creates a protection.
    public init(readProtected: Bool = false, firstProtectedBlock: Int = 0, sixtyFourBit: Bool = false, lockPasswords: Bool = false) {
        self.readProtected = readProtected
        self.firstProtectedBlock = firstProtectedBlock
        self.sixtyFourBit = sixtyFourBit
        self.lockPasswords = lockPasswords
    }

    /// Whether anything here cannot be undone.
    public var isIrreversible: Bool { sixtyFourBit || lockPasswords }
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

    /// `blocks 0–3, 8` style.
    static func ranges(_ blocks: [Int]) -> String {
        var spans: [String] = []
        var index = 0
        while index < blocks.count {
            var end = index
            while end + 1 < blocks.count, blocks[end + 1] == blocks[end] + 1 { end += 1 }
            spans.append(end == index ? "\(blocks[index])" : "\(blocks[index])–\(blocks[end])")
            index = end + 1
        }
        return (blocks.count == 1 ? "block " : "blocks ") + spans.joined(separator: ", ")
    }
}

extension ISO15693Tag {
    /// The ICODE chip whose memory can be password protected, or `notSupported` naming what the
    /// chip has instead.
    private func protectableVariant() throws(NFCTagError) -> ICodeVariant {
        guard let variant = icodeVariant else {
            throw NFCTagError(.notSupported, "ICODE passwords need an ICODE SLIX2 or SLIX-S; this is a \(identity.model)")
        }
        guard variant.hasPageProtection else {
            let has = variant.passwords.sorted { $0.rawValue < $1.rawValue }.map(\.description).joined(separator: ", ")
            throw NFCTagError(
                .notSupported,
                "the \(variant.model.rawValue) has no memory passwords (only \(has)); its memory can only be locked for good")
        }
        return variant
    }

    /// The protection state of every block (GET MULTIPLE BLOCK PROTECTION STATUS, 32 blocks a
    /// command).
    /// - Throws: ``NFCTagError`` `notSupported` (not a SLIX2 or SLIX-S), `tagResponse`, `connectionLost`.
    public func icodeProtectionState() async throws(NFCTagError) -> ICodeProtectionState {
        let variant = try protectableVariant()
        var statuses: [UInt8] = []
        while statuses.count < variant.blockCount {
            let first = statuses.count
            statuses += try await icodeBlockProtectionStatus(first..<min(variant.blockCount, first + 32))
        }
        return ICodeProtectionState(statuses: statuses)
    }

    /// Password-protects an ICODE SLIX2 or SLIX-S, in an order that an interruption leaves the
    /// chip open or protected by the old or the new passwords: (1) SET PASSWORD write (and read
    /// when reads are protected or 64-bit mode is asked) with `current`; (2) WRITE PASSWORD of
    /// each new password that differs, then SET PASSWORD with it; (3) PROTECT PAGE — the SLIX2's
    /// protection pointer with the high page's read/write bits, each SLIX-S page from the first
    /// protected one; (4) 64-BIT PASSWORD PROTECTION, (5) LOCK PASSWORD when asked; (6) the
    /// protection status read back.
    /// - Throws: ``NFCTagError`` `notSupported` (another chip; SLIX and SLIX-L have no memory
    ///   passwords; nothing sent); `invalidParameter` (first block outside the memory; nothing
    ///   sent); `authenticationFailed` (a current password refused: nothing was written);
    ///   `verificationFailed` (a block not protected after the commands were acknowledged);
    ///   `tagResponse`, `connectionLost`.
    public func icodeProtect(passwords new: ICodePasswords, current: ICodePasswords, protection: ICodeProtection) async throws(NFCTagError) {
        let variant = try protectableVariant()
        guard (0..<variant.blockCount).contains(protection.firstProtectedBlock) else {
            throw NFCTagError(.invalidParameter, "the first protected block must be 0…\(variant.blockCount - 1)")
        }
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
        case .slix2:
            let status = ICodePageProtection.writeHigh | (protection.readProtected ? ICodePageProtection.readHigh : 0)
            try await icodeProtectPage(UInt8(first), status: status)
        default:
            let status = protection.readProtected ? ICodePageProtection.readAndWrite : ICodePageProtection.writeByWritePassword
            for page in (first / ICodeVariant.blocksPerPage)...((variant.blockCount - 1) / ICodeVariant.blocksPerPage) {
                try await icodeProtectPage(UInt8(page), status: status)
            }
        }
        if protection.sixtyFourBit { try await icodeEnable64BitPasswordProtection() }
        if protection.lockPasswords {
            try await icodeLockPassword(.write)
            if usesRead { try await icodeLockPassword(.read) }
        }
        let protectedFrom = variant == .slix2 ? first : first / ICodeVariant.blocksPerPage * ICodeVariant.blocksPerPage
        let state = try await icodeProtectionState()
        for block in protectedFrom..<variant.blockCount {
            let status = state.statuses[block]
            let wanted = ICodeBlockProtection.writeProtected | (protection.readProtected ? ICodeBlockProtection.readProtected : 0)
            guard status & wanted == wanted else {
                throw NFCTagError(
                    .verificationFailed, at: block * variant.blockSize,
                    "block \(block) reads back protection status \(hexByte(status)) after PROTECT PAGE was acknowledged")
            }
        }
    }

    /// Removes the password protection of an ICODE SLIX2 or SLIX-S: the protection status is
    /// read, SET PASSWORD gives the write password (and the read password when a block is
    /// read-protected), PROTECT PAGE makes every protected page public (SLIX2: pointer 0, status
    /// `00`), then WRITE PASSWORD sets the passwords given back to `00000000`, and the status is
    /// read back.
    /// - Throws: ``NFCTagError`` `notSupported` (nothing sent); `authenticationFailed` (a wrong
    ///   password: nothing was written); `verificationFailed`; `tagResponse` (e.g. a locked
    ///   protection condition), `connectionLost`.
    public func icodeUnprotect(current: ICodePasswords) async throws(NFCTagError) {
        let variant = try protectableVariant()
        let before = try await icodeProtectionState()
        let readInvolved = !before.blocks(with: ICodeBlockProtection.readProtected).isEmpty
        try await icodeSetPassword(.write, current.write)
        if readInvolved { try await icodeSetPassword(.read, current.read) }
        switch variant {
        case .slix2:
            try await icodeProtectPage(0, status: ICodePageProtection.publicPage)
        default:
            let protectedPages = Set(before.statuses.indices.filter {
                before.statuses[$0] & (ICodeBlockProtection.readProtected | ICodeBlockProtection.writeProtected) != 0
            }.map { $0 / ICodeVariant.blocksPerPage })
            for page in protectedPages.sorted() { try await icodeProtectPage(UInt8(page), status: ICodePageProtection.publicPage) }
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
