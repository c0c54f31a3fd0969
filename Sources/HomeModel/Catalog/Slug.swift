extension HAPCatalog {
    /// Turns a CamelCase type name into snake case: `ColorTemperature` → `color_temperature`,
    /// `VOCDensity` → `voc_density`, `PM2.5Density` → `pm2_5_density`, `Fanv2` → `fanv2`.
    ///
    /// A word starts at an upper-case letter that follows a lower-case letter or a digit, or that ends a
    /// run of capitals before a lower-case letter (the `D` of `VOCDensity`). Every other character than
    /// an ASCII letter or digit becomes a separator; separators never repeat, lead or trail.
    static func snakeCase(_ name: String) -> String {
        let chars = Array(name)
        var out = ""
        var pendingSeparator = false
        for (i, c) in chars.enumerated() {
            guard c.isASCII, c.isLetter || c.isNumber else {
                pendingSeparator = true
                continue
            }
            if c.isUppercase, i > 0 {
                let previous = chars[i - 1]
                let nextIsLower = i + 1 < chars.count && chars[i + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) {
                    pendingSeparator = true
                }
            }
            if pendingSeparator, !out.isEmpty { out.append("_") }
            pendingSeparator = false
            out.append(contentsOf: c.lowercased())
        }
        return out
    }
}
