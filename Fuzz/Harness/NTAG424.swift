// Fuzz targets for the NTAG 424 DNA parsers of NFCTags (Sources/NFCTags/NTAG424): `sun-url`
// (SUN URL verification, what a web server gets from a stranger's phone), `sdm-template`
// (`{sun:…}` URL templates from the user), `sdm-picc` (PICC data, decrypted or not),
// `ntag424-settings` (GetFileSettings answers and ChangeFileSettings data from a tag),
// `ntag424-keys` (keys files).
import NDEF
import NFCCore
import NFCCrypto
import NFCTags

/// Fixed test keys: AN12196's all-zero keys, and a diversifying keys file (its SDMMetaRead key
/// the zero key, its SDMFileRead master another).
enum NTAG424FuzzKeys {
    static let zero = Bytes([UInt8](repeating: 0, count: 16))
    static let master = Bytes((1...16).map { UInt8($0) })
    static let sdm: SDMKeys? = try? SDMKeys(metaRead: zero, fileRead: zero)
    static let plainSDM: SDMKeys? = try? SDMKeys(metaRead: nil, fileRead: zero)
    static let diversified: NTAG424DiversifiedKeys? = {
        let text = "sdmMetaRead = \(Hex.encode(zero))\nsdmFileReadMaster = \(Hex.encode(master))\nsystemIdentifier = 4E584B"
        guard let file = try? NTAG424KeyFile(text: text) else { return nil }
        return try? NTAG424DiversifiedKeys(file)
    }()
    static let uid = Bytes([0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40])
    static let counter: UInt32 = 0x12_3456
    static let padding: [UInt8] = [0xDA, 0x5C, 0xF6, 0x09, 0x41, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB]

    /// The keys every target needs, or a trap: a harness that cannot make its keys tests nothing.
    static func require<T>(_ value: T?, _ what: String) -> T {
        guard let value else { fatalError("NFCKit fuzz harness: cannot make \(what)") }
        return value
    }
}

private func isHexDigit(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "a")...UInt8(ascii: "f"): true
    default: false
    }
}

/// A query parameter as the verifier sees it (first `?`, up to the first `#` after it, pairs split
/// at `&`, name and value at the first `=`), with the value's place in the URL.
private struct QueryParameter {
    var name: [UInt8]
    var nameOffset: Int
    var value: Range<Int>
}

private func queryParameters(_ url: [UInt8]) -> [QueryParameter] {
    guard let question = url.firstIndex(of: UInt8(ascii: "?")) else { return [] }
    let end = url[question...].firstIndex(of: UInt8(ascii: "#")) ?? url.count
    var out: [QueryParameter] = []
    var start = question + 1
    while start <= end {
        let stop = url[start..<end].firstIndex(of: UInt8(ascii: "&")) ?? end
        if stop > start {
            if let equals = url[start..<stop].firstIndex(of: UInt8(ascii: "=")) {
                out.append(QueryParameter(name: Array(url[start..<equals]), nameOffset: start, value: (equals + 1)..<stop))
            } else {
                out.append(QueryParameter(name: Array(url[start..<stop]), nameOffset: start, value: stop..<stop))
            }
        }
        start = stop + 1
    }
    return out
}

/// The offset of an SDM data error in a text input must point at the fault: inside the text (or
/// just past it), at a non-hex character for `invalidHex`, at the start of a parameter's name for
/// `duplicateParameter`, at a parameter's value for `unsupportedPICCData` and `macMismatch`.
private func checkURLError(_ error: NTAG424Error, _ url: [UInt8], _ input: [UInt8]) {
    if error.subject != .sdmData { fail("SUN URL error about the chip: \(error)", input) }
    guard let offset = error.offset else {
        if [.invalidHex, .duplicateParameter, .macMismatch, .unsupportedPICCData].contains(error.code) { fail("\(error.code) without an offset", input) }
        return
    }
    checkOffset(offset, within: url.count, "SUN URL", input)
    switch error.code {
    case .invalidHex:
        if offset >= url.count || isHexDigit(url[offset]) { fail("invalidHex at \(offset), which is a hex digit or the end: \(error)", input) }
    case .duplicateParameter:
        if offset == 0 || ![UInt8(ascii: "?"), UInt8(ascii: "&")].contains(url[offset - 1]) { fail("duplicateParameter at \(offset), not a name: \(error)", input) }
    case .macMismatch, .unsupportedPICCData:
        if offset == 0 || url[offset - 1] != UInt8(ascii: "=") { fail("\(error.code) at \(offset), not a parameter's value: \(error)", input) }
    default:
        break
    }
}

/// `sun-url`: the input is a tapped URL (invalid UTF-8 repaired, as a web server's string would
/// be). Verification with AN12196's zero keys (default and Table 6's parameter names), with plain
/// mirroring's keys and with diversified keys never traps; an error is SDM data at a sensible
/// offset; a tap that verifies holds a 7-byte UID, a 24-bit counter and whole blocks of file data.
func checkSUNURL(_ bytes: [UInt8]) {
    let url = String(decoding: bytes, as: UTF8.self)
    let utf8 = Array(url.utf8)
    let sdm = NTAG424FuzzKeys.require(NTAG424FuzzKeys.sdm, "SDM keys")
    let plain = NTAG424FuzzKeys.require(NTAG424FuzzKeys.plainSDM, "plain SDM keys")
    let diversified = NTAG424FuzzKeys.require(NTAG424FuzzKeys.diversified, "diversified keys")
    let table6 = SUNParameterNames(picc: "picc_data", mac: "cmac", encryptedFileData: "enc")
    let attempts: [(String, () throws(NTAG424Error) -> SUNTap)] = [
        ("zero keys", { () throws(NTAG424Error) in try SUNVerifier.verify(url: url, keys: sdm) }),
        ("zero keys, Table 6 names", { () throws(NTAG424Error) in try SUNVerifier.verify(url: url, names: table6, keys: sdm) }),
        ("plain keys", { () throws(NTAG424Error) in try SUNVerifier.verify(url: url, keys: plain) }),
        ("diversified keys", { () throws(NTAG424Error) in try diversified.verify(url: url) }),
    ]
    for (what, attempt) in attempts {
        let tap: SUNTap
        do { tap = try attempt() } catch {
            checkURLError(error, utf8, bytes)
            continue
        }
        if let uid = tap.uid, uid.count != 7 { fail("\(what): a tap with a \(uid.count)-byte UID", bytes) }
        if let counter = tap.readCounter, counter > NTAG424SDM.counterMaximum { fail("\(what): counter \(counter)", bytes) }
        if let data = tap.fileData, data.isEmpty || data.count % 16 != 0 { fail("\(what): \(data.count) bytes of file data", bytes) }
    }
}

/// `sdm-template`: the input is a `{sun:…}` URL template. A refused template names the `{sun:`
/// at fault (or the file's end); one that parses lays out an NDEF file (NLEN right) whose URI is
/// the template's text; a read mirrored through its layout changes only the mirrors, into upper
/// case hex; and where the mirrors are whole query parameter values, the mirrored URL verifies
/// with those names back to the UID, counter and file data that went in.
func checkSDMTemplate(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let utf8 = Array(text.utf8)
    for fileSize in [NTAG424SDM.ndefFileSize, 128] {
        let template: SDMURLTemplate
        do {
            template = try SDMURLTemplate(text, fileSize: fileSize)
        } catch {
            if error.subject != .sdmData { fail("template error about the chip: \(error)", bytes) }
            switch error.code {
            case .invalidPlaceholder:
                if let offset = error.offset, !utf8[min(offset, utf8.count)...].starts(with: Array(SDMURLTemplate.marker.utf8)) {
                    fail("invalidPlaceholder at \(offset), not at a '{sun:': \(error)", bytes)
                }
            case .illegalLayout:
                checkOffset(error.offset, within: fileSize, "template layout", bytes)
            case .invalidMessage:
                if error.offset != nil { fail("invalidMessage with an offset: \(error)", bytes) }
            default:
                fail("template refused with \(error.code): \(error)", bytes)
            }
            continue
        }
        checkTemplateLayout(template, fileSize: fileSize, bytes)
    }
}

private func checkTemplateLayout(_ template: SDMURLTemplate, fileSize: Int, _ bytes: [UInt8]) {
    let file = template.file
    if file.count > fileSize || file.count < 2 { fail("a \(file.count)-byte file for a \(fileSize)-byte chip file", bytes) }
    if Int(file[0]) << 8 | Int(file[1]) != file.count - 2 { fail("NLEN \(file[0]) \(file[1]) for \(file.count - 2) bytes", bytes) }
    guard let written = try? NDEFMessage(bytes: Array(file[2...])), written.records.count == 1,
          written.records[0].wellKnownTypeURIPayload() == template.text
    else { fail("the file's message is not one URI record holding the template's text", bytes) }
    let layout = template.layout
    var ranges: [SDMLayout.Range] = []
    if let offset = layout.piccDataOffset { ranges.append(.init(offset: offset, length: 32)) }
    if let offset = layout.uidOffset { ranges.append(.init(offset: offset, length: 14)) }
    if let offset = layout.counterOffset { ranges.append(.init(offset: offset, length: 6)) }
    if let offset = layout.macOffset { ranges.append(.init(offset: offset, length: 16)) }
    if let encrypted = layout.encryptedFileData { ranges.append(encrypted) }
    if layout.macOffset == nil || (layout.piccDataOffset == nil && layout.uidOffset == nil) { fail("a layout without MAC or UID", bytes) }
    for range in ranges where range.offset < 2 || range.end > file.count { fail("mirror \(range) outside the \(file.count)-byte file", bytes) }
    if layout.requiredLength > file.count { fail("requiredLength \(layout.requiredLength) past the file", bytes) }
    // The placeholders are written as '0's (SDMENCFileData: its plain text, then '0's).
    for range in ranges {
        let zeros = range == layout.encryptedFileData ? (range.offset + range.length / 2)..<range.end : range.offset..<range.end
        if !file[zeros].allSatisfy({ $0 == NTAG424SDM.placeholderCharacter }) { fail("placeholder \(range) not written as '0's", bytes) }
    }
    let keys = NTAG424FuzzKeys.require(layout.encryptsPICCData ? NTAG424FuzzKeys.sdm : NTAG424FuzzKeys.plainSDM, "SDM keys")
    let read: [UInt8]
    do {
        read = try layout.mirror(file: file, uid: NTAG424FuzzKeys.uid, counter: NTAG424FuzzKeys.counter, keys: keys, padding: NTAG424FuzzKeys.padding)
    } catch {
        fail("the template's own layout does not mirror into its file: \(error)", bytes)
    }
    if read.count != file.count { fail("a mirrored read of \(read.count) bytes from a \(file.count)-byte file", bytes) }
    for index in file.indices where read[index] != file[index] && !ranges.contains(where: { $0.offset <= index && index < $0.end }) {
        fail("the mirrored read changed byte \(index), outside every mirror", bytes)
    }
    for range in ranges where !read[range.offset..<range.end].allSatisfy({ isHexDigit($0) && !(UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }) {
        fail("mirror \(range) is not upper-case hex after a read", bytes)
    }
    guard let message = try? NDEFMessage(bytes: Array(read[2...])), let url = message.records.first?.wellKnownTypeURIPayload() else {
        fail("the mirrored read is no URI record", bytes)
    }
    // Name each mirror by the one query parameter whose whole value it is; give up when one
    // cannot be named (a mirror in the path, two mirrors run together, a name given twice).
    let urlBytes = Array(url.utf8)
    let parameters = queryParameters(urlBytes)
    func name(of range: SDMLayout.Range?) -> String?? {
        guard let range else { return .some(nil) }
        let mirrored = Array(read[range.offset..<range.end])
        let matching = parameters.filter { Array(urlBytes[$0.value]) == mirrored }
        guard matching.count == 1, parameters.filter({ $0.name == matching[0].name }).count == 1,
              !matching[0].name.contains(UInt8(ascii: "="))
        else { return nil }
        return .some(String(decoding: matching[0].name, as: UTF8.self))
    }
    let unused = "=unused"
    guard let picc = name(of: layout.piccDataOffset.map { SDMLayout.Range(offset: $0, length: 32) }),
          let uid = name(of: layout.uidOffset.map { SDMLayout.Range(offset: $0, length: 14) }),
          let counter = name(of: layout.counterOffset.map { SDMLayout.Range(offset: $0, length: 6) }),
          let enc = name(of: layout.encryptedFileData),
          let macName = name(of: layout.macOffset.map { SDMLayout.Range(offset: $0, length: 16) }), let mac = macName
    else { return }
    let names = SUNParameterNames(picc: picc ?? unused + "-picc", mac: mac, uid: uid ?? unused + "-uid", counter: counter ?? unused + "-ctr",
                                  encryptedFileData: enc ?? unused + "-enc")
    let tap: SUNTap
    do { tap = try SUNVerifier.verify(url: url, names: names, keys: keys) } catch {
        fail("the template's own read does not verify with names \(names): \(error)\n  url: \(url)", bytes)
    }
    let fileData = layout.encryptedFileData.map { Bytes(Array(file[$0.offset..<($0.offset + $0.length / 2)])) }
    let expectedCounter = layout.piccDataOffset != nil || layout.counterOffset != nil ? NTAG424FuzzKeys.counter : nil
    guard tap.uid == NTAG424FuzzKeys.uid, tap.readCounter == expectedCounter, tap.fileData == fileData, tap.encryptedPICCData == layout.encryptsPICCData else {
        fail("the template's read verifies as \(tap)", bytes)
    }
}

/// `sdm-picc`: the input is PICC data: a decrypted block and an encrypted one (under the zero
/// SDMMetaReadKey). A block that decodes encodes back to itself (its padding given back); one that
/// decrypts encrypts back to itself; any other length is `invalidLength`; a refused PICCDataTag is
/// `unsupportedPICCData` at offset 0. The session keys, SDMMAC and SDMENCFileData of decoded data
/// round trip.
func checkSDMPICCData(_ bytes: [UInt8]) {
    let zero = NTAG424FuzzKeys.zero
    func refused(_ error: NTAG424Error, _ what: String) {
        if bytes.count != 16 {
            if error.code != .invalidLength { fail("\(what) of \(bytes.count) bytes refused as \(error.code)", bytes) }
        } else if error.code != .unsupportedPICCData || error.offset != 0 {
            fail("\(what): a 16-byte block refused as \(error)", bytes)
        }
    }
    do {
        let picc = try SDMPICCData(plaintext: Bytes(bytes))
        let head = 1 + (picc.uid?.count ?? 0) + (picc.readCounter == nil ? 0 : 3)
        guard let again = try? picc.plaintext(padding: Array(bytes[head...])), again.array == bytes else {
            fail("PICC data does not encode back to its block", bytes)
        }
        checkSDMSession(picc, bytes)
    } catch {
        refused(error, "plain PICC data")
    }
    do {
        let picc = try SDMPICCData.decrypt(Bytes(bytes), metaReadKey: zero)
        guard let plain = try? AES128.decryptCBC(key: zero, iv: zero, Bytes(bytes)) else { fail("a block that decrypts as PICC data does not decrypt", bytes) }
        let head = 1 + (picc.uid?.count ?? 0) + (picc.readCounter == nil ? 0 : 3)
        guard let again = try? picc.encrypted(metaReadKey: zero, padding: Array(plain.array[head...])), again.array == bytes else {
            fail("decrypted PICC data does not encrypt back to its block", bytes)
        }
    } catch {
        refused(error, "encrypted PICC data")
    }
}

private func checkSDMSession(_ picc: SDMPICCData, _ bytes: [UInt8]) {
    let zero = NTAG424FuzzKeys.zero
    guard let mac = try? SDMMAC.compute(fileReadKey: zero, picc: picc, input: Bytes(bytes)), mac.count == 8,
          let verified = try? SDMMAC.verify(mac, fileReadKey: zero, picc: picc, input: Bytes(bytes)), verified
    else { fail("an SDMMAC of decoded PICC data does not verify", bytes) }
    let data = Bytes(bytes + bytes)
    do {
        let encrypted = try SDMFileDataCipher.encrypt(data, fileReadKey: zero, picc: picc)
        let decrypted = try SDMFileDataCipher.decrypt(encrypted, fileReadKey: zero, picc: picc)
        if decrypted != data { fail("SDMENCFileData does not decrypt back", bytes) }
    } catch {
        // SDMENCFileData needs both the UID and the counter.
        if picc.uid != nil && picc.readCounter != nil || error.code != .invalidLength { fail("SDMENCFileData refused: \(error)", bytes) }
    }
}

/// `ntag424-settings`: the input is a GetFileSettings answer, and ChangeFileSettings data (for a
/// 256-byte file). Errors are `malformed` at an offset in the input; settings that parse encode
/// back to the input (but for the RFU nibble of SDMAccessRights, written `F`, and CommMode `10`,
/// read as plain) and parse back to themselves; ChangeFileSettings data parses exactly when the
/// answer it stands for does. SDM settings that make a legal layout mirror a read without trapping.
func checkNTAG424Settings(_ bytes: [UInt8]) {
    func refused(_ error: NTAG424Error, _ length: Int, _ what: String) {
        if error.code != .malformed || error.subject != .chip { fail("\(what) refused as \(error.code)", bytes) }
        guard let offset = error.offset else { fail("\(what) refused without an offset: \(error)", bytes) }
        checkOffset(offset, within: length, what, bytes)
    }
    // FileOption at `option`, SDMAccessRights' first byte (RFU ‖ SDMCtrRet) at `rfu`.
    func normalized(_ input: [UInt8], optionAt option: Int, rfuAt rfu: Int) -> [UInt8] {
        var out = input
        if out[option] & 0x03 == 0x02 { out[option] &= ~0x03 }
        if out[option] & 0x40 != 0, rfu < out.count { out[rfu] |= 0xF0 }
        return out
    }
    do {
        let settings = try NTAG424FileSettings(parsing: bytes)
        guard let encoded = try? settings.encoded() else { fail("parsed settings do not encode", bytes) }
        if encoded != normalized(bytes, optionAt: 1, rfuAt: 8) { fail("settings encode as \(encoded)", bytes) }
        guard let again = try? NTAG424FileSettings(parsing: encoded), again == settings else { fail("encoded settings do not parse back", bytes) }
        if let sdm = settings.sdm { checkSDMSettingsLayout(sdm, bytes) }
    } catch {
        refused(error, bytes.count, "file settings")
    }
    let changed = Result { () throws(NTAG424Error) in try NTAG424FileSettings(parsingChange: bytes, fileSize: 256) }
    let answer = bytes.count >= 3 ? [0x00] + bytes[0..<3] + [0x00, 0x01, 0x00] + bytes[3...] : nil
    let asAnswer = answer.map { synthesized in Result { () throws(NTAG424Error) in try NTAG424FileSettings(parsing: synthesized) } }
    switch changed {
    case .success(let settings):
        guard case .success(let same)? = asAnswer, same == settings else { fail("ChangeFileSettings data parses, the answer it stands for not", bytes) }
        guard let data = try? settings.changeData() else { fail("ChangeFileSettings settings do not encode", bytes) }
        if data != normalized(bytes, optionAt: 0, rfuAt: 4) { fail("ChangeFileSettings data encodes as \(data)", bytes) }
    case .failure(let error):
        refused(error, bytes.count, "ChangeFileSettings data")
        if case .success? = asAnswer { fail("the answer parses, ChangeFileSettings data not: \(error)", bytes) }
        if case .failure(let other)? = asAnswer, let offset = other.offset, let shifted = error.offset,
           shifted != (offset >= 7 ? offset - 4 : max(0, offset - 1)) {
            fail("ChangeFileSettings error at \(shifted), the answer's at \(offset)", bytes)
        }
    }
}

/// SDM settings from a tag, made into a layout as the virtual chip does; a legal one mirrors a
/// 256-byte file without trapping and changes only its mirrors.
private func checkSDMSettingsLayout(_ sdm: NTAG424SDMSettings, _ bytes: [UInt8]) {
    let fileSize = 256
    let encrypted: SDMLayout.Range? = sdm.encryptsFileData
        ? sdm.encryptedDataOffset.flatMap { offset in sdm.encryptedDataLength.map { SDMLayout.Range(offset: offset, length: $0) } } : nil
    let plain = sdm.metaRead == .free
    let layout: SDMLayout
    do {
        layout = try SDMLayout(
            mirrorsUID: sdm.mirrorsUID, mirrorsCounter: sdm.mirrorsReadCounter, piccDataOffset: sdm.hasEncryptedPICCData ? sdm.piccDataOffset : nil,
            uidOffset: plain && sdm.mirrorsUID ? sdm.uidOffset : nil, counterOffset: plain && sdm.mirrorsReadCounter ? sdm.readCounterOffset : nil,
            macInputOffset: sdm.hasMAC ? sdm.macInputOffset : nil, macOffset: sdm.hasMAC ? sdm.macOffset : nil, encryptedFileData: encrypted,
            fileSize: fileSize)
    } catch {
        if error.code != .illegalLayout { fail("SDM settings refused as a layout with \(error.code)", bytes) }
        return
    }
    if layout.requiredLength > fileSize { fail("a legal layout needs \(layout.requiredLength) bytes of a \(fileSize)-byte file", bytes) }
    let keys = NTAG424FuzzKeys.require(NTAG424FuzzKeys.sdm, "SDM keys")
    let file = [UInt8](repeating: 0x30, count: fileSize)
    guard let read = try? layout.mirror(file: file, uid: NTAG424FuzzKeys.uid, counter: 7, keys: keys, padding: NTAG424FuzzKeys.padding) else {
        fail("a legal layout does not mirror into its file", bytes)
    }
    if read.count != fileSize { fail("a mirrored read of \(read.count) bytes", bytes) }
}

/// `ntag424-keys`: the input is a keys file. A refused file is `invalidKey` at a line of the file
/// (1-based, counted at `\n` and `;`); one that parses holds 16-byte keys and a 1–21-byte system
/// identifier, and parses back to itself when written out (one entry a line, or `;`-separated);
/// CRLF line ends read as LF ones. A diversifying file diversifies and verifies without trapping.
func checkNTAG424Keys(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let lines = 1 + text.utf8.filter { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: ";") }.count
    let parsed = Result { () throws(NTAG424Error) in try NTAG424KeyFile(text: text) }
    if !text.contains("\r") {
        let crlf = text.replacingLineFeeds(with: "\r\n")
        let other = Result { () throws(NTAG424Error) in try NTAG424KeyFile(text: crlf) }
        switch (parsed, other) {
        case (.success(let lf), .success(let withCR)) where lf == withCR: break
        case (.failure(let lf), .failure(let withCR)) where lf.offset == withCR.offset: break
        default: fail("the file reads otherwise with CRLF line ends: \(parsed) / \(other)", bytes)
        }
    }
    let file: NTAG424KeyFile
    switch parsed {
    case .failure(let error):
        if error.code != .invalidKey { fail("keys file refused as \(error.code)", bytes) }
        guard let line = error.offset else { fail("keys file refused without a line: \(error)", bytes) }
        if line < 1 || line > lines { fail("keys file refused at line \(line) of \(lines)", bytes) }
        return
    case .success(let value):
        file = value
    }
    var entries: [String] = []
    for name in file.names {
        guard let key = file.key(name), key.count == 16 else { fail("key '\(name)' is not 16 bytes", bytes) }
        entries.append("\(name) = \(Hex.encode(key))")
    }
    if let identifier = file.systemIdentifier {
        if identifier.isEmpty || identifier.count > NTAG424KeyFile.maximumSystemIdentifierLength { fail("a \(identifier.count)-byte system identifier", bytes) }
        entries.append("\(NTAG424KeyFile.systemIdentifierName) = \(Hex.encode(identifier))")
    }
    for separator in ["\n", ";"] {
        guard let again = try? NTAG424KeyFile(text: entries.joined(separator: separator)), again == file else {
            fail("the keys written out one a line do not parse back", bytes)
        }
    }
    _ = try? file.sdmKeys()
    if NTAG424DiversifiedKeys.isDiversifying(file), let diversified = try? NTAG424DiversifiedKeys(file) {
        guard let perTag = try? diversified.keys(forUID: NTAG424FuzzKeys.uid), (try? diversified.identifiers()) != nil else {
            fail("diversified keys do not diversify", bytes)
        }
        for name in diversified.diversifiedNames where perTag.key(name)?.count != 16 { fail("diversified '\(name)' is not 16 bytes", bytes) }
        _ = try? diversified.verify(url: "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086")
    }
}

extension String {
    /// The text with each `\n` replaced (by scalars: `\r\n` is one `Character`).
    fileprivate func replacingLineFeeds(with ending: String) -> String {
        var out = ""
        for scalar in unicodeScalars {
            if scalar == "\n" { out += ending } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}
