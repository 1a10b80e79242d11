import AddressPolicy
import Yams

/// The `websub:` section. Strict like the others: unknown keys, a callback that a hub could not
/// call, a listen address that needs DNS and out-of-range numbers are all reported with the line.
extension ConfigParser {
    static let webSubKeys = ["enabled", "callback_url", "listen", "lease_seconds", "subscribed_poll_hours", "allow_http_hubs"]

    func parseWebSub(_ node: Node, schedule: ScheduleSettings) -> WebSubSettings {
        var settings = WebSubSettings()
        guard let map = MappingView(node, section: "websub", allowedKeys: Self.webSubKeys, diag) else { return settings }
        settings.enabled = map.bool("enabled", default: false)
        settings.allowHTTPHubs = map.bool("allow_http_hubs", default: false)
        settings.leaseSeconds = map.int("lease_seconds", default: settings.leaseSeconds, range: WebSubSettings.leaseRange)
        if map.has("subscribed_poll_hours") {
            settings.subscribedPollHours = map.int("subscribed_poll_hours", default: schedule.maxIntervalHours,
                                                   range: 1...168)
        }
        if let callback = map.string("callback_url", required: settings.enabled) {
            if let problem = WebSubSettings.callbackProblem(callback) {
                diag.error(problem, at: map.mark(of: "callback_url"))
            } else {
                settings.callbackURL = callback
            }
        }
        if let listen = map.string("listen", required: settings.enabled) {
            // The listen-address rule of `--metrics-address`; a hub needs a fixed port, so not 0.
            if let address = try? ListenAddress(parsing: listen), address.port != 0 {
                settings.listenHost = address.host
                settings.listenPort = Int(address.port)
            } else {
                diag.error("'listen' must be an IP address and a port, like 127.0.0.1:8089 or [::1]:8089 (got '\(FieldRules.printable(String(listen.prefix(80))))')",
                           at: map.mark(of: "listen"))
            }
        }
        return settings
    }
}
