import NFCCore
import NFCTags
import Testing
import VirtualTags

extension Type5NDEFTests {
    @Test("checkLockable without Lock Block (unknown chip, CC feature bit 3 clear) is notSupported, as writeLock, and sends no write")
    func checkLockableWithoutLockBlock() async throws {
        let (reader, slix) = try await Self.open(ICodeSLIX2(uid: Self.uid))
        let unknown = ISO15693Tag(reader: reader, target: slix.target, identity: ChipIdentity(model: "ISO 15693 tag", platform: .type5))
        await #expect { try await Type5Tag(tag: unknown).checkLockable() } throws: { ($0 as! NFCTagError).code == .notSupported }
        try await Type5Tag(tag: slix).checkLockable()
        #expect(await Self.writes(reader) == 0)
    }

    @Test("checkLockable of a blank tag judges the chip as the format will declare it: an ICODE passes, an unknown chip is notSupported; no write")
    func checkLockableBlank() async throws {
        let (reader, slix) = try await Self.open(ICodeSLIX2(uid: Self.uid, memory: [UInt8](repeating: 0, count: 320)))
        try await Type5Tag(tag: slix).checkLockable()
        let unknown = ISO15693Tag(reader: reader, target: slix.target, identity: ChipIdentity(model: "ISO 15693 tag", platform: .type5))
        await #expect { try await Type5Tag(tag: unknown).checkLockable() } throws: { ($0 as! NFCTagError).code == .notSupported }
        #expect(await Self.writes(reader) == 0)
    }
}
