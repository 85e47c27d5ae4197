// Fuzz target `desfire` for the MIFARE DESFire parsers (Sources/NFCTags/DESFire and the virtual
// chip's tag-file image): the first byte picks the parser, the rest is its input.
import NFCCore
import NFCTags
import VirtualTags

func checkDESFire(_ input: [UInt8]) {
    guard let selector = input.first else { return }
    let body = Array(input.dropFirst())
    switch selector % 6 {
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
        // A PICC key file: a key of 8 or 16 bytes, or an error that shows no digit run of the text.
        let text = String(decoding: body, as: UTF8.self)
        if let key = try? DESFireFormatOptions.piccMasterKey(fromText: text) {
            guard key.count == 8 || key.count == 16 else { fail("key of \(key.count) bytes", input) }
        }
    case 4:
        // A legacy enciphered field (ChangeFileSettings' on the chip): 3 data bytes and their
        // CRC_A open or are refused; what opens seals back to the same bytes.
        let key: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x11, 0x12, 0x13, 0x14]
        if let data = try? DESFireLegacyAuthentication.decipherReceived(sessionKey: key, body, length: 3) {
            guard data.count == 3, (try? DESFireLegacyAuthentication.encipherForSending(sessionKey: key, data)) == body else { fail("legacy enciphering round trip", input) }
        }
    default:
        // A wrapped answer: data and status, or malformed; the data is the answer less 2 bytes.
        if let (data, _) = try? DESFireTag.split(body, command: DESFire.Command.readData) {
            guard data.count + 2 == body.count, body[body.count - 2] == DESFire.statusPrefix else { fail("split", input) }
        }
    }
}
