import NFCCore

/// The NTAG213/215/216 ASCII mirror (NTAG213/215/216 datasheet, 8.7 "NFC counter and UID
/// mirror"): while reading, the chip presents its UID (14 hex characters), its NFC counter (6
/// hex characters), or both joined by `x` (21 characters) in place of the user-memory bytes from
/// MIRROR_PAGE, byte MIRROR_BYTE on. The memory there holds placeholder characters (`0`, and
/// the `x` the chip puts between the two mirrors), so a reader that does not mirror still sees a
/// well-formed message.
public enum NTAGMirror: String, Sendable, Hashable, CaseIterable {
    /// The UID, `04E141124C2880`: MIRROR_CONF `01b`.
    case uid
    /// The NFC counter, `003F31`: MIRROR_CONF `10b`.
    case counter
    /// Both, `04E141124C2880x003F31`: MIRROR_CONF `11b`.
    case uidAndCounter

    /// MIRROR_CONF, bits 7–6 of CFG0 byte 0 (the MIRROR byte).
    public var mirrorConfiguration: UInt8 {
        switch self {
        case .uid: 0x40
        case .counter: 0x80
        case .uidAndCounter: 0xC0
        }
    }

    /// The characters the chip presents: 14, 6 or 21.
    public var length: Int { placeholder.count }

    /// What memory holds at the mirror: `0` for every hex character, `x` between UID and
    /// counter (the datasheet's example, 8.7.3.1).
    public var placeholder: [UInt8] {
        switch self {
        case .uid: Array(repeating: NTAGMirrorBits.placeholderCharacter, count: 14)
        case .counter: Array(repeating: NTAGMirrorBits.placeholderCharacter, count: 6)
        case .uidAndCounter:
            Array(repeating: NTAGMirrorBits.placeholderCharacter, count: 14) + [NTAGMirrorBits.separator]
                + Array(repeating: NTAGMirrorBits.placeholderCharacter, count: 6)
        }
    }

    /// Whether the NFC counter is mirrored (and so NFC_CNT_EN must be set).
    public var mirrorsCounter: Bool { self != .uid }

    /// The characters a chip with `uid` and `counter` presents (upper-case hex, counter most
    /// significant byte first).
    public func presentation(uid: [UInt8], counter: UInt32) -> [UInt8] {
        func hex(_ bytes: [UInt8]) -> [UInt8] { Array(Hex.encode(bytes, uppercase: true).utf8) }
        let counterBytes: [UInt8] = [UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)]
        switch self {
        case .uid: return hex(uid)
        case .counter: return hex(counterBytes)
        case .uidAndCounter: return hex(uid) + [NTAGMirrorBits.separator] + hex(counterBytes)
        }
    }

    /// Where the placeholder sits in an encoded message: the offset of its only occurrence,
    /// nil when it is absent or occurs more than once (then it cannot be told apart).
    public func placeholderOffset(in encoded: [UInt8]) -> Int? {
        let pattern = placeholder
        guard encoded.count >= pattern.count else { return nil }
        var found: Int?
        for start in 0...(encoded.count - pattern.count) where encoded[start..<(start + pattern.count)].elementsEqual(pattern) {
            if found != nil { return nil }
            found = start
        }
        return found
    }

    /// The mirror of a MIRROR byte (CFG0 byte 0), nil when MIRROR_CONF is `00b`.
    public init?(mirrorByte: UInt8) {
        switch mirrorByte & NTAGMirrorBits.configurationMask {
        case 0x40: self = .uid
        case 0x80: self = .counter
        case 0xC0: self = .uidAndCounter
        default: return nil
        }
    }
}

/// Bits and characters of the NTAG21x mirror (NTAG213/215/216 datasheet 8.5.7, Table 10, and 8.7).
public enum NTAGMirrorBits {
    /// MIRROR_CONF, bits 7–6 of the MIRROR byte (CFG0 byte 0).
    public static let configurationMask: UInt8 = 0xC0
    /// MIRROR_BYTE, bits 5–4 of the MIRROR byte: the byte of MIRROR_PAGE the mirror starts at.
    public static let byteMask: UInt8 = 0x30
    /// The shift of MIRROR_BYTE.
    public static let byteShift: UInt8 = 4
    /// The index of MIRROR_PAGE in CFG0.
    public static let pageIndex = 2
    /// The first page a mirror may start at: user memory begins at page 4.
    public static let firstPage = 4
    /// The placeholder character, `0` (30h).
    public static let placeholderCharacter: UInt8 = 0x30
    /// The separator the chip inserts between UID and counter, `x` (78h).
    public static let separator: UInt8 = 0x78
}

/// Where a mirror sits: page and byte, as MIRROR_PAGE and MIRROR_BYTE hold them.
public struct NTAGMirrorPosition: Sendable, Hashable {
    /// MIRROR_PAGE.
    public let page: Int
    /// MIRROR_BYTE, 0…3.
    public let byte: Int
    /// The byte address in tag memory.
    public var address: Int { page * Type2Command.pageSize + byte }

    /// The position of byte `address` of tag memory.
    public init(address: Int) {
        page = address / Type2Command.pageSize
        byte = address % Type2Command.pageSize
    }
}

/// A text (a URL) with one mirror placeholder: `{mirror:uid}`, `{mirror:counter}` or
/// `{mirror:uid}x{mirror:counter}`, the chip's one mirror.
public struct NTAGMirrorTemplate: Sendable, Hashable {
    /// The placeholder names.
    public static let uidToken = "{mirror:uid}"
    /// The counter placeholder.
    public static let counterToken = "{mirror:counter}"

    /// What is mirrored.
    public let mirror: NTAGMirror
    /// The text with the placeholder characters where the chip mirrors: what is written.
    public let text: String
    /// The same text with other characters at the mirror (`1`…, `y`): encoding both and
    /// comparing finds the mirror's bytes in any record layout.
    public let probe: String

    /// The template in `text`, nil when `text` has no `{mirror:` placeholder.
    /// - Throws: ``NFCTagError`` `invalidParameter` for an unknown placeholder, two mirrors, or a
    ///   UID and counter not joined as `{mirror:uid}x{mirror:counter}`.
    public init?(_ text: String) throws(NFCTagError) {
        guard text.contains("{mirror:") else { return nil }
        let both = Self.uidToken + "x" + Self.counterToken
        let kind: NTAGMirror
        let token: String
        if text.contains(both) {
            kind = .uidAndCounter
            token = both
        } else if text.contains(Self.uidToken) {
            kind = .uid
            token = Self.uidToken
        } else if text.contains(Self.counterToken) {
            kind = .counter
            token = Self.counterToken
        } else {
            throw NFCTagError(.invalidParameter, "unknown mirror placeholder in '\(text)': use {mirror:uid}, {mirror:counter} or {mirror:uid}x{mirror:counter}")
        }
        let parts = text.components(separatedBy: token)
        guard parts.count == 2, !parts.joined().contains("{mirror:") else {
            throw NFCTagError(
                .invalidParameter,
                "an NTAG21x has one mirror: give one {mirror:uid}, one {mirror:counter}, or {mirror:uid}x{mirror:counter} (UID and counter together only joined by 'x')")
        }
        mirror = kind
        self.text = parts[0] + String(decoding: kind.placeholder, as: UTF8.self) + parts[1]
        let probeCharacters = kind.placeholder.map { $0 == NTAGMirrorBits.separator ? UInt8(ascii: "y") : UInt8(ascii: "1") }
        probe = parts[0] + String(decoding: probeCharacters, as: UTF8.self) + parts[1]
    }

    /// The offset of the mirror's first byte in the encoded message, found by comparing the
    /// message built from ``text`` with the one built from ``probe``.
    /// - Throws: ``NFCTagError`` `invalidParameter` when the two differ in length or not in
    ///   exactly the mirror's ``NTAGMirror/length`` consecutive bytes (a record that transforms
    ///   the text, such as UTF-16).
    public func locate(written: [UInt8], probe probed: [UInt8]) throws(NFCTagError) -> Int {
        guard written.count == probed.count else {
            throw NFCTagError(.invalidParameter, "the record holding the mirror changes length with its text; the mirror cannot be placed")
        }
        let differing = written.indices.filter { written[$0] != probed[$0] }
        guard let first = differing.first, differing.count == mirror.length, differing.last == first + mirror.length - 1,
              Array(written[first..<(first + mirror.length)]) == mirror.placeholder
        else {
            throw NFCTagError(.invalidParameter, "the mirror's characters are not stored as plain ASCII in the message; use it in a URL")
        }
        return first
    }
}

extension Type2Configuration {
    /// The mirror CFG0 turns on and where it starts, nil when MIRROR_CONF is `00b`. Meaningful on
    /// NTAG213/215/216 only (``Type2ChipProfile/hasMirror``): elsewhere CFG0 byte 0 is not MIRROR.
    public var mirror: (kind: NTAGMirror, position: NTAGMirrorPosition)? {
        guard let kind = NTAGMirror(mirrorByte: cfg0[0]) else { return nil }
        return (kind, mirrorPosition)
    }

    /// MIRROR_PAGE and MIRROR_BYTE as CFG0 holds them, whether the mirror is on or off (the
    /// factory's `00h`, byte 0, while it is off). NTAG213/215/216 only.
    public var mirrorPosition: NTAGMirrorPosition {
        let byte = Int((cfg0[0] & NTAGMirrorBits.byteMask) >> NTAGMirrorBits.byteShift)
        return NTAGMirrorPosition(address: Int(cfg0[NTAGMirrorBits.pageIndex]) * Type2Command.pageSize + byte)
    }

    /// NFC_CNT_EN (NTAG213/215/216): the NFC counter counts.
    public var nfcCounterEnabled: Bool { access & NTAGAccess.nfcCounterEnabled != 0 }

    /// NFC_CNT_PWD_PROT (NTAG213/215/216): READ_CNT needs the password.
    public var nfcCounterPasswordProtected: Bool { access & NTAGAccess.nfcCounterPasswordProtected != 0 }
}
