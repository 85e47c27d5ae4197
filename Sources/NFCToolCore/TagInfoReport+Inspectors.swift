import CommandLineKit
import Foundation
import NFCCore
import NFCTags
import Originality

/// What `info` reads per platform: locks, access bits, protection, system information.
extension TagInfoReport {
    mutating func fillISO14443A(_ a: ISO14443ATarget) {
        id.technology = a.supportsISODEP ? "ISO 14443-4 A (ISO-DEP)" : "ISO 14443-3 A"
        id.atqa = String(format: "%04X", a.atqaValue)
        id.sak = Hex.encode([a.sak], uppercase: true)
        id.ats = a.ats.isEmpty ? nil : Hex.encode(a.ats, uppercase: true)
    }

    /// Type 2: CC3, lock bytes, CFGLCK, AUTH0/PROT, READ_SIG.
    mutating func inspectType2(_ mifare: MiFareTag, reader: any NFCReader) async {
        let profile = Type2ChipProfile.named(identity: mifare.identity)
        // Each page from its own READ's first four bytes: a read-protected chip rolls a READ
        // over to page 0 at AUTH0, so the bytes after the first may not be the pages after it.
        var page2: [UInt8]?
        var staticItem: InfoItem
        do {
            let answer = try await mifare.sendMiFareCommand(Bytes([Type2Command.read, 2])).array
            guard answer.count >= 4 else { throw NFCTagError(.tagResponse, "READ answered \(answer.count) bytes") }
            page2 = Array(answer.prefix(4))
            staticItem = InfoItem(name: "static lock bytes", value: Hex.encode(answer[2...3], uppercase: true, separator: " "))
        } catch {
            staticItem = InfoItem(name: "static lock bytes", value: unknown(error))
            await reselect(reader, .iso14443A)
        }
        do {
            let answer = try await mifare.sendMiFareCommand(Bytes([Type2Command.read, 3])).array
            guard answer.count >= 4 else { throw NFCTagError(.tagResponse, "READ answered \(answer.count) bytes") }
            // CC3 and the static lock bytes decoded here, from the raw pages, so that they show on
            // a chip that is not NDEF-formatted too (Type2CapabilityContainer wants E1 in CC0).
            let cc3 = answer[3]
            let writeGranted = cc3 & 0x0F == Type2CapabilityContainer.writeAccessGranted
            lock.append(InfoItem(name: "CC3", value: hexByte(cc3) + (writeGranted ? " (write access granted)" : " (no write access)")))
            if lockState == "unknown", let page2 {
                lockState = writeGranted && page2[2] == 0 && page2[3] == 0 ? "read-write" : "read-only"
            }
        } catch {
            lock.append(InfoItem(name: "CC3", value: unknown(error)))
            await reselect(reader, .iso14443A)
        }
        lock.append(staticItem)
        if let page = profile?.dynamicLockPage {
            do {
                let bytes = try await mifare.sendMiFareCommand(Bytes([Type2Command.read, UInt8(page)])).array
                lock.append(InfoItem(name: "dynamic lock bytes", value: Hex.encode(bytes.prefix(3), uppercase: true, separator: " ")))
            } catch {
                lock.append(InfoItem(name: "dynamic lock bytes", value: unknown(error)))
                await reselect(reader, .iso14443A)
            }
        }
        if let type2 = mifare.type2, type2.isUltralightC {
            // Pages 28h–2Bh: lock bytes 2–3 and the 3DES key's AUTH0/AUTH1 (MF0ICU2 7.5.8).
            do {
                let configuration = try await type2.readUltralightCConfiguration()
                lock.append(InfoItem(name: "lock bytes 2-3", value: Hex.encode(configuration.lockBytes, uppercase: true, separator: " ")))
                if configuration.isProtected {
                    let kind = configuration.readProtected ? "read/write" : "write"
                    password = "3DES key: \(kind)-protected from page \(configuration.auth0)"
                } else {
                    password = "none (AUTH0 \(hexByte(UInt8(truncatingIfNeeded: configuration.auth0))))"
                }
            } catch {
                password = error.code == .passwordRequired ? "3DES key: read-protected" : unknown(error)
                await reselect(reader, .iso14443A)
            }
            return
        }
        if let type2 = mifare.type2, type2.isUltralightAES {
            // CFG0/CFG1 (pages 29h–2Ah): AUTH0, PROT, AUTH_LIM and secure messaging.
            do {
                let configuration = try await type2.readUltralightAESConfiguration()
                let limit = configuration.authenticationLimit == 0 ? "no limit" : "AUTH_LIM \(configuration.authenticationLimit)"
                let messaging = configuration.secureMessaging ? ", secure messaging on" : ""
                if configuration.isProtected {
                    let kind = configuration.readProtected ? "read/write" : "write"
                    password = "AES key: \(kind)-protected from page \(configuration.auth0) (\(limit)\(messaging))"
                } else {
                    password = "none (AUTH0 \(hexByte(UInt8(truncatingIfNeeded: configuration.auth0))); \(limit)\(messaging))"
                }
            } catch {
                password = error.code == .passwordRequired ? "AES key: read-protected" : unknown(error)
                await reselect(reader, .iso14443A)
            }
            await inspectUltralightAESCountersAndSignature(type2, mifare: mifare, reader: reader)
            return
        }
        guard let type2 = mifare.type2, profile != nil else {
            password = "not applicable"
            return
        }
        do {
            let configuration = try await type2.readConfiguration()
            lock.append(InfoItem(name: "CFGLCK", value: configuration.isLocked ? "set (configuration locked)" : "clear"))
            if configuration.auth0 >= (profile?.totalPages ?? 256) {
                password = "none (AUTH0 \(hexByte(UInt8(configuration.auth0))))"
            } else {
                let kind = configuration.readProtected ? "read/write" : "write"
                password = "\(kind)-protected from page \(configuration.auth0)"
            }
            if type2.hasMirror {
                mirror = NTAGMirrorDescription.mirror(configuration)
                nfcCounter = NTAGMirrorDescription.counter(configuration)
                mirrorSettings = NTAGMirrorSettings(configuration)
                nfcCounterSettings = NTAGCounterSettings(configuration)
            }
        } catch where error.code == .passwordRequired {
            lock.append(InfoItem(name: "CFGLCK", value: "unknown (read-protected)"))
            password = "read-protected"
            if type2.hasMirror { (mirror, nfcCounter) = ("unknown (read-protected)", "unknown (read-protected)") }
            await reselect(reader, .iso14443A)
        } catch {
            lock.append(InfoItem(name: "CFGLCK", value: unknown(error)))
            password = unknown(error)
            await reselect(reader, .iso14443A)
        }
        do {
            let bytes = try await type2.readSignature()
            signature = Hex.encode(bytes, uppercase: true)
            genuine = OriginalityVerifier().verify(uid: mifare.identifier, signature: bytes)
        } catch {
            await reselect(reader, .iso14443A)
        }
    }

    /// Ultralight AES: the three one-way counters (READ_CNT; counter 2 may need the key) and the
    /// 48-byte READ_SIG signature with its verdict.
    mutating func inspectUltralightAESCountersAndSignature(_ type2: Type2Tag, mifare: MiFareTag, reader: any NFCReader) async {
        var values: [Int?] = []
        var texts: [String] = []
        for number in 0..<UltralightAESCommand.counterCount {
            do {
                let value = try await type2.readCounter(number)
                values.append(value)
                texts.append("\(value)")
            } catch {
                values.append(nil)
                texts.append(error.readerError?.code == .nak ? "refused (needs the AES key)" : unknown(error))
                await reselect(reader, .iso14443A)
            }
        }
        counters = values
        counterText = texts.joined(separator: ", ")
        do {
            let bytes = try await type2.readSignature()
            signature = Hex.encode(bytes, uppercase: true)
            genuine = OriginalityVerifier().verify(uid: mifare.identifier, signature: bytes, model: mifare.identity.model)
        } catch {
            genuine = .noSignature(error.reason)
            await reselect(reader, .iso14443A)
        }
    }

    /// Classic: the GPB and access bits of each NFC sector the MAD lists.
    mutating func inspectClassic(_ mifare: MiFareTag) async {
        let layout = mifare.classicLayout
        do {
            try await mifare.authenticate(sector: 0, keyType: .a, key: Bytes(MADDirectory.publicKeyA))
            let sector0 = try await mifare.readBlock(1) + (try await mifare.readBlock(2))
            let trailer0 = try await mifare.readBlock(3)
            let directory = try MADDirectory(sector0: sector0)
            lock.append(InfoItem(name: "MAD GPB", value: hexByte(trailer0[9])))
            var readOnly = 0
            for sector in directory.ndefSectors where sector < layout.sectorCount {
                do {
                    try await mifare.authenticate(sector: sector, keyType: .a, key: Bytes(ClassicNDEFTag.nfcSectorKeyA))
                    let trailer = try await mifare.readBlock(layout.trailerBlock(ofSector: sector))
                    let gpb = ClassicNFCSectorGPB(rawValue: trailer[9])
                    if !gpb.isWritable { readOnly += 1 }
                    lock.append(InfoItem(
                        name: "sector \(sector)",
                        value: "GPB \(hexByte(trailer[9])) (\(gpb.isWritable ? "read-write" : "read-only")), access \(Hex.encode(trailer[6...8], uppercase: true, separator: " "))"))
                } catch {
                    lock.append(InfoItem(name: "sector \(sector)", value: unknown(error)))
                }
            }
            if !directory.ndefSectors.isEmpty { lockState = readOnly == 0 ? "read-write" : "read-only" }
        } catch {
            lock.append(InfoItem(name: "MAD", value: unknown(error)))
        }
    }

    /// Type 4: the CC's read and write access bytes.
    mutating func inspectType4(_ iso: ISO7816Tag) async {
        do {
            let cc = try await iso.type4Platform.readCapabilityContainer()
            lock.append(InfoItem(name: "CC read access", value: hexByte(cc.readAccess)))
            lock.append(InfoItem(name: "CC write access", value: hexByte(cc.writeAccess) + (cc.isWritable ? " (granted)" : " (denied)")))
            lockState = cc.isWritable ? "read-write" : "read-only"
        } catch {
            lock.append(InfoItem(name: "CC", value: unknown(error)))
        }
    }

    /// Type 3: the attribute block's RWFlag, and MC on a FeliCa Lite-S.
    mutating func inspectType3(_ felica: FeliCaTag) async {
        do {
            let read = try await felica.readWithoutEncryption(
                serviceCodeList: [Type3ServiceCode.ndefRead], blockList: [FeliCaBlockListElement(blockNumber: 0)])
            let attribute = try Type3AttributeInformation(parsing: read.blocks.first?.array ?? [])
            lock.append(InfoItem(name: "RWFlag", value: hexByte(attribute.rwFlag) + (attribute.isWritable ? " (read-write)" : " (read-only)")))
            lockState = attribute.isWritable ? "read-write" : "read-only"
        } catch {
            lock.append(InfoItem(name: "RWFlag", value: unknown(error)))
        }
        guard felica.isFeliCaLiteS else { return }
        do {
            let read = try await felica.readWithoutEncryption(
                serviceCodeList: [Type3ServiceCode.ndefRead],
                blockList: [FeliCaBlockListElement(blockNumber: Type3LiteS.memoryConfigurationBlock)])
            let mc = read.blocks.first?.array ?? []
            guard mc.count == 16 else { throw NFCTagError(.tagResponse, "MC is \(mc.count) bytes") }
            lock.append(InfoItem(name: "MC", value: Hex.encode(mc.prefix(5), uppercase: true, separator: " ") + " (MC_SP, MC_ALL, SYS_OP, RF_PRM)"))
        } catch {
            lock.append(InfoItem(name: "MC", value: unknown(error)))
        }
    }

    /// Type 5: DSFID, AFI, CC access and how many blocks are locked; on an ICODE SLIX2 or SLIX-S
    /// the password protection of its blocks (GET MULTIPLE BLOCK PROTECTION STATUS; an NTAG 5's
    /// from GET NXP SYSTEM INFORMATION), on an ST25DV its areas' protection (READ CONFIGURATION
    /// of ENDAx and RFAxSS), on an ST25TV02K its memory organisation, both areas' protection and
    /// LOCK_CFG (``ST25TVRegister/summary(area1:area2:lockConfiguration:blockCount:)``), on an
    /// ST25TV02KC its tamper loop (READ CONFIGURATION of TD_STATUS, ``ST25TVCTamperStatus``).
    mutating func inspectType5(_ vicinity: ISO15693Tag) async {
        self.vicinity = ISO15693Details(vicinity.identity)
        if vicinity.icodeVariant?.hasPageProtection == true {
            do {
                password = try await vicinity.icodeProtectionState().summary
            } catch {
                password = unknown(error)
            }
        }
        if vicinity.hasST25DVPasswords {
            do {
                password = try await vicinity.st25AreaSummary(blockCount: vicinity.identity.blockCount)
            } catch {
                password = unknown(error)
            }
        }
        if vicinity.hasST25TVConfiguration {
            do {
                password = try await vicinity.st25tvConfigurationSummary()
            } catch {
                password = unknown(error)
            }
        }
        if vicinity.hasST25TVCTamperDetect {
            do {
                let status = try await vicinity.st25tvcTamperStatus()
                self.vicinity?.tamper = status.summary
                self.vicinity?.tamperStatus = status.hex
            } catch {
                self.vicinity?.tamper = unknown(error)
            }
        }
        if let variant = vicinity.icodeVariant {
            lock.append(InfoItem(name: "ICODE passwords", value: ICodePasswordReport(variant).summary))
            lock.append(InfoItem(name: "EAS", value: await vicinity.icodeEASSummary()))
        }
        var blockCount: Int?
        if vicinity.identity.memoryFromModelTable != nil {
            // A Tag-it HF-I Standard or Pro: no GET SYSTEM INFORMATION, no block security status.
            let none = "not reported (the chip answers no GET SYSTEM INFORMATION)"
            (dsfid, afi) = (none, none)
            lock.append(InfoItem(name: "locked blocks", value: "not reported (the chip answers no GET MULTIPLE BLOCK SECURITY STATUS)"))
        } else {
            do {
                let info = try await vicinity.getSystemInfo()
                dsfid = info.dsfid.map(hexByte)
                afi = info.afi.map(hexByte)
                blockCount = info.blockCount
            } catch {
                dsfid = unknown(error)
                afi = unknown(error)
            }
        }
        do {
            let cc = try Type5CapabilityContainer(memory: try await vicinity.readSingleBlock(0).array + (try await vicinity.readSingleBlock(1).array))
            lock.append(InfoItem(name: "CC read access", value: hexByte(cc.readAccess)))
            lock.append(InfoItem(name: "CC write access", value: hexByte(cc.writeAccess) + (cc.isWritable ? " (granted)" : " (denied)")))
            if lockState == "unknown" { lockState = cc.isWritable ? "read-write" : "read-only" }
        } catch {
            lock.append(InfoItem(name: "CC", value: unknown(error)))
        }
        if let blockCount {
            do {
                var statuses: [UInt8] = []
                var first = 0
                while first < blockCount {
                    let end = min(first + 32, blockCount)
                    statuses += try await vicinity.getMultipleBlockSecurityStatus(first..<end)
                    first = end
                }
                let locked = statuses.filter { $0 & ISO15693Block.lockedStatus != 0 }.count
                lock.append(InfoItem(name: "locked blocks", value: "\(locked) of \(blockCount)"))
            } catch {
                lock.append(InfoItem(name: "locked blocks", value: unknown(error)))
            }
        }
    }
}

/// `info --json`'s `mirrorSettings`: CFG0's MIRROR_CONF, MIRROR_PAGE and MIRROR_BYTE
/// (NTAG213/215/216 datasheet 8.5.7, Table 10).
struct NTAGMirrorSettings: Encodable, Sendable, Hashable {
    /// Whether MIRROR_CONF is not `00b`.
    var enabled: Bool
    /// `uid`, `counter` or `uidAndCounter` (``NTAGMirror``'s raw values); null when off.
    var mirrors: String?
    /// MIRROR_PAGE.
    var page: Int
    /// MIRROR_BYTE, 0…3.
    var byte: Int

    init(_ configuration: Type2Configuration) {
        let kind = configuration.mirror?.kind
        enabled = kind != nil
        mirrors = kind?.rawValue
        page = configuration.mirrorPosition.page
        byte = configuration.mirrorPosition.byte
    }

    private enum CodingKeys: String, CodingKey { case enabled, mirrors, page, byte }

    /// Every key, `mirrors` null while the mirror is off.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(enabled, forKey: .enabled)
        try container.encode(mirrors, forKey: .mirrors)
        try container.encode(page, forKey: .page)
        try container.encode(byte, forKey: .byte)
    }
}

/// `info --json`'s `nfcCounterSettings`: ACCESS's NFC_CNT_EN and NFC_CNT_PWD_PROT (NTAG213/215/216
/// datasheet 8.5.7, Table 12).
struct NTAGCounterSettings: Encodable, Sendable, Hashable {
    /// NFC_CNT_EN.
    var enabled: Bool
    /// NFC_CNT_PWD_PROT: READ_CNT needs the password.
    var passwordProtected: Bool

    init(_ configuration: Type2Configuration) {
        enabled = configuration.nfcCounterEnabled
        passwordProtected = configuration.nfcCounterPasswordProtected
    }
}

/// How `info` words an NTAG213/215/216's mirror and NFC counter configuration.
enum NTAGMirrorDescription {
    /// `UID from page 9 byte 2`, `UID and NFC counter from page 9 byte 2`, or `off`.
    static func mirror(_ configuration: Type2Configuration) -> String {
        guard let (kind, position) = configuration.mirror else { return "off" }
        let what = switch kind {
        case .uid: "UID"
        case .counter: "NFC counter"
        case .uidAndCounter: "UID and NFC counter"
        }
        return "\(what) from page \(position.page) byte \(position.byte)"
    }

    /// `enabled`, `enabled, password-protected` or `disabled`.
    static func counter(_ configuration: Type2Configuration) -> String {
        guard configuration.nfcCounterEnabled else { return "disabled" }
        return configuration.nfcCounterPasswordProtected ? "enabled, password-protected" : "enabled"
    }
}

/// `info`'s ISO 15693 facts (JSON `iso15693`): who made the chip, its IC reference and memory
/// shape as GET (EXTENDED) SYSTEM INFORMATION gave them, and where the model's name comes from.
struct ISO15693Details: Encodable, Sendable, Hashable {
    /// The IC manufacturer (UID byte 1).
    var manufacturer: String?
    /// The IC reference, hex.
    var icReference: String?
    /// Number of blocks.
    var blockCount: Int?
    /// Bytes per block.
    var blockSize: Int?
    /// The source of the model's row (``ISO15693ChipTable``).
    var identifiedBy: String?
    /// For a chip that answers no GET SYSTEM INFORMATION: the model table's source of the block
    /// count and size; absent when the chip's system information gave them.
    var memoryFromModelTable: String?
    /// ST25TV02KC: the tamper loop at the chip's last power-up, `open`, `closed` or `unknown (…)`
    /// (``ST25TVCTamperStatus/summary``); absent on every other chip.
    var tamper: String?
    /// ST25TV02KC: TD_STATUS as read, hex; absent when it was not read.
    var tamperStatus: String?

    init(_ identity: ChipIdentity) {
        manufacturer = identity.manufacturer
        icReference = identity.icReference.map(hexByte)
        blockCount = identity.blockCount
        blockSize = identity.blockSize
        identifiedBy = identity.identificationSource
        memoryFromModelTable = identity.memoryFromModelTable
    }

    /// The text lines: label and value.
    var lines: [(String, String)] {
        var lines: [(String, String)] = []
        if let manufacturer { lines.append(("manufacturer", manufacturer)) }
        if let icReference { lines.append(("IC reference", icReference)) }
        let from = memoryFromModelTable.map { "model table, the chip answers no GET SYSTEM INFORMATION: \($0)" } ?? "system information"
        let blocks = blockCount.map { count in "\(count) of \(blockSize.map(String.init) ?? "?") bytes (\(from))" }
        lines.append(("blocks", blocks ?? "unknown (no system information on this reader)"))
        if let identifiedBy { lines.append(("identified", identifiedBy)) }
        if let tamper { lines.append(("tamper loop", tamper + (tamperStatus.map { " (TD_STATUS \($0))" } ?? ""))) }
        return lines
    }
}
