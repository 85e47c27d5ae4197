public import Foundation
public import NDEF
public import NFCTags

// CoreNFC's names for NFCKit's types, so ported code keeps its spelling. See
// docs/porting-from-corenfc.md for the whole table.

/// CoreNFC's `NFCNDEFMessage`: NDEF's ``NDEF/NDEFMessage``.
public typealias NFCNDEFMessage = NDEFMessage
/// CoreNFC's `NFCNDEFPayload`: NDEF's ``NDEF/NDEFPayload``.
public typealias NFCNDEFPayload = NDEFPayload
/// CoreNFC's `NFCTypeNameFormat`: NDEF's ``NDEF/NDEFTypeNameFormat``.
public typealias NFCTypeNameFormat = NDEFTypeNameFormat
/// CoreNFC's `NFCNDEFStatus`: NFCTags' `NDEFStatus`.
public typealias NFCNDEFStatus = NDEFStatus
/// CoreNFC's `NFCISO7816APDU`: NFCTags' `ISO7816APDU` (`expectedResponseLength: -1` is no Le).
public typealias NFCISO7816APDU = ISO7816APDU

extension NDEFPayload {
    /// A well-known URI record for `url` (CoreNFC's `wellKnownTypeURIPayload(url:)` taking a
    /// `URL`); `nil` when the URL cannot be stored (as CoreNFC's returns `nil`). The prefix
    /// abbreviation follows NFC Forum RTD-URI (`0x01` is `http://www.`, `0x02` `https://www.`).
    public static func wellKnownTypeURIPayload(url: URL) -> NDEFPayload? {
        try? wellKnownTypeURIPayload(url: url.absoluteString)
    }

    /// A well-known Text record in UTF-8 (CoreNFC's `wellKnownTypeTextPayload(string:locale:)`
    /// taking a `Locale`); `nil` when the locale gives no usable language tag. The language code
    /// is the locale's identifier as an IETF language tag: `en_US` is stored as `en-US`, and
    /// `@…` keywords are dropped.
    public static func wellKnownTypeTextPayload(string: String, locale: Locale) -> NDEFPayload? {
        try? wellKnownTypeTextPayload(string: string, locale: languageTag(of: locale))
    }

    /// The IETF language tag (BCP 47 form) of `locale`: `en_US` → `en-US`, `sr_Latn_RS@x=y` →
    /// `sr-Latn-RS`.
    public static func languageTag(of locale: Locale) -> String {
        let identifier = locale.identifier.split(separator: "@", maxSplits: 1).first.map(String.init) ?? ""
        return identifier.replacingOccurrences(of: "_", with: "-")
    }
}

/// CoreNFC's `NFCISO7816Tag` (a protocol there): NFCTags' `ISO7816Tag`, the case value of
/// `NFCTag.iso7816`.
public typealias NFCISO7816Tag = ISO7816Tag
/// CoreNFC's `NFCMiFareTag` (a protocol there): NFCTags' `MiFareTag`, the case value of `NFCTag.miFare`.
public typealias NFCMiFareTag = MiFareTag
/// CoreNFC's `NFCFeliCaTag` (a protocol there): NFCTags' `FeliCaTag`, the case value of `NFCTag.feliCa`.
public typealias NFCFeliCaTag = FeliCaTag
/// CoreNFC's `NFCISO15693Tag` (a protocol there): NFCTags' `ISO15693Tag`, the case value of
/// `NFCTag.iso15693`.
public typealias NFCISO15693Tag = ISO15693Tag
