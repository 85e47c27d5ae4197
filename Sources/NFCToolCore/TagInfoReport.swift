import CommandLineKit
import Foundation
import NFCCore
import NFCTags
import Originality

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
    /// Where it was found and what it is (the keys `scan` shares).
    var id: TagIdentification
    /// ISO 15693: DSFID and AFI.
    var dsfid: String?, afi: String?
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
    /// NTAG213/215/216: the ASCII mirror (CFG0 MIRROR_CONF, MIRROR_PAGE, MIRROR_BYTE), `off`,
    /// or `unknown (why)`; nil (JSON null) on other chips.
    var mirror: String?
    /// NTAG213/215/216: the NFC counter's configuration (ACCESS NFC_CNT_EN, NFC_CNT_PWD_PROT):
    /// `enabled`, `enabled, password-protected`, `disabled` or `unknown (why)`; nil otherwise.
    var nfcCounter: String?
    /// NTAG213/215/216: CFG0's mirror fields decoded (JSON `mirrorSettings`); nil on other chips
    /// and when CFG0 could not be read.
    var mirrorSettings: NTAGMirrorSettings?
    /// NTAG213/215/216: ACCESS's NFC counter bits (JSON `nfcCounterSettings`); nil on other
    /// chips and when CFG1 could not be read.
    var nfcCounterSettings: NTAGCounterSettings?
    /// MIFARE Ultralight AES: its three one-way counters (READ_CNT), null for one the chip
    /// refused (JSON `counters`); nil (JSON null) on other chips.
    var counters: [Int?]?
    /// The counters as `info` shows them: `0, 0, refused (needs the AES key)`.
    var counterText: String?
    /// The READ_SIG bytes in hex; `not available` when the chip has none or refused.
    var signature: String
    /// The originality verdict on the signature (NXP's keys): JSON `genuine` true/false/null
    /// and `signatureKey`.
    var genuine: OriginalityVerdict = .noSignature("not read")
    /// An NTAG 424 DNA's file settings and SDM configuration (JSON `ntag424`, null on other chips).
    var ntag424: NTAG424Info?
    /// A MIFARE DESFire's version, free memory and applications (JSON `desfire`, null on other chips).
    var desfire: DESFireInfo?
    /// A MIFARE DESFire Light's DF name and file settings (JSON `desfireLight`, null on other chips).
    var desfireLight: DESFireLightInfo?
    /// ISO 15693: maker, IC reference, memory shape and the identification's source (JSON
    /// `iso15693`, null on other chips).
    var vicinity: ISO15693Details?

    private enum CodingKeys: String, CodingKey {
        case dsfid, afi, ndef, lock, password, mirror, mirrorSettings, nfcCounter, nfcCounterSettings, counters, signature, genuine, signatureKey, ntag424
        case desfire, desfireLight
        case vicinity = "iso15693"
    }

    private enum NDEFKeys: String, CodingKey { case status, capacity, messageLength }
    private enum LockKeys: String, CodingKey { case state, details }

    func encode(to encoder: any Encoder) throws {
        try id.encode(to: encoder, nulls: true)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(dsfid, forKey: .dsfid)
        try container.encode(afi, forKey: .afi)
        var ndef = container.nestedContainer(keyedBy: NDEFKeys.self, forKey: .ndef)
        try ndef.encode(ndefStatus, forKey: .status)
        try ndef.encode(ndefCapacity, forKey: .capacity)
        try ndef.encode(ndefMessageLength, forKey: .messageLength)
        var lockContainer = container.nestedContainer(keyedBy: LockKeys.self, forKey: .lock)
        try lockContainer.encode(lockState, forKey: .state)
        try lockContainer.encode(lock, forKey: .details)
        try container.encode(password, forKey: .password)
        try container.encode(mirror, forKey: .mirror)
        try container.encode(mirrorSettings, forKey: .mirrorSettings)
        try container.encode(nfcCounter, forKey: .nfcCounter)
        try container.encode(nfcCounterSettings, forKey: .nfcCounterSettings)
        try container.encode(counters, forKey: .counters)
        try container.encode(signature, forKey: .signature)
        try container.encode(genuine.isGenuine, forKey: .genuine)
        try container.encode(genuine.key?.name, forKey: .signatureKey)
        try container.encode(ntag424, forKey: .ntag424)
        try container.encode(desfire, forKey: .desfire)
        try container.encode(desfireLight, forKey: .desfireLight)
        try container.encode(vicinity, forKey: .vicinity)
    }

    /// The block a person reads, 80 columns at most.
    var text: String {
        let id = self.id
        var lines = ["Tag on \(id.reader)", line("technology", id.technology), line(id.pmm == nil ? "UID" : "IDm", spacedHex(id.uid))]
        if let atqa = id.atqa { lines.append(line("ATQA", spacedHex(atqa))) }
        if let sak = id.sak { lines.append(line("SAK", sak)) }
        if let ats = id.ats { lines.append(line("ATS", spacedHex(ats))) }
        if let pmm = id.pmm { lines.append(line("PMm", spacedHex(pmm))) }
        if let systemCode = id.systemCode { lines.append(line("system code", systemCode)) }
        if let dsfid { lines.append(line("DSFID", dsfid)) }
        if let afi { lines.append(line("AFI", afi)) }
        lines.append(line("model", id.model))
        lines.append(line("platform", id.platform))
        lines.append(line("memory", id.memoryBytes.map { "\($0) bytes" } ?? "unknown"))
        if let vicinity { lines += vicinity.lines.map { line($0.0, $0.1) } }
        lines.append(line("NDEF", ndefStatus))
        if let ndefCapacity { lines.append(line("capacity", "\(ndefCapacity) bytes")) }
        if let ndefMessageLength { lines.append(line("message", "\(ndefMessageLength) bytes")) }
        lines.append(line("lock", lockState))
        for item in lock { lines.append("    \(item.name): \(item.value)") }
        lines += wrapped("password", password)
        if let mirror { lines.append(line("mirror", mirror)) }
        if let nfcCounter { lines.append(line("NFC counter", nfcCounter)) }
        if let counterText { lines.append(line("counters", counterText)) }
        // A 56-byte secp224r1 signature does not fit one 80-column line: 64 hex digits a line.
        lines.append(line("signature", String(signature.prefix(64))))
        if signature.count > 64 { lines.append(String(repeating: " ", count: 16) + signature.dropFirst(64)) }
        lines.append(line("genuine", genuine.summary))
        if let ntag424 { lines += ntag424.lines }
        if let desfire { lines += desfire.lines }
        if let desfireLight { lines += desfireLight.lines }
        return lines.map { String($0.prefix(80)) }.joined(separator: "\n") + "\n"
    }

    /// `line(label, value)`, its "; "-separated parts carried on to lines indented under the
    /// value when it would pass 80 columns (an ST25DV's four areas), instead of being cut.
    private func wrapped(_ label: String, _ value: String) -> [String] {
        let first = line(label, value)
        guard first.count > 80 else { return [first] }
        var lines: [String] = []
        var current = line(label, "")
        for (index, part) in value.components(separatedBy: "; ").enumerated() {
            let piece = index == 0 ? part : "; " + part
            if index > 0 && current.count + piece.count > 80 {
                lines.append(current + ";")
                current = String(repeating: " ", count: 16) + part
            } else {
                current += piece
            }
        }
        return lines + [current]
    }

    private func line(_ label: String, _ value: String) -> String {
        "  " + label + ":" + String(repeating: " ", count: max(1, 13 - label.count)) + value
    }

    // MARK: - Inspection

    /// Reads everything `info` shows from `tag`; never throws: what fails is `unknown`.
    static func inspect(_ tag: NFCTag, reader: any NFCReader, connection: String) async -> TagInfoReport {
        let identity = tag.identity
        var report = TagInfoReport(
            id: TagIdentification(reader: connection, uid: tag.identifier, identity: identity), ndefStatus: "unknown", lockState: "unknown", lock: [], password: "not applicable",
            signature: "not available")
        report.id.readerName = await ReaderLabel(reader).name
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
        case .miFare(let mifare) where mifare.type1 != nil:
            // A Jewel has no ATQA/SAK of its own to report, and is never selected as ISO 14443-A.
            report.id.technology = "ISO 14443-A Jewel (NFC Forum Type 1)"
        case .miFare(let mifare):
            report.fillISO14443A(mifare.target)
            await reselect(reader, .iso14443A)
            switch mifare.mifareFamily {
            case .ultralight: await report.inspectType2(mifare, reader: reader)
            case .classic: await report.inspectClassic(mifare)
            case .desfire where mifare.target.supportsISODEP:
                report.id.technology = "ISO 14443-4 A (ISO-DEP)"
                report.desfire = await DESFireInfo.read(DESFireTag(reader: reader, commandTimeout: mifare.commandTimeout))
                if report.desfire != nil { report.lockState = report.ndefStatus == "not NDEF" ? "not applicable" : report.lockState }
                // Read_Sig (EV2, EV3, Light); an EV1 answers ILLEGAL_COMMAND_CODE: no signature.
                let originality = await OriginalityVerifier().check(tag)
                report.signature = originality.signature.map { Hex.encode($0, uppercase: true) } ?? report.signature
                report.genuine = originality.verdict
            default: break
            }
        case .iso7816(let iso):
            switch iso.target {
            case .iso14443A(let a): report.fillISO14443A(a); report.id.technology = "ISO 14443-4 A (ISO-DEP)"
            default: report.id.technology = "ISO 14443-4 B (ISO-DEP)"
            }
            await report.inspectType4(iso)
            if iso.identity.family == .ntagDNA {
                report.ntag424 = await NTAG424Info.read(iso)
                // The access the chip enforces, not the CC's byte: a plain write is refused (6982).
                if let needs = report.ntag424?.ndefWriteNeeds, report.ndefStatus == "read-write" {
                    report.ndefStatus = "read-only without \(needs) (the NDEF file's settings)"
                    report.lockState = "writes need \(needs) (file settings, not the CC)"
                }
            }
            if iso.identity.family == .desfireLight { report.desfireLight = await DESFireLightInfo.read(iso) }
            let originality = await OriginalityVerifier().check(tag)
            report.signature = originality.signature.map { Hex.encode($0, uppercase: true) } ?? report.signature
            report.genuine = originality.verdict
        case .feliCa(let felica):
            report.id.technology = "FeliCa (JIS X 6319-4)"
            report.id.pmm = Hex.encode(felica.target.pmm, uppercase: true)
            report.id.systemCode = felica.currentSystemCode.map { String(format: "%04X", $0) }
            await report.inspectType3(felica)
        case .iso15693(let vicinity):
            report.id.technology = "ISO 15693"
            await report.inspectType5(vicinity)
            let originality = await OriginalityVerifier().check(tag)
            report.signature = originality.signature.map { Hex.encode($0, uppercase: true) } ?? report.signature
            report.genuine = originality.verdict
        }
        return report
    }
}
