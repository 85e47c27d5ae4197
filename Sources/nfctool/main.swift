// nfctool: everything happens in NFCToolCore; this only connects it to the process.
import Foundation
import NFCToolCore

// Termination signals reach this program whatever its parent blocked (a test runner does).
unblockTerminationSignals()

let status = await runTool(
    argumentBytes: CommandLineTool.processArgumentBytes,
    environment: ProcessInfo.processInfo.environment,
    io: StandardIO()
)
exit(status.rawValue)
