import NFCTags
import Testing

@testable import VirtualTags

@Suite("Virtual field and fault plan", .timeLimit(.minutes(5)))
struct VirtualFieldTests {
    func ntags(_ n: Int) -> [NTAG21xTag] {
        (0..<n).map { NTAG21xTag(.ntag213, uid: [0x04, 0, 0, 0, 0, 0, UInt8($0)]) }
    }

    @Test("tags are presented one after another, then the field is empty")
    func stackOrder() {
        let tags = ntags(3)
        let field = VirtualField(tags: tags)
        #expect(field.currentTag === tags[0])
        #expect(field.presentNext() === tags[1])
        field.removeTag()
        #expect(!field.isTagPresent)
        #expect(field.presentNext() === tags[2])
        #expect(field.presentNext() == nil)
        #expect(!field.isTagPresent)
        #expect(field.removedTags.count == 3)
        #expect(field.exchange(frame: [0x60]) == .noTag)
    }

    @Test("commands are counted")
    func commandCount() {
        let field = VirtualField(tags: ntags(1))
        _ = field.exchange(frame: [0x60])
        _ = field.exchange(frame: [0x30, 0x00])
        #expect(field.commandCount == 2)
    }

    @Test("the tag leaves after command k: k is answered, k+1 finds no tag", arguments: [1, 2, 5])
    func leaveAfter(k: Int) {
        let tags = ntags(1)
        let field = VirtualField(tags: tags, faultPlan: FaultPlan(leaveAfterCommand: k))
        for _ in 1..<k { #expect(field.exchange(frame: [0x60]) != .noTag) }
        #expect(field.exchange(frame: [0xA2, 0x04, 1, 2, 3, 4]) == .frame(.ack))
        #expect(field.exchange(frame: [0x60]) == .noTag)
        #expect(Array(tags[0].memory[16..<20]) == [1, 2, 3, 4])
        field.present(tags[0])
        #expect(field.exchange(frame: [0x60]) != .noTag)
    }

    @Test("an RF error on command k corrupts that answer only; the command still took effect")
    func rfError() {
        let tags = ntags(1)
        let field = VirtualField(tags: tags, faultPlan: FaultPlan(rfErrorOnCommands: [2]))
        #expect(field.exchange(frame: [0x60]) != .rfError)
        #expect(field.exchange(frame: [0xA2, 0x05, 9, 9, 9, 9]) == .rfError)
        #expect(field.exchange(frame: [0x60]) != .rfError)
        #expect(Array(tags[0].memory[20..<24]) == [9, 9, 9, 9])
    }

    @Test("APDUs reach ISO-DEP tags; other tags do not answer them")
    func apdus() {
        let field = VirtualField(tags: [Type4VirtualTag(uid: sampleUID7), NTAG21xTag(.ntag213, uid: sampleUID7)])
        #expect(field.exchange(apdu: [0x00, 0xB0, 0x00, 0x00, 0x02]) == .apdu([0x69, 0x86]))
        field.presentNext()
        #expect(field.exchange(apdu: [0x00, 0xB0, 0x00, 0x00, 0x02]) == .frame(.silence))
    }

    @Test("the trace records each command, its kind and its answer")
    func trace() {
        let field = VirtualField(tags: ntags(1))
        field.isTracing = true
        _ = field.exchange(frame: [0xA2, 0x04, 1, 2, 3, 4])
        _ = field.exchange(apdu: [0x00, 0xB0, 0x00, 0x00, 0x02])
        #expect(field.trace == [
            FieldExchange(number: 1, kind: .frame, command: [0xA2, 0x04, 1, 2, 3, 4], answer: .frame(.ack)),
            FieldExchange(number: 2, kind: .apdu, command: [0x00, 0xB0, 0x00, 0x00, 0x02], answer: .frame(.silence)),
        ])
        #expect(field.trace.filter { $0.command.first == 0xA2 }.count == 1)
    }

    @Test("a persisted tag is saved after each command that changed it")
    func persistence() throws {
        let tag = NTAG21xTag(.ntag213, uid: sampleUID7)
        let file = TagFile(path: temporaryTagFilePath())
        let field = VirtualField(tags: [tag])
        field.persist(tag, in: file)
        #expect(!file.exists)
        _ = field.exchange(frame: [0x30, 0x04])
        #expect(!file.exists)
        _ = field.exchange(frame: [0xA2, 0x04, 0x03, 0x00, 0xFE, 0x00])
        #expect(try file.load() == tag.tagState)
    }
}

@Suite("Tag file save failures", .timeLimit(.minutes(5)))
struct TagFileSaveFailureTests {
    @Test("a failed save is reported for that command only, and the reader maps it to io")
    func saveFailure() async throws {
        let tag = NTAG21xTag(.ntag213, uid: sampleUID7)
        let field = VirtualField(tags: [tag])
        field.persist(tag, in: TagFile(path: "/nonexistent-dir/tag.json"))
        _ = field.exchange(frame: [0xA2, 0x04, 1, 2, 3, 4])
        #expect(field.lastSaveError?.code == .unwritable)
        _ = field.exchange(frame: [0x30, 0x04])
        #expect(field.lastSaveError == nil)
    }
}
