import Foundation
import NFCTestSupport
import Testing

/// `nfctool batch` on NTAG 424 DNA chips with per-tag keys diversified (AN10922) from master
/// keys, judged from the other side: a stack of three virtual chips, each in its own tag file;
/// the ledger read back by Python's sqlite3 and its file's raw bytes searched for every key; each
/// chip's keys (read from its tag file) recomputed by a Python oracle that runs AN10922's steps
/// with the `openssl enc` command-line tool; each chip's URL read by a fresh `nfctool read` and
/// checked by `nfctool sun verify` with the master-keys file, and refused with another chip's
/// key.
@Suite("nfctool batch: NTAG 424 DNA with AN10922-diversified keys, ledger without keys", .tags(.endToEnd), .timeLimit(.minutes(5)))
struct BatchNTAG424Tests {
    static let key0Master = "00112233445566778899AABBCCDDEEFF"
    static let fileReadMaster = "1112131415161718191A1B1C1D1E1F20"
    static let metaRead = "0102030405060708090A0B0C0D0E0F10"
    static let systemIdentifier = "4E46434B6974"  // "NFCKit"
    static let keysText = """
        # masters of the w49 stickers
        key0Master = \(key0Master)
        sdmFileReadMaster = \(fileReadMaster)
        sdmMetaRead = \(metaRead)
        systemIdentifier = \(systemIdentifier)

        """
    static let template = "https://ex.io/t?e={sun:picc}&c={sun:mac}"
    static let uids = ["0453494D000001", "0453494D000002", "0453494D000003"]

    /// AN10922 AES-128 diversification step by step (K0 = AES-ECB(K, 0); K1, K2 by doubling;
    /// `01 ‖ M` padded to two blocks, K2 or K1 XORed into the last; the last block of AES-CBC),
    /// every AES operation done by `openssl enc`; and the fingerprint (`openssl mac … CMAC` of a
    /// zero block). Arguments: master-key hex, then input hex; prints the key, then the master's
    /// fingerprint.
    static let oracle = """
        import subprocess, sys
        def enc(mode, key, data, iv=None):
            args = ['openssl', 'enc', '-' + mode, '-nopad', '-K', key] + (['-iv', iv] if iv else [])
            return subprocess.run(args, input=data, capture_output=True, check=True).stdout
        def double(block):
            n = int.from_bytes(block, 'big') << 1
            if n >> 128: n = (n ^ 0x87) & ((1 << 128) - 1)
            return n.to_bytes(16, 'big')
        master, m = sys.argv[1], sys.argv[2]
        k0 = enc('aes-128-ecb', master, bytes(16)); k1 = double(k0); k2 = double(k1)
        d = bytes([1]) + bytes.fromhex(m)
        if len(d) < 32: d, sub = d + b'\\x80' + bytes(31 - len(d)), k2
        else: sub = k1
        d = d[:16] + bytes(a ^ b for a, b in zip(d[16:], sub))
        print(enc('aes-128-cbc', master, d, '00' * 16)[16:32].hex().upper())
        mac = subprocess.run(['openssl', 'mac', '-cipher', 'AES-128-CBC', '-macopt', 'hexkey:' + master, 'CMAC'],
                             input=bytes(16), capture_output=True, check=True).stdout.decode().strip()
        print(mac[:8].upper())
        """

    /// The oracle's diversified key and master fingerprint.
    static func oracle(master: String, input: String) async throws -> (key: String, fingerprint: String) {
        _ = try OpenSSLTestKey.tool.require()
        let run = try await runPython(oracle, [master, input])
        #expect(run.status == 0)
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "oracle output: \(run.standardOutput)")
        return (lines[0], lines[1])
    }

    /// The oracle agrees with AN10922's published example before it judges anything.
    @Test("the openssl-based oracle gives AN10922 Table 2's diversified key")
    func oracleMatchesPublishedExample() async throws {
        let result = try await Self.oracle(master: "00112233445566778899AABBCCDDEEFF", input: "04782E21801D803042F54E585020416275")
        #expect(result.key == "A8DD63A3B89D54B37CA802473FDA9175")
    }

    @Test("a batch of three virtual NTAG 424 DNA: keys per tag = AN10922 by openssl, ledger holds fingerprints only, URLs verify with the master file")
    func batchOfThree() async throws {
        let directory = try temporaryDirectory()
        let keys = directory.appendingPathComponent("masters.keys").path
        try Data(Self.keysText.utf8).write(to: URL(fileURLWithPath: keys))
        let tags = directory.appendingPathComponent("tags").path
        let ledger = directory.appendingPathComponent("run.db").path
        let batch = try await runBuiltNFCTool([
            "batch", "--device", "sim:ntag424*3?dir=\(tags)", "--url", Self.template, "--ntag424-keys", keys,
            "--ledger", ledger, "--count", "3", "--timeout", "10", "--json",
        ])
        #expect(batch.status == 0, "\(batch.standardError)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(batch.standardOutput.utf8)) as? [String: Any])
        #expect(summary["done"] as? Int == 3)

        // Every key, master and derived, in hex (both cases) and in binary.
        var secrets = [Self.key0Master, Self.fileReadMaster, Self.metaRead]
        var tagKeys: [String: (key0: String, fileRead: String)] = [:]
        let key0Oracle = try await Self.oracle(master: Self.key0Master, input: Self.uids[0] + Self.systemIdentifier)
        let fileReadOracle = try await Self.oracle(master: Self.fileReadMaster, input: Self.uids[0] + Self.systemIdentifier)
        for uid in Self.uids {
            let state = try String(contentsOfFile: "\(tags)/\(uid.lowercased()).json", encoding: .utf8)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(state.utf8)) as? [String: Any])
            let attributes = try #require(object["attributes"] as? [String: String])
            let key0 = try await Self.oracle(master: Self.key0Master, input: uid + Self.systemIdentifier).key
            let fileRead = try await Self.oracle(master: Self.fileReadMaster, input: uid + Self.systemIdentifier).key
            #expect(attributes["key0"]?.uppercased() == key0, "key0 of \(uid)")
            #expect(attributes["key1"]?.uppercased() == fileRead, "SDMFileRead (key 1) of \(uid)")
            #expect(attributes["key2"]?.uppercased() == Self.metaRead, "SDMMetaRead (key 2) of \(uid) is the shared key")
            #expect(attributes["keyVersions"] == "0101010000")
            secrets += [key0, fileRead]
            tagKeys[uid] = (key0, fileRead)
        }
        #expect(Set(tagKeys.values.map(\.key0)).count == 3 && Set(tagKeys.values.map(\.fileRead)).count == 3)

        // The ledger's raw bytes hold none of them; Python's sqlite3 reads the fingerprints.
        let raw = try Data(contentsOf: URL(fileURLWithPath: ledger))
        for secret in secrets {
            for needle in [Data(secret.uppercased().utf8), Data(secret.lowercased().utf8), Data(hexBytes(secret).array)] {
                #expect(raw.range(of: needle) == nil, "the ledger holds a key")
            }
        }
        let read = try await runPython(
            "import sqlite3, sys, json\nrows = sqlite3.connect(sys.argv[1]).execute('SELECT uid, status, verified, summary FROM attempts ORDER BY uid').fetchall()\nprint(json.dumps(rows))",
            [ledger])
        #expect(read.status == 0)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(read.standardOutput.utf8)) as? [[Any]])
        #expect(rows.map { $0[0] as? String } == Self.uids)
        let metaFingerprint = try await Self.oracle(master: Self.metaRead, input: "00").fingerprint
        for row in rows {
            #expect(row[1] as? String == "done")
            #expect(row[2] as? Int == 1)
            let text = try #require(row[3] as? String)
            #expect(text.contains("AN10922(UID‖\(Self.systemIdentifier)) v1"), "\(text)")
            #expect(text.contains("key0 master \(key0Oracle.fingerprint)"), "\(text)")
            #expect(text.contains("sdmFileRead master \(fileReadOracle.fingerprint)"), "\(text)")
            #expect(text.contains("sdmMetaRead shared \(metaFingerprint)"), "\(text)")
        }

        // Each chip's URL, read by a new process, verifies with the master file and not with
        // another chip's SDMFileRead key.
        for (index, uid) in Self.uids.enumerated() {
            let tagFile = "\(tags)/\(uid.lowercased()).json"
            let readRun = try await runBuiltNFCTool(["read", "--device", "sim:?file=\(tagFile)", "--json"])
            #expect(readRun.status == 0, "\(readRun.standardError)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(readRun.standardOutput.utf8)) as? [String: Any])
            let url = try #require(((object["records"] as? [[String: Any]])?.first)?["uri"] as? String)
            let verify = try await runBuiltNFCTool(["sun", "verify", "--json", "--keys", keys, url])
            #expect(verify.status == 0, "\(verify.standardOutput)\(verify.standardError)")
            let tap = try #require(try JSONSerialization.jsonObject(with: Data(verify.standardOutput.utf8)) as? [String: Any])
            #expect(tap["uid"] as? String == uid)
            // Its own diversified key, given plainly, verifies too; the next chip's does not.
            let own = try #require(tagKeys[uid]).fileRead
            let other = try #require(tagKeys[Self.uids[(index + 1) % 3]]).fileRead
            let ownRun = try await runBuiltNFCTool(["sun", "verify", url], environment: ["NFCTOOL_SUN_KEYS": "sdmMetaRead=\(Self.metaRead);sdmFileRead=\(own)"])
            #expect(ownRun.status == 0, "\(ownRun.standardError)")
            let otherRun = try await runBuiltNFCTool(["sun", "verify", url], environment: ["NFCTOOL_SUN_KEYS": "sdmMetaRead=\(Self.metaRead);sdmFileRead=\(other)"])
            #expect(otherRun.status == 8, "\(otherRun.standardError)")
            // The master file with another system identifier derives other keys: refused.
            let wrongSystem = Self.keysText.replacingOccurrences(of: Self.systemIdentifier, with: "4E46434B6975")
            let wrongRun = try await runBuiltNFCTool(["sun", "verify", url], environment: ["NFCTOOL_SUN_KEYS": wrongSystem])
            #expect(wrongRun.status == 8, "\(wrongRun.standardError)")
            for run in [verify, ownRun, otherRun, wrongRun, readRun] {
                let all = (run.standardOutput + run.standardError).uppercased()
                #expect(secrets.allSatisfy { !all.contains($0) })
            }
        }
        let all = (batch.standardOutput + batch.standardError).uppercased()
        #expect(secrets.allSatisfy { !all.contains($0) })
    }

    @Test("--plan lists the commands with keys masked and the ledger's key identifiers; sends nothing, makes no tag file")
    func plan() async throws {
        let directory = try temporaryDirectory()
        let tags = directory.appendingPathComponent("tags").path
        let plan = try await runBuiltNFCTool(
            ["batch", "--device", "sim:ntag424*3?dir=\(tags)", "--url", Self.template, "--ledger", directory.appendingPathComponent("l.db").path, "--plan"],
            environment: ["NFCTOOL_NTAG424_KEYS": Self.keysText.replacingOccurrences(of: "\n", with: ";")])
        #expect(plan.status == 0, "\(plan.standardError)")
        #expect(plan.standardOutput.contains("ChangeKey: key 1 ← sdmFileRead ••••"))
        #expect(plan.standardOutput.contains("AN10922(UID‖\(Self.systemIdentifier))"))
        #expect(!FileManager.default.fileExists(atPath: tags))
        let all = (plan.standardOutput + plan.standardError).uppercased()
        #expect([Self.key0Master, Self.fileReadMaster, Self.metaRead].allSatisfy { !all.contains($0) })
    }

    @Test("refused before any reader: plain keys (no master), a diversified sdmMetaRead, --lock, no keys at all")
    func refusals() async throws {
        let directory = try temporaryDirectory()
        let tags = directory.appendingPathComponent("tags").path
        func batch(_ keysText: String?, _ extra: [String] = []) async throws -> ToolRun {
            try await runBuiltNFCTool(
                ["batch", "--device", "sim:ntag424*3?dir=\(tags)", "--url", Self.template, "--ledger", directory.appendingPathComponent("l.db").path] + extra,
                environment: keysText.map { ["NFCTOOL_NTAG424_KEYS": $0] } ?? [:])
        }
        let plain = try await batch("key0=\(Self.key0Master);sdmFileRead=\(Self.fileReadMaster);sdmMetaRead=\(Self.metaRead)")
        #expect(plain.status == 65 && plain.standardError.contains("master keys"), "\(plain.standardError)")
        let metaMaster = try await batch("key0Master=\(Self.key0Master);sdmFileReadMaster=\(Self.fileReadMaster);sdmMetaReadMaster=\(Self.metaRead)")
        #expect(metaMaster.status == 65 && metaMaster.standardError.contains("cannot be diversified"), "\(metaMaster.standardError)")
        let sameMaster = try await batch("key0Master=\(Self.key0Master);sdmFileReadMaster=\(Self.key0Master);sdmMetaRead=\(Self.metaRead)")
        #expect(sameMaster.status == 65, "\(sameMaster.standardError)")
        let lock = try await batch(Self.keysText.replacingOccurrences(of: "\n", with: ";"), ["--lock", "--yes"])
        #expect(lock.status == 64, "\(lock.standardError)")
        let none = try await batch(nil)
        #expect(none.status == 64 && none.standardError.contains("--ntag424-keys"), "\(none.standardError)")
        #expect(!FileManager.default.fileExists(atPath: tags))
        for run in [plain, metaMaster, sameMaster, lock] {
            let all = (run.standardOutput + run.standardError).uppercased()
            #expect([Self.key0Master, Self.fileReadMaster, Self.metaRead].allSatisfy { !all.contains($0) })
        }
    }

    @Test("a chip set up already (its key 0 no longer the factory's) fails with 91 AE, recorded as failed; the ledger still holds no key")
    func alreadySetUp() async throws {
        let directory = try temporaryDirectory()
        let keys = directory.appendingPathComponent("masters.keys").path
        try Data(Self.keysText.utf8).write(to: URL(fileURLWithPath: keys))
        let tagFile = directory.appendingPathComponent("one.json").path
        let ledger = directory.appendingPathComponent("run.db").path
        let arguments = ["batch", "--url", Self.template, "--ntag424-keys", keys, "--ledger", ledger, "--count", "1", "--timeout", "3"]
        let first = try await runBuiltNFCTool(arguments + ["--device", "sim:ntag424?file=\(tagFile)"])
        #expect(first.status == 0, "\(first.standardError)")
        let second = try await runBuiltNFCTool(arguments + ["--device", "sim:ntag424?file=\(tagFile)&hand-out=deselect", "--allow-rewrite", "--max-failures", "1"])
        #expect(second.status == 1, "\(second.standardError)")
        #expect(second.standardError.contains("91 AE"), "\(second.standardError)")
        let read = try await runPython(
            "import sqlite3, sys\nfor row in sqlite3.connect(sys.argv[1]).execute('SELECT status, error FROM attempts ORDER BY id'): print(row[0], row[1])",
            [ledger])
        let lines = read.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0].hasPrefix("done") && lines[1].hasPrefix("failed") && lines[1].contains("91 AE"), "\(read.standardOutput)")
        let key0 = try await Self.oracle(master: Self.key0Master, input: Self.uids[0] + Self.systemIdentifier).key
        let raw = try Data(contentsOf: URL(fileURLWithPath: ledger))
        for secret in [Self.key0Master, Self.fileReadMaster, Self.metaRead, key0] {
            #expect(raw.range(of: Data(secret.utf8)) == nil && raw.range(of: Data(secret.lowercased().utf8)) == nil && raw.range(of: Data(hexBytes(secret).array)) == nil)
        }
    }
}
