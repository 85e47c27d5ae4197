import Foundation
import NFCTestSupport
import Testing

/// `nfctool info` on a simulated ST25TV02KC-T in fresh processes: the tag file is written here
/// (model, UID, the image of docs/simulator.md — 80 blocks, a lock byte per block, DSFID, AFI,
/// flags — and the `tamper` attribute), not by VirtualTags; the READ CONFIGURATION frame is
/// checked in the trace against the one in ST's community answer "How to get the tamper status
/// of ST25TV02KC RFID chip?" (`22 A0 02` UID least significant byte first `03 06`, answered
/// `00 30 30 63` with the loop closed) and TheKiwil/CheckTamper (`6F` open).
@Suite("ST25TV02KC tamper loop through nfctool info on the simulator", .tags(.endToEnd), .serialized, .timeLimit(.minutes(3)))
struct ST25TVCTamperTests {
    /// UID, most significant byte first: ST (`02`), product code `08`.
    static let uid: [UInt8] = [0xE0, 0x02, 0x08, 0x00, 0x0B, 0x1B, 0x31, 0xE0]

    /// Writes a tag file of an NDEF-formatted ST25TV02KC with the tamper loop `tamper`.
    static func writeTagFile(_ path: String, tamper: String) throws {
        // CC E1 40 MLEN 01 (MLEN = 316 / 8), an empty NDEF TLV, a Terminator; 320 bytes.
        var memory: [UInt8] = [0xE1, 0x40, 0x27, 0x01, 0x03, 0x00, 0xFE]
        memory += [UInt8](repeating: 0, count: 320 - memory.count)
        let image = memory + [UInt8](repeating: 0, count: 80) + [0x00, 0x00, 0x00]
        let json: [String: Any] = [
            "model": "st25tv02kc", "uid": uid.map { String(format: "%02X", $0) }.joined(),
            "memory": image.map { String(format: "%02x", $0) }.joined(), "attributes": ["tamper": tamper],
        ]
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
    }

    /// The trace's exchanges (docs/traces.md): command and answer, hex upper case.
    static func exchanges(_ path: String) throws -> [(command: String, answer: String)] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").dropFirst().compactMap { line in
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard let command = event["command"] as? String else { return nil }
            return (command.uppercased(), ((event["answer"] as? String) ?? "").uppercased())
        }
    }

    /// The `iso15693` object of `info --json`, wherever it is nested.
    static func vicinity(_ object: Any) -> [String: Any]? {
        if let dictionary = object as? [String: Any] {
            if let found = dictionary["iso15693"] as? [String: Any] { return found }
            return dictionary.values.lazy.compactMap(vicinity).first
        }
        if let array = object as? [Any] { return array.lazy.compactMap(vicinity).first }
        return nil
    }

    /// The READ CONFIGURATION of TD_STATUS as ST's community answer shows it.
    static var tdStatusFrame: String {
        "22A002" + uid.reversed().map { String(format: "%02X", $0) }.joined() + "0306"
    }

    @Test("open and closed: a fresh info names the ST25TV02KC and says the loop's state (text and JSON), read with exactly 22 A0 02 <UID> 03 06 and no password", arguments: [
        ("open", "6F"), ("closed", "63"),
    ])
    func tamperLoop(state: String, byte: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("st25tv02kc.json").path
        let trace = directory.appendingPathComponent("info.jsonl").path
        try Self.writeTagFile(file, tamper: state)
        let device = "sim:st25tv02kc?file=\(file)"

        let info = try await runBuiltNFCTool(["info", "--device", device, "--trace", trace])
        #expect(info.status == 0, "\(info.output)")
        #expect(info.standardOutput.contains("ST25TV02KC") && !info.standardOutput.contains("ST25TV02KC or ST25TV512C"), "\(info.standardOutput)")
        #expect(info.standardOutput.contains("tamper loop:  \(state) (TD_STATUS 30 30 \(byte))"), "\(info.standardOutput)")

        let exchanges = try Self.exchanges(trace)
        let reads = exchanges.filter { $0.command.hasPrefix("22A002") && $0.command.hasSuffix("0306") }
        #expect(reads.map(\.command) == [Self.tdStatusFrame], "one READ CONFIGURATION of TD_STATUS, ST's frame: \(exchanges)")
        #expect(reads.map(\.answer) == ["003030" + byte], "\(reads)")
        #expect(!exchanges.contains { $0.command.hasPrefix("22B302") || $0.command.hasPrefix("22B402") }, "no password presented: \(exchanges)")

        let json = try await runBuiltNFCTool(["info", "--device", device, "--json"])
        #expect(json.status == 0, "\(json.output)")
        let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8))
        let vicinity = try #require(Self.vicinity(object), "\(json.standardOutput)")
        #expect(vicinity["tamper"] as? String == state, "\(vicinity)")
        #expect(vicinity["tamperStatus"] as? String == "30 30 \(byte)", "\(vicinity)")
    }

    @Test("an ST25TV02K (no tamper loop): info shows no tamper line or JSON key and sends no READ CONFIGURATION of TD_STATUS")
    func st25tv02kHasNone() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("st25tv02k.json").path
        let trace = directory.appendingPathComponent("info.jsonl").path
        let device = "sim:st25tv02k?file=\(file)"
        let info = try await runBuiltNFCTool(["info", "--device", device, "--trace", trace])
        #expect(info.status == 0 && info.standardOutput.contains("ST25TV02K"), "\(info.output)")
        #expect(!info.standardOutput.lowercased().contains("tamper"), "\(info.standardOutput)")
        #expect(!(try Self.exchanges(trace)).contains { $0.command.hasSuffix("0306") && $0.command.hasPrefix("22A002") })
        let json = try await runBuiltNFCTool(["info", "--device", device, "--json"])
        let vicinity = try #require(Self.vicinity(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8))), "\(json.output)")
        #expect(vicinity["tamper"] == nil && vicinity["tamperStatus"] == nil, "\(vicinity)")
    }
}
