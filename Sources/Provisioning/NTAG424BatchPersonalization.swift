import NFCCore
public import NFCTags

/// `batch` on NTAG 424 DNA chips: each tag is personalized for SUN (``NFCTags/NTAG424Setup``)
/// with its own keys, diversified from master keys with AN10922 for its UID
/// (``NFCTags/NTAG424DiversifiedKeys``), then read once as a phone reads it and its URL
/// verified. The ledger gets the key identifiers (scheme, master-key fingerprints, key
/// version), never a key.
public struct NTAG424BatchPersonalization: Sendable, CustomStringConvertible {
    /// The SUN URL template (`{sun:picc}`, `{sun:mac}`).
    public let template: SDMURLTemplate
    /// The master and shared keys.
    public let keys: NTAG424DiversifiedKeys
    /// What the ledger records of the keys: `keys AN10922(UID‖sysid 4E46…) v1: key0 master 1A2B3C4D, …`.
    public let keySummary: String

    /// A personalization of `template` with keys diversified from `keys`.
    /// - Throws: ``NFCTags/NTAG424Error`` `invalidParameter` when the keys lack one the URL or the
    ///   setup needs (checked here with a sample UID, before any tag); ``NFCTags/NTAG424Error``
    ///   about SDM data (``NFCTags/NTAG424Error/Subject/sdmData``) from the fingerprints.
    public init(template: SDMURLTemplate, keys: NTAG424DiversifiedKeys) throws {
        self.template = template
        self.keys = keys
        _ = try NTAG424Setup(template: template, keys: try keys.keys(forUID: Bytes([0x04, 0, 0, 0, 0, 0, 1])))
        let input = keys.systemIdentifier.isEmpty ? "UID" : "UID‖\(Hex.encode(keys.systemIdentifier, uppercase: true))"
        let identifiers = try keys.identifiers().map { identifier in
            identifier.diversified ? "\(identifier.name) master \(identifier.fingerprint)" : "\(identifier.name) shared \(identifier.fingerprint)"
        }
        keySummary = "keys \(NTAG424DiversifiedKeys.scheme)(\(input)) v\(NTAG424Setup.keyVersion): \(identifiers.joined(separator: ", "))"
    }

    /// The steps for `--plan`, keys masked (those of a sample tag: every tag's are alike).
    /// - Throws: as ``init(template:keys:)``.
    public func steps() throws -> [NTAG424Setup.Step] {
        try NTAG424Setup(template: template, keys: try keys.keys(forUID: Bytes([0x04, 0, 0, 0, 0, 0, 1]))).steps
    }

    /// Personalizes `tag` with the keys diversified for its UID, reads its URL back and checks it
    /// with the master keys (as a server will).
    /// - Returns: the URL read back.
    /// - Throws: ``NFCTags/NFCTagError``: `notSupported` for a tag without ISO-DEP; the first
    ///   command's failure; `verificationFailed` when the URL read back does not verify.
    public func run(on tag: NFCTag) async throws(NFCTagError) -> String {
        guard case .iso7816(let iso) = tag else {
            throw NFCTagError(.notSupported, "the \(tag.identity.model) is not an NTAG 424 DNA (no ISO-DEP)")
        }
        let setup: NTAG424Setup
        do throws(NTAG424Error) {
            // SDM data at fault (a UID the keys cannot be diversified for) maps to
            // `invalidParameter` with the whole description; the setup's own errors as the chip's.
            setup = try NTAG424Setup(template: template, keys: try keys.keys(forUID: iso.identifier))
        } catch {
            throw error.tagError
        }
        var chip = NTAG424Tag(iso)
        let url: String
        do throws(NTAG424Error) {
            try await setup.run(on: &chip)
            url = try await chip.readURL()
        } catch {
            throw error.tagError
        }
        do {
            let tap = try keys.verify(url: url)
            guard tap.uid == nil || tap.uid == iso.identifier else {
                throw NFCTagError(.verificationFailed, "the URL read back carries another UID")
            }
        } catch let error as NFCTagError {
            throw error
        } catch {
            throw NFCTagError(.verificationFailed, "the URL read back does not verify with the master keys: \(error)")
        }
        return url
    }

    /// `NTAG424BatchPersonalization(URL, keys…)`: never a key.
    public var description: String { "NTAG424BatchPersonalization(\(template.text), \(keySummary))" }
}
