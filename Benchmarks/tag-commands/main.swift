// Prints the "Commands per operation" table (TagCommandCounts); Scripts/bench-commands writes
// it into docs/benchmarks.md, and a test checks the docs against its own count.
import Foundation
import TagCommandCounts

if CommandLine.arguments.contains("--help") {
    print("usage: tag-commands-bench [--trace]   (--trace lists each operation's commands in hex)")
    exit(0)
}
print(commandCountTable(try await measureCommandCounts(printsTrace: CommandLine.arguments.contains("--trace"))))
