public import NFCCore

/// Bluetooth BR/EDR out-of-band pairing data, MIME type `application/vnd.bluetooth.ep.oob`
/// (NFC Forum "Bluetooth Secure Simple Pairing Using NFC" 1.0, section 3.1): a 2-byte
/// little-endian total length, the device address (6 bytes, little-endian), then Extended
/// Inquiry Response (EIR) structures.
public struct BluetoothOOB: Sendable, Hashable {
    /// One EIR structure this type does not model, kept as found.
    public struct EIRItem: Sendable, Hashable {
        /// The EIR data type (Bluetooth Assigned Numbers), e.g. 0x03 for 16-bit UUIDs.
        public var type: UInt8
        /// The data.
        public var data: Bytes
        /// Creates an item.
        public init(type: UInt8, data: Bytes) {
            self.type = type
            self.data = data
        }
    }

    /// The device address, most significant byte first as people write it (`00:1A:7D:DA:71:13`).
    public var address: [UInt8]
    /// The complete local name (EIR 0x09), or the shortened one (0x08) when only that is present.
    public var localName: String?
    /// The 24-bit Class of Device (EIR 0x0D).
    public var deviceClass: UInt32?
    /// Other EIR structures, in order.
    public var otherItems: [EIRItem]

    /// Creates pairing data.
    public init(address: [UInt8], localName: String? = nil, deviceClass: UInt32? = nil, otherItems: [EIRItem] = []) {
        self.address = address
        self.localName = localName
        self.deviceClass = deviceClass
        self.otherItems = otherItems
    }

    /// The address as `AA:BB:CC:DD:EE:FF`.
    public var addressString: String { Hex.encode(address, uppercase: true, separator: ":") }

    /// Parses `AA:BB:CC:DD:EE:FF` (or with `-`, or none) into 6 bytes, most significant first.
    public static func parseAddress(_ text: String) -> [UInt8]? {
        guard let bytes = try? Hex.decode(text), bytes.count == 6 else { return nil }
        return bytes
    }
}

/// EIR data types used here (Bluetooth Assigned Numbers, "Common Data Types").
enum EIRType {
    static let shortenedLocalName: UInt8 = 0x08
    static let completeLocalName: UInt8 = 0x09
    static let classOfDevice: UInt8 = 0x0D
}

/// The MIME type of a Bluetooth BR/EDR OOB record.
let bluetoothOOBMIMEType = "application/vnd.bluetooth.ep.oob"

extension NDEFPayload {
    /// A Bluetooth BR/EDR out-of-band pairing record (`application/vnd.bluetooth.ep.oob`).
    /// - Throws: ``NDEFError`` `invalidValue` for an address not 6 bytes, a class over 24 bits,
    ///   or a name or item too long for one EIR structure (254 bytes).
    public static func bluetoothOOBPayload(_ oob: BluetoothOOB) throws(NDEFError) -> NDEFPayload {
        guard oob.address.count == 6 else {
            throw NDEFError(.invalidValue, "a Bluetooth address is 6 bytes, not \(oob.address.count)")
        }
        var out: [UInt8] = [0, 0]
        out.append(contentsOf: oob.address.reversed())
        func item(_ type: UInt8, _ data: some Collection<UInt8>) throws(NDEFError) {
            guard data.count <= 254 else {
                throw NDEFError(.invalidValue, "Bluetooth EIR item 0x\(Hex.encode([type])) of \(data.count) bytes; at most 254")
            }
            out.append(UInt8(data.count + 1))
            out.append(type)
            out.append(contentsOf: data)
        }
        if let deviceClass = oob.deviceClass {
            guard deviceClass <= 0xFF_FFFF else {
                throw NDEFError(.invalidValue, "Bluetooth class of device is 24 bits; 0x\(String(deviceClass, radix: 16)) is larger")
            }
            try item(EIRType.classOfDevice, [UInt8(deviceClass & 0xFF), UInt8(deviceClass >> 8 & 0xFF), UInt8(deviceClass >> 16)])
        }
        if let name = oob.localName { try item(EIRType.completeLocalName, Array(name.utf8)) }
        for other in oob.otherItems { try item(other.type, other.data) }
        guard out.count <= 0xFFFF else { throw NDEFError(.fieldTooLong, "Bluetooth OOB data over 65535 bytes") }
        out[0] = UInt8(out.count & 0xFF)
        out[1] = UInt8(out.count >> 8)
        return NDEFPayload(format: .media, type: bluetoothOOBMIMEType, payload: Bytes(out))
    }

    /// Decodes this record's payload as Bluetooth BR/EDR OOB data.
    func decodeBluetoothPayload() throws(NDEFError) -> BluetoothOOB {
        var cursor = ByteCursor(payload)
        guard let length = cursor.readUInt16LE() else {
            throw NDEFError(.truncatedHeader, at: 0, "Bluetooth OOB data shorter than its 2-byte length")
        }
        guard Int(length) >= 8, Int(length) <= payload.count else {
            throw NDEFError(.lengthPastEnd, at: 0,
                            "Bluetooth OOB length \(length) is not between 8 and the payload's \(payload.count) bytes")
        }
        guard let addressLE = cursor.readBytes(6) else {
            throw NDEFError(.truncatedHeader, at: 2, "Bluetooth address cut short")
        }
        var oob = BluetoothOOB(address: addressLE.reversed())
        var eir = ByteCursor(payload[8..<Int(length)])
        var shortName: String? = nil
        while let itemLength = eir.readUInt8() {
            let at = 8 + eir.offset - 1
            if itemLength == 0 { break }  // padding: the rest is unused
            guard let type = eir.readUInt8(), let data = eir.readBytes(Int(itemLength) - 1) else {
                throw NDEFError(.lengthPastEnd, at: at, "Bluetooth EIR item of \(itemLength) bytes runs past the OOB data")
            }
            switch type {
            case EIRType.completeLocalName, EIRType.shortenedLocalName:
                guard case .success(let name) = UnicodeValidation.decodeUTF8(data) else {
                    throw NDEFError(.invalidUTF8, at: at + 2, "Bluetooth local name is not UTF-8")
                }
                if type == EIRType.completeLocalName { oob.localName = name } else { shortName = name }
            case EIRType.classOfDevice where data.count == 3:
                let b = Array(data)
                oob.deviceClass = UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16
            default:
                oob.otherItems.append(.init(type: type, data: data))
            }
        }
        if oob.localName == nil { oob.localName = shortName }
        return oob
    }
}
