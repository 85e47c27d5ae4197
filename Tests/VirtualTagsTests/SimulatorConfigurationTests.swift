import Foundation
import NFCCore
import NFCTags
import Testing

@testable import VirtualTags

@Suite("sim: connection strings", .timeLimit(.minutes(5)))
struct SimulatorConfigurationTests {
    @Test("every registered model parses", arguments: TagModel.all.map(\.name))
    func models(name: String) throws {
        let configuration = try SimulatorConfiguration(parsing: "sim:\(name)")
        #expect(configuration.model?.name == name)
        #expect(configuration.count == 1)
    }

    @Test("model names are case-insensitive; only sim: strings are accepted")
    func caseAndPrefix() throws {
        #expect(try SimulatorConfiguration(parsing: "sim:NTAG215").model?.name == "ntag215")
        #expect(SimulatorConfiguration.accepts("sim:ntag215"))
        #expect(!SimulatorConfiguration.accepts("pn532_uart:/dev/ttyUSB0"))
    }

    @Test("stacks: *N and count=N")
    func stacks() throws {
        #expect(try SimulatorConfiguration(parsing: "sim:ntag215*100").count == 100)
        #expect(try SimulatorConfiguration(parsing: "sim:ntag215?count=7").count == 7)
    }

    @Test("options parse")
    func options() throws {
        let c = try SimulatorConfiguration(
            parsing: "sim:type4?uid=04A1B2C3D4E5F6&leave-after=5&rf-error=2,3&ndef-size=512&read-only&poll-wait=0&hand-out=never")
        #expect(c.uid == [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])
        #expect(c.faultPlan == FaultPlan(leaveAfterCommand: 5, rfErrorOnCommands: [2, 3]))
        #expect(c.options == TagModelOptions(ndefFileSize: 512, readOnly: true))
        #expect(c.pollWait == .zero)
        #expect(c.handOutOnDeselect == false)
    }

    @Test("invalid strings fail with invalidArgument and a reason", arguments: [
        ("ntag215", "does not start with 'sim:'"),
        ("sim:", "names no model"),
        ("sim:ntag999", "known models: ntag213, ntag215, ntag216"),
        ("sim:ntag215*0", "stack size"),
        ("sim:ntag215*x", "stack size"),
        ("sim:ntag215*2?count=2", "given twice"),
        ("sim:ntag215?uid=0411", "7-byte uid"),
        ("sim:ntag215?uid=zz", "uid 'zz'"),
        ("sim:ntag215?leave-after=0", "leave-after"),
        ("sim:ntag215?rf-error=1,,2", "rf-error"),
        ("sim:ntag215?color=red", "unknown option 'color'"),
        ("sim:ntag215?file=", "needs a value"),
        ("sim:ntag215*2?file=/tmp/x.json", "holds one tag"),
        ("sim:ntag213?read-only", "type4 and type4b only"),
        ("sim:ntag213?file=a.json&dir=b", "not both"),
        ("sim:?dir=b", "names no model"),
        ("sim:type4?ndef-size=2", "ndef-size"),
        ("sim:type4?hand-out=sometimes", "hand-out"),
        ("sim:type4?ndef=xyz", "ndef 'xyz'"),
    ])
    func invalid(string: String, reasonContains: String) {
        do {
            _ = try SimulatorConfiguration(parsing: string)
            Issue.record("\(string) parsed")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.reason.contains(reasonContains), "\(error.reason)")
        }
    }

    @Test("stack UIDs are distinct and deterministic, counting up from the first")
    func stackUIDs() throws {
        let c = try SimulatorConfiguration(parsing: "sim:ntag213*300")
        let uids = (0..<300).map { c.uid(ofTag: $0) }
        #expect(Set(uids).count == 300)
        #expect(uids[0] == [0x04, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01])
        #expect(uids[255] == [0x04, 0x53, 0x49, 0x4D, 0x00, 0x01, 0x00])
        let given = try SimulatorConfiguration(parsing: "sim:ntag213*2?uid=0400000000FFFF")
        #expect(given.uid(ofTag: 1) == [0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00])
    }

    @Test("a Topaz stack counts in UID1…UID3: every tag answers RID and its reader with a UID0…UID3 of its own, UID0 kept",
          arguments: ["topaz96", "topaz512"])
    func topazStackUIDs(model: String) throws {
        let tags = try SimulatorConfiguration(parsing: "sim:\(model)*300").makeTags().map(\.tag)
        let ids = tags.map { $0.targetInfo.identifier.array }
        #expect(Set(ids).count == 300, "UID0…UID3 repeat across the stack")
        #expect(ids.allSatisfy { $0.count == 4 && $0[0] == 0x01 })
        // RID, as a reader sends it, names the same 4 bytes.
        for (index, tag) in tags.enumerated().prefix(3) {
            guard case .data(let rid) = tag.respond(to: Type1Frame.readIdentification()) else {
                Issue.record("tag \(index) did not answer RID")
                continue
            }
            #expect(Array(rid.suffix(4)) == ids[index])
        }
        let given = try SimulatorConfiguration(parsing: "sim:\(model)*2?uid=01AABBFF000001")
        #expect(given.uid(ofTag: 1) == [0x01, 0xAA, 0xBC, 0x00, 0x00, 0x00, 0x01])
    }

    @Test("the default first UID follows the model's UID length", arguments: [4, 7, 8, 10])
    func defaultUIDLength(length: Int) {
        let model = TagModel(
            name: "test", summary: "", uidLength: length, make: { uid, _ in NTAG21xTag(.ntag213, uid: sampleUID7) },
            restore: { _ in nil })
        #expect(model.defaultUID.count == length)
        #expect(model.defaultUID.first == 0x04)
        #expect(model.defaultUID.last == 0x01)
    }

    @Test("a reader from a stack string hands the tags out in order")
    func readerFromStack() async throws {
        let r = try SimulatorConfiguration.makeReader("sim:ntag216*3?poll-wait=0")
        #expect(await r.connectionString == "sim:ntag216*3?poll-wait=0")
        var seen: [Bytes] = []
        while seen.count < 10, let info = try await r.poll(for: [.iso14443A], timeout: .seconds(1)) {
            seen.append(info.identifier)
            try await r.deselect()
        }
        #expect(seen.count == 3)
        #expect(Set(seen).count == 3)
    }

    @Test("a tag file is created when absent, saved after writes, and loaded next time")
    func tagFilePersistence() async throws {
        let path = temporaryTagFilePath()
        let first = try SimulatorConfiguration.makeReader("sim:ntag213?file=\(path)")
        #expect(TagFile(path: path).exists)
        _ = try await first.poll(for: [.iso14443A], timeout: .seconds(1))
        _ = try await first.transceive(Bytes([0xA2, 0x05, 0xCA, 0xFE, 0xBA, 0xBE]))
        let second = try SimulatorConfiguration.makeReader("sim:?file=\(path)")
        _ = try await second.poll(for: [.iso14443A], timeout: .seconds(1))
        let pages = try await second.transceive(Bytes([0x30, 0x05]))
        #expect(pages[0..<4] == Bytes([0xCA, 0xFE, 0xBA, 0xBE]))
    }

    @Test("a stack with dir= keeps one file per tag, named by UID, across runs")
    func tagDirectory() async throws {
        let directory = temporaryTagFilePath("stack")
        let first = try SimulatorConfiguration.makeReader("sim:ntag215*3?dir=\(directory)&poll-wait=0")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(names == ["0453494d000001.json", "0453494d000002.json", "0453494d000003.json"])
        var index: UInt8 = 0
        while index < 10, try await first.poll(for: [.iso14443A], timeout: .seconds(1)) != nil {
            index += 1
            _ = try await first.transceive(Bytes([0xA2, 0x04, index, index, index, index]))
            try await first.deselect()
        }
        let second = try SimulatorConfiguration.makeReader("sim:ntag215*3?dir=\(directory)&poll-wait=0")
        var seen: [UInt8] = []
        while seen.count < 10, try await second.poll(for: [.iso14443A], timeout: .seconds(1)) != nil {
            seen.append(try await second.transceive(Bytes([0x30, 0x04]))[0])
            try await second.deselect()
        }
        #expect(seen == [1, 2, 3])
    }

    @Test("ndef= delivers NTAG21x tags with the message in an NDEF TLV", arguments: [
        (NTAG21xTag.Model.ntag213, 21), (.ntag215, 16), (.ntag216, 16),
    ])
    func ndefPreloadNTAG(model: NTAG21xTag.Model, tlvOffset: Int) throws {
        let field = try SimulatorConfiguration(parsing: "sim:\(model.rawValue)?ndef=D1010154").makeField()
        let tag = try #require(field.currentTag as? NTAG21xTag)
        #expect(Array(tag.memory[tlvOffset..<(tlvOffset + 7)]) == [0x03, 0x04, 0xD1, 0x01, 0x01, 0x54, 0xFE])
    }

    @Test("a long message gets a 3-byte TLV length")
    func ndefPreloadLong() throws {
        let message = [UInt8](repeating: 0xAB, count: 300)
        let tag = NTAG21xTag(.ntag215, uid: sampleUID7)
        #expect(tag.setNDEFMessage(message))
        #expect(Array(tag.memory[16..<20]) == [0x03, 0xFF, 0x01, 0x2C])
        #expect(tag.memory[20 + 300] == 0xFE)
        #expect(!NTAG21xTag(.ntag213, uid: sampleUID7).setNDEFMessage(message))
    }

    @Test("ndef= on a read-only Type 4 tag: the message is there, writes are refused")
    func ndefPreloadType4() async throws {
        let r = try SimulatorConfiguration.makeReader("sim:type4?ndef=D1010154&read-only&poll-wait=0")
        _ = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
        _ = try await r.transceive(Bytes([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]))
        _ = try await r.transceive(Bytes([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04]))
        #expect(try await r.transceive(Bytes([0x00, 0xB0, 0x00, 0x00, 0x06])) == Bytes([0x00, 0x04, 0xD1, 0x01, 0x01, 0x54, 0x90, 0x00]))
        #expect(try await r.transceive(Bytes([0x00, 0xD6, 0x00, 0x00, 0x01, 0x00])) == Bytes([0x69, 0x82]))
    }

    @Test("ndef= fails when the model cannot hold it", arguments: [
        "sim:ultralight?ndef=D1010154", "sim:ntag213?ndef=\(String(repeating: "AB", count: 200))",
        "sim:type4?ndef-size=8&ndef=D101015400000000",
    ])
    func ndefPreloadRefused(string: String) {
        do {
            _ = try SimulatorConfiguration.makeReader(string)
            Issue.record("\(string) opened")
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }

    @Test("a tag file of another model is refused")
    func tagFileModelMismatch() throws {
        let path = temporaryTagFilePath()
        _ = try SimulatorConfiguration.makeReader("sim:ntag213?file=\(path)")
        do {
            _ = try SimulatorConfiguration.makeReader("sim:ntag215?file=\(path)")
            Issue.record("opened a mismatched file")
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }

    @Test("a missing tag file without a model is an io error")
    func missingFileWithoutModel() {
        do {
            _ = try SimulatorConfiguration.makeReader("sim:?file=/nonexistent/tag.json")
            Issue.record("opened")
        } catch {
            #expect(error.code == .io)
        }
    }

    @Test("fault options reach the field")
    func faultsFromString() async throws {
        let r = try SimulatorConfiguration.makeReader("sim:ntag213?rf-error=1")
        _ = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
        let error = await readerError { _ = try await r.transceive(Bytes([0x60])) }
        #expect(error?.code == .rfError)
    }
}
