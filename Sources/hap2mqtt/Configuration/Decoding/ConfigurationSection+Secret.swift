extension ConfigurationSection {
    /// A secret given either as text (`key`, `mqtt.password`) or as a file that holds it (`fileKey`,
    /// `mqtt.password_file`; its trailing line breaks dropped). Returns the secret (nil when neither is
    /// set or the text is empty) and the file's path when it came from one.
    /// - Throws: `ConfigurationError` when both are set, or the file cannot be read or is not UTF-8.
    mutating func secret(_ key: String, file fileKey: String) throws(ConfigurationError) -> (
        secret: Secret?, file: String?
    ) {
        var secret = try value(key)?.text().nonEmpty.map(Secret.init)
        let fileValue = value(fileKey)
        let path = try fileValue?.text().nonEmpty
        if let fileValue, let path {
            if secret != nil { throw fileValue.invalid("set together with \(keyPath(key)); use one of them") }
            secret = Secret(try fileValue.secretFileContents(path))
        }
        return (secret, path)
    }
}
