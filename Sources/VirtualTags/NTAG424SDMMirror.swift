import NFCCore
import NFCTags

/// What an NTAG 424 DNA writes into its NDEF file image on an SDM read (datasheet 9.3): UID and
/// SDMReadCtr as ASCII hex (plain mirrors), or the encrypted PICC data, and the SDMMAC.
enum NTAG424SDMMirror {
    /// `contents` with the mirrors of `sdm` in place, or nil when a mirror cannot be made.
    static func apply(_ sdm: NTAG424SDMSettings, to contents: [UInt8], uid: [UInt8], counter: UInt32, keys: [[UInt8]], random: (Int) -> [UInt8]) -> [UInt8]? {
        var image = contents
        func place(_ text: String, at offset: Int?) {
            guard let offset else { return }
            let bytes = Array(text.utf8)
            guard offset + bytes.count <= image.count else { return }
            image.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        }
        let counterBytes = [UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)]
        if sdm.metaRead == .free {
            if sdm.mirrorsUID { place(Hex.encode(uid, uppercase: true), at: sdm.uidOffset) }
            if sdm.mirrorsReadCounter { place(Hex.encode(counterBytes, uppercase: true), at: sdm.readCounterOffset) }
        }
        // Encrypted PICC data and SDMMAC come with the SDM primitives (branch sun).
        if sdm.hasEncryptedPICCData || sdm.hasMAC { return nil }
        return image
    }
}
