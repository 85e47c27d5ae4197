// `iso15693-identity`: what an ISO 15693 chip answers about itself — GET SYSTEM INFORMATION and
// EXTENDED GET SYSTEM INFORMATION answers (as `ISO15693ChipMemory.decode` takes them, flags byte
// first), the identity the table gives for a UID with them, ICODE and ST25DV password files,
// ST25DV area security bytes, NTAG 5 GET NXP SYSTEM INFORMATION answers, and the ST25TV02K's cover coding, register summary,
// area attribute bits and 32/64-bit area password files.
import NFCCore
import NFCTags

/// `iso15693-identity`: the input as a system information answer (plain and extended), its first
/// 8 bytes as a UID, as an EAS ALARM answer, and as password-file text. What decodes encodes
/// back (plain form); the identity is Type 5 with a memory only when a decoded answer gave one
/// (or, for a chip that answers no system information, the model table), and a memory size that
/// is the product of its block count and size; a password file that parses has a description
/// that never shows the passwords; a GET NXP SYSTEM INFORMATION answer that decodes encodes
/// back to its first 7 bytes and never marks a block locked, or read- without write-protected.
func checkISO15693Identity(_ bytes: [UInt8]) {
    if let info = try? NXPSystemInformation(answer: bytes) {
        if info.bytes != Array(bytes.prefix(7)) { fail("GET NXP SYSTEM INFORMATION does not encode back", bytes) }
        let statuses = info.blockStatuses(blockCount: Int(bytes.last ?? 0) * 3)
        if statuses.count != Int(bytes.last ?? 0) * 3 { fail("not one status per block", bytes) }
        if statuses.contains(where: { $0 & ICodeBlockProtection.locked != 0 || ($0 & ICodeBlockProtection.readProtected != 0 && $0 & ICodeBlockProtection.writeProtected == 0) }) {
            fail("a block status GET NXP SYSTEM INFORMATION cannot give", bytes)
        }
    }
    let plain = ISO15693ChipMemory.decode(answer: bytes, extended: false)
    if plain != nil {
        guard let info = try? ISO15693SystemInfo(answer: bytes.dropFirst()) else { fail("decoded memory without system information", bytes) }
        if info.answer != Array(bytes.dropFirst()) {
            // A memory size byte with bits 6–8 set in its block-size byte encodes without them.
            let size = info.infoFlags & ISO15693SystemInfo.memorySizePresent != 0
            if !size { fail("system information does not encode back", bytes) }
        }
    }
    let extended = ISO15693ChipMemory.decode(answer: bytes, extended: true)
    let uid = Bytes(Array(bytes.prefix(8)))
    for memory in [plain, extended, nil] {
        let identity = ISO15693ChipTable.identity(uid: uid, systemInfo: memory)
        if identity.platform != .type5 { fail("an ISO 15693 identity that is not Type 5", bytes) }
        if memory?.blockCount == nil, identity.memoryBytes != nil, identity.memoryFromModelTable == nil { fail("memory without system information", bytes) }
        if identity.memoryFromModelTable != nil, ISO15693ChipTable.modelMemory(uid: uid) == nil || memory?.blockCount != nil {
            fail("memory from the model table for a chip that has none there, or over its system information", bytes)
        }
        if let count = identity.blockCount, let size = identity.blockSize, identity.memoryBytes != count * size {
            fail("memory size is not blocks × block size", bytes)
        }
        if let count = identity.blockCount, count < 1 || count > 65536 { fail("block count \(count)", bytes) }
    }
    if let id = ICodeEASAlarm.easID(answer: bytes), bytes.count < 3 || id != UInt16(bytes[1]) | UInt16(bytes[2]) << 8 {
        fail("an EAS ID not from bytes 1–2 of the answer", bytes)
    }
    if ICodeEASAlarm.isAlarm(answer: bytes), bytes.first.map({ $0 & ISO15693ResponseFlag.error != 0 }) ?? true {
        fail("an error or empty answer taken for the EAS alarm", bytes)
    }
    let text = String(decoding: bytes, as: UTF8.self)
    if let passwords = try? ICodePasswords(hex: text) {
        if passwords.description.contains(String(passwords.write.value, radix: 16, uppercase: true)), passwords.write.value > 0xFFFF {
            fail("the description shows a password", bytes)
        }
        let random: [UInt8] = [bytes.first ?? 0, bytes.last ?? 0]
        if ICodePassword.recovered(from: passwords.read.xored(with: random), random: random) != passwords.read {
            fail("the SET PASSWORD XOR does not invert", bytes)
        }
    }
    if let password = try? ST25Password(hex: text) {
        if password.bytes.count != 8 || text.filter({ !$0.isWhitespace }).count != 16 { fail("an ST25DV password that is not 16 digits", bytes) }
    }
    if let first = bytes.first {
        let security = ST25AreaSecurity(register: first)
        if security.register & 0xF0 != 0 || ST25AreaSecurity(register: security.register) != security || security.register != first & 0x0F {
            fail("RFAxSS does not round-trip", bytes)
        }
    }
    if bytes.count >= 6, let password = ST25TVPassword(bytes: Array(bytes[0..<4])) {
        // ST25TV02K cover coding: covering twice with the same random number gives the password back.
        let random = Array(bytes[4..<6])
        guard let covered = password.covered(by: random), let back = ST25TVPassword(bytes: covered)?.covered(by: random), back == password.bytes else {
            fail("the ST25TV02K cover coding does not invert", bytes)
        }
        let summary = ST25TVRegister.summary(area1: bytes[0], area2: bytes[1], lockConfiguration: bytes[2])
        if !summary.hasPrefix("area 1 attribute \(Hex.encode([bytes[0]], uppercase: true))") { fail("ST25TV02K summary without area 1's byte", bytes) }
        let security = ST25TVAreaSecurity(bytes[0])
        if security.protection > 3 || security.protectsReads && !security.protectsWrites || security.refusesWrites && !security.protectsReads {
            fail("an ST25TV02K area attribute decodes out of its two bits", bytes)
        }
    }
    if let password = try? ST25TVAreaPassword(hex: text) {
        // 8 or 16 digits only; a 64-bit password's configuration half and half-changed forms stay 4 and 8 bytes.
        let digits = text.filter { !$0.isWhitespace }.count
        if password.bytes.count * 2 != digits || password.configuration.bytes != Array(password.bytes.prefix(4)) {
            fail("an ST25TV02K area password that is not its 8 or 16 digits", bytes)
        }
        if password.isSixtyFourBit, password.firstHalf(over: password) != password { fail("a 64-bit password over itself changes", bytes) }
    }
}
