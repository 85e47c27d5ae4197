import Testing
@testable import NFCToolCore

/// Every command of a tool, found by walking the subcommands from the root.
enum CommandTree {
    /// One command and the names that lead to it.
    struct Node: Sendable, CustomTestStringConvertible {
        let path: [String]
        let command: any ToolCommand.Type
        var testDescription: String { path.joined(separator: " ") }
    }

    static func all(from root: any ToolCommand.Type) -> [Node] {
        var nodes: [Node] = []
        func visit(_ command: any ToolCommand.Type, _ path: [String]) {
            let path = path + [command.configuration.name]
            nodes.append(Node(path: path, command: command))
            for subcommand in command.configuration.subcommands { visit(subcommand, path) }
        }
        visit(root, [])
        return nodes
    }
}

@Suite("nfctool's command declarations", .timeLimit(.minutes(5)))
struct CommandDeclarationTests {
    @Test("names, options and arguments are well formed", arguments: CommandTree.all(from: NFCToolCommand.self))
    func declarationIsWellFormed(_ node: CommandTree.Node) {
        let configuration = node.command.configuration
        #expect(!configuration.abstract.isEmpty)
        #expect(!configuration.name.isEmpty && !configuration.name.hasPrefix("-"))
        let subcommandNames = configuration.subcommands.map { $0.configuration.name }
        #expect(Set(subcommandNames).count == subcommandNames.count, "duplicate subcommand")
        #expect(!subcommandNames.contains("help"), "'help' is the tool's")
        let names = configuration.options.map(\.name)
        #expect(Set(names).count == names.count, "duplicate long name")
        #expect(!names.contains("help") && !names.contains("version"), "built-in long name")
        let shortNames = configuration.options.compactMap(\.shortName)
        #expect(Set(shortNames).count == shortNames.count, "duplicate short name")
        #expect(!shortNames.contains("h"), "-h is the tool's")
        let arguments = configuration.arguments
        #expect(arguments.dropLast().allSatisfy { !$0.isRepeatable }, "only the last argument may repeat")
        let firstOptional = arguments.firstIndex { $0.isOptional } ?? arguments.endIndex
        #expect(arguments[firstOptional...].allSatisfy { $0.isOptional }, "required arguments come first")
        #expect(configuration.subcommands.isEmpty || arguments.isEmpty, "a group takes no arguments")
        #expect((configuration.version != nil) == (node.path.count == 1), "only the root has a version")
    }
}
