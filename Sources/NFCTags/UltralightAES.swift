import NFCCore

/// The MIFARE Ultralight AES (MF0AES(H)20) commands beyond Type 2's READ and WRITE.
///
/// Sources (docs/tags.md, "MIFARE Ultralight AES"): NXP's data sheet MF0AES(H)20 is public, but
/// its text was not at hand here; these values are the ones two independent open
/// implementations that cite it agree on (StuStaPay's `MifareUltralightAES.kt` and the Flipper
/// Zero Ultralight AES poller, which cites MF0AES20 8.6.1 and cross-checks Proxmark3).
public enum UltralightAESCommand {
    /// AUTHENTICATE part 1 (`1A kk`): the chip answers `AF` and ek(RndB), 16 bytes. The second
    /// byte is the key number (``UltralightAESKeyNumber``).
    public static let authenticate: UInt8 = 0x1A
    /// AUTHENTICATE part 2 (`AF` + ek(RndA ‖ RndB′), 32 bytes), and the first byte of the chip's
    /// answer to part 1.
    public static let authenticateContinue: UInt8 = 0xAF
    /// The first byte of the chip's answer to part 2: `00` then ek(RndA′), 16 bytes.
    public static let authenticateDone: UInt8 = 0x00
    /// The GET_VERSION answer of MF0AES20 (17 pF): vendor NXP, type `03` (Ultralight), subtype
    /// `01`, major version `04`, storage `0F`, protocol `03`.
    public static let versionMF0AES20: [UInt8] = [0x00, 0x04, 0x03, 0x01, 0x04, 0x00, 0x0F, 0x03]
    /// The GET_VERSION answer of MF0AESH20 (50 pF): subtype `02`, the rest as MF0AES20.
    public static let versionMF0AESH20: [UInt8] = [0x00, 0x04, 0x03, 0x02, 0x04, 0x00, 0x0F, 0x03]
    /// The length of the READ_SIG (`3C 00`) answer: `r ‖ s` on secp192r1, 48 bytes (Proxmark3's
    /// `hf mfu info` checks a 48-byte answer against NXP's Ultralight AES keys).
    public static let signatureLength = 48
    /// The one-way counters READ_CNT (`39 nn`) and INCR_CNT (`A5 nn …`) address: 0, 1 and 2, of
    /// 24 bits each (Proxmark3 reads all three on an Ultralight AES).
    public static let counterCount = 3
}

/// The key numbers AUTHENTICATE names on a MIFARE Ultralight AES.
public enum UltralightAESKeyNumber: UInt8, Sendable, Hashable, CaseIterable {
    /// `00`: DataProtKey, the key AUTH0 protects memory with (pages 30h–33h).
    case dataProtection = 0x00
    /// `01`: UIDRetrKey, which reveals the real UID when random IDs are on (pages 34h–37h).
    case uidRetrieval = 0x01
    /// `02`: the originality key NXP programs (pages 38h–3Bh, never written here).
    case originality = 0x02
}

/// The MIFARE Ultralight AES memory map: 60 pages (00h–3Bh), as both public implementations
/// named in ``UltralightAESCommand`` lay it out.
public enum UltralightAESMemory {
    /// Pages in memory, key pages included: 60 (00h–3Bh).
    public static let totalPages = 60
    /// The user memory, pages 04h–27h (144 bytes).
    public static let userPages = 0x04..<0x28
    /// The dynamic lock bytes (page 28h).
    public static let lockPage = 0x28
    /// CFG0 (page 29h): byte 0 holds RID_ACT and SEC_MSG_ACT, byte 3 is AUTH0.
    public static let cfg0Page = 0x29
    /// CFG1 (page 2Ah): byte 0 is the access byte (PROT in bit 7), byte 1 VCTID, bytes 2–3
    /// AUTH_LIM (10 bits, least significant byte first).
    public static let cfg1Page = 0x2A
    /// The DataProtKey pages (30h–33h), the key byte-reversed: page 30h byte 0 is the key's
    /// last byte.
    public static let dataProtectionKeyPages = 0x30..<0x34
    /// The UIDRetrKey pages (34h–37h).
    public static let uidRetrievalKeyPages = 0x34..<0x38
    /// The originality key pages (38h–3Bh).
    public static let originalityKeyPages = 0x38..<0x3C
    /// All key pages (30h–3Bh): no READ returns their bytes.
    public static let keyPages = 0x30..<0x3C
    /// AUTH0 = 3Ch: no page needs authentication (the factory setting).
    public static let auth0Unprotected: UInt8 = 0x3C
    /// The lowest AUTH0 taken here: 03h, as on the other Ultralights (the capability container
    /// can be protected, pages 0–2 cannot).
    public static let auth0Lowest = 0x03
    /// CFG1 byte 0 bit 7, PROT: set = reads from AUTH0 on need authentication too.
    public static let protBit: UInt8 = 0x80
    /// CFG1 byte 0 bit 6, CFGLCK: set = the user configuration (CFG0, CFG1) is locked for good
    /// (Proxmark3's `hf mfu info`, which StuStaPay's check of CFG1 agrees with).
    public static let configurationLockBit: UInt8 = 0x40
    /// CFG1 byte 0 bit 3, CNT_INC_EN: set = INCR_CNT on counter 2 needs no authentication
    /// (Proxmark3's `hf mfu info` decodes it so).
    public static let counterIncrementOpenBit: UInt8 = 0x08
    /// CFG1 byte 0 bit 2, CNT_RD_EN: set = READ_CNT of counter 2 needs no authentication
    /// (Proxmark3's `hf mfu info`).
    public static let counterReadOpenBit: UInt8 = 0x04
    /// The last page the static lock bytes guard (0Fh). Pages 10h–27h are guarded by the
    /// dynamic lock bytes of page 28h, whose bit layout no public source NFCKit rests on gives.
    public static let lastStaticallyLockedPage = 0x0F
    /// CFG0 byte 0 bit 1, SEC_MSG_ACT: set = every command after the authentication carries a
    /// CMAC (secure messaging, not implemented here).
    public static let secureMessagingBit: UInt8 = 0x02
    /// The largest AUTH_LIM (10 bits); 0 means no limit.
    public static let maximumAuthenticationLimit = 0x3FF
}

/// How a MIFARE Ultralight AES key protects its memory: AUTH0, PROT and AUTH_LIM.
public struct UltralightAESProtection: Sendable, Hashable {
    /// AUTH0: the first page that needs authentication, 03h–3Bh. The default, 04h, protects
    /// all user memory, the configuration and the key pages, leaving the capability container
    /// readable.
    public var firstProtectedPage: Int
    /// PROT: reading needs authentication too.
    public var readProtected: Bool
    /// AUTH_LIM: failed authentications after which the chip refuses every further one
    /// (1…1023); nil keeps what the chip has, 0 is no limit.
    public var authenticationLimit: Int?

    /// Creates a protection.
    public init(firstProtectedPage: Int = 4, readProtected: Bool = false, authenticationLimit: Int? = nil) {
        self.firstProtectedPage = firstProtectedPage
        self.readProtected = readProtected
        self.authenticationLimit = authenticationLimit
    }
}

/// Pages 29h–2Ch of a MIFARE Ultralight AES as one READ of page 29h returns them: CFG0, CFG1
/// and the two pages after them (kept as read).
public struct UltralightAESConfiguration: Sendable, Hashable {
    /// CFG0 byte 0: RID_ACT and SEC_MSG_ACT.
    public var cfg0Flags: UInt8
    /// AUTH0 (CFG0 byte 3).
    public var auth0: Int
    /// The access byte (CFG1 byte 0): PROT in bit 7.
    public var access: UInt8
    /// AUTH_LIM (CFG1 bytes 2–3, 10 bits); 0 = no limit.
    public var authenticationLimit: Int
    /// The 16 bytes as read, so that writes keep their other bytes.
    public var pages: [UInt8]

    /// Decodes the 16 bytes of a READ of page 29h.
    /// - Throws: ``NFCTagError/Code/tagResponse`` unless 16 bytes came.
    public init(bytes: [UInt8]) throws(NFCTagError) {
        guard bytes.count == 16 else {
            throw NFCTagError(.tagResponse, at: UltralightAESMemory.cfg0Page * 4, "pages 29h–2Ch answered \(bytes.count) bytes, not 16")
        }
        pages = bytes
        cfg0Flags = bytes[0]
        auth0 = Int(bytes[3])
        access = bytes[4]
        authenticationLimit = Int(bytes[6]) | Int(bytes[7] & 0x03) << 8
    }

    /// Whether any page needs authentication (AUTH0 at or below the last page).
    public var isProtected: Bool { auth0 < UltralightAESMemory.totalPages }
    /// Whether reads of protected pages need authentication (PROT).
    public var readProtected: Bool { isProtected && access & UltralightAESMemory.protBit != 0 }
    /// Whether the user configuration is locked for good (CFGLCK).
    public var configurationLocked: Bool { access & UltralightAESMemory.configurationLockBit != 0 }
    /// Whether secure messaging (SEC_MSG_ACT) is on.
    public var secureMessaging: Bool { cfg0Flags & UltralightAESMemory.secureMessagingBit != 0 }
    /// Whether READ_CNT of counter 2 works without authentication (CNT_RD_EN).
    public var counterReadOpen: Bool { access & UltralightAESMemory.counterReadOpenBit != 0 }
    /// Whether INCR_CNT of counter 2 works without authentication (CNT_INC_EN).
    public var counterIncrementOpen: Bool { access & UltralightAESMemory.counterIncrementOpenBit != 0 }
    /// Whether `page` needs authentication to be written.
    public func protects(page: Int) -> Bool { page >= auth0 }
    /// CFG0 (page 29h) as read.
    public var cfg0: [UInt8] { Array(pages[0..<4]) }
    /// CFG1 (page 2Ah) as read.
    public var cfg1: [UInt8] { Array(pages[4..<8]) }
}
