import Web

extension LogFeed {
    /// The program's recent log lines for the web page: every line the program's log sink writes
    /// (`LogLineWriter.sink`) at `info` and above.
    static let program = LogFeed()
}
