public import NFCCore

/// A command APDU (ISO/IEC 7816-4, 5.1 "Command-response pairs"): CoreNFC's `NFCISO7816APDU`.
///
/// Four header bytes (CLA, INS, P1, P2), optional command data announced by Lc, optional Le (the
/// number of response bytes expected). ``encoded()`` picks the short form when the data has at
/// most 255 bytes and Le is at most 256, else the extended form for both fields:
///
/// | case | short                      | extended                               |
/// |------|----------------------------|----------------------------------------|
/// | 1    | header                     | —                                      |
/// | 2    | header Le (`00` = 256)     | header `00` Le(2) (`0000` = 65 536)    |
/// | 3    | header Lc(01…FF) data      | header `00` Lc(0001…FFFF) data         |
/// | 4    | header Lc data Le          | header `00` Lc(2) data Le(2)           |
public struct ISO7816APDU: Sendable, Hashable, CustomStringConvertible {
    /// CLA: the class byte (`00` for interindustry commands).
    public var instructionClass: UInt8
    /// INS: the instruction (`A4` SELECT, `B0` READ BINARY, `D6` UPDATE BINARY, `C0` GET RESPONSE).
    public var instructionCode: UInt8
    /// P1, the first parameter byte.
    public var p1Parameter: UInt8
    /// P2, the second parameter byte.
    public var p2Parameter: UInt8
    /// The command data (Lc is its count); empty for cases 1 and 2.
    public var data: Bytes
    /// Le: how many response data bytes are expected (1…65 536; 256 is encoded `00` in the short
    /// form); `nil` when no Le field is sent (cases 1 and 3).
    public var expectedResponseLength: Int?

    /// The most command data a short APDU carries (Lc is one byte, 01…FF).
    public static let maximumShortDataLength = 255
    /// The largest Le of a short APDU (encoded `00`).
    public static let maximumShortResponseLength = 256
    /// The most command data an extended APDU carries (Lc `0001`…`FFFF`).
    public static let maximumExtendedDataLength = 65_535
    /// The largest Le of an extended APDU (encoded `0000`).
    public static let maximumExtendedResponseLength = 65_536

    /// Creates a command APDU. An `expectedResponseLength` of `-1` means no Le field, as in
    /// CoreNFC's `NFCISO7816APDU` (the same as `nil`).
    /// - Throws: ``NFCTagError/Code/invalidParameter`` when the data exceeds 65 535 bytes or Le
    ///   is outside 1…65 536 (and not -1).
    public init(
        instructionClass: UInt8, instructionCode: UInt8, p1Parameter: UInt8, p2Parameter: UInt8,
        data: Bytes = Bytes(), expectedResponseLength: Int? = nil
    ) throws(NFCTagError) {
        let expectedResponseLength = expectedResponseLength == -1 ? nil : expectedResponseLength
        guard data.count <= Self.maximumExtendedDataLength else {
            throw NFCTagError(
                .invalidParameter,
                "APDU command data of \(data.count) bytes exceeds the \(Self.maximumExtendedDataLength) an extended Lc can announce")
        }
        if let le = expectedResponseLength, !(1...Self.maximumExtendedResponseLength).contains(le) {
            throw NFCTagError(.invalidParameter, "APDU Le \(le) is outside 1…\(Self.maximumExtendedResponseLength)")
        }
        self.init(
            unchecked: instructionClass, instructionCode, p1Parameter, p2Parameter, data: data,
            expectedResponseLength: expectedResponseLength)
    }

    /// For values already known to be in range.
    init(unchecked cla: UInt8, _ ins: UInt8, _ p1: UInt8, _ p2: UInt8, data: Bytes = Bytes(), expectedResponseLength: Int? = nil) {
        instructionClass = cla
        instructionCode = ins
        p1Parameter = p1
        p2Parameter = p2
        self.data = data
        self.expectedResponseLength = expectedResponseLength
    }

    /// Whether ``encoded()`` uses the extended length form: data over 255 bytes or Le over 256.
    public var isExtended: Bool {
        data.count > Self.maximumShortDataLength || (expectedResponseLength ?? 0) > Self.maximumShortResponseLength
    }

    /// The bytes sent to the card (ISO/IEC 7816-4, 5.1).
    public func encoded() -> Bytes {
        var bytes: [UInt8] = [instructionClass, instructionCode, p1Parameter, p2Parameter]
        let extended = isExtended
        if !data.isEmpty {
            if extended {
                bytes += [0x00, UInt8(data.count >> 8), UInt8(data.count & 0xFF)]
            } else {
                bytes.append(UInt8(data.count))
            }
            bytes += data
        }
        if let le = expectedResponseLength {
            if extended {
                // Case 2E has its own 00 marker; case 4E's Le follows the data without one.
                if data.isEmpty { bytes.append(0x00) }
                bytes += [UInt8((le >> 8) & 0xFF), UInt8(le & 0xFF)]  // 65 536 → 00 00
            } else {
                bytes.append(UInt8(le & 0xFF))  // 256 → 00
            }
        }
        return Bytes(bytes)
    }

    /// Parses a command APDU; total: every malformed input is a typed error.
    /// - Throws: ``NFCTagError/Code/invalidParameter`` with ``NFCTagError/offset`` the index in
    ///   `bytes` of the first byte at fault: the end for a truncated APDU, the Lc field for an
    ///   extended Lc of 0, the first surplus byte when the length fields leave bytes over.
    public init(bytes: Bytes) throws(NFCTagError) {
        let b = bytes.array
        let n = b.count
        guard n >= 4 else { throw NFCTagError(.invalidParameter, at: n, "an APDU has a 4-byte header, not \(n) bytes") }
        self.init(unchecked: b[0], b[1], b[2], b[3])
        if n == 4 { return }  // case 1
        if n == 5 {  // case 2S
            expectedResponseLength = b[4] == 0 ? 256 : Int(b[4])
            return
        }
        if b[4] != 0 {  // case 3S or 4S
            let lc = Int(b[4])
            guard n >= 5 + lc else {
                throw NFCTagError(.invalidParameter, at: n, "Lc announces \(lc) data bytes, only \(n - 5) follow")
            }
            data = Bytes(b[5..<(5 + lc)])
            if n == 5 + lc { return }
            guard n == 6 + lc else {
                throw NFCTagError(.invalidParameter, at: 6 + lc, "\(n - 6 - lc) bytes follow the Le field")
            }
            expectedResponseLength = b[5 + lc] == 0 ? 256 : Int(b[5 + lc])
            return
        }
        // Extended: 00 marker then two-byte fields.
        guard n >= 7 else { throw NFCTagError(.invalidParameter, at: n, "an extended length field needs 2 bytes after the 00 marker") }
        let first = Int(b[5]) << 8 | Int(b[6])
        if n == 7 {  // case 2E
            expectedResponseLength = first == 0 ? 65_536 : first
            return
        }
        guard first != 0 else { throw NFCTagError(.invalidParameter, at: 5, "an extended Lc of 0000 announces no data, yet bytes follow") }
        guard n >= 7 + first else {
            throw NFCTagError(.invalidParameter, at: n, "Lc announces \(first) data bytes, only \(n - 7) follow")
        }
        data = Bytes(b[7..<(7 + first)])
        if n == 7 + first { return }  // case 3E
        guard n >= 9 + first else {
            throw NFCTagError(.invalidParameter, at: n, "an extended Le needs 2 bytes, only \(n - 7 - first) follow the data")
        }
        guard n == 9 + first else {
            throw NFCTagError(.invalidParameter, at: 9 + first, "\(n - 9 - first) bytes follow the Le field")
        }
        let le = Int(b[7 + first]) << 8 | Int(b[8 + first])
        expectedResponseLength = le == 0 ? 65_536 : le
    }

    /// The encoded bytes in hex.
    public var description: String { encoded().description }
}

/// A status word SW1 SW2 (ISO/IEC 7816-4, 5.1.3): the two bytes ending every response APDU.
public struct ISO7816StatusWord: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// SW1 << 8 | SW2.
    public var rawValue: UInt16

    /// Wraps SW1 SW2 as one number.
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// Wraps SW1 and SW2.
    public init(_ sw1: UInt8, _ sw2: UInt8) { rawValue = UInt16(sw1) << 8 | UInt16(sw2) }

    /// SW1.
    public var sw1: UInt8 { UInt8(rawValue >> 8) }
    /// SW2.
    public var sw2: UInt8 { UInt8(rawValue & 0xFF) }

    /// `90 00`: normal processing.
    public static let success = ISO7816StatusWord(rawValue: 0x9000)
    /// `62 82`: end of file reached before Le bytes were read (a warning: data comes with it).
    public static let endOfFileReached = ISO7816StatusWord(rawValue: 0x6282)
    /// `67 00`: wrong length (Lc or Le).
    public static let wrongLength = ISO7816StatusWord(rawValue: 0x6700)
    /// `69 82`: security status not satisfied (e.g. UPDATE BINARY of a read-only file).
    public static let securityStatusNotSatisfied = ISO7816StatusWord(rawValue: 0x6982)
    /// `69 86`: command not allowed, no current EF.
    public static let noCurrentEF = ISO7816StatusWord(rawValue: 0x6986)
    /// `6A 82`: file or application not found.
    public static let fileNotFound = ISO7816StatusWord(rawValue: 0x6A82)
    /// `6A 86`: incorrect parameters P1-P2.
    public static let incorrectP1P2 = ISO7816StatusWord(rawValue: 0x6A86)
    /// `6B 00`: wrong parameters P1-P2 (an offset outside the file).
    public static let wrongP1P2 = ISO7816StatusWord(rawValue: 0x6B00)
    /// `6D 00`: instruction not supported.
    public static let instructionNotSupported = ISO7816StatusWord(rawValue: 0x6D00)
    /// `6E 00`: class not supported.
    public static let classNotSupported = ISO7816StatusWord(rawValue: 0x6E00)

    /// SW1 `61`: SW2 more response bytes wait for GET RESPONSE (`00` = 256 or more).
    public static let bytesAvailableSW1: UInt8 = 0x61
    /// SW1 `6C`: wrong Le; resend with Le = SW2 (`00` = 256).
    public static let wrongLeSW1: UInt8 = 0x6C

    /// `90 00`, or a warning (`62 xx`, `63 xx`): the command was processed.
    public var isSuccess: Bool { rawValue == 0x9000 || sw1 == 0x62 || sw1 == 0x63 }

    /// Four hex digits, `6A82`.
    public var description: String { Hex.encode([sw1, sw2]).uppercased() }
}

/// A response APDU (ISO/IEC 7816-4, 5.1): data then SW1 SW2.
public struct ISO7816Response: Sendable, Hashable {
    /// The response data.
    public var data: Bytes
    /// SW1.
    public var sw1: UInt8
    /// SW2.
    public var sw2: UInt8

    /// Creates a response.
    public init(data: Bytes, sw1: UInt8, sw2: UInt8) {
        self.data = data
        self.sw1 = sw1
        self.sw2 = sw2
    }

    /// Splits the bytes a card answered into data and status word.
    /// - Throws: ``NFCTagError/Code/tagResponse`` (offset = count) when fewer than 2 bytes came.
    public init(bytes: Bytes) throws(NFCTagError) {
        guard bytes.count >= 2 else {
            throw NFCTagError(.tagResponse, at: bytes.count, "a response APDU ends with SW1 SW2; \(bytes.count) byte\(bytes.count == 1 ? "" : "s") came")
        }
        data = bytes[0..<(bytes.count - 2)]
        sw1 = bytes[bytes.count - 2]
        sw2 = bytes[bytes.count - 1]
    }

    /// SW1 SW2 as a ``ISO7816StatusWord``.
    public var statusWord: ISO7816StatusWord { ISO7816StatusWord(sw1, sw2) }
}
