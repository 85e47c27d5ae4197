// nfctool: everything happens in NFCToolCore; this only connects it to the process.
import Foundation
import NFCToolCore

let status = await runTool(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment,
    io: StandardIO()
)
exit(status.rawValue)
