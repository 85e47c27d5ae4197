public import NFCTags
import NFCCore
import LibNFC
import PCSC

extension ReaderConnection {
    /// The largest trace file `replay:FILE` reads: 64 MiB.
    public static let maximumTraceSize = ReaderTrace.maximumFileSize

    /// Opens `replay:FILE`: reads and parses the trace (docs/traces.md).
    /// - Throws: `NFCReaderDeviceError` `invalidArgument` for an empty path or a trace that does
    ///   not parse (its line and offset named), `io` when the file cannot be read.
    static func openReplay(_ parsed: ReaderConnectionString) throws(NFCReaderDeviceError) -> ReplayReader {
        guard let path = parsed.replayPath, !path.isEmpty else {
            throw NFCReaderDeviceError(.invalidArgument, "replay: needs the path of a trace file (replay:FILE)")
        }
        let bytes: [UInt8]
        do {
            bytes = try FileAccess.read(path, limit: maximumTraceSize)
        } catch {
            throw NFCReaderDeviceError(.io, "cannot read the trace \(path): \(error)")
        }
        do {
            return ReplayReader(try ReaderTrace.parse(bytes))
        } catch {
            throw NFCReaderDeviceError(.invalidArgument, "the trace \(path) is not valid: \(error)")
        }
    }

    /// The header of a trace recorded on `reader`: its connection string, name, modulations and
    /// feedback, the libnfc version for a libnfc reader, the PC/SC profile for a PC/SC reader,
    /// the header of the trace played for a replay.
    /// - Parameters:
    ///   - tool: the program and its version (`nfctool 0.1.0`).
    ///   - redacted: whether secrets are redacted (see ``ReaderTraceRedactor``).
    public static func traceHeader(for reader: any NFCReader, tool: String, redacted: Bool) async -> ReaderTraceHeader {
        var header = ReaderTraceHeader(
            tool: tool, connection: await reader.connectionString, reader: await reader.name,
            modulations: await reader.supportedModulations, listsSeveralTargets: reader.listsSeveralTargets,
            feedback: reader.feedback, redacted: redacted)
        switch reader {
        case let libnfc as LibNFCReader:
            if case .success(let version) = LibNFCContext.loadedVersion { header.libnfcVersion = version }
            header.firmware = await libnfc.firmware()
        case let pcsc as PCSCReader:
            header.profile = pcsc.profile.title
        case let replay as ReplayReader:
            let played = replay.trace.header
            header.firmware = played.firmware
            header.profile = played.profile
            header.libnfcVersion = played.libnfcVersion
            header.pcscLiteVersion = played.pcscLiteVersion
        default:
            break
        }
        return header
    }
}
