public import NFCCore
import NFCCrypto

// Checking a tap on the server side: the parameters of the URL, and the verification.

/// The query parameters a SUN URL carries, by name.
public struct SUNParameterNames: Sendable, Hashable {
    /// The encrypted PICC data (`e`, as in AN12196's example and `ntag424 setup`'s default).
    public var picc: String
    /// The SDMMAC (`c`).
    public var mac: String
    /// The plain UID (`uid`).
    public var uid: String
    /// The plain counter (`ctr`).
    public var counter: String
    /// SDMENCFileData (`enc`).
    public var encryptedFileData: String

    /// Names; the defaults are those of AN12196's example URL (`e`, `c`) and the usual plain
    /// ones (`uid`, `ctr`, `enc`).
    public init(picc: String = "e", mac: String = "c", uid: String = "uid", counter: String = "ctr", encryptedFileData: String = "enc") {
        self.picc = picc
        self.mac = mac
        self.uid = uid
        self.counter = counter
        self.encryptedFileData = encryptedFileData
    }
}

/// A tap whose SDMMAC checked out.
public struct SUNTap: Sendable, Hashable {
    /// The chip's UID, when mirrored.
    public let uid: Bytes?
    /// SDMReadCtr, when mirrored.
    public let readCounter: UInt32?
    /// Whether the PICC data came encrypted.
    public let encryptedPICCData: Bool
    /// The decrypted SDMENCFileData, when present.
    public let fileData: Bytes?
}

/// Checking a tapped URL on a server: find the parameters, decrypt the PICC data, recompute
/// the SDMMAC (over the URL's characters from the SDMENCFileData value up to the MAC value
/// when there is one, over nothing otherwise: what `SDMURLTemplate` lays out).
public enum SUNVerifier {
    /// The tap the URL proves.
    /// - Throws: ``NTAG424Error``: `missingParameter`/`duplicateParameter` (offset: in the URL),
    ///   `invalidHex`/`invalidLength` (offset: the bad character in the URL),
    ///   `unsupportedPICCData`, `macMismatch`, `invalidKey`, `crypto`.
    public static func verify(url: String, names: SUNParameterNames = SUNParameterNames(), keys: SDMKeys) throws(NTAG424Error) -> SUNTap {
        try verify(url: url, names: names, metaReadKey: keys.metaRead) { _ throws(NTAG424Error) in try keys.requireFileRead() }
    }

    /// As ``verify(url:names:keys:)``, the SDMFileRead key chosen by `fileReadKey` from the PICC
    /// data (per-tag keys: ``NTAG424DiversifiedKeys``).
    static func verify(
        url: String, names: SUNParameterNames, metaReadKey: Bytes?, fileReadKey: (SDMPICCData) throws(NTAG424Error) -> Bytes
    ) throws(NTAG424Error) -> SUNTap {
        let keys = try SDMKeys(metaRead: metaReadKey, fileRead: nil)
        let bytes = Array(url.utf8)
        let parameters = try queryParameters(bytes)
        func find(_ name: String) throws(NTAG424Error) -> Parameter? {
            let matching = parameters.filter { $0.name == name }
            if matching.count > 1 { throw NTAG424Error(.duplicateParameter, at: matching[1].nameOffset, "parameter '\(name)' occurs more than once") }
            return matching.first
        }
        func decode(_ parameter: Parameter, bytes count: Int, what: String) throws(NTAG424Error) -> Bytes {
            guard parameter.value.count == 2 * count else {
                throw NTAG424Error(.invalidLength, at: parameter.value.lowerBound, "\(what) '\(parameter.name)' has \(2 * count) hex digits, got \(parameter.value.count)")
            }
            let decoded = try strictHex(bytes[parameter.value], what: "\(what) '\(parameter.name)'")
            guard decoded.count == count else {
                throw NTAG424Error(.invalidLength, at: parameter.value.lowerBound, "\(what) '\(parameter.name)' has \(2 * count) hex digits, got \(parameter.value.count)")
            }
            return Bytes(decoded)
        }
        guard let macParameter = try find(names.mac) else {
            throw NTAG424Error(.missingParameter, "no '\(names.mac)' parameter (the SDMMAC) in the URL")
        }
        let mac = try decode(macParameter, bytes: NTAG424SDM.macLength, what: "the SDMMAC")
        let picc: SDMPICCData
        let encrypted: Bool
        if let piccParameter = try find(names.picc) {
            let data = try decode(piccParameter, bytes: NTAG424SDM.encryptedPICCDataLength, what: "the PICC data")
            do { picc = try SDMPICCData.decrypt(data, metaReadKey: try keys.requireMetaRead()) } catch {
                var placed = error
                if error.code == .unsupportedPICCData { placed.offset = piccParameter.value.lowerBound }
                throw placed
            }
            encrypted = true
        } else if let uidParameter = try find(names.uid) {
            let uid = try decode(uidParameter, bytes: NTAG424SDM.uidLength, what: "the UID")
            var counter: UInt32?
            if let counterParameter = try find(names.counter) {
                let value = try decode(counterParameter, bytes: NTAG424SDM.counterLength, what: "the counter")
                counter = UInt32(value[0]) << 16 | UInt32(value[1]) << 8 | UInt32(value[2])
            }
            picc = try SDMPICCData(uid: uid, readCounter: counter)
            encrypted = false
        } else {
            throw NTAG424Error(.missingParameter, "neither '\(names.picc)' (encrypted PICC data) nor '\(names.uid)' (plain UID) is in the URL")
        }
        let encParameter = try find(names.encryptedFileData)
        var input = Bytes()
        var encryptedData: Bytes?
        if let encParameter {
            guard encParameter.value.lowerBound <= macParameter.value.lowerBound else {
                throw NTAG424Error(.illegalLayout, at: encParameter.nameOffset, "SDMENCFileData must come before the SDMMAC")
            }
            let length = encParameter.value.count / 2
            guard length > 0, length % AES128.blockSize == 0 else {
                throw NTAG424Error(.invalidLength, at: encParameter.value.lowerBound, "SDMENCFileData is 32·n hex digits, got \(encParameter.value.count)")
            }
            encryptedData = try decode(encParameter, bytes: length, what: "SDMENCFileData")
            input = Bytes(bytes[encParameter.value.lowerBound..<macParameter.value.lowerBound])
        }
        let fileRead = try fileReadKey(picc)
        guard try SDMMAC.verify(mac, fileReadKey: fileRead, picc: picc, input: input) else {
            throw NTAG424Error(.macMismatch, at: macParameter.value.lowerBound, "the SDMMAC does not match: the URL was altered, or the keys are not this tag's")
        }
        var fileData: Bytes?
        if let encryptedData { fileData = try SDMFileDataCipher.decrypt(encryptedData, fileReadKey: fileRead, picc: picc) }
        return SUNTap(uid: picc.uid, readCounter: picc.readCounter, encryptedPICCData: encrypted, fileData: fileData)
    }

    /// Hex digits, two per byte, nothing else (no separators: a URL parameter is exact).
    static func strictHex(_ text: ArraySlice<UInt8>, what: String) throws(NTAG424Error) -> [UInt8] {
        func digit(_ character: UInt8) -> UInt8? {
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        guard text.count % 2 == 0 else { throw NTAG424Error(.invalidHex, at: text.endIndex, "\(what): an odd number of hex digits") }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 2)
        var index = text.startIndex
        while index < text.endIndex {
            guard let high = digit(text[index]) else { throw NTAG424Error(.invalidHex, at: index, "\(what): '\(Character(Unicode.Scalar(text[index])))' is not a hex digit") }
            guard let low = digit(text[index + 1]) else {
                throw NTAG424Error(.invalidHex, at: index + 1, "\(what): '\(Character(Unicode.Scalar(text[index + 1])))' is not a hex digit")
            }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    struct Parameter {
        var name: String
        var nameOffset: Int
        var value: Range<Int>
    }

    /// The `name=value` pairs after the URL's `?` (up to a `#`), with where each value is.
    static func queryParameters(_ bytes: [UInt8]) throws(NTAG424Error) -> [Parameter] {
        guard let question = bytes.firstIndex(of: UInt8(ascii: "?")) else {
            throw NTAG424Error(.missingParameter, "the URL has no query ('?')")
        }
        let end = bytes[question...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
        var parameters: [Parameter] = []
        var start = question + 1
        while start <= end {
            let stop = bytes[start..<end].firstIndex(of: UInt8(ascii: "&")) ?? end
            if stop > start {
                let pair = bytes[start..<stop]
                if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                    parameters.append(Parameter(name: String(decoding: bytes[start..<equals], as: UTF8.self), nameOffset: start, value: (equals + 1)..<stop))
                } else {
                    parameters.append(Parameter(name: String(decoding: pair, as: UTF8.self), nameOffset: start, value: stop..<stop))
                }
            }
            start = stop + 1
        }
        return parameters
    }
}
