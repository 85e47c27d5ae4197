// Fuzz targets for input from a host or a user: `pn532-frame` (the emulator's host-link frame
// parser), `manifest` (CSV and JSONL provisioning manifests), `template` (URL templates).
import NFCCore
import PN532Emulator
import Provisioning

/// `pn532-frame`: the input is bytes from the host link. One-frame parsing and the streaming
/// decoder (strict and lenient) never trap; every frame found encodes to bytes that parse back
/// to it; feeding the stream byte by byte and in one piece gives the same events.
func checkPN532Frames(_ bytes: [UInt8]) {
    if let frame = try? PN532Frame.parse(bytes[...]) {
        guard let again = try? PN532Frame.parse(frame.encoded[...]), again == frame else {
            fail("a parsed frame does not parse back from its encoding", bytes)
        }
    }
    for strict in [false, true] {
        var whole = PN532FrameDecoder(strict: strict)
        let events = whole.feed(bytes)
        var single = PN532FrameDecoder(strict: strict)
        let byByte = bytes.compactMap { single.feed($0) }
        if events != byByte { fail("the decoder (strict: \(strict)) gives other events byte by byte", bytes) }
        for case .frame(let frame) in events {
            guard let again = try? PN532Frame.parse(frame.encoded[...]), again == frame else {
                fail("a decoded frame does not parse back from its encoding", bytes)
            }
        }
        for case .error(let error) in events where error.offset < 0 {
            fail("decoder error at offset \(error.offset)", bytes)
        }
    }
}

/// `manifest`: the input is a manifest's text (invalid UTF-8 repaired as a file read would be).
/// CSV and JSONL parsing never trap; rows are numbered 1, 2, … in order of their lines.
func checkManifest(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    for format in [Manifest.Format.csv, .jsonl] {
        guard let rows = try? Manifest.parse(text, format: format) else { continue }
        for (index, row) in rows.enumerated() {
            if row.index != index + 1 { fail("\(format) row \(index + 1) is numbered \(row.index)", bytes) }
            if index > 0, row.line <= rows[index - 1].line { fail("\(format) row lines out of order", bytes) }
        }
    }
}

/// `template`: the input is a URL template (key files read as fixed bytes). A template that
/// parses renders, for any UID and counter, no longer than its announced maximum.
func checkTemplate(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let template = try? ProvisioningTemplate(text, loadKey: { path in Array(path.utf8) }) else { return }
    let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
    for counter in [0, 7, 99_999] {
        let rendered = template.render(uid: uid, counter: counter)
        let maximum = template.maximumLength(uidLength: uid.count, maxCounter: 99_999)
        if rendered.utf8.count > maximum { fail("rendered \(rendered.utf8.count) bytes, maximum says \(maximum)", bytes) }
    }
}
