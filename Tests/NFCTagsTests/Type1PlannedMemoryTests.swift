import NFCCore
import Testing
@testable import NFCTags

/// How a write plan holds back Type 1 writes and lays them over later reads.
@Suite("Type 1 writes held back by a plan, seen by later reads", .timeLimit(.minutes(1)))
struct Type1PlannedMemoryTests {
    static let uid: [UInt8] = [0x01, 0x53, 0x49, 0x4D]

    @Test("the four write commands count as writes and are answered as the tag answers them; reads and malformed frames do not")
    func writeClass() {
        let e = Type1Frame.write(address: 0x0D, byte: 0x12, erase: true, uid: Self.uid)
        let ne = Type1Frame.write(address: 0x70, byte: 0xFF, erase: false, uid: Self.uid)
        let e8 = Type1Frame.write8(block: 0x10, data: Array(1...8), erase: true, uid: Self.uid)
        let ne8 = Type1Frame.write8(block: 0x11, data: Array(9...16), erase: false, uid: Self.uid)
        #expect(Type1PlannedMemory.writeClass(e)?.1 == [0x0D, 0x12])
        #expect(Type1PlannedMemory.writeClass(ne)?.1 == [0x70, 0xFF])
        #expect(Type1PlannedMemory.writeClass(e8)?.1 == [0x10] + Array(1...8))
        #expect(Type1PlannedMemory.writeClass(ne8)?.1 == [0x11] + Array(9...16))
        #expect(Type1PlannedMemory.writeClass(Type1Frame.read(address: 3, uid: Self.uid)) == nil)
        #expect(Type1PlannedMemory.writeClass(Type1Frame.readAll(uid: Self.uid)) == nil)
        #expect(Type1PlannedMemory.writeClass([Type1Command.writeErase, 0x0D]) == nil)
        #expect(Type1PlannedMemory.writeClass([]) == nil)
        // Through the planning reader's table for a Jewel target.
        let jewel = TargetInfo.jewel(JewelTarget(sensRes: [0x0C, 0x00], id: Bytes(Self.uid)))
        #expect(PlanningReader.writeClass(e, on: jewel)?.0 == .type1)
        #expect(PlanningReader.writeClass(e, on: nil) == nil)
    }

    @Test("READ, RALL, READ8 and RSEG see erase-writes as set and no-erase writes OR-ed over the stored byte")
    func overlay() {
        var plan = Type1PlannedMemory()
        plan.record(Type1Frame.write(address: 0x0D, byte: 0x12, erase: true, uid: Self.uid))
        plan.record(Type1Frame.write(address: 0x0B, byte: 0x0F, erase: false, uid: Self.uid))
        plan.record(Type1Frame.write8(block: 0x10, data: Array(1...8), erase: true, uid: Self.uid))
        plan.record(Type1Frame.write8(block: 0x11, data: [0x80] + [UInt8](repeating: 0, count: 7), erase: false, uid: Self.uid))
        // READ: ADD DATA, or the data byte alone (a PN53x).
        #expect(plan.overlay([0x0D, 0x55], on: Type1Frame.read(address: 0x0D, uid: Self.uid)) == [0x0D, 0x12])
        #expect(plan.overlay([0x55], on: Type1Frame.read(address: 0x0D, uid: Self.uid)) == [0x12])
        #expect(plan.overlay([0x0B, 0x40], on: Type1Frame.read(address: 0x0B, uid: Self.uid)) == [0x0B, 0x4F])
        #expect(plan.overlay([0x0C, 0x55], on: Type1Frame.read(address: 0x0C, uid: Self.uid)) == [0x0C, 0x55])
        // RALL: HR0 HR1 then bytes 0…119.
        var all = [0x11, 0x48] + [UInt8](repeating: 0xAA, count: 120)
        all = plan.overlay(all, on: Type1Frame.readAll(uid: Self.uid))
        #expect(all[2 + 0x0D] == 0x12 && all[2 + 0x0B] == 0xAF && all[2 + 0x0C] == 0xAA && all[0] == 0x11)
        // READ8 of block 10h, RSEG of segment 1 (bytes 128…255: blocks 10h…1Fh).
        #expect(plan.overlay([0x10] + [UInt8](repeating: 0xFF, count: 8), on: Type1Frame.read8(block: 0x10, uid: Self.uid)) == [0x10] + Array(1...8))
        let segment = plan.overlay([0x10] + [UInt8](repeating: 0x01, count: 128), on: Type1Frame.readSegment(1, uid: Self.uid))
        #expect(Array(segment[1...8]) == Array(1...8))
        #expect(segment[9] == 0x81 && segment[10] == 0x01)
        // An answer of another shape comes as it came.
        #expect(plan.overlay([1, 2, 3], on: Type1Frame.readAll(uid: Self.uid)) == [1, 2, 3])
        // Erase after a no-erase write replaces it.
        plan.record(Type1Frame.write(address: 0x0B, byte: 0x00, erase: true, uid: Self.uid))
        #expect(plan.overlay([0x0B, 0x40], on: Type1Frame.read(address: 0x0B, uid: Self.uid)) == [0x0B, 0x00])
    }
}
