public import NFCCore

/// A Wi-Fi network credential as carried in a Wi-Fi Simple Configuration (WSC) record, MIME
/// type `application/vnd.wfa.wsc` (Wi-Fi Simple Configuration Technical Specification v2,
/// section 12: attributes are 2-byte type, 2-byte length, value, big-endian).
public struct WiFiCredential: Sendable, Hashable {
    /// WSC Authentication Type (attribute 0x1003).
    public struct Authentication: WSCNamedValue {
        /// The 16-bit value.
        public var rawValue: UInt16
        /// Creates a value.
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        /// 0x0001: open network.
        public static let open = Self(rawValue: 0x0001)
        /// 0x0002: WPA-Personal (PSK).
        public static let wpaPersonal = Self(rawValue: 0x0002)
        /// 0x0004: shared key (deprecated).
        public static let shared = Self(rawValue: 0x0004)
        /// 0x0008: WPA-Enterprise.
        public static let wpaEnterprise = Self(rawValue: 0x0008)
        /// 0x0010: WPA2-Enterprise.
        public static let wpa2Enterprise = Self(rawValue: 0x0010)
        /// 0x0020: WPA2-Personal (PSK).
        public static let wpa2Personal = Self(rawValue: 0x0020)
        /// 0x0022: WPA/WPA2-Personal mixed mode.
        public static let wpaWpa2Personal = Self(rawValue: 0x0022)

        /// The pre-shared-key (Personal) types, whose key is an 8–63 character passphrase or
        /// 64 hex digits (IEEE 802.11i).
        public static let personal: Set<Authentication> = [.wpaPersonal, .wpa2Personal, .wpaWpa2Personal]

        /// Names used on the command line and in JSON.
        public static let names: [(String, Authentication)] = [
            ("open", .open), ("wpa-personal", .wpaPersonal), ("shared", .shared),
            ("wpa-enterprise", .wpaEnterprise), ("wpa2-enterprise", .wpa2Enterprise),
            ("wpa2-personal", .wpa2Personal), ("wpa-wpa2-personal", .wpaWpa2Personal),
        ]
    }

    /// WSC Encryption Type (attribute 0x100F).
    public struct Encryption: WSCNamedValue {
        /// The 16-bit value.
        public var rawValue: UInt16
        /// Creates a value.
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        /// 0x0001: no encryption.
        public static let none = Self(rawValue: 0x0001)
        /// 0x0002: WEP (deprecated).
        public static let wep = Self(rawValue: 0x0002)
        /// 0x0004: TKIP.
        public static let tkip = Self(rawValue: 0x0004)
        /// 0x0008: AES (CCMP).
        public static let aes = Self(rawValue: 0x0008)
        /// 0x000C: AES and TKIP mixed.
        public static let aesTkip = Self(rawValue: 0x000C)

        /// Names used on the command line and in JSON.
        public static let names: [(String, Encryption)] = [
            ("none", .none), ("wep", .wep), ("tkip", .tkip), ("aes", .aes), ("aes-tkip", .aesTkip),
        ]
    }

    /// The network name (SSID), 1 to 32 bytes; usually UTF-8 text.
    public var ssid: Bytes
    /// How the network authenticates.
    public var authentication: Authentication
    /// How the network encrypts.
    public var encryption: Encryption
    /// The passphrase or key; empty for an open network.
    public var networkKey: Bytes
    /// The access point's MAC address, or `FF:FF:FF:FF:FF:FF` for any.
    public var macAddress: [UInt8]
    /// The network index (deprecated by WSC 2.0, always 1 in practice).
    public var networkIndex: UInt8

    /// Creates a credential.
    public init(ssid: Bytes, authentication: Authentication, encryption: Encryption,
                networkKey: Bytes = Bytes(), macAddress: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
                networkIndex: UInt8 = 1) {
        self.ssid = ssid
        self.authentication = authentication
        self.encryption = encryption
        self.networkKey = networkKey
        self.macAddress = macAddress
        self.networkIndex = networkIndex
    }

    /// The SSID as text, when it is UTF-8.
    public var ssidString: String? {
        if case .success(let s) = UnicodeValidation.decodeUTF8(ssid) { return s }
        return nil
    }
}

/// A 16-bit WSC value with names for the command line and JSON (authentication and encryption
/// types): the names are looked up case-insensitively, and a value without a name reads and
/// prints as `0x…`.
public protocol WSCNamedValue: RawRepresentable, Sendable, Hashable where RawValue == UInt16 {
    /// The named values, in the order help lists them.
    static var names: [(String, Self)] { get }
    /// Creates a value.
    init(rawValue: UInt16)
}

extension WSCNamedValue {
    /// The name, or `0x…` for a value without one.
    public var name: String {
        Self.names.first { $0.1 == self }?.0 ?? "0x" + Hex.encode([UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)])
    }

    /// Looks up a name (or a `0x…` value).
    public init?(name: String) {
        if let match = Self.names.first(where: { $0.0 == name.lowercased() }) {
            self = match.1
        } else if let v = parseHex16(name) {
            self.init(rawValue: v)
        } else {
            return nil
        }
    }
}

/// WSC attribute types used here (WSC 2.0 table 28).
enum WSCAttribute {
    static let authenticationType: UInt16 = 0x1003
    static let credential: UInt16 = 0x100E
    static let encryptionType: UInt16 = 0x100F
    static let macAddress: UInt16 = 0x1020
    static let networkIndex: UInt16 = 0x1026
    static let networkKey: UInt16 = 0x1027
    static let ssid: UInt16 = 0x1045
    static let vendorExtension: UInt16 = 0x1049
    static let version: UInt16 = 0x104A
}

/// The MIME type of a Wi-Fi Simple Configuration record.
let wifiSimpleConfigMIMEType = "application/vnd.wfa.wsc"

extension WiFiCredential {
    /// Why a network could not be joined with this credential, or `nil`: an open network with
    /// an encryption type, or a Personal (PSK) key that is not an 8–63 character printable
    /// ASCII passphrase or 64 hex digits (IEEE 802.11i). Checked where a credential is made
    /// from the user's words (``NDEFRecordSpecification``), not when a record's bytes or JSON
    /// are carried as they are.
    public var joinProblem: (field: JoinProblemField, reason: String)? {
        if authentication == .open && encryption != .none {
            return (.encryption, "an open network has no encryption: give encryption none (or leave it out), or a WPA2 authentication, not \(encryption.name)")
        }
        if Authentication.personal.contains(authentication) {
            let passphrase = (8...63).contains(networkKey.count) && networkKey.allSatisfy { (0x20...0x7E).contains($0) }
            let hexKey = networkKey.count == 64 && networkKey.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
            }
            if !passphrase && !hexKey {
                return (.networkKey, "a \(authentication.name) key is a passphrase of 8 to 63 printable ASCII characters, or 64 hex digits; this one is \(networkKey.count) bytes")
            }
        }
        return nil
    }

    /// The part of a credential that ``joinProblem`` is about.
    public enum JoinProblemField: Sendable, Hashable {
        /// The encryption type.
        case encryption
        /// The network key.
        case networkKey
    }
}

extension NDEFPayload {
    /// A Wi-Fi Simple Configuration record (`application/vnd.wfa.wsc`) with one credential, in
    /// the layout Android and iOS read: Version 1.0, Credential { Network Index, SSID,
    /// Authentication Type, Encryption Type, Network Key, MAC Address }, then the WFA vendor
    /// extension declaring Version2 2.0.
    /// - Throws: ``NDEFError`` `invalidValue` for an SSID not 1–32 bytes, a key over 64 bytes,
    ///   a MAC address not 6 bytes, or a key given for an open network.
    public static func wifiCredentialPayload(_ credential: WiFiCredential) throws(NDEFError) -> NDEFPayload {
        guard (1...32).contains(credential.ssid.count) else {
            throw NDEFError(.invalidValue, "Wi-Fi SSID must be 1 to 32 bytes, not \(credential.ssid.count)")
        }
        guard credential.networkKey.count <= 64 else {
            throw NDEFError(.invalidValue, "Wi-Fi network key must be at most 64 bytes, not \(credential.networkKey.count)")
        }
        guard credential.macAddress.count == 6 else {
            throw NDEFError(.invalidValue, "a MAC address is 6 bytes, not \(credential.macAddress.count)")
        }
        if credential.authentication == .open && credential.encryption == .none && !credential.networkKey.isEmpty {
            throw NDEFError(.invalidValue, "an open network with no encryption takes no network key")
        }
        var inner = [UInt8]()
        func attribute(_ type: UInt16, _ value: some Collection<UInt8>, into out: inout [UInt8]) {
            out.appendUInt16BE(type)
            out.appendUInt16BE(UInt16(value.count))
            out.append(contentsOf: value)
        }
        attribute(WSCAttribute.networkIndex, [credential.networkIndex], into: &inner)
        attribute(WSCAttribute.ssid, credential.ssid, into: &inner)
        attribute(WSCAttribute.authenticationType,
                  [UInt8(credential.authentication.rawValue >> 8), UInt8(credential.authentication.rawValue & 0xFF)],
                  into: &inner)
        attribute(WSCAttribute.encryptionType,
                  [UInt8(credential.encryption.rawValue >> 8), UInt8(credential.encryption.rawValue & 0xFF)],
                  into: &inner)
        attribute(WSCAttribute.networkKey, credential.networkKey, into: &inner)
        attribute(WSCAttribute.macAddress, credential.macAddress, into: &inner)
        var out = [UInt8]()
        attribute(WSCAttribute.version, [0x10], into: &out)
        attribute(WSCAttribute.credential, inner, into: &out)
        // Vendor extension: WFA vendor ID 00 37 2A, subelement Version2 (0x00) = 0x20.
        attribute(WSCAttribute.vendorExtension, [0x00, 0x37, 0x2A, 0x00, 0x01, 0x20], into: &out)
        return NDEFPayload(format: .media, type: wifiSimpleConfigMIMEType, payload: Bytes(out))
    }

    /// Decodes this record's payload as a WSC credential (the first Credential attribute).
    func decodeWiFiPayload() throws(NDEFError) -> WiFiCredential {
        let top = try wscAttributes(payload, base: 0)
        guard let credential = top.first(where: { $0.type == WSCAttribute.credential }) else {
            throw NDEFError(.invalidPayload, "Wi-Fi record without a Credential attribute (0x100E)")
        }
        let fields = try wscAttributes(credential.value, base: credential.offset)
        func field(_ type: UInt16, _ name: String) throws(NDEFError) -> Bytes {
            guard let f = fields.first(where: { $0.type == type }) else {
                throw NDEFError(.invalidPayload, at: credential.offset,
                                "Wi-Fi credential lacks its \(name) attribute (0x\(Hex.encode([UInt8(type >> 8), UInt8(type & 0xFF)])))")
            }
            return f.value
        }
        func uint16(_ type: UInt16, _ name: String) throws(NDEFError) -> UInt16 {
            let v = try field(type, name)
            guard v.count == 2 else {
                throw NDEFError(.invalidPayload, at: credential.offset, "Wi-Fi \(name) must be 2 bytes, not \(v.count)")
            }
            return UInt16(v[0]) << 8 | UInt16(v[1])
        }
        let ssid = try field(WSCAttribute.ssid, "SSID")
        let auth = try uint16(WSCAttribute.authenticationType, "authentication type")
        let enc = try uint16(WSCAttribute.encryptionType, "encryption type")
        let key = fields.first { $0.type == WSCAttribute.networkKey }?.value ?? Bytes()
        var mac: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        if let m = fields.first(where: { $0.type == WSCAttribute.macAddress }) {
            guard m.value.count == 6 else {
                throw NDEFError(.invalidPayload, at: m.offset, "Wi-Fi MAC address must be 6 bytes, not \(m.value.count)")
            }
            mac = Array(m.value)
        }
        let index = fields.first { $0.type == WSCAttribute.networkIndex }?.value.first ?? 1
        return WiFiCredential(ssid: ssid, authentication: .init(rawValue: auth),
                              encryption: .init(rawValue: enc), networkKey: key, macAddress: mac,
                              networkIndex: index)
    }
}

/// Splits WSC attributes (type, length, value); `offset` is where each value starts.
private func wscAttributes(_ bytes: Bytes, base: Int) throws(NDEFError)
    -> [(type: UInt16, value: Bytes, offset: Int)]
{
    var cursor = ByteCursor(bytes)
    var out: [(type: UInt16, value: Bytes, offset: Int)] = []
    while !cursor.isAtEnd {
        let at = base + cursor.offset
        guard let type = cursor.readUInt16BE(), let length = cursor.readUInt16BE() else {
            throw NDEFError(.truncatedHeader, at: at, "Wi-Fi attribute header cut short")
        }
        let valueOffset = base + cursor.offset
        guard let value = cursor.readBytes(Int(length)) else {
            throw NDEFError(.lengthPastEnd, at: at + 2,
                            "Wi-Fi attribute length \(length) runs past the end (\(cursor.remaining) byte(s) left)")
        }
        out.append((type, value, valueOffset))
    }
    return out
}

/// `0x0020` or `0020` → 0x0020.
func parseHex16(_ text: String) -> UInt16? {
    var t = Substring(text)
    if t.hasPrefix("0x") || t.hasPrefix("0X") { t = t.dropFirst(2) } else { return nil }
    return UInt16(t, radix: 16)
}
