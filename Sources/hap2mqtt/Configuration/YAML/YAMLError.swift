/// A YAML text could not be read into a node tree.
///
/// Prints as one line, `SOURCE:LINE:COLUMN: YAML syntax error: PROBLEM`, where PROBLEM is libyaml's own
/// problem text (with its context, e.g. `while scanning a simple key`) or one of the reader's limits.
struct YAMLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file name or other name of the text (an environment variable's name).
    var source: String
    /// Where the problem is.
    var mark: YAMLMark
    /// What is wrong, in libyaml's words or the reader's.
    var problem: String

    var description: String { "\(source):\(mark): YAML syntax error: \(problem)" }
}
