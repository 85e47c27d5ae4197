import NFCCore

/// The MIFARE Ultralight C commands beyond Type 2's READ and WRITE (MF0ICU2 datasheet, Rev. 3.3,
/// section 9).
public enum UltralightCCommand {
    /// AUTHENTICATE part 1 (`1A 00`): the chip answers `AF` and ek(RndB), 8 bytes (MF0ICU2 7.5.6,
    /// 9.5). The second byte is the key number; the chip has one key, 00h.
    public static let authenticate: UInt8 = 0x1A
    /// The key number AUTHENTICATE names: 00h, the one 3DES key.
    public static let keyNumber: UInt8 = 0x00
    /// AUTHENTICATE part 2 (`AF` + ek(RndA ‖ RndB′), 16 bytes), and the first byte of the chip's
    /// answer to part 1 (MF0ICU2 9.5).
    public static let authenticateContinue: UInt8 = 0xAF
    /// The first byte of the chip's answer to part 2: `00` then ek(RndA′) (MF0ICU2 9.5).
    public static let authenticateDone: UInt8 = 0x00
}

/// The MIFARE Ultralight C memory map (MF0ICU2 datasheet 7.5, Table 5 and Table 13): 48 pages.
public enum UltralightCMemory {
    /// Pages in memory, key pages included: 48 (00h–2Fh).
    public static let totalPages = 48
    /// The user memory, pages 04h–27h (144 bytes, MF0ICU2 7.5.9).
    public static let userPages = 0x04..<0x28
    /// Lock bytes 2 and 3 (bytes 0–1 of page 28h, MF0ICU2 7.5.3).
    public static let lockPage = 0x28
    /// The first page lock byte 2 locks: 10h (pages 04h–0Fh have the static lock bits).
    public static let lockByte2FirstPage = 0x10
    /// The bit of lock byte 2 that locks each group of 4 pages from 10h: 10h–13h bit 1, 14h–17h
    /// bit 2, 18h–1Bh bit 3, 1Ch–1Fh bit 5, 20h–23h bit 6, 24h–27h bit 7; bits 0 and 4 are
    /// block-locking bits (they freeze the lock bits, lock no page). MF0ICU2 7.5.3, as
    /// Proxmark3's `client/src/cmdhfmfu.c` (its Ultralight C dump's lock column) and Michael
    /// Roland's Stack Overflow answer 30123265 (bits 5–7 of page 40 byte 0 lock pages 28–39)
    /// read it. Lock byte 3 (pages 28h–2Bh: bits 3–6 by the same Proxmark3 source) guards no
    /// user page.
    public static let lockByte2Bits: [UInt8] = [1, 2, 3, 5, 6, 7]
    /// The pages of each lock bit of ``lockByte2Bits``.
    public static let lockByte2PagesPerBit = 4

    /// Whether `lockByte2` (page 28h byte 0) locks `page`: only pages 10h–27h have a bit in it.
    public static func lockByte2Locks(page: Int, lockByte2: UInt8) -> Bool {
        guard page >= lockByte2FirstPage, page < userPages.upperBound else { return false }
        let group = (page - lockByte2FirstPage) / lockByte2PagesPerBit
        guard group < lockByte2Bits.count else { return false }
        return lockByte2 & (1 << lockByte2Bits[group]) != 0
    }
    /// The 16-bit one-way counter (bytes 0–1 of page 29h, MF0ICU2 7.5.11).
    public static let counterPage = 0x29
    /// AUTH0 (byte 0 of page 2Ah): the first page that needs authentication, 03h–30h
    /// (MF0ICU2 7.5.8).
    public static let auth0Page = 0x2A
    /// AUTH1 (byte 0 of page 2Bh): bit 0 set = only writes need authentication, clear = reads
    /// and writes (MF0ICU2 7.5.8, Table 12).
    public static let auth1Page = 0x2B
    /// The four pages of the 3DES key (2Ch–2Fh), which no READ ever returns (MF0ICU2 7.5.7).
    public static let keyPages = 0x2C..<0x30
    /// AUTH0 = 30h: no page needs authentication (the factory setting, MF0ICU2 7.5.8).
    public static let auth0Unprotected: UInt8 = 0x30
    /// The lowest AUTH0 the chip takes: 03h (MF0ICU2 7.5.8).
    public static let auth0Lowest = 0x03
    /// AUTH1 bit 0: 1 = write access restricted only, 0 = read and write access restricted.
    public static let auth1WriteOnlyBit: UInt8 = 0x01
}

/// How a MIFARE Ultralight C key protects its memory: AUTH0 and AUTH1 (MF0ICU2 7.5.8).
public struct UltralightCProtection: Sendable, Hashable {
    /// AUTH0: the first page that needs authentication, 03h–2Fh. The default, 04h, protects all
    /// user memory, the configuration and the key pages, leaving the capability container
    /// readable.
    public var firstProtectedPage: Int
    /// AUTH1 bit 0 clear: reading needs authentication too.
    public var readProtected: Bool

    /// Creates a protection.
    public init(firstProtectedPage: Int = 4, readProtected: Bool = false) {
        self.firstProtectedPage = firstProtectedPage
        self.readProtected = readProtected
    }

    /// The AUTH1 byte: 01h when only writes are protected, 00h when reads are too.
    public var auth1: UInt8 { readProtected ? 0x00 : UltralightCMemory.auth1WriteOnlyBit }
}

/// Pages 28h–2Bh of a MIFARE Ultralight C as one READ returns them: lock bytes 2–3, the counter,
/// AUTH0 and AUTH1 (MF0ICU2 7.5).
public struct UltralightCConfiguration: Sendable, Hashable {
    /// Lock bytes 2 and 3 (page 28h bytes 0–1).
    public var lockBytes: [UInt8]
    /// The 16-bit counter (page 29h bytes 0–1, least significant first).
    public var counter: Int
    /// AUTH0 (page 2Ah byte 0).
    public var auth0: Int
    /// AUTH1 (page 2Bh byte 0).
    public var auth1: UInt8
    /// The pages as read (16 bytes), so that writes keep their RFU bytes.
    public var pages: [UInt8]

    /// Decodes the 16 bytes of a READ of page 28h.
    /// - Throws: ``NFCTagError/Code/tagResponse`` unless 16 bytes came.
    public init(bytes: [UInt8]) throws(NFCTagError) {
        guard bytes.count == 16 else {
            throw NFCTagError(.tagResponse, at: UltralightCMemory.lockPage * 4, "pages 28h–2Bh answered \(bytes.count) bytes, not 16")
        }
        pages = bytes
        lockBytes = Array(bytes[0..<2])
        counter = Int(bytes[4]) | Int(bytes[5]) << 8
        auth0 = Int(bytes[8])
        auth1 = bytes[12]
    }

    /// Whether any page needs authentication (AUTH0 at or below the last page).
    public var isProtected: Bool { auth0 < UltralightCMemory.totalPages }
    /// Whether reads of protected pages need authentication.
    public var readProtected: Bool { isProtected && auth1 & UltralightCMemory.auth1WriteOnlyBit == 0 }
    /// Whether `page` needs authentication to be written.
    public func protects(page: Int) -> Bool { page >= auth0 }
    /// The page's 4 bytes as read (28h–2Bh).
    public func page(_ page: Int) -> [UInt8] {
        let start = (page - UltralightCMemory.lockPage) * 4
        return Array(pages[start..<(start + 4)])
    }
}
