/// What the command line asks for: the global options and one action.
struct Invocation: Sendable, Hashable {
    /// What to do.
    enum Action: Sendable, Hashable {
        /// `--version`: print `hap2mqtt <version> (commit <commit>)`.
        case version
        /// `--help`/`-h`: print the help of the command named, or the overview for nil.
        case help(command: String?)
        /// Run a command.
        case command(Command)
    }

    var options: GlobalOptions
    var action: Action

    init(options: GlobalOptions = GlobalOptions(), action: Action) {
        self.options = options
        self.action = action
    }
}
