import NFCCore

/// One write a ``PlanningReader`` held back, described in its technology's words: where it
/// writes, what, and whether it can be undone (what `nfctool --plan` prints).
public struct PlannedWriteDescription: Encodable, Sendable, Hashable {
    /// Its technology's name.
    public var technology: String
    /// Where it writes: `page 4`, `block 12`, `offset 0x0002`.
    public var location: String
    /// The bytes written, spaced hex (a password is not shown).
    public var data: String
    /// Why it cannot be undone, when it cannot.
    public var irreversible: String?
    /// What the step is, when that is worth saying.
    public var note: String?


    /// Describes `write`; `profile` names a Type 2 chip's lock and configuration pages, and
    /// `ultralightC` says the chip is a MIFARE Ultralight C (its lock, AUTH0, AUTH1 and key pages,
    /// MF0ICU2 7.5; the key's bytes are never shown).
    ///
    /// `ultralightAES` says it is a MIFARE Ultralight AES (lock page, CFG0, CFG1 and the key
    /// pages 30h–3Bh, whose bytes are never shown).
    public init(_ write: PlannedWrite, profile: Type2ChipProfile?, ultralightC: Bool = false, ultralightAES: Bool = false) {
        technology = write.technology.rawValue
        let c = write.command.array
        func hex(_ bytes: ArraySlice<UInt8>) -> String { Hex.encode(Array(bytes), uppercase: true, separator: " ") }
        switch write.technology {
        case .type1:
            let byteCommand = c[0] == Type1Command.writeErase || c[0] == Type1Command.writeNoErase
            let erase = c[0] == Type1Command.writeErase || c[0] == Type1Command.writeErase8
            let name = "WRITE-NE" + (byteCommand ? "" : "8")
            let start = byteCommand ? Int(c[1] & 0x7F) : Int(c[1]) * Type1Memory.blockSize
            let count = byteCommand ? 1 : Type1Memory.blockSize
            location = byteCommand ? "byte \(start) (0x\(Hex.encode([UInt8(start)], uppercase: true)))" : "block \(c[1])"
            data = hex(c[2..<(2 + count)])
            note = erase ? nil : name
            let addresses = start..<(start + count)
            if addresses.overlaps(Type1Memory.staticLockBytes) {
                irreversible = "static lock bytes LOCK0/LOCK1 (one-time programmable)"
            } else if addresses.contains(Type1Memory.capabilityContainerAddress + 3) && !erase {
                irreversible = "capability container write access (bits set without erase)"
            } else if !erase {
                irreversible = "bits set without erase (lock bits are one-time programmable)"
            }
        case .type2:
            let page = Int(c[1])
            location = "page \(page) (0x\(Hex.encode([c[1]], uppercase: true)))"
            data = hex(c.dropFirst(2))
            if page == 2 {
                irreversible = "static lock bytes (one-time programmable)"
            } else if page == 3 {
                irreversible = "capability container (one-time programmable bits)"
            } else if ultralightAES {
                switch page {
                case UltralightAESMemory.lockPage: irreversible = "dynamic lock bytes (one-time programmable)"
                case UltralightAESMemory.cfg0Page: note = "CFG0: AUTH0 \(c.count > 5 ? String(c[5]) : "?") (first protected page)"
                case UltralightAESMemory.cfg1Page: note = "CFG1: PROT (bit 7: reads need the key too), AUTH_LIM"
                case UltralightAESMemory.keyPages:
                    data = "(AES key, not shown)"
                    note = "key page \(page - UltralightAESMemory.keyPages.lowerBound + 1)"
                default: break
                }
            } else if ultralightC {
                switch page {
                case UltralightCMemory.lockPage: irreversible = "lock bytes 2 and 3 (one-time programmable)"
                case UltralightCMemory.counterPage: irreversible = "one-way counter"
                case UltralightCMemory.auth0Page: note = "AUTH0 \(c.count > 2 ? String(c[2]) : "?"): first protected page"
                case UltralightCMemory.auth1Page: note = "AUTH1 (bit 0 clear: reads need the key too)"
                case UltralightCMemory.keyPages:
                    data = "(3DES key, not shown)"
                    note = "key page \(page - UltralightCMemory.keyPages.lowerBound + 1) of 4"
                default: break
                }
            } else if let profile {
                if page == profile.dynamicLockPage {
                    irreversible = "dynamic lock bytes (one-time programmable)"
                } else if page == profile.accessPage, c.count > 2, c[2] & Type2Configuration.configurationLockBit != 0 {
                    irreversible = "ACCESS with CFGLCK: the configuration is frozen for good"
                } else if page == profile.accessPage {
                    note = "CFG1 (ACCESS: PROT, AUTHLIM)"
                } else if page == profile.configurationPage, profile.hasMirror, c.count == 6 {
                    let mirror = NTAGMirror(mirrorByte: c[2]).map {
                        "\($0.rawValue) mirror at page \(c[4]) byte \((c[2] & NTAGMirrorBits.byteMask) >> NTAGMirrorBits.byteShift)"
                    }
                    note = "CFG0 (\(mirror ?? "mirror off"); AUTH0 \(c[5]): first protected page)"
                } else if page == profile.configurationPage {
                    note = "CFG0 (AUTH0: first protected page)"
                } else if page == profile.passwordPage || page == profile.packPage {
                    data = "(password, not shown)"
                    note = page == profile.passwordPage ? "PWD" : "PACK"
                }
            }
        case .classic:
            let block = Int(c[1])
            location = "block \(block)"
            data = hex(c.dropFirst(2))
            let isTrailer = block < 128 ? block % 4 == 3 : block % 16 == 15
            if isTrailer {
                // Trailer access bits C1 C2 C3 (MF1S50 8.7): 000, 010, 100, 110 and 111 leave the
                // access bits unwritable for good.
                let c1 = (c[2 + 7] >> 7) & 1, c2 = (c[2 + 8] >> 3) & 1, c3 = (c[2 + 8] >> 7) & 1
                let bits = (c1 << 2) | (c2 << 1) | c3
                if [0b000, 0b010, 0b100, 0b110, 0b111].contains(bits) {
                    irreversible = "sector trailer whose access bits can never be changed again"
                } else {
                    note = "sector trailer (keys and access bits)"
                }
            }
        case .type3:
            var blocks: [Int] = []
            var index = 9
            if index < c.count {
                index += 1 + 2 * Int(c[index])
                if index < c.count {
                    let count = Int(c[index])
                    index += 1
                    for _ in 0..<count where index + 1 < c.count {
                        if c[index] & 0x80 != 0 {
                            blocks.append(Int(c[index + 1]))
                            index += 2
                        } else {
                            blocks.append(index + 2 < c.count ? Int(c[index + 1]) | Int(c[index + 2]) << 8 : -1)
                            index += 3
                        }
                    }
                }
            }
            location = "block" + (blocks.count == 1 ? " " : "s ") + blocks.map { "\($0) (0x\(Hex.encode([UInt8(truncatingIfNeeded: $0)], uppercase: true)))" }.joined(separator: ",")
            data = hex(c[min(index, c.count)...])
            if blocks.contains(Int(Type3LiteS.memoryConfigurationBlock)) {
                irreversible = "FeliCa Lite-S MC (memory configuration can make blocks read-only for good)"
            }
        case .type4:
            location = "offset 0x" + Hex.encode([c[2], c[3]], uppercase: true)
            data = hex(c.dropFirst(5))
            note = "UPDATE BINARY of the selected file"
        case .desfire:
            let code = c.count > 1 ? c[1] : 0
            // Location: the short name fits the plan's column; note: the command's full name.
            let names: [UInt8: (String, String)] = [
                DESFire.Command.createApplication: ("CreateApp", "CreateApplication"), DESFire.Command.selectApplication: ("SelectApp", "SelectApplication"),
                DESFire.Command.createStdDataFile: ("CreateFile", "CreateStdDataFile"), DESFire.Command.writeData: ("WriteData", "WriteData"),
                DESFire.Command.deleteApplication: ("DeleteApp", "DeleteApplication"), DESFire.Command.formatPICC: ("FormatPICC", "FormatPICC"),
                DESFire.Command.additionalFrame: ("AF frame", "additional frame"), DESFire.Command.authenticateLegacy: ("Authenticate", "Authenticate (legacy)"),
                DESFire.Command.changeFileSettings: ("ChangeSettings", "ChangeFileSettings"),
                DESFire.Command.changeKey: ("ChangeKey", "ChangeKey"), DESFire.Command.changeKeySettings: ("ChangeKeySet", "ChangeKeySettings"),
                DESFire.Command.authenticateISO: ("Authenticate", "AuthenticateISO"), DESFire.Command.authenticateAES: ("Authenticate", "AuthenticateAES"),
            ]
            let name = names[code] ?? ("command " + Hex.encode([code], uppercase: true), "native command")
            location = name.0
            // An authentication's bytes are randoms under the key: not shown.
            let authentication = [DESFire.Command.authenticateLegacy, DESFire.Command.authenticateISO, DESFire.Command.authenticateAES].contains(code)
            data = authentication || code == DESFire.Command.additionalFrame && c.count == 22 ? "" : c.count > 5 ? hex(c[5..<(c.count - 1)]) : ""
            note = "\(name.1), native DESFire command \(Hex.encode([code], uppercase: true))"
            if code == DESFire.Command.formatPICC || code == DESFire.Command.deleteApplication {
                irreversible = "deletes applications and their files"
            }
            if code == DESFire.Command.changeFileSettings {
                // Enciphered under the session key: the settings are not readable here.
                data = c.count > 5 ? "file " + hex(c[5..<6]) + " (settings enciphered)" : ""
                irreversible = "file access rights; a change right of never (as lock sets) cannot be undone"
            }
            if code == DESFire.Command.changeKey || code == DESFire.Command.changeKeySettings {
                // A key or settings enciphered under the session key: never shown.
                data = code == DESFire.Command.changeKey && c.count > 5 ? "key " + hex(c[5..<6]) + " (enciphered)" : "(enciphered)"
                irreversible = "a key or key settings; frozen settings or a lost key cannot be undone"
            }
        case .type5:
            let addressed = c[0] & ISO15693RequestFlag.address != 0
            let start = 2 + (addressed ? 8 : 0)
            let extended = [ISO15693Command.extendedWriteSingleBlock, ISO15693Command.extendedLockBlock,
                            ISO15693Command.extendedWriteMultipleBlocks].contains(c[1])
            var block = -1
            if extended, start + 1 < c.count { block = Int(c[start]) | Int(c[start + 1]) << 8 }
            if !extended, start < c.count { block = Int(c[start]) }
            let dataStart = min(start + (extended ? 2 : 1) + ([ISO15693Command.writeMultipleBlocks, ISO15693Command.extendedWriteMultipleBlocks].contains(c[1]) ? (extended ? 2 : 1) : 0), c.count)
            if c.count >= 3, c[2] == ST25Command.manufacturerCode, ST25Command.writeClass.contains(c[1]) || c[1] == ST25Command.presentPassword {
                // ST custom: flags, code, 02, [UID], parameters. Passwords are never shown.
                let parameters = Array(c.dropFirst(3 + (addressed ? 8 : 0)))
                if c[1] == ST25Command.writeConfiguration {
                    location = "register " + hex(parameters.prefix(1))
                    data = hex(parameters.dropFirst())
                } else {
                    location = ST25Command.name(c[1])
                    data = "password \(parameters.first.map(String.init) ?? "?") (not shown)"
                }
                note = "\(ST25Command.name(c[1])), ST custom command \(Hex.encode([c[1]], uppercase: true))"
                return
            }
            if c.count >= 3, c[2] == ISO15693Command.nxpManufacturerCode,
               ICodeCommand.writeClass.contains(c[1]) || c[1] == ICodeCommand.setPassword {
                // Custom: flags, code, 04, [UID], parameters. Passwords are never shown.
                let parameters = Array(c.dropFirst(3 + (addressed ? 8 : 0)))
                location = ICodeCommand.name(c[1])
                switch c[1] {
                case ICodeCommand.setPassword, ICodeCommand.writePassword, ICodeCommand.lockPassword:
                    let identifier = parameters.first.flatMap(ICodePasswordIdentifier.init(rawValue:))
                    data = "\(identifier?.description ?? "unknown") password" + (c[1] == ICodeCommand.lockPassword ? "" : " (not shown)")
                case ICodeCommand.enablePrivacy:
                    data = "privacy password (not shown)"
                case ICodeCommand.destroy:
                    data = "destroy password (not shown)"
                case ICodeCommand.passwordProtectEASAFI:
                    data = c[0] & ISO15693RequestFlag.option != 0 ? "AFI" : "EAS"
                default:
                    data = hex(parameters[...])
                }
                note = "NXP ICODE custom command \(Hex.encode([c[1]], uppercase: true))"
                if ICodeCommand.irreversible.contains(c[1]) {
                    irreversible = switch c[1] {
                    case ICodeCommand.enablePrivacy:
                        "the chip answers nothing but GET RANDOM NUMBER and SET PASSWORD until its privacy password is given"
                    case ICodeCommand.destroy: "the chip never answers anything again"
                    default: "\(ICodeCommand.name(c[1])) cannot be undone"
                    }
                }
                return
            }
            switch c[1] {
            case ISO15693Command.lockBlock, ISO15693Command.extendedLockBlock:
                location = "block \(block)"
                data = "LOCK BLOCK"
                irreversible = "the block is locked for good (ISO 15693 LOCK BLOCK)"
            case ISO15693Command.writeAFI, ISO15693Command.writeDSFID:
                location = c[1] == ISO15693Command.writeAFI ? "AFI" : "DSFID"
                data = hex(c[min(start, c.count)...])
            case ISO15693Command.lockAFI, ISO15693Command.lockDSFID:
                location = c[1] == ISO15693Command.lockAFI ? "AFI" : "DSFID"
                data = "LOCK"
                irreversible = "locked for good (ISO 15693 LOCK \(location))"
            default:
                location = "block \(block)"
                data = hex(c[dataStart...])
            }
        }
    }
}

