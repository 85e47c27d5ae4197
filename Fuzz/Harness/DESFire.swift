// Fuzz target `desfire` for the MIFARE DESFire parsers (Sources/NFCTags/DESFire, the virtual
// chip's tag-file image, the chip's reading of EV2-sealed commands and ChangeKey data): the first
// byte picks the parser, the rest is its input.
import NFCCore
import NFCTags
import VirtualTags

func checkDESFire(_ input: [UInt8]) {
    guard let selector = input.first else { return }
    let body = Array(input.dropFirst())
    switch selector % 10 {
    case 0:
        // GetVersion: exactly 28 bytes parse, and encode back to themselves.
        if let version = try? DESFireVersion(parsing: body) {
            guard body.count == DESFireVersion.length, version.encoded == body else { fail("GetVersion round trip", input) }
            _ = version.modelName
        } else if body.count == DESFireVersion.length {
            fail("28 bytes of GetVersion refused", input)
        }
    case 1:
        // GetFileSettings: a data file's 7 bytes round-trip.
        if let settings = try? DESFireFileSettings(parsing: body) {
            guard settings.encoded == body else { fail("file settings round trip", input) }
        }
    case 2:
        // The tag-file image: what parses encodes back to the same bytes and parses equal.
        do {
            let image = try DESFireImage(parsing: body)
            guard image.encoded == body, (try? DESFireImage(parsing: image.encoded)) == image else { fail("image round trip", input) }
        } catch {
            checkOffset(error.offset, within: body.count, "image", input)
        }
    case 3:
        // A key file: keys whose length fits their type, or an error.
        let text = String(decoding: body, as: UTF8.self)
        if let file = try? DESFireFormatOptions.keys(fromText: text) {
            for key in [file.picc, file.application].compactMap({ $0 }) where key.bytes.count != key.type.keyLength {
                fail("a \(key.type) key of \(key.bytes.count) bytes", input)
            }
            guard file.picc != nil || file.application != nil else { fail("a key file without keys", input) }
        }
    case 6:
        // An EV1 enciphered field (ChangeFileSettings' on the chip, AES session): 3 data bytes
        // and their CRC32 open or are refused; what opens seals back to the same bytes.
        guard let key = try? DESFireKey(.aes, Array(0..<16)) else { fail("AES key", input) }
        var chip = DESFireEV1Session(keyNumber: 0, key: key), host = chip
        if body.count % 16 == 0, let data = try? chip.decipher(command: 0x5F, header: [0x02], body, length: 3) {
            guard data.count == 3, (try? host.encipher(command: 0x5F, header: [0x02], data)) == body else { fail("EV1 enciphering round trip", input) }
        }
    case 7:
        // An EV1 answer with its MAC: taken only when the MAC is the session's, and then the
        // chip's MAC of the data is the same answer.
        guard let key = try? DESFireKey(.aes, Array(0..<16)) else { fail("AES key", input) }
        var host = DESFireEV1Session(keyNumber: 0, key: key), chip = host
        if let data = try? host.verifyAnswer(body) {
            guard (try? chip.macAnswer(data)) == body else { fail("EV1 MAC round trip", input) }
        }
    case 4:
        // A legacy enciphered field (ChangeFileSettings' on the chip): 3 data bytes and their
        // CRC_A open or are refused; what opens seals back to the same bytes.
        let key: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x11, 0x12, 0x13, 0x14]
        if let data = try? DESFireLegacyAuthentication.decipherReceived(sessionKey: key, body, length: 3) {
            guard data.count == 3, (try? DESFireLegacyAuthentication.encipherForSending(sessionKey: key, data)) == body else { fail("legacy enciphering round trip", input) }
        }
    case 8:
        // An EV2-sealed command on the chip (DESFireEV2Messaging's modes, the shared EV2Session):
        // what opens, sealed again by the host at the same counter, is the same body.
        guard let session = try? EV2Session(keyNumber: 0, transactionIdentifier: [1, 2, 3, 4], encryptionKey: Array(0..<16), macKey: Array(16..<32)),
              let code = body.first
        else { return }
        let sealed = Array(body.dropFirst())
        let modes = DESFireEV2Messaging.modes(for: code, dataLength: max(0, sealed.count - 8))
        if let (header, data) = try? session.openCommand(code, headerLength: min(modes.headerLength, sealed.count), body: sealed, mode: modes.command) {
            guard (try? session.sealCommand(code, header: header, data: data, mode: modes.command)) == sealed else { fail("EV2 command round trip", input) }
        }
    case 9:
        // ChangeKey's opened data in an EV2 session (another key, AES with version): what the
        // chip takes, rebuilt by the host's changeKeyData, is the same data.
        let old = [UInt8](repeating: 0x5A, count: 16)
        if let (key, version) = EV2Session.newKey(fromChangeKeyData: body, keyLength: 16, hasVersion: true, oldKey: old, sameKey: false) {
            guard (try? EV2Session.changeKeyData(newKey: key, version: version, oldKey: old, sameKey: false)) == body else { fail("ChangeKey data round trip", input) }
        }
    default:
        // A wrapped answer: data and status, or malformed; the data is the answer less 2 bytes.
        if let (data, _) = try? DESFireTag.split(body, command: DESFire.Command.readData) {
            guard data.count + 2 == body.count, body[body.count - 2] == DESFire.statusPrefix else { fail("split", input) }
        }
    }
}
