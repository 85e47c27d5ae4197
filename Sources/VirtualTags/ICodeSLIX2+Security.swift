public import NFCTags
import NFCCore

/// The persistent security state of an ICODE chip (``ICodeSLIX2``): passwords, their locks,
/// privacy, 64-bit mode and page protection. What a tag file keeps in its attributes.
public struct ICodeSecurityState: Sendable, Hashable {
    /// The passwords by identifier (``ICodePasswordIdentifier`` raw value), `Password[31:0]`.
    public var passwords: [UInt8: UInt32]
    /// The identifiers locked with LOCK PASSWORD.
    public var lockedPasswords: Set<UInt8> = []
    /// Privacy mode (ENABLE PRIVACY).
    public var privacy = false
    /// 64-BIT PASSWORD PROTECTION.
    public var sixtyFourBit = false
    /// SLIX2: the protection pointer (blocks from it on are the high page).
    public var protectionPointer: UInt8 = 0
    /// SLIX2: the extended protection status (``ICodePageProtection`` read/write low/high bits).
    public var extendedProtection: UInt8 = 0
    /// SLIX-S: the protection status of each page of 4 blocks.
    public var pageProtection: [UInt8]
    /// Pages (SLIX-S) whose protection condition is locked; SLIX2: page 0 = low, 1 = high.
    public var lockedConditions: Set<Int> = []
    /// EAS mode on (SET EAS; RESET EAS turns it off).
    public var eas = false
    /// EAS mode locked (LOCK EAS). Irreversible.
    public var easLocked = false
    /// SET/RESET/LOCK EAS need the EAS/AFI password (PASSWORD PROTECT EAS/AFI, option flag 0).
    public var easProtected = false
    /// WRITE/LOCK AFI need the EAS/AFI password (PASSWORD PROTECT EAS/AFI, option flag 1).
    public var afiProtected = false
    /// DESTROY was taken: the chip answers nothing, for good.
    public var destroyed = false
    /// The 16-bit EAS ID (WRITE EAS ID; SLIX-S, SLIX-L, SLIX2), `0000` from the factory (an
    /// assumption: the data sheets found do not give the delivered value).
    public var easID: UInt16 = 0

    /// The factory state of `variant`: every password it has `00000000`, nothing protected; an
    /// NTAG 5's protection pointer at `FF` with condition `00`, as a fresh NTAG 5 link answers
    /// GET NXP SYSTEM INFORMATION (VivoKey `ntag5sensor` capture: `FF 00 00 …`).
    public init(variant: ICodeVariant) {
        passwords = Dictionary(uniqueKeysWithValues: variant.passwords.map { ($0.rawValue, ICodePassword.factoryDefault.value) })
        pageProtection = [UInt8](repeating: 0, count: variant == .slixS ? variant.blockCount / ICodeVariant.blocksPerPage : 0)
        if variant.isNTAG5 { protectionPointer = 0xFF }
    }

    /// The tag-file attribute holding the passwords: for each identifier of 01, 02, 04, 08, 10
    /// the chip has, 8 hex digits `Password[31:0]`, joined by `,` as `id=value`.
    static let passwordsAttribute = "icodePasswords"
    /// The tag-file attribute holding the rest, in hex: locked-password mask, privacy, 64-bit,
    /// protection pointer, extended protection status, locked-condition mask (SLIX2: bit 0 low,
    /// bit 1 high; SLIX-S: a bit per page, 2 bytes), then one byte per SLIX-S page.
    static let protectionAttribute = "icodeProtection"
    /// The tag-file attribute holding EAS, the EAS/AFI protection and DESTROY, 2 hex digits of
    /// bits: 0 EAS on, 1 EAS locked, 2 EAS password protected, 3 AFI password protected,
    /// 4 destroyed. Absent when all are clear.
    static let easAttribute = "icodeEAS"
    /// The tag-file attribute holding the EAS ID, 4 hex digits, most significant first. Absent
    /// when `0000`.
    static let easIDAttribute = "icodeEASID"

    /// The EAS/AFI/DESTROY bits of ``easAttribute``.
    var easBits: UInt8 {
        (eas ? 0x01 : 0) | (easLocked ? 0x02 : 0) | (easProtected ? 0x04 : 0) | (afiProtected ? 0x08 : 0) | (destroyed ? 0x10 : 0)
    }

    /// The attributes of this state; none when it is the factory state (older tag files stay
    /// as they were).
    func attributes(variant: ICodeVariant) -> [String: String] {
        var result: [String: String] = easBits == 0 ? [:] : [Self.easAttribute: Hex.encode([easBits], uppercase: true)]
        if easID != 0 { result[Self.easIDAttribute] = Hex.number(easID, width: 4) }
        var passwordState = self
        (passwordState.eas, passwordState.easLocked, passwordState.easProtected, passwordState.afiProtected, passwordState.destroyed) =
            (false, false, false, false, false)
        passwordState.easID = 0
        guard passwordState != ICodeSecurityState(variant: variant) else { return result }
        let passwordText = passwords.keys.sorted().map { key in
            let value = passwords[key] ?? 0
            return Hex.encode([key], uppercase: true) + "=" + Hex.encode((0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * (3 - $0))) }, uppercase: true)
        }.joined(separator: ",")
        let lockedMask = lockedPasswords.reduce(UInt8(0)) { $0 | $1 }
        let conditionMask = lockedConditions.reduce(UInt16(0)) { $0 | ($1 < 16 ? UInt16(1) << $1 : 0) }
        let bytes: [UInt8] = [lockedMask, privacy ? 1 : 0, sixtyFourBit ? 1 : 0, protectionPointer, extendedProtection,
                              UInt8(conditionMask & 0xFF), UInt8(conditionMask >> 8)] + pageProtection
        result[Self.passwordsAttribute] = passwordText
        result[Self.protectionAttribute] = Hex.encode(bytes, uppercase: true)
        return result
    }

    /// Restores a state from tag-file attributes; the factory state when they are absent, nil
    /// when they do not decode for `variant`.
    init?(attributes: [String: String]?, variant: ICodeVariant) {
        self.init(variant: variant)
        if let text = attributes?[Self.easAttribute] {
            guard let bits = try? Hex.decode(text), bits.count == 1, bits[0] & ~0x1F == 0 else { return nil }
            (eas, easLocked, easProtected, afiProtected, destroyed) =
                (bits[0] & 0x01 != 0, bits[0] & 0x02 != 0, bits[0] & 0x04 != 0, bits[0] & 0x08 != 0, bits[0] & 0x10 != 0)
        }
        if let text = attributes?[Self.easIDAttribute] {
            guard text.utf8.count == 4, let value = UInt16(text, radix: 16) else { return nil }
            easID = value
        }
        guard let attributes, let passwordText = attributes[Self.passwordsAttribute],
              let protectionText = attributes[Self.protectionAttribute] else {
            if attributes?[Self.passwordsAttribute] != nil || attributes?[Self.protectionAttribute] != nil { return nil }
            return
        }
        for item in passwordText.split(separator: ",") {
            let pair = item.split(separator: "=")
            guard pair.count == 2, let key = UInt8(pair[0], radix: 16), passwords[key] != nil, pair[1].count == 8,
                  let value = UInt32(pair[1], radix: 16) else { return nil }
            passwords[key] = value
        }
        guard let bytes = try? Hex.decode(protectionText), bytes.count == 7 + pageProtection.count else { return nil }
        lockedPasswords = Set(ICodePasswordIdentifier.allCases.map(\.rawValue).filter { bytes[0] & $0 != 0 })
        privacy = bytes[1] != 0
        sixtyFourBit = bytes[2] != 0
        protectionPointer = bytes[3]
        extendedProtection = bytes[4]
        let mask = UInt16(bytes[5]) | UInt16(bytes[6]) << 8
        lockedConditions = Set((0..<16).filter { mask & (1 << $0) != 0 })
        pageProtection = Array(bytes[7...])
    }
}

extension ICodeSLIX2: ICodeSecurityHost {
    /// The family member (``ICodeSLIX2/variant``).
    var securityVariant: ICodeVariant { variant }
}

/// A virtual chip taking NXP's ICODE password commands (``ICodeCommand``): ``ICodeSLIX2`` for
/// the SLIX family, ``Type5Chip`` for the NTAG 5 chips, which share the command set. The
/// password, privacy and protection logic is written once, here, over what the chip keeps.
protocol ICodeSecurityHost: AnyObject {
    /// Which member's rules apply.
    var securityVariant: ICodeVariant { get }
    /// Blocks of user memory.
    var blocks: Int { get }
    /// Lock state per block.
    var locks: [Bool] { get }
    /// The persistent security state.
    var security: ICodeSecurityState { get set }
    /// The passwords given with SET PASSWORD since power-up (volatile).
    var given: Set<UInt8> { get set }
    /// The last GET RANDOM NUMBER answer (volatile).
    var random: [UInt8]? { get set }
    /// The LFSR behind GET RANDOM NUMBER.
    var lfsr: UInt16 { get set }
    /// Set by a wrong password: nothing is answered until power-up.
    var silenced: Bool { get set }
}

extension ICodeSecurityHost {
    /// The member whose rules apply (``securityVariant``).
    var variant: ICodeVariant { securityVariant }

    /// A success answer.
    var securityOK: TagAnswer { .data([0x00]) }

    /// An error answer with `code`.
    func securityError(_ code: UInt8) -> TagAnswer { .data([0x01, code]) }

    /// The next GET RANDOM NUMBER value: a 16-bit Fibonacci LFSR (taps 16, 14, 13, 11).
    func nextRandom() -> [UInt8] {
        let bit = ((lfsr >> 0) ^ (lfsr >> 2) ^ (lfsr >> 3) ^ (lfsr >> 5)) & 1
        lfsr = (lfsr >> 1) | (bit << 15)
        return [UInt8(lfsr & 0xFF), UInt8(lfsr >> 8)]
    }

    /// Whether the password `identifier` was given since power-up.
    func hasGiven(_ identifier: ICodePasswordIdentifier) -> Bool { given.contains(identifier.rawValue) }

    /// The read and write protection of `block`: (read needs a password, write needs one).
    func protection(of block: Int) -> (read: Bool, write: Bool) {
        switch variant {
        case .slix2, .ntag5Switch, .ntag5LinkOrBoost:
            let high = block >= Int(security.protectionPointer)
            let bits = security.extendedProtection
            return high
                ? (bits & ICodePageProtection.readHigh != 0, bits & ICodePageProtection.writeHigh != 0)
                : (bits & ICodePageProtection.readLow != 0, bits & ICodePageProtection.writeLow != 0)
        case .slixS:
            let page = block / ICodeVariant.blocksPerPage
            let status = page < security.pageProtection.count ? security.pageProtection[page] : 0
            switch status {
            case ICodePageProtection.readWriteByReadPassword, ICodePageProtection.readAndWrite: return (true, true)
            case ICodePageProtection.writeByWritePassword: return (false, true)
            default: return (false, false)
            }
        case .slix, .slixL:
            return (false, false)
        }
    }

    /// Whether reading `block` is allowed with the passwords given.
    func mayRead(_ block: Int) -> Bool {
        let guarded = protection(of: block)
        guard guarded.read else { return true }
        if security.sixtyFourBit { return hasGiven(.read) && hasGiven(.write) }
        return hasGiven(.read)
    }

    /// Whether writing (or locking) `block` is allowed with the passwords given.
    func mayWrite(_ block: Int) -> Bool {
        let guarded = protection(of: block)
        guard guarded.read || guarded.write else { return true }
        if security.sixtyFourBit { return hasGiven(.read) && hasGiven(.write) }
        if variant == .slixS, block / ICodeVariant.blocksPerPage < security.pageProtection.count,
           security.pageProtection[block / ICodeVariant.blocksPerPage] == ICodePageProtection.readWriteByReadPassword {
            return hasGiven(.read)
        }
        return (!guarded.write || hasGiven(.write)) && (!guarded.read || hasGiven(.read))
    }

    /// The custom security commands (``ICodeCommand``), after flags, code, `04` and UID.
    func securityCommand(_ command: UInt8, _ rest: [UInt8], option: Bool = false) -> TagAnswer {
        let refused = securityError(ISO15693Error.unknown)
        switch command {
        case ICodeCommand.getRandomNumber:
            let value = nextRandom()
            random = value
            return .data([0x00] + value)
        case ICodeCommand.setPassword:
            guard rest.count >= 5, let identifier = ICodePasswordIdentifier(rawValue: rest[0]),
                  let stored = security.passwords[identifier.rawValue] else { return securityError(ISO15693Error.commandNotRecognized) }
            guard let random, let password = ICodePassword.recovered(from: Array(rest[1..<5]), random: random),
                  password.value == stored else {
                // A wrong password: nothing is answered until power-up (SL2S2602 9.5.3.2).
                silenced = true
                return .silence
            }
            self.random = nil
            given.insert(identifier.rawValue)
            if identifier == .privacy { security.privacy = false }
            return securityOK
        case ICodeCommand.writePassword:
            guard rest.count >= 5, let identifier = ICodePasswordIdentifier(rawValue: rest[0]),
                  security.passwords[identifier.rawValue] != nil else { return securityError(ISO15693Error.commandNotRecognized) }
            guard hasGiven(identifier), !security.lockedPasswords.contains(identifier.rawValue) else { return refused }
            security.passwords[identifier.rawValue] = Array(rest[1..<5]).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) }
            given.remove(identifier.rawValue)
            return securityOK
        case ICodeCommand.lockPassword:
            guard let first = rest.first, let identifier = ICodePasswordIdentifier(rawValue: first),
                  security.passwords[identifier.rawValue] != nil else { return securityError(ISO15693Error.commandNotRecognized) }
            guard hasGiven(identifier) else { return refused }
            security.lockedPasswords.insert(identifier.rawValue)
            return securityOK
        case ICodeCommand.protectPage where variant.hasPageProtection:
            guard rest.count >= 2 else { return securityError(ISO15693Error.commandNotRecognized) }
            return protectPage(Int(rest[0]), status: rest[1])
        case ICodeCommand.lockPageProtectionCondition where variant.hasPageProtection:
            guard let first = rest.first else { return securityError(ISO15693Error.commandNotRecognized) }
            guard hasGiven(.write) || !variant.passwords.contains(.write) else { return refused }
            switch variant {
            case .slix2, .ntag5Switch, .ntag5LinkOrBoost:
                guard first == security.protectionPointer else { return securityError(ISO15693Error.blockNotAvailable) }
                security.lockedConditions.formUnion([0, 1])
            default:
                guard Int(first) < security.pageProtection.count else { return securityError(ISO15693Error.blockNotAvailable) }
                security.lockedConditions.insert(Int(first))
            }
            return securityOK
        case ICodeCommand.getMultipleBlockProtectionStatus where variant.hasPageProtection && !variant.isNTAG5:
            guard rest.count >= 2 else { return securityError(ISO15693Error.commandNotRecognized) }
            let first = Int(rest[0]), count = Int(rest[1]) + 1
            guard first < blocks else { return securityError(ISO15693Error.blockNotAvailable) }
            return .data([0x00] + (first..<min(blocks, first + count)).map(blockProtectionStatus))
        case ICodeCommand.enablePrivacy where variant.hasPrivacy:
            guard rest.count >= 4, let random, let password = ICodePassword.recovered(from: Array(rest[0..<4]), random: random),
                  password.value == security.passwords[ICodePasswordIdentifier.privacy.rawValue] else {
                silenced = true
                return .silence
            }
            self.random = nil
            security.privacy = true
            return securityOK
        case ICodeCommand.destroy where variant.passwords.contains(.destroy):
            // DESTROY: the destroy password XOR the random number, as ENABLE PRIVACY; a wrong
            // one silences the chip until power-up, the right one for good (answered first).
            guard rest.count >= 4, let random, let password = ICodePassword.recovered(from: Array(rest[0..<4]), random: random),
                  password.value == security.passwords[ICodePasswordIdentifier.destroy.rawValue] else {
                silenced = true
                return .silence
            }
            self.random = nil
            security.destroyed = true
            return securityOK
        case ICodeCommand.setEAS, ICodeCommand.resetEAS:
            guard !security.easLocked else { return securityError(ISO15693Error.lockedBlockCannotBeChanged) }
            guard !security.easProtected || hasGiven(.easAFI) else { return refused }
            security.eas = command == ICodeCommand.setEAS
            return securityOK
        case ICodeCommand.lockEAS:
            guard !security.easLocked else { return securityError(ISO15693Error.alreadyLocked) }
            guard !security.easProtected || hasGiven(.easAFI) else { return refused }
            security.easLocked = true
            return securityOK
        case ICodeCommand.easAlarm:
            return easAlarm(rest, option: option)
        case ICodeCommand.writeEASID where variant.hasEASID:
            guard rest.count >= 2 else { return securityError(ISO15693Error.commandNotRecognized) }
            guard !security.easLocked else { return securityError(ISO15693Error.lockedBlockCannotBeChanged) }
            guard !security.easProtected || hasGiven(.easAFI) else { return refused }
            security.easID = UInt16(rest[0]) | UInt16(rest[1]) << 8
            return securityOK
        case ICodeCommand.passwordProtectEASAFI:
            guard hasGiven(.easAFI) else { return refused }
            if option { security.afiProtected = true } else { security.easProtected = true }
            return securityOK
        case ICodeCommand.enable64BitPasswordProtection where variant.has64BitMode:
            guard hasGiven(.read), hasGiven(.write) else { return refused }
            security.sixtyFourBit = true
            return securityOK
        default:
            return securityError(ISO15693Error.commandNotSupported)
        }
    }

    /// The EAS sequence the model answers EAS ALARM with: a stand-in of 32 bytes (the ICODE SLI
    /// family's 256 bits are not publicly described bit by bit; readers only look for an answer).
    static var easSequence: [UInt8] { (0..<32).map { UInt8(truncatingIfNeeded: 0xA5 &+ $0 &* 0x3B) } }

    /// EAS ALARM (SL2ICS53 8.1.3.16): option flag clear, the EAS sequence while EAS is on;
    /// set (a chip with an EAS ID), EAS ID mask length 0 answers the EAS ID (whether EAS is on
    /// or not: assumed), 8 or 16 the EAS sequence when EAS is on and the masked ID matches.
    /// Anything else, EAS off, or a mismatch: silence, as the data sheet says for errors.
    func easAlarm(_ rest: [UInt8], option: Bool) -> TagAnswer {
        guard option else { return security.eas ? .data([0x00] + Self.easSequence) : .silence }
        guard variant.hasEASID, let length = rest.first else { return .silence }
        let id = [UInt8(truncatingIfNeeded: security.easID), UInt8(truncatingIfNeeded: security.easID >> 8)]
        switch length {
        case 0: return .data([0x00] + id)
        case 8, 16:
            let bytes = Int(length) / 8
            guard rest.count == 1 + bytes, security.eas, Array(rest[1...]) == Array(id.prefix(bytes)) else { return .silence }
            return .data([0x00] + Self.easSequence)
        default: return .silence
        }
    }

    /// GET MULTIPLE BLOCK PROTECTION STATUS's byte for `block`.
    func blockProtectionStatus(_ block: Int) -> UInt8 {
        let guarded = protection(of: block)
        var status: UInt8 = locks[block] ? ICodeBlockProtection.locked : 0
        if guarded.read { status |= ICodeBlockProtection.readProtected }
        if guarded.write || guarded.read { status |= ICodeBlockProtection.writeProtected }
        let condition = variant.usesProtectionPointer ? (block >= Int(security.protectionPointer) ? 1 : 0) : block / ICodeVariant.blocksPerPage
        if security.lockedConditions.contains(condition) { status |= ICodeBlockProtection.protectionLocked }
        return status
    }

    /// PROTECT PAGE: the passwords guarding the page now and after must have been given; a
    /// locked condition is refused.
    private func protectPage(_ address: Int, status: UInt8) -> TagAnswer {
        let refused = securityError(ISO15693Error.unknown)
        let needsRead = { (bits: UInt8, readBits: UInt8) in bits & readBits != 0 }
        switch variant {
        case .slix2, .ntag5Switch, .ntag5LinkOrBoost:
            guard address < blocks else { return securityError(ISO15693Error.blockNotAvailable) }
            guard security.lockedConditions.isEmpty else { return securityError(ISO15693Error.lockedBlockCannotBeChanged) }
            let readBits = ICodePageProtection.readLow | ICodePageProtection.readHigh
            let validBits = readBits | ICodePageProtection.writeLow | ICodePageProtection.writeHigh
            guard status & ~validBits == 0 else { return securityError(ISO15693Error.optionNotSupported) }
            let involved = security.extendedProtection | status
            if involved != 0 && !hasGiven(.write) { return refused }
            // 64-bit mode: a protected page is guarded by the read plus the write password
            // (SLI-S data sheet, "Protection status", 64 bit column; SL2S2602 keeps it).
            if (needsRead(involved, readBits) || (security.sixtyFourBit && involved != 0)) && !hasGiven(.read) { return refused }
            security.protectionPointer = UInt8(address)
            security.extendedProtection = status
        default:
            guard address < security.pageProtection.count else { return securityError(ISO15693Error.blockNotAvailable) }
            guard !security.lockedConditions.contains(address) else { return securityError(ISO15693Error.lockedBlockCannotBeChanged) }
            let valid: Set<UInt8> = [ICodePageProtection.publicPage, ICodePageProtection.readWriteByReadPassword,
                                     ICodePageProtection.writeByWritePassword, ICodePageProtection.readAndWrite]
            guard valid.contains(status) else { return securityError(ISO15693Error.optionNotSupported) }
            let involved = security.pageProtection[address] | status
            if involved & 0x10 != 0 && !hasGiven(.write) { return refused }
            if involved & 0x01 != 0 && !hasGiven(.read) { return refused }
            if security.sixtyFourBit && involved != 0 && !(hasGiven(.read) && hasGiven(.write)) { return refused }
            security.pageProtection[address] = status
        }
        return securityOK
    }
}
