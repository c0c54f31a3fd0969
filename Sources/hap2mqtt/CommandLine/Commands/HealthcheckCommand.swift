/// `hap2mqtt healthcheck`: whether the `hap2mqtt run` using the same state directory is healthy, from the
/// `health.json` it keeps there (`HealthStatus`). The Docker image's `HEALTHCHECK` runs it.
struct HealthcheckCommand: Subcommand {
    static let name = "healthcheck"
    static let abstract = "Say whether the running gateway is connected and synced (exit status 0) or not (1)."
    static let discussion = """
        Reads health.json, which hap2mqtt run keeps fresh in its state directory: healthy when the gateway \
        is connected to the MQTT broker, has synced the home, and wrote the file within the last minute.
        """

    init() {}
    init(_ arguments: ParsedArguments) {}
}
