public import NDEF
import NFCCore
import NFCCrypto

/// A URL with `{sun:…}` placeholders, made into the NDEF file to write and the SDM layout to
/// enable.
///
/// | placeholder | the chip mirrors | characters |
/// |---|---|---|
/// | `{sun:picc}` | encrypted PICC data (UID and counter, under SDMMetaReadKey) | 32 |
/// | `{sun:uid}` | the UID, plain | 14 |
/// | `{sun:counter}` | SDMReadCtr, plain, most significant byte first | 6 |
/// | `{sun:enc:TEXT}` | TEXT (16·n characters) encrypted under the session key | 2 × TEXT |
/// | `{sun:mac}` | the SDMMAC | 16 |
///
/// Rules: `{sun:mac}` once, and either `{sun:picc}` or `{sun:uid}` (with an optional
/// `{sun:counter}`), each at most once. The MAC covers the bytes from `{sun:enc:…}` up to the
/// MAC when there is one (SDMMACInputOffset = SDMENCOffset), and nothing otherwise
/// (SDMMACInputOffset = SDMMACOffset: the session key still binds UID and counter).
/// The NDEF file is NLEN (2 bytes, big-endian) followed by the message: one URI record, its
/// prefix abbreviated; the offsets are found by encoding and comparing, so the abbreviation
/// and the record header are accounted for.
public struct SDMURLTemplate: Sendable, Hashable {
    /// The kinds of placeholder.
    public enum Placeholder: String, Sendable, Hashable, CaseIterable {
        /// `{sun:picc}`.
        case picc
        /// `{sun:uid}`.
        case uid
        /// `{sun:counter}`.
        case counter
        /// `{sun:enc:TEXT}`.
        case enc
        /// `{sun:mac}`.
        case mac

        /// The characters the chip writes, for fixed-length kinds (enc: twice its text).
        public var fixedLength: Int? {
            switch self {
            case .picc: NTAG424SDM.asciiLength(NTAG424SDM.encryptedPICCDataLength)
            case .uid: NTAG424SDM.asciiLength(NTAG424SDM.uidLength)
            case .counter: NTAG424SDM.asciiLength(NTAG424SDM.counterLength)
            case .mac: NTAG424SDM.asciiLength(NTAG424SDM.macLength)
            case .enc: nil
            }
        }
    }

    /// The opening of every placeholder.
    public static let marker = "{sun:"

    /// The URL as given.
    public let template: String
    /// The URL as written: placeholders replaced by `0`s (and `{sun:enc:TEXT}` by TEXT and `0`s).
    public let text: String
    /// The message written.
    public let message: NDEFMessage
    /// The NDEF file's bytes: NLEN ‖ message.
    public let file: [UInt8]
    /// Where the chip mirrors, checked.
    public let layout: SDMLayout

    /// Whether `text` holds a `{sun:` placeholder.
    public static func holdsPlaceholder(_ text: String) -> Bool { text.contains(marker) }

    /// The template of `url`.
    /// - Throws: ``NTAG424Error`` `invalidPlaceholder` (offset: the placeholder's character in the
    ///   URL), `invalidMessage` when the URL is not a valid URI, `illegalLayout` when the file
    ///   does not fit `fileSize` or the chip would refuse the offsets.
    public init(_ url: String, fileSize: Int = NTAG424SDM.ndefFileSize) throws(NTAG424Error) {
        let scanned = try Self.scan(url)
        template = url
        text = scanned.text
        let written = try Self.encode(scanned.text)
        let file = written.file
        message = written.message
        self.file = file
        guard file.count <= fileSize else {
            throw NTAG424Error(.illegalLayout, at: fileSize, "the NDEF file takes \(file.count) bytes, the chip's file has \(fileSize)")
        }
        var offsets: [Placeholder: SDMLayout.Range] = [:]
        for found in scanned.found {
            var probe = Array(scanned.text.utf8)
            for index in found.range { probe[index] = probe[index] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1") }
            let probed = try Self.encode(String(decoding: probe, as: UTF8.self)).file
            guard probed.count == file.count else {
                throw NTAG424Error(.invalidPlaceholder, at: found.urlOffset, "the record changes length with the placeholder's characters")
            }
            let differing = file.indices.filter { file[$0] != probed[$0] }
            guard let first = differing.first, differing.count == found.range.count, differing.last == first + found.range.count - 1 else {
                throw NTAG424Error(.invalidPlaceholder, at: found.urlOffset, "the placeholder is not stored as plain characters in the record")
            }
            offsets[found.kind] = SDMLayout.Range(offset: first, length: found.range.count)
        }
        let macOffset = offsets[.mac]?.offset
        layout = try SDMLayout(
            mirrorsUID: offsets[.picc] != nil || offsets[.uid] != nil, mirrorsCounter: offsets[.picc] != nil || offsets[.counter] != nil,
            piccDataOffset: offsets[.picc]?.offset, uidOffset: offsets[.uid]?.offset, counterOffset: offsets[.counter]?.offset,
            macInputOffset: offsets[.enc]?.offset ?? macOffset, macOffset: macOffset, encryptedFileData: offsets[.enc], fileSize: fileSize)
    }

    private struct Found {
        var kind: Placeholder
        var urlOffset: Int
        var range: Swift.Range<Int>
    }

    /// The URL with placeholders filled, and where each filled range is (UTF-8 offsets).
    private static func scan(_ url: String) throws(NTAG424Error) -> (text: String, found: [Found]) {
        let bytes = Array(url.utf8)
        let marker = Array(Self.marker.utf8)
        var out: [UInt8] = []
        var found: [Found] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "{"), bytes[index...].starts(with: marker) else {
                out.append(bytes[index])
                index += 1
                continue
            }
            guard let close = bytes[index...].firstIndex(of: UInt8(ascii: "}")) else {
                throw NTAG424Error(.invalidPlaceholder, at: index, "'{sun:' without a closing '}'")
            }
            let body = String(decoding: bytes[(index + marker.count)..<close], as: UTF8.self)
            let name = body.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let kind = Placeholder(rawValue: String(name[0])) else {
                throw NTAG424Error(.invalidPlaceholder, at: index, "unknown placeholder {sun:\(body)}: use {sun:picc}, {sun:mac}, {sun:uid}, {sun:counter} or {sun:enc:TEXT}")
            }
            guard !found.contains(where: { $0.kind == kind }) else {
                throw NTAG424Error(.invalidPlaceholder, at: index, "{sun:\(kind.rawValue)} occurs more than once: the chip mirrors each once")
            }
            let filled: [UInt8]
            if kind == .enc {
                let plain = name.count == 2 ? Array(name[1].utf8) : []
                guard !plain.isEmpty, plain.count % AES128.blockSize == 0, !plain.contains(UInt8(ascii: "{")) else {
                    throw NTAG424Error(.invalidPlaceholder, at: index, "{sun:enc:TEXT} needs TEXT of 16, 32, … characters, got \(plain.count)")
                }
                filled = plain + [UInt8](repeating: NTAG424SDM.placeholderCharacter, count: plain.count)
            } else {
                guard name.count == 1, let length = kind.fixedLength else {
                    throw NTAG424Error(.invalidPlaceholder, at: index, "{sun:\(kind.rawValue)} takes no argument")
                }
                filled = [UInt8](repeating: NTAG424SDM.placeholderCharacter, count: length)
            }
            found.append(Found(kind: kind, urlOffset: index, range: out.count..<(out.count + filled.count)))
            out += filled
            index = close + 1
        }
        let kinds = Set(found.map(\.kind))
        if found.isEmpty { throw NTAG424Error(.invalidPlaceholder, "no {sun:…} placeholder in the URL") }
        let at = found.first?.urlOffset
        guard kinds.contains(.mac) else { throw NTAG424Error(.invalidPlaceholder, at: at, "a SUN URL needs {sun:mac}") }
        guard !(kinds.contains(.picc) && (kinds.contains(.uid) || kinds.contains(.counter))) else {
            throw NTAG424Error(.invalidPlaceholder, at: at, "{sun:picc} already holds UID and counter (encrypted): do not add {sun:uid} or {sun:counter}")
        }
        guard kinds.contains(.picc) || kinds.contains(.uid) else {
            throw NTAG424Error(.invalidPlaceholder, at: at, "a SUN URL needs {sun:picc} (encrypted) or {sun:uid} (plain)")
        }
        if kinds.contains(.enc), !kinds.contains(.picc) && !kinds.contains(.counter) {
            throw NTAG424Error(.invalidPlaceholder, at: at, "{sun:enc:…} needs the counter mirrored: add {sun:counter} or use {sun:picc}")
        }
        return (String(decoding: out, as: UTF8.self), found)
    }

    private static func encode(_ url: String) throws(NTAG424Error) -> (message: NDEFMessage, file: [UInt8]) {
        do {
            let message = NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: url)])
            let encoded = try message.encoded()
            return (message, [UInt8(encoded.count >> 8 & 0xFF), UInt8(encoded.count & 0xFF)] + encoded)
        } catch {
            throw NTAG424Error(.invalidMessage, error.description)
        }
    }
}
