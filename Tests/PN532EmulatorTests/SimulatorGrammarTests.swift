import Foundation
import NFCCore
import NFCTags
import PN532Emulator
import Testing
import VirtualTags

/// One simulator grammar: a spec given to `pn532-emulator --tag` and the `sim:` connection
/// string nfctool opens make the same tags (model, UID, memory), in the same order, from the
/// same tag files.
@Suite("the emulator's --tag and sim: strings are one grammar", .timeLimit(.minutes(1)))
struct SimulatorGrammarTests {
    /// What a tag is, seen from outside: its chip name, its UID and what a tag file would hold.
    struct Seen: Equatable {
        var model: String
        var uid: [UInt8]
        var state: TagState?

        init(_ tag: any VirtualTag) {
            model = tag.modelName
            uid = tag.targetInfo.identifier.array
            state = (tag as? any PersistentVirtualTag)?.tagState
        }
    }

    /// The tags the emulator's command line puts in its field, in stack order.
    func emulated(_ arguments: [String]) throws -> [Seen] {
        let field = try EmulatorCommandLine.parse(arguments).makeField()
        var seen: [Seen] = []
        while let tag = field.tagInField {
            seen.append(Seen(tag))
            field.next()
        }
        return seen
    }

    /// The tags a `sim:` string's reader holds, in stack order.
    func simulated(_ string: String) throws -> [Seen] {
        try SimulatorConfiguration(parsing: string).makeTags().map { Seen($0.tag) }
    }

    @Test("models, stacks, UIDs and options", arguments: [
        ("ntag213", "sim:ntag213"),
        ("ntag215*3", "sim:ntag215*3"),
        ("sim:ntag216?uid=04A1A2A3A4A5A6", "sim:ntag216?uid=04A1A2A3A4A5A6"),
        ("type4?ndef-size=1024&read-only", "sim:type4?ndef-size=1024&read-only"),
        ("ntag215?ndef=D1010B5501676F6F676C652E636F6D&leave-after=9", "sim:ntag215?ndef=D1010B5501676F6F676C652E636F6D&leave-after=9"),
    ])
    func same(_ tag: String, _ sim: String) throws {
        let expected = try simulated(sim)
        #expect(!expected.isEmpty)
        #expect(try emulated(["--tag", tag]) == expected)
    }

    @Test("MODEL:FILE is file=FILE: the emulator loads the tag file nfctool's simulator saved")
    func tagFile() throws {
        let path = NSTemporaryDirectory() + "grammar-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let saved = try simulated("sim:ntag213?file=\(path)&uid=04112233445566")
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try emulated(["--tag", "ntag213:\(path)"]) == saved)
        #expect(try emulated(["--tag", "sim:?file=\(path)"]) == saved)
    }

    @Test("MODEL*N:DIR is dir=DIR: one file per tag, named by UID")
    func tagDirectory() throws {
        let directory = NSTemporaryDirectory() + "grammar-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let emulated = try emulated(["--tag", "ntag215*2:\(directory)"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == 2)
        #expect(try simulated("sim:ntag215*2?dir=\(directory)") == emulated)
    }

    @Test("--uid sets the first UID across several --tag, as uid= does in one stack")
    func uidAcrossTags() throws {
        let emulated = try emulated(["--tag", "ntag213", "--tag", "ntag213", "--uid", "04000000000001"])
        #expect(emulated.map(\.uid) == (try simulated("sim:ntag213*2?uid=04000000000001")).map(\.uid))
    }

    @Test("MODEL+MODEL puts several tags in the field together, in both grammars: distinct UIDs, one group, one after another in the listing")
    func severalTagsTogether() throws {
        let field = try EmulatorCommandLine.parse(["--tag", "ntag215+ntag213"]).makeField()
        let together = field.field.tagsInField.map(Seen.init)
        #expect(together.map(\.model) == ["NTAG215", "NTAG213"])
        #expect(Set(together.map(\.uid)).count == 2)
        #expect(field.field.waitingTags.isEmpty)
        let simulated = try SimulatorConfiguration(parsing: "sim:ntag215+ntag213").makeField()
        #expect(simulated.tagsInField.map(Seen.init) == together)
        // The same model twice: UIDs count up, as in a stack.
        let twins = try SimulatorConfiguration(parsing: "sim:ntag215+ntag215").makeTags().map { Seen($0.tag) }
        #expect(twins.map(\.uid) == (try self.simulated("sim:ntag215*2")).map(\.uid))
    }

    @Test("MODEL:FILE+MODEL:FILE: each tag of the field from its own tag file, the same in both grammars")
    func severalTagFilesTogether() throws {
        let directory = NSTemporaryDirectory() + "grammar-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = directory + "/a.json", second = directory + "/b.json"
        let saved = try SimulatorConfiguration(parsing: "sim:ntag215:\(first)+ntag213:\(second)").makeTags().map { Seen($0.tag) }
        #expect(FileManager.default.fileExists(atPath: first) && FileManager.default.fileExists(atPath: second))
        let field = try EmulatorCommandLine.parse(["--tag", "ntag215:\(first)+ntag213:\(second)"]).makeField()
        #expect(field.field.tagsInField.map(Seen.init) == saved)
    }

    @Test("a field of several tags refuses stacks, file=, hand-out and a shared tag file", arguments: [
        "sim:ntag215*2+ntag213", "sim:ntag215+ntag213?count=2", "sim:ntag215+ntag213?file=/tmp/x.json",
        "sim:ntag215+ntag213?hand-out=deselect", "sim:ntag215:/tmp/same.json+ntag213:/tmp/same.json", "sim:ntag215+nosuchtag",
        "sim:ntag215+",
    ])
    func severalTagsRefused(_ string: String) {
        #expect(throws: NFCReaderDeviceError.self) { try SimulatorConfiguration(parsing: string) }
    }

    @Test("a bad spec is refused by both with the same reason")
    func sameRefusal() throws {
        for (tag, sim) in [("ntag999", "sim:ntag999"), ("ntag213?bogus=1", "sim:ntag213?bogus=1"), ("ntag213*0", "sim:ntag213*0")] {
            var simReason: String?
            do { _ = try SimulatorConfiguration(parsing: sim) } catch { simReason = error.reason }
            let reason = try #require(simReason, "\(sim) was accepted")
            var emulatorReason: String?
            do { _ = try EmulatorCommandLine.parse(["--tag", tag]) } catch { emulatorReason = error.description }
            #expect(emulatorReason == "The value '\(tag)' is invalid for '--tag <tag>': \(reason)")
        }
    }
}
