import Foundation
import NFCTestSupport
import Testing

/// nfctool starts without loading what only some commands need (docs/benchmarks.md, "Cold
/// start"): libpq, with its Kerberos/LDAP chain, is loaded with dlopen when a PostgreSQL ledger
/// is opened, SQLite when a SQLite ledger is, libcrypto on the first cryptographic call, libnfc
/// (with libusb) and pcsc-lite when a reader is listed or opened; none is a NEEDED entry of the
/// binary, and a command that needs none (`ndef decode`) never loads them.
@Suite("nfctool's start loads no library only some commands need", .tags(.endToEnd, .postgres), .timeLimit(.minutes(2)))
struct ColdStartTests {
    /// The libraries nfctool loads with dlopen, each when a command first needs it.
    static let loadedOnDemand = ["libpq.so", "libcrypto.so", "libsqlite3.so", "libnfc.so", "libusb", "libpcsclite.so"]

    @Test("readelf -d: no library nfctool loads with dlopen (libpq, libcrypto, SQLite, libnfc, pcsc-lite) is among its NEEDED libraries")
    func notNeeded() async throws {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built").path
        let readelf = try #require(Executables.libnfcTool("readelf"), "readelf (binutils) is not installed")
        let run = try await runTool(readelf, ["-d", tool], environment: ["LC_ALL": "C"], timeout: 30)
        #expect(run.status == 0, "readelf failed: \(run.output)")
        let needed = run.output.split(separator: "\n").filter { $0.contains("(NEEDED)") }.map(String.init)
        #expect(needed.contains { $0.contains("libc.so") }, "readelf listed no NEEDED entries: \(run.output)")
        for library in Self.loadedOnDemand {
            #expect(!needed.contains { $0.contains(library) }, "nfctool links \(library): \(needed)")
        }
    }

    @Test("ndef decode loads no libpq, libcrypto, SQLite, libnfc, libusb nor pcsc-lite (LD_DEBUG=files), a PostgreSQL ledger loads libpq (and reaches the server)")
    func loadedWhenALedgerOpens() async throws {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built").path
        let environment = ProcessInfo.processInfo.environment.merging(["LD_DEBUG": "files"]) { $1 }
        let decode = try await runTool(tool, ["ndef", "decode", "d1010c55046578616d706c652e636f6d"], environment: environment, timeout: 30)
        #expect(decode.status == 0 && decode.output.contains("https://example.com"), "\(decode.output)")
        #expect(decode.output.contains("file=libc.so.6"), "LD_DEBUG=files said nothing: \(decode.output)")
        for library in Self.loadedOnDemand {
            #expect(!decode.output.contains(library), "ndef decode loaded \(library)")
        }

        // Nobody listens on port 1: libpq is loaded, tries the server and says it cannot connect.
        let stats = try await runTool(tool, ["ledger", "stats", "--ledger", "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2"],
                        environment: environment, timeout: 30)
        #expect(stats.status != 0)
        #expect(stats.output.contains("file=libpq.so.5"), "libpq was not loaded: \(stats.output)")
        #expect(stats.output.contains("cannot connect to postgresql://nobody@127.0.0.1:1/none"), "\(stats.output)")
    }

    @Test("sun verify loads libcrypto (LD_DEBUG=files) and checks AN12196's example URL with it")
    func libcryptoLoadedForCryptography() async throws {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built").path
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "files"
        let zero = String(repeating: "0", count: 32)
        environment["NFCTOOL_SUN_KEYS"] = "sdmMetaRead=\(zero);sdmFileRead=\(zero)"
        let url = "https://choose.url.com/ntag424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"
        let verify = try await runTool(tool, ["sun", "verify", url], environment: environment, timeout: 30)
        #expect(verify.status == 0, "\(verify.output)")
        #expect(verify.output.contains("file=libcrypto.so.3"), "libcrypto was not loaded: \(verify.output)")
    }

    @Test("a SQLite ledger loads SQLite (LD_DEBUG=files): ledger stats on a file that is no database says so")
    func sqliteLoadedWhenALedgerOpens() async throws {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built").path
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "files"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coldstart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("ledger.sqlite").path
        try Data("not a database, a line of text\n".utf8).write(to: URL(fileURLWithPath: path))
        let stats = try await runTool(tool, ["ledger", "stats", "--ledger", path], environment: environment, timeout: 30)
        #expect(stats.status != 0)
        #expect(stats.output.contains("file=libsqlite3.so.0"), "SQLite was not loaded: \(stats.output)")
        #expect(stats.output.contains("ledger \(path): file is not a database"), "\(stats.output)")
    }

    @Test("devices loads libnfc and pcsc-lite (LD_DEBUG=files) and still lists libnfc's version")
    func readerLibrariesLoadedWhenListing() async throws {
        let tool = try Executables.nfctool()
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "files"
        // No pcscd behind this socket: pcsc-lite is loaded, then says the service is not there.
        environment["PCSCLITE_CSOCK_NAME"] = "/nonexistent/nfckit-coldstart.comm"
        let devices = try await runTool(tool, ["devices"], environment: environment, timeout: 30)
        #expect(devices.output.contains("file=libnfc.so.6"), "libnfc was not loaded: \(devices.output)")
        #expect(devices.output.contains("file=libpcsclite.so.1"), "pcsc-lite was not loaded: \(devices.output)")
        #expect(devices.output.contains("(libnfc 1.8"), "\(devices.output)")
    }
}
