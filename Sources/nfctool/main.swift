// nfctool: everything happens in NFCToolCore; this only connects it to the process.
import Foundation
import NFCToolCore

// Termination signals reach this program whatever its parent blocked (a test runner does).
unblockTerminationSignals()
// A reader that leaves a pipe or FIFO (--trace FIFO, standard output) makes writes fail with
// EPIPE, reported as any failed write is, instead of SIGPIPE killing nfctool with no word.
catchBrokenPipes()

let status = await runTool(
    argumentBytes: CommandLineTool.processArgumentBytes,
    environment: ProcessInfo.processInfo.environment,
    io: StandardIO()
)
exit(status.rawValue)
