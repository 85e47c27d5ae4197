public import NFCCore
public import NFCTags
import NFCCrypto

/// What an originality check concluded.
public enum OriginalityVerdict: Sendable, Hashable {
    /// The signature is valid for the chip's UID under this key.
    case genuine(OriginalityKey)
    /// The chip answered a signature that no known key accepts: a counterfeit, or a chip whose
    /// signature was never programmed (all zeros) or was rewritten.
    case notGenuine
    /// The chip has no signature this tool can read (an older chip, a platform without one),
    /// or refused to give it; the reason says which.
    case noSignature(String)
    /// The chip answered a signature that no key accepts, but no key of the table is its
    /// maker's key for its model (``OriginalityKey/covers(model:)``): nothing can be said, and
    /// it is never called counterfeit. The reason names the model.
    case unverified(String)

    /// `true`, `false`, or nil when there was no signature: the JSON form.
    public var isGenuine: Bool? {
        switch self {
        case .genuine: true
        case .notGenuine: false
        case .noSignature, .unverified: nil
        }
    }

    /// The key that accepted the signature.
    public var key: OriginalityKey? {
        if case .genuine(let key) = self { return key }
        return nil
    }

    /// `yes (NXP NTAG21x key)`, `no`, `no signature on this chip`: the line `info` shows.
    public var summary: String {
        switch self {
        case .genuine(let key): "yes (\(key.name) key)"
        case .notGenuine: "no"
        case .noSignature: "no signature on this chip"
        case .unverified(let reason): "unverified (\(reason))"
        }
    }
}

/// A chip's originality signature and the verdict on it.
public struct OriginalityReport: Sendable, Hashable {
    /// The UID checked, as the reader reports it.
    public let uid: Bytes
    /// The signature read, when the chip gave one.
    public let signature: Bytes?
    /// The verdict.
    public let verdict: OriginalityVerdict

    /// Creates a report.
    public init(uid: Bytes, signature: Bytes?, verdict: OriginalityVerdict) {
        self.uid = uid
        self.signature = signature
        self.verdict = verdict
    }
}

/// Checks originality signatures: ECDSA over the UID without hashing, against a table of
/// public keys (by default NXP's, ``OriginalityKey/nxp``). Tests pass their own keys.
public struct OriginalityVerifier: Sendable {
    /// The keys tried, in order.
    public let keys: [OriginalityKey]

    /// A verifier trying `keys`.
    public init(keys: [OriginalityKey] = OriginalityKey.nxp) {
        self.keys = keys
    }

    /// The verdict on `signature` for a chip with `uid`: ``OriginalityVerdict/genuine(_:)``
    /// with the first key of the signature's curve that accepts it, else
    /// ``OriginalityVerdict/notGenuine``. An empty signature is ``OriginalityVerdict/noSignature(_:)``.
    public func verify(uid: Bytes, signature: Bytes) -> OriginalityVerdict {
        guard !signature.isEmpty else { return .noSignature("the chip answered an empty signature") }
        for entry in keys where entry.curve.signatureLength == signature.count {
            guard let key = try? ECPublicKey(curve: entry.curve, hex: entry.publicPoint) else { continue }
            let message = Bytes(entry.message(uid: uid.array))
            if (try? ECDSA.verifyUnhashed(signature: signature, message: message, key: key)) == true {
                return .genuine(entry)
            }
        }
        return .notGenuine
    }

    /// ``verify(uid:signature:)`` for a chip identified as `model`: a signature no key accepts
    /// is ``OriginalityVerdict/notGenuine`` only when a key of the table covers `model`, else
    /// ``OriginalityVerdict/unverified(_:)`` (the maker's key for that chip is not known here).
    public func verify(uid: Bytes, signature: Bytes, model: String) -> OriginalityVerdict {
        let verdict = verify(uid: uid, signature: signature)
        guard verdict == .notGenuine, !keys.contains(where: { $0.covers(model: model) }) else { return verdict }
        return .unverified("no key in the table for the \(model)")
    }

    /// Reads the chip's signature with the command its platform has, then verifies it:
    /// READ_SIG (`3C 00`, NTAG21x 10.8, MF0ULx1 9.13) on Type 2 chips that have it; ICODE READ
    /// SIGNATURE (`BD`, NXP custom command) on ISO 15693 chips; Read_Sig (`90 3C 00 00 01 00 00`)
    /// on ISO-DEP chips (NTAG 424 DNA, DESFire EV2/EV3). MIFARE Classic EV1's signature sector and
    /// FeliCa are not read and give ``OriginalityVerdict/noSignature(_:)``.
    ///
    /// Never throws: a chip that refuses or leaves gives ``OriginalityVerdict/noSignature(_:)``
    /// with the reason.
    public func check(_ tag: NFCTag) async -> OriginalityReport {
        let uid = tag.identifier
        let signature: Bytes
        do {
            switch tag {
            case .miFare(let mifare):
                if let type2 = mifare.type2 {
                    signature = try await type2.readSignature()
                } else if mifare.target.supportsISODEP {
                    signature = try await mifare.readNXPSignature()
                } else {
                    return OriginalityReport(uid: uid, signature: nil, verdict: .noSignature("this tool reads no signature from \(tag.identity.model)"))
                }
            case .iso15693(let vicinity):
                signature = try await vicinity.readNXPSignature()
            case .iso7816(let iso):
                signature = try await iso.readNXPSignature()
            case .feliCa:
                return OriginalityReport(uid: uid, signature: nil, verdict: .noSignature("this tool reads no signature from \(tag.identity.model)"))
            }
        } catch {
            return OriginalityReport(uid: uid, signature: nil, verdict: .noSignature(error.reason))
        }
        return OriginalityReport(uid: uid, signature: signature, verdict: verify(uid: uid, signature: signature, model: tag.identity.model))
    }
}
