/// A setup code as a user entered it, not yet checked. It never prints: `description` and the debugger
/// show `***-**-***`, so a code that reaches a log line or an error message by mistake is not disclosed
/// (docs/security.md "Setup codes, pairing, names and the state directory").
public struct EnteredSetupCode: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The text as entered; only the backend that runs pair-setup reads it.
    public let reveal: String

    public init(_ text: String) {
        reveal = text
    }

    public var description: String { "***-**-***" }
    public var debugDescription: String { "EnteredSetupCode(***-**-***)" }
    public var customMirror: Mirror { Mirror(self, children: []) }
}

/// What to pair with: `hap2mqtt pair`, `bridge/request/pair` and the web page's form
/// (docs/DESIGN.md "Topics"). An accessory is named by `host` and `port`, or by its device `id` as
/// discovery shows it; `host` and `port`, when given, win over what discovery says.
public struct PairRequest: Sendable {
    /// The accessory's device id, `AA:BB:CC:DD:EE:FF` (its announcement's `id`).
    public var id: String?
    /// The accessory's host name or IP address.
    public var host: String?
    /// The accessory's HAP port; checked to be 1 to 65535.
    public var port: Int?
    /// The setup code; nil is refused with a line that asks for it.
    public var code: EnteredSetupCode?
    /// A name for the pairing; nil for the accessory's own.
    public var name: String?

    public init(id: String? = nil, host: String? = nil, port: Int? = nil, code: EnteredSetupCode?, name: String? = nil)
    {
        self.id = id
        self.host = host
        self.port = port
        self.code = code
        self.name = name
    }

    /// Checks what can be checked without the network.
    /// - Throws: `ManagementError.invalidRequest` for no accessory named (neither `id` nor `host` and
    ///   `port`), an empty host, a port off 1...65535, an empty name or one with control characters, or
    ///   no setup code.
    public func validate() throws(ManagementError) {
        if let host, host.allSatisfy(\.isWhitespace) { throw .invalidRequest("the host must not be empty") }
        if let port, !(1...65535).contains(port) {
            throw .invalidRequest("the port must be a number from 1 to 65535, not \(port)")
        }
        if id == nil, host == nil || port == nil {
            throw .invalidRequest("name the accessory by its id (as discovered), or by its host and port")
        }
        if let id, id.allSatisfy(\.isWhitespace) { throw .invalidRequest("the id must not be empty") }
        if let name, name.allSatisfy(\.isWhitespace) { throw .invalidRequest("the name must not be empty") }
        // A name is printed in lists and logs, one per line.
        if let name, name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .invalidRequest("the name must not contain line breaks or other control characters")
        }
        guard let code, !code.reveal.allSatisfy(\.isWhitespace) else {
            throw .invalidRequest("give the accessory's setup code (XXX-XX-XXX)")
        }
    }
}
