// `ultralight-aes`: the MIFARE Ultralight AES parsers — key files (`UltralightAESKey(hex:)`), the
// configuration pages a READ of 29h answers, and the chip's two
// AUTHENTICATE answers as the reader side decodes them, secure-messaging answers
// (`UltralightAESSecureMessaging.open`) and READ_CNT answers (`Type2Tag.counterValue`).
import NFCCore
import NFCTags

/// `ultralight-aes`: the input as key-file text, as pages 29h–2Ch and as
/// both AUTHENTICATE answers. A key that parses has 16 bytes and survives the page-image round
/// trip; the configuration parses exactly when 16 bytes came and its AUTH_LIM fits 10 bits; an
/// answer of the wrong shape is a `tagResponse` error, never a trap; a well-shaped final answer
/// that is not the key's proof is `authenticationFailed`; a secure-messaging answer shorter than
/// its MAC is `tagResponse`, a longer one with a wrong MAC `authenticationFailed`, and the
/// counter moves on by one either way.
func checkUltralightAES(_ bytes: [UInt8]) {
    if let key = try? UltralightAESKey(hex: String(decoding: bytes, as: UTF8.self)) {
        if key.bytes.count != 16 { fail("a key of \(key.bytes.count) bytes", bytes) }
        guard let again = try? UltralightAESKey(pageImage: key.pageImage), again == key else { fail("page image round trip", bytes) }
        if key.description.contains(Hex.encode(key.bytes)) { fail("the description shows the key", bytes) }
    }
    let configuration = try? UltralightAESConfiguration(bytes: bytes)
    if (configuration != nil) != (bytes.count == 16) { fail("configuration parsed from \(bytes.count) bytes", bytes) }
    if let configuration, configuration.authenticationLimit > UltralightAESMemory.maximumAuthenticationLimit {
        fail("AUTH_LIM \(configuration.authenticationLimit)", bytes)
    }
    let rndA = [UInt8](repeating: 0x5A, count: 16)
    do {
        let (command, _) = try UltralightAESAuthentication.secondStep(key: .factoryDefault, answer: bytes, rndA: rndA)
        if bytes.count != 17 || bytes[0] != 0xAF { fail("an answer of another shape was taken", bytes) }
        if command.count != 33 { fail("second step of \(command.count) bytes", bytes) }
    } catch {
        if error.code != .tagResponse || (bytes.count == 17 && bytes[0] == 0xAF) { fail("first answer refused as \(error.code)", bytes) }
    }
    do {
        try UltralightAESAuthentication.checkFinalAnswer(key: .factoryDefault, answer: bytes, rndA: rndA)
        if bytes.count != 17 || bytes[0] != 0x00 { fail("a final answer of another shape was taken", bytes) }
    } catch {
        let wellShaped = bytes.count == 17 && bytes[0] == 0x00
        if error.code != (wellShaped ? .authenticationFailed : .tagResponse) { fail("final answer refused as \(error.code)", bytes) }
    }
    if var session = try? UltralightAESSecureMessaging(key: .factoryDefault, rndA: rndA, rndB: [UInt8](repeating: 0xA5, count: 16)) {
        do {
            let data = try session.open(bytes)
            if data.count != bytes.count - UltralightAESSecureMessaging.macSize { fail("answer data of \(data.count) bytes", bytes) }
        } catch {
            let expected: NFCTagError.Code = bytes.count < UltralightAESSecureMessaging.macSize ? .tagResponse : .authenticationFailed
            if error.code != expected { fail("secure-messaging answer refused as \(error.code)", bytes) }
            if bytes.count >= UltralightAESSecureMessaging.macSize, session.counter != 1 { fail("counter \(session.counter) after a refused answer", bytes) }
        }
    } else {
        fail("no session from valid randoms", bytes)
    }
    do {
        let value = try Type2Tag.counterValue(bytes, number: 2)
        if bytes.count != 3 || value > 0xFF_FFFF { fail("counter \(value) from \(bytes.count) bytes", bytes) }
    } catch {
        if bytes.count == 3 || error.code != .tagResponse { fail("READ_CNT answer refused as \(error.code)", bytes) }
    }
}
