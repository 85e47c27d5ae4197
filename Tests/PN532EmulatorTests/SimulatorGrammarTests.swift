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
