/// ArgumentParser records the origin of every value of an array argument in a set that is copied
/// for each value, so parsing n paths costs O(n²): 16,000 paths took 7.5 s before any page was
/// read. `main` hands it the options and the first positional only (so validation still sees that
/// there are inputs) and appends the other positionals itself.
enum PositionalSplit {
    /// Long options that take a value as the next argument. `PositionalSplitTests` checks this
    /// against the options the command declares.
    static let optionsTakingValues: Set<String> = [
        "--allow-networks", "--base-url", "--category", "--config", "--content-type", "--files-from", "--format",
        "--import-sources", "--kind", "--language", "--limit", "--log-format", "--log-level", "--metrics-address",
        "--out-dir", "--source", "--source-language", "--url",
    ]

    /// `parse`: what ArgumentParser sees; `extra`: the positionals after the first, in order.
    static func split(_ arguments: [String]) -> (parse: [String], extra: [String]) {
        var parse: [String] = []
        var extra: [String] = []
        var sawPositional = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                // Everything after the terminator is positional.
                let rest = arguments[index...]
                if !sawPositional, let first = rest.first {
                    parse += ["--", first]
                    extra += rest.dropFirst()
                } else {
                    extra += rest
                }
                break
            }
            if argument.hasPrefix("-") && argument != "-" {
                parse.append(argument)
                if optionsTakingValues.contains(argument), index < arguments.count {
                    parse.append(arguments[index])
                    index += 1
                }
                continue
            }
            if sawPositional {
                extra.append(argument)
            } else {
                sawPositional = true
                parse.append(argument)
            }
        }
        return (parse, extra)
    }
}
