import PulseConfig

/// `--check-config`: the config was already validated by `RunContext`; print what it holds.
struct CheckConfigMode {
    let context: RunContext

    func run() -> Int32 {
        print("\(context.configPath): OK")
        print(context.configuration.summary())
        return ExitStatus.success
    }
}
