import Testing

@testable import hap2mqtt

@Suite("Help text")
struct HelpTextTests {
    /// The end of every command's help.
    static let globals = """
        GLOBAL OPTIONS:
          --config PATH         The configuration file (default: Config/hap2mqtt.yaml).
          --log-level LEVEL     trace, debug, info, notice, warning or error; overrides log_level.
          -h, --help            Show help; hap2mqtt <command> --help shows a command's.

        """

    @Test("hap2mqtt --help lists the commands and the global options")
    func overview() {
        #expect(
            HelpText.overview == """
                OVERVIEW: A HomeKit controller (HAP over IP) that maps accessories to MQTT and back.

                USAGE: hap2mqtt [--config PATH] [--log-level LEVEL] <command> [options]

                COMMANDS:
                  run                   Run the gateway: connect to the paired accessories and the MQTT broker.
                  pair                  Pair with a HomeKit accessory and keep the pairing in the state directory.
                  unpair                Remove a pairing from the accessory and the state directory.
                  pairings              List, add or remove the controllers paired with an accessory.
                  accessories           List the paired accessories with their services and characteristics.
                  healthcheck           Say whether the running gateway is connected and synced (exit status 0) or not (1).
                  discover              List the HomeKit accessories on the network (DNS-SD through the Avahi daemon).
                  backup                Write the pairings and the controller identity to an encrypted archive.
                  restore               Bring the pairings back from an archive of hap2mqtt backup.
                  import                Take over the accessories Home Assistant's HomeKit Controller or aiohomekit paired.
                  export                Write the pairings as a pairing file aiohomekit can use.

                OPTIONS:
                  --config PATH         The configuration file (default: Config/hap2mqtt.yaml).
                  --log-level LEVEL     trace, debug, info, notice, warning or error; overrides log_level.
                  --version             Print the version and the commit built from, and exit.
                  -h, --help            Show help; hap2mqtt <command> --help shows a command's.

                See hap2mqtt <command> --help for a command's options.

                """)
    }

    @Test("hap2mqtt pair --help shows the required and optional options")
    func pair() {
        #expect(
            HelpText.forCommand(named: "pair") == """
                OVERVIEW: Pair with a HomeKit accessory and keep the pairing in the state directory.

                The accessory must not be paired with another controller (reset it, or remove it from the Home
                app first). With --id (hap2mqtt discover lists the ids) its address and port are what it
                announces on the network; --host and --port, when given, are used instead.

                Give the setup code with --code-file or --code - (standard input), or type it when asked (it is
                not shown): --code XXX-XX-XXX leaves it visible to every user of the machine in 'ps' while
                pairing runs, and in the shell's history.

                USAGE: hap2mqtt pair [--id ID] [--host H] [--port P] [--code-file PATH] [--code XXX-XX-XXX] [--name N] [--config PATH] [--log-level LEVEL]

                OPTIONS:
                  --id ID               The accessory's id XX:XX:XX:XX:XX:XX, as hap2mqtt discover lists it.
                  --host H              The accessory's host name or IP address (needed without --id).
                  --port P              The accessory's HAP port, 1 to 65535 (needed without --id).
                  --code-file PATH      Read the setup code from the first line of this file.
                  --code XXX-XX-XXX     The setup code; '-' reads it from standard input (without either, it is asked for).
                  --name N              A name for the pairing (default: the accessory's name).


                """ + Self.globals)
    }

    @Test("hap2mqtt unpair --help shows its argument and its flag")
    func unpair() {
        #expect(
            HelpText.forCommand(named: "unpair") == """
                OVERVIEW: Remove a pairing from the accessory and the state directory.

                When the accessory cannot be reached the pairing is kept, so that unpair can be run again once
                the accessory is back; --force forgets it here anyway (the accessory must then be reset before
                another controller can pair with it).

                USAGE: hap2mqtt unpair [--force] NAME|ID [--config PATH] [--log-level LEVEL]

                ARGUMENTS:
                  NAME|ID               The pairing's name or id, as hap2mqtt accessories lists it.

                OPTIONS:
                  --force               Forget the pairing here even when the accessory cannot be told.


                """ + Self.globals)
    }

    @Test("hap2mqtt pairings --help shows its argument and its options")
    func pairings() {
        #expect(
            HelpText.forCommand(named: "pairings") == """
                OVERVIEW: List, add or remove the controllers paired with an accessory.

                Without --add or --remove, lists the controllers the accessory holds, with their public keys
                and whether each is an admin. --add gives another controller (a standby gateway, another home
                hub) a pairing of its own with the accessory; --remove takes one away. This gateway's own
                pairing is removed with unpair, which also forgets it here. Only an admin may do any of this;
                the accessory's own answer is printed.

                USAGE: hap2mqtt pairings [--add PAIRING_ID] [--key KEY] [--admin] [--remove PAIRING_ID] NAME|ID [--config PATH] [--log-level LEVEL]

                ARGUMENTS:
                  NAME|ID               The pairing's name or id, as hap2mqtt accessories lists it.

                OPTIONS:
                  --add PAIRING_ID      Add the controller with this pairing id (needs --key).
                  --key KEY             The controller's Ed25519 public key: 32 bytes as 64 hex digits or base64.
                  --admin               Make the controller added an admin (it may manage pairings too).
                  --remove PAIRING_ID   Remove the controller with this pairing id.


                """ + Self.globals)
    }

    @Test("hap2mqtt run, accessories and discover --help")
    func others() {
        #expect(
            HelpText.forCommand(named: "run") == """
                OVERVIEW: Run the gateway: connect to the paired accessories and the MQTT broker.

                Runs until SIGINT or SIGTERM, then publishes the bridge as offline and disconnects.

                USAGE: hap2mqtt run [--config PATH] [--log-level LEVEL]


                """ + Self.globals)
        #expect(
            HelpText.forCommand(named: "accessories") == """
                OVERVIEW: List the paired accessories with their services and characteristics.

                USAGE: hap2mqtt accessories [--config PATH] [--log-level LEVEL]


                """ + Self.globals)
        #expect(
            HelpText.forCommand(named: "discover") == """
                OVERVIEW: List the HomeKit accessories on the network (DNS-SD through the Avahi daemon).

                Shows each accessory's name, id, model, category, address, port, configuration and state number
                (c#, s#), and whether it is paired: with this gateway (and under which name), with another
                controller, or not at all (then hap2mqtt pair --id ID pairs it). Needs a running avahi-daemon.

                USAGE: hap2mqtt discover [--timeout SECONDS] [--json] [--config PATH] [--log-level LEVEL]

                OPTIONS:
                  --timeout SECONDS     How long to listen for announcements (default 5, at most 600).
                  --json                One JSON object a line instead of a table.


                """ + Self.globals)
    }
}
