public import Foundation

/// A PostgreSQL server of its own for a test: a cluster made once per test process with
/// `initdb` (trust authentication, user `postgres`), copied into a temporary directory for each
/// server, started with `pg_ctl` on 127.0.0.1 on a free port (and a Unix socket in its own
/// directory), stopped with ``stop()`` and removed with ``remove()`` — call both in a `defer`
/// so a failing test stops its server too. When the tests run as root the server runs as the
/// `postgres` user (through `setpriv`), as PostgreSQL requires.
///
/// Missing PostgreSQL follows ``ExternalTool``'s policy: use ``tool``'s trait.
///
/// Its steps (making, starting, stopping a server, `psql`) wait for the server's programs with
/// ``runToolSynchronously(_:_:environment:input:timeout:in:mergingStandardError:)``: call them
/// inside ``runBlocking(_:)``, never on the cooperative pool.
public final class PostgreSQLTestServer: @unchecked Sendable {
    /// The directory with `initdb` and `pg_ctl`: `$PG_BINDIR`, else the newest
    /// `/usr/lib/postgresql/N/bin` (Debian's layout), else the one on PATH.
    public static let binDirectory: String? = {
        let fm = FileManager.default
        if let dir = ProcessInfo.processInfo.environment["PG_BINDIR"], fm.isExecutableFile(atPath: dir + "/pg_ctl") { return dir }
        let versions = ((try? fm.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).compactMap(Int.init).sorted()
        for version in versions.reversed() where fm.isExecutableFile(atPath: "/usr/lib/postgresql/\(version)/bin/pg_ctl") {
            return "/usr/lib/postgresql/\(version)/bin"
        }
        return Executables.libnfcTool("pg_ctl").map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
    }()

    /// The server programs as an external tool (Debian package `postgresql`).
    public static let tool: ExternalTool = {
        let path = binDirectory.map { $0 + "/initdb" }
        var obstacle: String?
        if path != nil, getuid() == 0, getpwnam("postgres") == nil { obstacle = "the tests run as root and there is no 'postgres' user to run the server as" }
        if path != nil, getuid() == 0, ExternalTool.setpriv.path == nil { obstacle = "setpriv (util-linux) is missing" }
        return ExternalTool(name: "PostgreSQL server (initdb, pg_ctl)", package: "postgresql", path: path, obstacle: obstacle)
    }()

    /// The server's directory (data, socket, log).
    public let directory: URL
    /// The TCP port on 127.0.0.1.
    public let port: Int
    /// The server's log file.
    public var logPath: String { directory.appendingPathComponent("server.log").path }
    private var dataPath: String { directory.appendingPathComponent("data").path }
    private var running = false

    /// A connection URI for database `database` as user `postgres`.
    public func uri(_ database: String = "postgres") -> String { "postgresql://postgres@127.0.0.1:\(port)/\(database)" }

    /// Makes a server from the process's template cluster and starts it.
    public init() throws {
        _ = try Self.tool.require()
        let template = try Self.template.get()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfckit-pg-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        port = try Self.freePort()
        let copy = try runToolSynchronously("/bin/cp", ["-a", template + "/data", directory.path + "/data"], environment: [:], timeout: 60)
        guard copy.status == 0 else { throw PostgreSQLTestServerError("cannot copy the template cluster: \(copy.output)") }
        try Self.giveToServerUser(directory.path)
        try start()
    }

    /// Starts the server (again) and waits until it accepts connections.
    public func start() throws {
        let options = "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50"
        // At a lower priority (nice 10): the server must not starve the tests running beside it.
        let run = try Self.asServerUser(
            "/usr/bin/nice", ["-n", "10", Self.binDirectory! + "/pg_ctl", "-D", dataPath, "-l", logPath, "-w", "-t", "60", "-o", options, "start"],
            timeout: 90)
        guard run.status == 0 else {
            throw PostgreSQLTestServerError("pg_ctl start failed (\(run.status)): \(run.output) \((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")")
        }
        running = true
    }

    /// Stops the server (fast shutdown: connections are closed), waiting until it is down.
    public func stop() {
        guard running else { return }
        _ = try? Self.asServerUser(Self.binDirectory! + "/pg_ctl", ["-D", dataPath, "-m", "fast", "-w", "-t", "60", "stop"], timeout: 90)
        running = false
    }

    /// Stops the server if it runs and removes its directory.
    public func remove() {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { remove() }

    /// Creates database `name` (with `psql`, the server's own client, when present; else through
    /// `postgres`' single-user-free path: `createdb`).
    public func createDatabase(_ name: String) throws -> String {
        let run = try runToolSynchronously(Self.binDirectory! + "/createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name],
                              environment: ProcessInfo.processInfo.environment, timeout: 30)
        guard run.status == 0 else { throw PostgreSQLTestServerError("createdb \(name): \(run.output)") }
        return uri(name)
    }

    /// Runs `sql` with `psql` (an independent client) on `database`; returns the unaligned
    /// output (`|`-separated columns, one row a line, no header).
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let psql = FileManager.default.isExecutableFile(atPath: Self.binDirectory! + "/psql") ? Self.binDirectory! + "/psql" : "/usr/bin/psql"
        let run = try runToolSynchronously(psql, ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", uri(database), "-c", sql],
                              environment: ProcessInfo.processInfo.environment, timeout: 60)
        guard run.status == 0 else { throw PostgreSQLTestServerError("psql: \(run.output)") }
        return run.output
    }

    // MARK: - Template, port, user

    /// The cluster made once per test process.
    static let template: Result<String, PostgreSQLTestServerError> = {
        do {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfckit-pg-template-\(getpid())", isDirectory: true)
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            try giveToServerUser(directory.path)
            templatePath.withLock { $0 = directory.path }
            atexit { if let path = templatePath.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) } }
            let run = try asServerUser(
                binDirectory! + "/initdb", ["-D", directory.path + "/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"],
                timeout: 120)
            guard run.status == 0 else { return .failure(PostgreSQLTestServerError("initdb failed: \(run.output)")) }
            return .success(directory.path)
        } catch let error as PostgreSQLTestServerError {
            return .failure(error)
        } catch {
            return .failure(PostgreSQLTestServerError("\(error)"))
        }
    }()

    private static let templatePath = Locked<String?>(nil)

    /// A TCP port on 127.0.0.1 nobody listens on now (bound to port 0, read, closed).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PostgreSQLTestServerError("socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw PostgreSQLTestServerError("cannot find a free port: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Hands `path` (recursively) to the `postgres` user when the tests run as root.
    static func giveToServerUser(_ path: String) throws {
        guard getuid() == 0 else { return }
        let run = try runToolSynchronously("/bin/chown", ["-R", "postgres:postgres", path], environment: [:], timeout: 60)
        guard run.status == 0 else { throw PostgreSQLTestServerError("chown: \(run.output)") }
    }

    /// Runs a server program as `postgres` when root (setpriv), else as ourselves.
    static func asServerUser(_ program: String, _ arguments: [String], timeout: Double) throws -> ToolRun {
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        guard getuid() == 0 else { return try runToolSynchronously(program, arguments, environment: environment, timeout: timeout) }
        guard let user = getpwnam("postgres") else { throw PostgreSQLTestServerError("no 'postgres' user") }
        environment["HOME"] = String(cString: user.pointee.pw_dir)
        return try runToolSynchronously(
            try ExternalTool.setpriv.require(),
            ["--reuid=\(user.pointee.pw_uid)", "--regid=\(user.pointee.pw_gid)", "--init-groups", program] + arguments,
            environment: environment, timeout: timeout, in: URL(fileURLWithPath: "/"))
    }
}

/// A test server could not be made, started or used.
public struct PostgreSQLTestServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
