// `ultralight-c`: the MIFARE Ultralight C parsers — key files (`UltralightCKey(hex:)`), the
// configuration pages a READ of 28h answers, and the chip's two AUTHENTICATE answers as the
// reader side decodes them.
import NFCCore
import NFCTags

/// `ultralight-c`: the input as key-file text, as pages 28h–2Bh and as both AUTHENTICATE
/// answers. A key that parses has 16 bytes and survives the page-image round trip; the
/// configuration parses exactly when 16 bytes came; an answer of the wrong shape is a
/// `tagResponse` error, never a trap; a well-shaped final answer that is not the key's proof
/// is `authenticationFailed`.
func checkUltralightC(_ bytes: [UInt8]) {
    if let key = try? UltralightCKey(hex: String(decoding: bytes, as: UTF8.self)) {
        if key.bytes.count != 16 { fail("a key of \(key.bytes.count) bytes", bytes) }
        guard let again = try? UltralightCKey(pageImage: key.pageImage), again == key else { fail("page image round trip", bytes) }
        if key.description.contains(Hex.encode(key.bytes)) { fail("the description shows the key", bytes) }
    }
    let configuration = try? UltralightCConfiguration(bytes: bytes)
    if (configuration != nil) != (bytes.count == 16) { fail("configuration parsed from \(bytes.count) bytes", bytes) }
    let rndA: [UInt8] = [0xA8, 0xAF, 0x3B, 0x25, 0x6C, 0x75, 0xED, 0x40]
    do {
        let (command, finalIV) = try UltralightCAuthentication.secondStep(key: .factoryDefault, answer: bytes, rndA: rndA)
        if bytes.count != 9 || bytes[0] != 0xAF { fail("an answer of another shape was taken", bytes) }
        if command.count != 17 || finalIV.count != 8 { fail("second step of \(command.count) bytes", bytes) }
    } catch {
        if error.code != .tagResponse || (bytes.count == 9 && bytes[0] == 0xAF) { fail("first answer refused as \(error.code)", bytes) }
    }
    do {
        try UltralightCAuthentication.checkFinalAnswer(key: .factoryDefault, answer: bytes, rndA: rndA, finalIV: Array(rndA.reversed()))
    } catch {
        let wellShaped = bytes.count == 9 && bytes[0] == 0x00
        if error.code != (wellShaped ? .authenticationFailed : .tagResponse) { fail("final answer refused as \(error.code)", bytes) }
    }
}
