import Foundation
import NFCTags
import Testing

@testable import VirtualTags

func temporaryTagFilePath(_ name: String = "tag.json") -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("virtualtags-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent(name).path
}

@Suite("Tag files", .timeLimit(.minutes(5)))
struct TagFileTests {
    @Test("an NTAG's state survives save and load", arguments: NTAG21xTag.Model.allCases)
    func ntagRoundTrip(model: NTAG21xTag.Model) throws {
        let tag = freshNTAG(model)
        _ = tag.respond(to: [0xA2, 0x04, 0x03, 0x03, 0xD0, 0x00])
        _ = tag.respond(to: [0x1B, 0, 0, 0, 0])
        let file = TagFile(path: temporaryTagFilePath())
        try file.save(tag.tagState)
        let restored = try #require(try file.loadTag() as? NTAG21xTag)
        #expect(restored.memory == tag.memory)
        #expect(restored.uid == tag.uid)
        #expect(restored.model == model)
        #expect(restored.authenticationFailures == 1)
        #expect(restored.tagState == tag.tagState)
    }

    @Test("a Type 4 tag's NDEF file and read-only flag survive save and load")
    func type4RoundTrip() throws {
        let tag = Type4VirtualTag(uid: sampleUID7, ndefFileSize: 300, readOnly: true)
        #expect(tag.setNDEFMessage([0xD0, 0x00, 0x00]))
        let file = TagFile(path: temporaryTagFilePath())
        try file.save(tag.tagState)
        let restored = try #require(try file.loadTag() as? Type4VirtualTag)
        #expect(restored.ndefFile == tag.ndefFile)
        #expect(restored.isReadOnly)
    }

    @Test("the file is readable JSON with model, uid and memory")
    func jsonForm() throws {
        let path = temporaryTagFilePath()
        try TagFile(path: path).save(NTAG21xTag(.ntag215, uid: sampleUID7).tagState)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        #expect(object?["model"] as? String == "ntag215")
        #expect(object?["uid"] as? String == "04112233445566")
        #expect((object?["memory"] as? String)?.count == 135 * 8)
    }

    @Test("bad files fail with their code", arguments: [
        ("not json", TagFileError.Code.malformed),
        (#"{"model": "ntag999", "uid": "04112233445566", "memory": "00"}"#, .unknownModel),
        (#"{"model": "ntag213", "uid": "04112233445566", "memory": "0011"}"#, .invalidState),
        (#"{"model": "ntag213", "uid": "zz", "memory": "00"}"#, .invalidState),
        (#"{"model": "type4", "uid": "04112233445566", "memory": "00"}"#, .invalidState),
    ])
    func badFiles(contents: String, code: TagFileError.Code) throws {
        let path = temporaryTagFilePath()
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: TagFileError.self) { try TagFile(path: path).loadTag() }
        do {
            _ = try TagFile(path: path).loadTag()
        } catch {
            #expect(error.code == code)
        }
    }

    @Test("model-specific attributes survive save and load")
    func attributes() throws {
        let state = TagState(model: "x", uid: "01", memory: "00", attributes: ["afi": "00", "dsfid": "01"])
        let file = TagFile(path: temporaryTagFilePath())
        try file.save(state)
        #expect(try file.load() == state)
    }

    @Test("a missing file is unreadable")
    func missingFile() {
        do {
            _ = try TagFile(path: "/nonexistent/dir/tag.json").load()
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.code == .unreadable)
        }
    }

    @Test("a memory whose UID bytes disagree with the uid is refused")
    func inconsistentUID() {
        var state = NTAG21xTag(.ntag213, uid: sampleUID7).tagState
        state.uid = "04112233445567"
        #expect(NTAG21xTag(.ntag213, state: state) == nil)
    }
}
