// `import NFCKit` is enough for a file ported from CoreNFC, as `import CoreNFC` is on iOS: NFCKit
// re-exports the modules whose types such a file names. CoreNFC brings Foundation (`Data`, `URL`,
// `Locale`, `DispatchQueue`); NFCKit brings Foundation, NFCCore (`Bytes`, hex), NDEF (the message,
// the records and their builders) and NFCTags (`NFCTag`, `NFCNDEFTag`, the tag protocols, the APDU).
// docs/porting-from-corenfc.md, "What changes everywhere".

@_exported public import Foundation
@_exported public import NFCCore
@_exported public import NDEF
@_exported public import NFCTags
