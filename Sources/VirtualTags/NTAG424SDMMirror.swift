import NFCCore
import NFCTags

/// What an NTAG 424 DNA writes into its NDEF file image on an SDM read (datasheet 9.3), through
/// the SDM primitives of `NTAG424SDM.swift` (``SDMLayout/mirror(file:uid:counter:keys:padding:)``):
/// UID and SDMReadCtr as ASCII hex, or the encrypted PICC data, SDMENCFileData, the SDMMAC.
enum NTAG424SDMMirror {
    /// The SDM layout of `sdm`, as the chip checks ChangeFileSettings; nil when the chip would
    /// refuse it.
    static func layout(_ sdm: NTAG424SDMSettings, fileSize: Int) -> SDMLayout? {
        guard sdm.asciiEncoding else { return nil }
        let encrypted: SDMLayout.Range?
        if sdm.encryptsFileData {
            guard let offset = sdm.encryptedDataOffset, let length = sdm.encryptedDataLength else { return nil }
            encrypted = SDMLayout.Range(offset: offset, length: length)
        } else {
            encrypted = nil
        }
        let plain = sdm.metaRead == .free
        return try? SDMLayout(
            mirrorsUID: sdm.mirrorsUID, mirrorsCounter: sdm.mirrorsReadCounter, piccDataOffset: sdm.hasEncryptedPICCData ? sdm.piccDataOffset : nil,
            uidOffset: plain && sdm.mirrorsUID ? sdm.uidOffset : nil, counterOffset: plain && sdm.mirrorsReadCounter ? sdm.readCounterOffset : nil,
            macInputOffset: sdm.hasMAC ? sdm.macInputOffset : nil, macOffset: sdm.hasMAC ? sdm.macOffset : nil, encryptedFileData: encrypted,
            fileSize: fileSize)
    }

    /// `contents` with the mirrors of `sdm` in place, or nil when a mirror cannot be made.
    static func apply(_ sdm: NTAG424SDMSettings, to contents: [UInt8], uid: [UInt8], counter: UInt32, keys: [[UInt8]], random: (Int) -> [UInt8]) -> [UInt8]? {
        guard let layout = layout(sdm, fileSize: contents.count) else { return nil }
        func key(_ access: NTAG424Access) -> Bytes? {
            if case .key(let number) = access, Int(number) < keys.count { return Bytes(keys[Int(number)]) }
            return nil
        }
        guard let sdmKeys = try? SDMKeys(metaRead: key(sdm.metaRead), fileRead: key(sdm.fileRead)) else { return nil }
        return try? layout.mirror(file: contents, uid: Bytes(uid), counter: counter, keys: sdmKeys, padding: random(16))
    }
}
