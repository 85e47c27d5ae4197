public import NFCCore

/// PC/SC Part 3 (contactless readers, "Storage card" pseudo-APDUs and the ATR a reader builds
/// for a contactless card): the one place its constants live, for the PC/SC reader and the
/// virtual PC/SC reader alike. Pseudo-APDUs have class `FF`; the reader answers them itself.
public enum PCSCPart3 {
    /// The class byte of every pseudo-APDU.
    public static let pseudoClass: UInt8 = 0xFF
    /// GET DATA: `FF CA P1 00 Le`; P1 ``getDataUID`` or ``getDataATS``.
    public static let getData: UInt8 = 0xCA
    /// GET DATA P1: the card's UID (ISO 14443-A UID, PUPI, IDm, ISO 15693 UID).
    public static let getDataUID: UInt8 = 0x00
    /// GET DATA P1: the ATS of an ISO 14443-A card.
    public static let getDataATS: UInt8 = 0x01
    /// READ BINARY: `FF B0 MSB LSB Le`, the address a Type 2 page or an ISO 15693 block.
    public static let readBinary: UInt8 = 0xB0
    /// UPDATE BINARY: `FF D6 MSB LSB Lc data`.
    public static let updateBinary: UInt8 = 0xD6
    /// LOAD KEYS: `FF 82 P1 P2 06 key`; P1 the key structure (``volatileCardKey``), P2 the key
    /// number in the reader.
    public static let loadKeys: UInt8 = 0x82
    /// GENERAL AUTHENTICATE: `FF 86 00 00 05 01 00 block keyType keyNumber` (data: version
    /// ``generalAuthenticateVersion``, block address MSB LSB, key type `60`/`61`, key number).
    public static let generalAuthenticate: UInt8 = 0x86
    /// The version byte of GENERAL AUTHENTICATE's data.
    public static let generalAuthenticateVersion: UInt8 = 0x01
    /// LOAD KEYS P1: a card key kept in the reader's volatile memory.
    public static let volatileCardKey: UInt8 = 0x00
    /// The key slots LOAD KEYS fills on the readers NFCKit knows (ACS: 00 and 01).
    public static let keySlots: ClosedRange<UInt8> = 0x00...0x01
    /// A MIFARE Classic block, the unit of READ BINARY and UPDATE BINARY on a Classic card.
    public static let classicBlockLength = 16
    /// A MIFARE key's length.
    public static let classicKeyLength = 6
    /// The most a READ BINARY of a Type 2 tag returns (the tag's READ: 4 pages).
    public static let type2ReadLength = 16
    /// A Type 2 page, the unit of UPDATE BINARY on a Type 2 tag.
    public static let type2PageLength = 4

    /// The registered application provider identifier of PC/SC in a storage card's ATR.
    public static let rid: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x06]

    /// Status words a Part 3 reader answers pseudo-APDUs with.
    public enum StatusWord {
        /// Success.
        public static let success: UInt16 = 0x9000
        /// Warning: end of data reached before Le bytes (the data is shorter than asked).
        public static let endReached: UInt16 = 0x6282
        /// Error: no information given (the operation failed, e.g. the card did not answer).
        public static let noInformation: UInt16 = 0x6300
        /// Error: memory failure (a write did not take).
        public static let memoryFailure: UInt16 = 0x6581
        /// Error: wrong length (Lc or Le).
        public static let wrongLength: UInt16 = 0x6700
        /// Error: command incompatible with the card.
        public static let commandIncompatible: UInt16 = 0x6981
        /// Error: security status not satisfied (locked, or protected by a password).
        public static let securityNotSatisfied: UInt16 = 0x6982
        /// Error: command not allowed.
        public static let notAllowed: UInt16 = 0x6986
        /// Error: function not supported.
        public static let functionNotSupported: UInt16 = 0x6A81
        /// Error: address out of range (file or block not found).
        public static let addressOutOfRange: UInt16 = 0x6A82
        /// Error: wrong parameter P1 or P2.
        public static let wrongParameter: UInt16 = 0x6B00
        /// Error: wrong Le; the low byte of `6Cxx` gives the exact length.
        public static let wrongLeHigh: UInt8 = 0x6C
        /// Error: instruction not supported.
        public static let instructionNotSupported: UInt16 = 0x6D00
        /// Error: no precise diagnosis (ISO/IEC 7816-4; a replaying emulator's answer once its
        /// trace and the client part ways).
        public static let noPreciseDiagnosis: UInt16 = 0x6F00

        /// A short name of a status word, for error messages.
        public static func describe(_ sw: UInt16) -> String {
            let name: String =
                switch sw {
                case success: "success"
                case endReached: "end of data reached before Le bytes"
                case noInformation: "no information given"
                case memoryFailure: "memory failure"
                case wrongLength: "wrong length"
                case commandIncompatible: "command incompatible"
                case securityNotSatisfied: "security status not satisfied"
                case notAllowed: "command not allowed"
                case functionNotSupported: "function not supported"
                case addressOutOfRange: "address out of range"
                case wrongParameter: "wrong parameter P1-P2"
                case instructionNotSupported: "instruction not supported"
                case noPreciseDiagnosis: "no precise diagnosis"
                default: sw >> 8 == UInt16(wrongLeHigh) ? "wrong Le, exact length \(sw & 0xFF)" : "unknown"
                }
            return "\(Hex.encode([UInt8(sw >> 8), UInt8(sw & 0xFF)]).uppercased()) (\(name))"
        }
    }

    /// The standard byte SS of a storage card's ATR: which air interface the card uses.
    public enum Standard {
        /// No information given.
        public static let none: UInt8 = 0x00
        /// ISO/IEC 14443-A, part 3 (MIFARE Classic, Ultralight, NTAG).
        public static let iso14443APart3: UInt8 = 0x03
        /// ISO/IEC 14443-B, part 3.
        public static let iso14443BPart3: UInt8 = 0x07
        /// ISO/IEC 15693, part 3 (ICODE SLI/SLIX/SLIX2, Tag-it…).
        public static let iso15693Part3: UInt8 = 0x0B
        /// FeliCa.
        public static let felica: UInt8 = 0x11
    }

    /// The card name bytes NN NN of a storage card's ATR (PC/SC Part 3 supplemental document).
    public enum CardName {
        /// No information given.
        public static let none: UInt16 = 0x0000
        /// MIFARE Classic 1K.
        public static let mifareClassic1K: UInt16 = 0x0001
        /// MIFARE Classic 4K.
        public static let mifareClassic4K: UInt16 = 0x0002
        /// MIFARE Ultralight (readers give it for NTAG21x too).
        public static let mifareUltralight: UInt16 = 0x0003
        /// MIFARE Mini.
        public static let mifareMini: UInt16 = 0x0026
        /// Innovision Jewel (NFC Forum Type 1; pcsc-tools' `smartcard_list.txt`: "Jewel Tag (as
        /// per PCSC std part3)").
        public static let jewel: UInt16 = 0x002F
        /// Innovision/Broadcom Topaz (NFC Forum Type 1; pcsc-tools' `smartcard_list.txt`: "Topaz
        /// NFC Tag (as per PCSC std part3)").
        public static let topaz: UInt16 = 0x0030
        /// What the ACS ACR122U gives a Type 1 tag instead (a name from the range Part 3 leaves to
        /// vendors; pcsc-tools' `smartcard_list.txt` lists the ATR with `03 F0 04` as "NFC FORUM
        /// TYPE 1 TAG", Innovision's Topaz).
        public static let acsTopazJewel: UInt16 = 0xF004
        /// MIFARE Plus 2K in security level 1 (MIFARE Classic compatible).
        public static let mifarePlusSL1_2K: UInt16 = 0x0036
        /// MIFARE Plus 4K in security level 1 (MIFARE Classic compatible).
        public static let mifarePlusSL1_4K: UInt16 = 0x0037
        /// MIFARE Plus 2K in security level 2.
        public static let mifarePlusSL2_2K: UInt16 = 0x0038
        /// MIFARE Plus 4K in security level 2.
        public static let mifarePlusSL2_4K: UInt16 = 0x0039
        /// MIFARE Ultralight C (a Type 2 chip; a real reader's ATR for one is in pcsc-tools'
        /// `smartcard_list.txt`, Tests/Fixtures/captures).
        public static let mifareUltralightC: UInt16 = 0x003A
        /// FeliCa: what real readers (Sony RC-S300, ACS) give a FeliCa card with standard `11`.
        public static let felica: UInt16 = 0x003B
        /// MIFARE Ultralight EV1 (a Type 2 chip).
        public static let mifareUltralightEV1: UInt16 = 0x003D
        /// NXP ICODE SLI (ISO 15693): what real readers give NXP's ICODE cards, SLIX and SLIX2
        /// included (pcsc-tools' "Philips ICode" ATR).
        public static let icodeSLI: UInt16 = 0x0014

        /// `Topaz`, `MIFARE Plus SL2 2K`, or `card name 0x0031` for a name without one here.
        public static func describe(_ name: UInt16) -> String {
            let names: [UInt16: String] = [
                none: "no card name", mifareClassic1K: "MIFARE Classic 1K", mifareClassic4K: "MIFARE Classic 4K",
                mifareUltralight: "MIFARE Ultralight", mifareMini: "MIFARE Mini", jewel: "Jewel", topaz: "Topaz",
                mifarePlusSL1_2K: "MIFARE Plus SL1 2K", mifarePlusSL1_4K: "MIFARE Plus SL1 4K",
                mifarePlusSL2_2K: "MIFARE Plus SL2 2K", mifarePlusSL2_4K: "MIFARE Plus SL2 4K",
                mifareUltralightC: "MIFARE Ultralight C", felica: "FeliCa", mifareUltralightEV1: "MIFARE Ultralight EV1",
                icodeSLI: "ICODE SLI", acsTopazJewel: "Topaz/Jewel (ACS)",
            ]
            return names[name] ?? "card name 0x" + Hex.encode([UInt8(name >> 8), UInt8(name & 0xFF)], uppercase: true)
        }

        /// Whether an ISO 14443-A part 3 card of this name is an NFC Forum Type 1 tag (Jewel,
        /// Topaz, or the ACR122U's name for both): NFCKit reaches it with Type 1 commands.
        public static func isType1(_ name: UInt16) -> Bool {
            name == jewel || name == topaz || name == acsTopazJewel
        }

        /// The SAK NFCKit gives an ISO 14443-A part 3 card of this name (the Type 2 path for
        /// `00`, every MIFARE Ultralight name included, the MIFARE Classic path for `08`, `18`, `09`: MIFARE Plus in security level 1
        /// is offered the Classic path), or nil for a card this path does not take: Type 1 tags
        /// (``isType1(_:)``) are reached with Type 1 commands instead; MIFARE Plus in security
        /// level 2 and names not listed here get no command.
        public static func sak(_ name: UInt16) -> UInt8? {
            switch name {
            case mifareClassic1K, mifarePlusSL1_2K: 0x08
            case mifareClassic4K, mifarePlusSL1_4K: 0x18
            case mifareMini: 0x09
            case none, mifareUltralight, mifareUltralightC, mifareUltralightEV1: 0x00
            default: nil
            }
        }
    }
}

/// The ATR a PC/SC Part 3 reader builds for a contactless card: `3B 8n 80 01`, n historical
/// bytes, TCK (the exclusive-or of every byte after `3B`). For a storage card the historical
/// bytes are `80 4F 0C`, the PC/SC RID, SS, NN NN and four zero bytes; for an ISO-DEP card they
/// are the ATS's historical bytes.
public enum PCSCContactlessATR: Sendable, Hashable {
    /// A storage card: standard byte SS and card name NN NN.
    case storageCard(standard: UInt8, cardName: UInt16)
    /// An ISO 14443-4 card: the historical bytes of its ATS.
    case isoDEP(historicalBytes: Bytes)

    /// Reads an ATR.
    /// - Throws: ``NFCTagError`` `tagResponse` with the offset of the first byte that does not
    ///   fit the contactless layout.
    public init(parsing atr: Bytes) throws(NFCTagError) {
        let a = atr.array
        guard a.count >= 5 else { throw NFCTagError(.tagResponse, at: a.count, "an ATR of \(a.count) bytes is too short for a contactless card's") }
        guard a[0] == 0x3B else { throw NFCTagError(.tagResponse, at: 0, "the ATR starts with \(Hex.encode([a[0]])), not 3B") }
        guard a[1] & 0xF0 == 0x80 else { throw NFCTagError(.tagResponse, at: 1, "T0 \(Hex.encode([a[1]])) does not announce TD1 alone") }
        guard a[2] == 0x80, a[3] == 0x01 else { throw NFCTagError(.tagResponse, at: 2, "TD1 TD2 are not 80 01") }
        let count = Int(a[1] & 0x0F)
        guard a.count == 4 + count + 1 else {
            throw NFCTagError(.tagResponse, at: min(a.count, 4 + count), "the ATR has \(a.count) bytes where T0 announces \(count) historical bytes and TCK")
        }
        let tck = a[1..<(4 + count)].reduce(UInt8(0), ^)
        guard tck == a[4 + count] else { throw NFCTagError(.tagResponse, at: 4 + count, "TCK is \(Hex.encode([a[4 + count]])), not \(Hex.encode([tck]))") }
        let historical = Array(a[4..<(4 + count)])
        if historical.count >= 11, historical[0] == 0x80, historical[1] == 0x4F, Array(historical[3..<8]) == PCSCPart3.rid {
            self = .storageCard(standard: historical[8], cardName: UInt16(historical[9]) << 8 | UInt16(historical[10]))
        } else {
            self = .isoDEP(historicalBytes: Bytes(historical))
        }
    }

    /// The ATR's bytes, TCK included.
    public var bytes: Bytes {
        let historical: [UInt8] =
            switch self {
            case .storageCard(let standard, let name):
                [0x80, 0x4F, 0x0C] + PCSCPart3.rid + [standard, UInt8(name >> 8), UInt8(name & 0xFF), 0x00, 0x00, 0x00, 0x00]
            case .isoDEP(let h): Array(h.array.prefix(15))
            }
        let body = [0x80 | UInt8(historical.count), 0x80, 0x01] + historical
        return Bytes([0x3B] + body + [body.reduce(UInt8(0), ^)])
    }
}

extension PCSCPart3 {
    /// The transparent session of PC/SC Part 3 (version 2.02 and later): `FF C2 00 P2 Lc
    /// data-objects`, answered by BER-TLV data objects and SW1 SW2. P2 is the function
    /// (``Function``); every answer carries a generic error status object (`C0 03 XX SW1 SW2`).
    /// Readers with it: ACS ACR1252U (ISO 14443), ACR1552U (ISO 14443 and ISO 15693), Identiv
    /// uTrust/CLOUD 3700 F. Not HID's OMNIKEY 5022/5427: nothing that could be consulted (HID's
    /// developer guides' contents and sample code) shows a transparent session there, so they
    /// keep the generic profile (docs/hardware.md, "HID OMNIKEY 5022 / 5427 CK").
    public enum TransparentSession {
        /// The instruction byte of every transparent-session APDU.
        public static let instruction: UInt8 = 0xC2

        /// P2: what the APDU does.
        public enum Function {
            /// Manage session: version, start/end session, RF off/on, timer, parameters.
            public static let manageSession: UInt8 = 0x00
            /// Transparent exchange: framing flags, transmit, receive, transceive.
            public static let transparentExchange: UInt8 = 0x01
            /// Switch protocol: which air interface and layer the session talks.
            public static let switchProtocol: UInt8 = 0x02
        }

        /// Data object tags, in commands and answers.
        public enum Tag {
            /// Version data object (manage session; the answer carries major, minor, build).
            public static let version: UInt16 = 0x80
            /// Start transparent session (length 0).
            public static let startSession: UInt16 = 0x81
            /// End transparent session (length 0).
            public static let endSession: UInt16 = 0x82
            /// Turn the RF field off (length 0).
            public static let rfOff: UInt16 = 0x83
            /// Turn the RF field on (length 0).
            public static let rfOn: UInt16 = 0x84
            /// Timer: 4 bytes, microseconds, least significant byte first; the longest wait for
            /// the card's answer to the next transceive.
            public static let timer: UInt16 = 0x5F46
            /// Switch protocol: 2 bytes, ``SwitchStandard`` and ``SwitchLayer``.
            public static let switchProtocol: UInt16 = 0x8F
            /// Transmission and reception flags: 2 bytes of bits (no CRC on transmit, keep the
            /// CRC on reception, no parity…, ``ExchangeFlag``).
            public static let exchangeFlags: UInt16 = 0x90
            /// Transmission bit framing: valid bits of the last byte sent (0: all).
            public static let transmitBitFraming: UInt16 = 0x91
            /// Reception bit framing: valid bits of the last byte received (0: all); in an
            /// answer, 4 for an ACK/NAK nibble.
            public static let receiveBitFraming: UInt16 = 0x92
            /// Transmit only: no answer expected.
            public static let transmit: UInt16 = 0x93
            /// Receive only.
            public static let receive: UInt16 = 0x94
            /// Transceive: the frame to send (without CRC unless the flags say so).
            public static let transceive: UInt16 = 0x95
            /// Response status (answer): 2 bytes, ``ResponseStatusBit`` in the first.
            public static let responseStatus: UInt16 = 0x96
            /// The card's answer (answer object).
            public static let cardResponse: UInt16 = 0x97
            /// Get parameter.
            public static let getParameter: UInt16 = 0xFF6D
            /// Set parameter.
            public static let setParameter: UInt16 = 0xFF6E
            /// Generic error status (answer): 3 bytes, the number of the data object at fault
            /// (0: the APDU as a whole, 1: the first…) and SW1 SW2 (``ErrorStatus``).
            public static let errorStatus: UInt16 = 0xC0
        }

        /// First byte of the switch protocol object: the air interface.
        public enum SwitchStandard {
            /// ISO/IEC 14443 type A.
            public static let iso14443A: UInt8 = 0x00
            /// ISO/IEC 14443 type B.
            public static let iso14443B: UInt8 = 0x01
            /// ISO/IEC 15693.
            public static let iso15693: UInt8 = 0x02
            /// FeliCa.
            public static let felica: UInt8 = 0x03
        }

        /// Second byte of the switch protocol object: the layer the session talks.
        public enum SwitchLayer {
            /// No layer separation given.
            public static let unspecified: UInt8 = 0x00
            /// Layer 2.
            public static let layer2: UInt8 = 0x02
            /// Layer 3: the card's own commands (Type 2 READ/WRITE/GET_VERSION, ISO 15693
            /// requests), the reader adding and checking the CRC.
            public static let layer3: UInt8 = 0x03
            /// Layer 4: ISO-DEP, the reader framing APDUs in blocks.
            public static let layer4: UInt8 = 0x04
        }

        /// Bits of the first byte of the response status object.
        public enum ResponseStatusBit {
            /// The answer's CRC was wrong.
            public static let crcError: UInt8 = 0x01
            /// A collision was detected.
            public static let collision: UInt8 = 0x02
            /// A parity error was detected.
            public static let parityError: UInt8 = 0x04
            /// A framing error was detected.
            public static let framingError: UInt8 = 0x08
        }

        /// SW1 SW2 values of the generic error status object.
        public enum ErrorStatus {
            /// No error.
            public static let success: UInt16 = 0x9000
            /// Warning: the information asked for is not available.
            public static let informationNotAvailable: UInt16 = 0x6282
            /// No information given.
            public static let noInformation: UInt16 = 0x6300
            /// Execution stopped because another data object failed.
            public static let stoppedByOtherObject: UInt16 = 0x6301
            /// No answer from the reader's front end (IFD).
            public static let noResponseFromReader: UInt16 = 0x6400
            /// No answer from the card (ICC): it did not answer within the timer.
            public static let noResponseFromCard: UInt16 = 0x6401
            /// The data object has an unexpected length.
            public static let unexpectedLength: UInt16 = 0x6700
            /// The data object has an unexpected value.
            public static let unexpectedValue: UInt16 = 0x6A80
            /// The data object is not supported.
            public static let notSupported: UInt16 = 0x6A81
            /// The data object failed, no precise diagnosis.
            public static let failed: UInt16 = 0x6F00
        }

        /// Bits of the transmission and reception flags object (first byte on the wire is the
        /// low byte).
        public enum ExchangeFlag {
            /// Do not append a CRC to the frame sent.
            public static let noTransmitCRC: UInt16 = 0x0001
            /// Do not check and remove the answer's CRC.
            public static let noReceiveCRC: UInt16 = 0x0002
        }
    }

    /// One BER-TLV data object of a transparent-session APDU or answer.
    public struct DataObject: Sendable, Hashable {
        /// The tag: one byte (`81`) or two (`5F46`, `FF6D`), as a number.
        public var tag: UInt16
        /// The value.
        public var value: [UInt8]

        /// A data object.
        public init(_ tag: UInt16, _ value: [UInt8] = []) {
            self.tag = tag
            self.value = value
        }

        /// The object's bytes: tag, length (one byte up to 127, `81 nn` up to 255), value.
        public var bytes: [UInt8] {
            let tagBytes: [UInt8] = tag > 0xFF ? [UInt8(tag >> 8), UInt8(tag & 0xFF)] : [UInt8(tag)]
            let length: [UInt8] = value.count < 0x80 ? [UInt8(value.count)] : [0x81, UInt8(truncatingIfNeeded: value.count)]
            return tagBytes + length + value
        }

        /// The objects of `bytes`, in order.
        /// - Throws: ``NFCTagError`` `tagResponse` with the offset of a tag or length that runs
        ///   past the end, or a length form other than one byte or `81 nn`.
        public static func parse(_ bytes: [UInt8]) throws(NFCTagError) -> [DataObject] {
            var objects: [DataObject] = []
            var i = 0
            while i < bytes.count {
                let start = i
                var tag = UInt16(bytes[i])
                // Two-byte tags: the low five bits of the first byte all set (5F 46, FF 6D).
                if bytes[i] & 0x1F == 0x1F {
                    guard i + 1 < bytes.count else { throw NFCTagError(.tagResponse, at: i, "a two-byte tag cut at the end") }
                    tag = tag << 8 | UInt16(bytes[i + 1])
                    i += 1
                }
                i += 1
                guard i < bytes.count else { throw NFCTagError(.tagResponse, at: start, "the data object \(Hex.number(tag, uppercase: false)) has no length") }
                var length = Int(bytes[i])
                if length == 0x81 {
                    guard i + 1 < bytes.count else { throw NFCTagError(.tagResponse, at: i, "a length 81 without its byte") }
                    length = Int(bytes[i + 1])
                    i += 1
                } else if length > 0x80 {
                    throw NFCTagError(.tagResponse, at: i, "a length form \(Hex.number(length, uppercase: false)) other than one byte or 81 nn")
                }
                i += 1
                guard i + length <= bytes.count else {
                    throw NFCTagError(.tagResponse, at: i, "the data object \(Hex.number(tag, uppercase: false)) announces \(length) bytes, \(bytes.count - i) follow")
                }
                objects.append(DataObject(tag, Array(bytes[i..<(i + length)])))
                i += length
            }
            return objects
        }
    }

    /// The ACS ACR122U's way to its PN532: the pseudo-APDU `FF 00 00 00 Lc` carries a PN532
    /// command (`D4 …`), the answer is the PN532's (`D5 …`) and `90 00` (ACR122U API, direct
    /// transmit). NFCKit sends InCommunicateThru, whose answer starts with a status byte.
    public enum ACR122U {
        /// The header of a direct transmit: class `FF`, INS P1 P2 `00 00 00`.
        public static let directTransmit: [UInt8] = [0xFF, 0x00, 0x00, 0x00]
        /// The PN532's frame identifier host → PN532.
        public static let hostToPN532: UInt8 = 0xD4
        /// The PN532's frame identifier PN532 → host.
        public static let pn532ToHost: UInt8 = 0xD5
        /// InDataExchange (PN532 user manual §7.3.8): `D4 40 Tg frame`, answered `D5 41 status
        /// data`. NFCKit sends it Type 1 frames (Tg 1): the PN532's firmware frames the Type 1
        /// commands it knows itself (ACS's ACR122 manuals, "Basic program flow for NFC Forum Type
        /// 1 tag applications"; nfcpy's `clf/pn532.py`: RID, RALL, READ, WRITE-E, WRITE-NE).
        public static let inDataExchange: UInt8 = 0x40
        /// The target number InDataExchange addresses: the one card the ACR122U selected.
        public static let firstTarget: UInt8 = 0x01
        /// InCommunicateThru (PN532 user manual §7.3.9): a raw frame to the target, framed as the
        /// CIU registers say (CRC added and checked by the chip while TxMode/RxMode have
        /// ``PN532Register/crcEnable``).
        public static let inCommunicateThru: UInt8 = 0x42
        /// ReadRegister (PN532 user manual §7.2.4): `D4 06 (addrHi addrLo)…` answered
        /// `D5 07 value…`.
        public static let readRegister: UInt8 = 0x06
        /// WriteRegister (PN532 user manual §7.2.5): `D4 08 (addrHi addrLo value)…` answered
        /// `D5 09`.
        public static let writeRegister: UInt8 = 0x08
        /// The PN532's status byte: success.
        public static let statusSuccess: UInt8 = 0x00
        /// The PN532's status byte: the target did not answer.
        public static let statusTimeout: UInt8 = 0x01
        /// The PN532's status byte: the command is not acceptable in this context (PN532 user
        /// manual's error table, 27h).
        public static let statusCommandNotAcceptable: UInt8 = 0x27
        /// The PN532's status byte: CRC error (also what a 4-bit ACK/NAK gives with the CRC
        /// check on: the CIU finds no CRC in 4 bits).
        public static let statusCRCError: UInt8 = 0x02
        /// The header of Bi-color LED and Buzzer Control (ACR122U API; the "ACR122U Compatible
        /// Commands" of the ACR1252U's reference manual): class `FF`, INS `00`, P1 `40`; P2 is
        /// the LED state control, Lc `04`, then T1, T2, repetitions and the buzzer link
        /// (``ACR122ULEDBuzzerControl``).
        public static let ledBuzzerControl: [UInt8] = [0xFF, 0x00, 0x40]
        /// Its Lc: four bytes of blinking duration control.
        public static let ledBuzzerDataLength: UInt8 = 0x04
        /// SW1 of its success answer `90 xx`, where xx is the LED state after it (bit 0 red,
        /// bit 1 green); a failure is `63 00` (``StatusWord/noInformation``).
        public static let ledBuzzerSuccess: UInt8 = 0x90
    }
}
