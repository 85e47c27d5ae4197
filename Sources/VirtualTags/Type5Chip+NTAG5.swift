public import NFCTags

extension Type5Chip: ICodeSecurityHost {
    /// The NTAG 5 whose password rules apply; a chip without passwords never routes a
    /// password command here (its rules are then the SLIX's, which protect nothing).
    var securityVariant: ICodeVariant { profile.passwords ?? .slix }
    /// Blocks of user memory.
    var blocks: Int { profile.blockCount }
    /// Lock state per block.
    var locks: [Bool] { lockedBlocks }

    /// Whether writing or locking `block` is allowed: always on a chip without passwords, else
    /// when the passwords guarding its part of area 0 were given (``ICodeSecurityHost/mayWrite(_:)``).
    func mayChange(_ block: Int) -> Bool { profile.passwords == nil || mayWrite(block) }

    /// The NTAG 5 custom commands: the ICODE password set (``ICodeCommand``) through
    /// ``ICodeSecurityHost``; GET NXP SYSTEM INFORMATION (pointer, condition, lock bits, the
    /// profile's feature bytes); READ CONFIG of block `58h` (NFC_PP_AREA_0H, NFC_PPC, 0, 0), any
    /// other configuration block and WRITE CONFIG refused (not modelled: error `0F`). Nil for
    /// any other command.
    func ntag5Command(_ command: UInt8, _ rest: [UInt8], option: Bool) -> TagAnswer? {
        switch command {
        case ICodeCommand.getRandomNumber, ICodeCommand.setPassword, ICodeCommand.writePassword, ICodeCommand.lockPassword,
             ICodeCommand.protectPage, ICodeCommand.lockPageProtectionCondition, ICodeCommand.enablePrivacy,
             ICodeCommand.enable64BitPasswordProtection, ICodeCommand.destroy, ICodeCommand.setEAS, ICodeCommand.resetEAS,
             ICodeCommand.lockEAS, ICodeCommand.passwordProtectEASAFI:
            return securityCommand(command, rest, option: option)
        case NTAG5Command.getNXPSystemInformation:
            return .data([0x00] + nxpSystemInformation.bytes)
        case NTAG5Command.readConfig:
            guard rest.count >= 2 else { return securityError(ISO15693Error.commandNotRecognized) }
            guard rest[0] == NTAG5Command.protectionPointerConfigBlock, rest[1] == 0 else { return securityError(ISO15693Error.unknown) }
            return .data([0x00, security.protectionPointer, security.extendedProtection, 0x00, 0x00])
        case NTAG5Command.writeConfig:
            return securityError(ISO15693Error.unknown)
        default:
            return nil
        }
    }

    /// What GET NXP SYSTEM INFORMATION answers now.
    public var nxpSystemInformation: NXPSystemInformation {
        let lockBits = (security.easLocked ? 0x02 : 0) | (dsfidLocked ? 0x04 : 0)
            | (security.lockedConditions.isEmpty ? 0 : NXPSystemInformation.protectionLockedBit)
        return NXPSystemInformation(
            protectionPointer: security.protectionPointer, protectionCondition: security.extendedProtection, lockBits: lockBits,
            featureFlags: profile.nxpFeatureFlags)
    }
}
