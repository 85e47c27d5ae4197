import Foundation
import NFCCore
import NFCTags

/// `nfctool info`: everything the tag tells about itself: identifiers, chip, NDEF state, locks,
/// password protection and originality signature. What cannot be read is reported as unknown.
struct InfoCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        name: "info",
        abstract: "Show a tag's identifiers, chip, NDEF state, locks and protection.",
        discussion: """
            Reports the technology and UID (ATQA/SAK/ATS, FeliCa IDm/PMm/system code, or ISO \
            15693 DSFID/AFI), the chip model and memory size, the NDEF status, capacity and \
            message length, the lock state (Type 2: CC3, static and dynamic lock bytes, CFGLCK; \
            Type 3: RWFlag and MC; Type 5: CC access and block security; Classic: GPB of the \
            NFC sectors; Type 4: CC write access), the password protection (Type 2: AUTH0 and \
            PROT) and the originality signature (READ_SIG). Whatever the tag refuses to tell is \
            shown as unknown.

            Examples:
              nfctool info --device sim:ntag215
              nfctool info --device pn532_uart:/dev/ttyUSB0 --json
            """,
        options: [TagCommandSupport.device, TagCommandSupport.timeout, TagCommandSupport.json]
    )

    let connection: String?
    let seconds: Double
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws(CommandError) {
        connection = arguments.value(of: TagCommandSupport.device)
        seconds = try TagCommandSupport.timeoutSeconds(arguments)
        printsJSON = arguments.contains(TagCommandSupport.json)
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let connection = TagCommandSupport.connection(connection, context.environment)
        let report = try await TagCommandSupport.withTag(connection: connection, seconds: seconds) {
            (tag, reader) async throws(CommandError) -> TagInfoReport in
            await TagInfoReport.inspect(tag, reader: reader, connection: connection)
        }
        context.io.write(printsJSON ? try toolJSON(report) : report.text)
    }
}

/// One named fact of the lock state, as `info` shows it: `CC3: 00 (read-write)`.
struct InfoItem: Encodable, Sendable, Hashable {
    /// What it is: `CC3`, `static lock bytes`.
    var name: String
    /// Its value as read, or `unknown (why)`.
    var value: String
}

/// What `info` reports about one tag. Every key is always present in the JSON (null when it
/// does not apply), so scripts can rely on them.
struct TagInfoReport: Encodable, Sendable {
    var reader: String
    /// The reader's name, where it has one.
    var readerName: String?
    var technology: String
    var uid: String
    var atqa: String?
    var sak: String?
    var ats: String?
    var pmm: String?
    var systemCode: String?
    var dsfid: String?
    var afi: String?
    var model: String
    var platform: String
    var memoryBytes: Int?
    /// `read-write`, `read-only`, `not NDEF` or `unknown (why)`.
    var ndefStatus: String
    var ndefCapacity: Int?
    var ndefMessageLength: Int?
    /// `read-write`, `read-only` or `unknown`.
    var lockState: String
    var lock: [InfoItem]
    /// `none`, `write-protected from page N`, `read/write-protected from page N`,
    /// `read-protected`, `not applicable` or `unknown (why)`.
    var password: String
    /// The READ_SIG bytes in hex; `not available` when the chip has none or refused.
    var signature: String

    private enum CodingKeys: String, CodingKey {
        case reader, readerName, technology, uid, atqa, sak, ats, pmm, systemCode, dsfid, afi, model, platform, memoryBytes
        case ndef, lock, password, signature
    }

    private enum NDEFKeys: String, CodingKey { case status, capacity, messageLength }
    private enum LockKeys: String, CodingKey { case state, details }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reader, forKey: .reader)
        try container.encode(readerName, forKey: .readerName)
        try container.encode(technology, forKey: .technology)
        try container.encode(uid, forKey: .uid)
        try container.encode(atqa, forKey: .atqa)
        try container.encode(sak, forKey: .sak)
        try container.encode(ats, forKey: .ats)
        try container.encode(pmm, forKey: .pmm)
        try container.encode(systemCode, forKey: .systemCode)
        try container.encode(dsfid, forKey: .dsfid)
        try container.encode(afi, forKey: .afi)
        try container.encode(model, forKey: .model)
        try container.encode(platform, forKey: .platform)
        try container.encode(memoryBytes, forKey: .memoryBytes)
        var ndef = container.nestedContainer(keyedBy: NDEFKeys.self, forKey: .ndef)
        try ndef.encode(ndefStatus, forKey: .status)
        try ndef.encode(ndefCapacity, forKey: .capacity)
        try ndef.encode(ndefMessageLength, forKey: .messageLength)
        var lockContainer = container.nestedContainer(keyedBy: LockKeys.self, forKey: .lock)
        try lockContainer.encode(lockState, forKey: .state)
        try lockContainer.encode(lock, forKey: .details)
        try container.encode(password, forKey: .password)
        try container.encode(signature, forKey: .signature)
    }

    /// The block a person reads, 80 columns at most.
    var text: String {
        var lines = ["Tag on \(reader)", line("technology", technology), line(pmm == nil ? "UID" : "IDm", spacedHex(uid))]
        if let atqa { lines.append(line("ATQA", spacedHex(atqa))) }
        if let sak { lines.append(line("SAK", sak)) }
        if let ats { lines.append(line("ATS", spacedHex(ats))) }
        if let pmm { lines.append(line("PMm", spacedHex(pmm))) }
        if let systemCode { lines.append(line("system code", systemCode)) }
        if let dsfid { lines.append(line("DSFID", dsfid)) }
        if let afi { lines.append(line("AFI", afi)) }
        lines.append(line("model", model))
        lines.append(line("platform", platform))
        lines.append(line("memory", memoryBytes.map { "\($0) bytes" } ?? "unknown"))
        lines.append(line("NDEF", ndefStatus))
        if let ndefCapacity { lines.append(line("capacity", "\(ndefCapacity) bytes")) }
        if let ndefMessageLength { lines.append(line("message", "\(ndefMessageLength) bytes")) }
        lines.append(line("lock", lockState))
        for item in lock { lines.append("    \(item.name): \(item.value)") }
        lines.append(line("password", password))
        lines.append(line("signature", signature))
        return lines.map { String($0.prefix(80)) }.joined(separator: "\n") + "\n"
    }

    private func line(_ label: String, _ value: String) -> String {
        "  " + label + ":" + String(repeating: " ", count: max(1, 13 - label.count)) + value
    }

    // MARK: - Inspection

    /// Reads everything `info` shows from `tag`; never throws: what fails is `unknown`.
    static func inspect(_ tag: NFCTag, reader: any NFCReader, connection: String) async -> TagInfoReport {
        let identity = tag.identity
        var report = TagInfoReport(
            reader: connection, technology: "", uid: Hex.encode(tag.identifier, uppercase: true),
            model: identity.model, platform: identity.platform.rawValue, memoryBytes: identity.memoryBytes,
            ndefStatus: "unknown", lockState: "unknown", lock: [], password: "not applicable",
            signature: "not available")
        report.readerName = await ReaderLabel(reader).name
        do {
            let query = try await tag.ndef.queryNDEFStatus()
            switch query.status {
            case .readWrite: report.ndefStatus = "read-write"; report.lockState = "read-write"
            case .readOnly: report.ndefStatus = "read-only"; report.lockState = "read-only"
            case .notSupported: report.ndefStatus = "not NDEF"
            }
            if query.status != .notSupported {
                report.ndefCapacity = query.capacity
                report.ndefMessageLength = query.messageLength
            }
        } catch {
            report.ndefStatus = unknown(error)
        }
        switch tag {
        case .miFare(let mifare):
            report.fillISO14443A(mifare.target)
            await reselect(reader, .iso14443A)
            switch mifare.mifareFamily {
            case .ultralight: await report.inspectType2(mifare, reader: reader)
            case .classic: await report.inspectClassic(mifare)
            default: break
            }
        case .iso7816(let iso):
            switch iso.target {
            case .iso14443A(let a): report.fillISO14443A(a); report.technology = "ISO 14443-4 A (ISO-DEP)"
            default: report.technology = "ISO 14443-4 B (ISO-DEP)"
            }
            await report.inspectType4(iso)
        case .feliCa(let felica):
            report.technology = "FeliCa (JIS X 6319-4)"
            report.pmm = Hex.encode(felica.target.pmm, uppercase: true)
            report.systemCode = felica.currentSystemCode.map { String(format: "%04X", $0) }
            await report.inspectType3(felica)
        case .iso15693(let vicinity):
            report.technology = "ISO 15693"
            await report.inspectType5(vicinity)
        }
        return report
    }

    private mutating func fillISO14443A(_ a: ISO14443ATarget) {
        technology = a.supportsISODEP ? "ISO 14443-4 A (ISO-DEP)" : "ISO 14443-3 A"
        atqa = String(format: "%04X", a.atqaValue)
        sak = Hex.encode([a.sak], uppercase: true)
        ats = a.ats.isEmpty ? nil : Hex.encode(a.ats, uppercase: true)
    }

    /// Type 2: CC3, lock bytes, CFGLCK, AUTH0/PROT, READ_SIG.
    private mutating func inspectType2(_ mifare: MiFareTag, reader: any NFCReader) async {
        let profile = Type2ChipProfile.named(identity: mifare.identity)
        do {
            let head = try await mifare.sendMiFareCommand(Bytes([Type2Command.read, 2])).array
            guard head.count >= 8 else { throw NFCTagError(.tagResponse, "READ answered \(head.count) bytes") }
            let cc3 = head[7]
            lock.append(InfoItem(name: "CC3", value: hexByte(cc3) + (cc3 & 0x0F == 0 ? " (write access granted)" : " (no write access)")))
            lock.append(InfoItem(name: "static lock bytes", value: Hex.encode(head[2...3], uppercase: true, separator: " ")))
            if lockState == "unknown" { lockState = cc3 & 0x0F == 0 && head[2] == 0 && head[3] == 0 ? "read-write" : "read-only" }
        } catch {
            lock.append(InfoItem(name: "CC3", value: unknown(error)))
            await reselect(reader, .iso14443A)
        }
        if let page = profile?.dynamicLockPage {
            do {
                let bytes = try await mifare.sendMiFareCommand(Bytes([Type2Command.read, UInt8(page)])).array
                lock.append(InfoItem(name: "dynamic lock bytes", value: Hex.encode(bytes.prefix(3), uppercase: true, separator: " ")))
            } catch {
                lock.append(InfoItem(name: "dynamic lock bytes", value: unknown(error)))
                await reselect(reader, .iso14443A)
            }
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
        } catch where error.code == .passwordRequired {
            lock.append(InfoItem(name: "CFGLCK", value: "unknown (read-protected)"))
            password = "read-protected"
            await reselect(reader, .iso14443A)
        } catch {
            lock.append(InfoItem(name: "CFGLCK", value: unknown(error)))
            password = unknown(error)
            await reselect(reader, .iso14443A)
        }
        do {
            signature = Hex.encode(try await type2.readSignature(), uppercase: true)
        } catch {
            await reselect(reader, .iso14443A)
        }
    }

    /// Classic: the GPB and access bits of each NFC sector the MAD lists.
    private mutating func inspectClassic(_ mifare: MiFareTag) async {
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
    private mutating func inspectType4(_ iso: ISO7816Tag) async {
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
    private mutating func inspectType3(_ felica: FeliCaTag) async {
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

    /// Type 5: DSFID, AFI, CC access and how many blocks are locked.
    private mutating func inspectType5(_ vicinity: ISO15693Tag) async {
        var blockCount: Int?
        do {
            let info = try await vicinity.getSystemInfo()
            dsfid = info.dsfid.map(hexByte)
            afi = info.afi.map(hexByte)
            blockCount = info.blockCount
        } catch {
            dsfid = unknown(error)
            afi = unknown(error)
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

extension Type2ChipProfile {
    /// The profile of an identified Type 2 chip, or nil.
    static func named(identity: ChipIdentity) -> Type2ChipProfile? {
        identity.platform == .type2 ? Type2ChipProfile.named(identity.model) : nil
    }
}

/// Polls again for the tag, so that a chip a NAK sent to IDLE answers the next command.
func reselect(_ reader: any NFCReader, _ modulation: Modulation) async {
    _ = try? await reader.poll(for: [modulation], timeout: .milliseconds(500))
}

/// `unknown (reason)` for an error.
func unknown(_ error: any Error) -> String {
    "unknown (\((error as? NFCTagError)?.reason ?? String(describing: error)))"
}

/// A byte in two upper-case hex digits.
func hexByte(_ byte: UInt8) -> String {
    Hex.encode([byte], uppercase: true)
}

/// `0453494D` → `04 53 49 4D`.
func spacedHex(_ hex: String) -> String {
    var result = ""
    for (index, character) in hex.enumerated() {
        if index > 0, index % 2 == 0 { result.append(" ") }
        result.append(character)
    }
    return result
}
