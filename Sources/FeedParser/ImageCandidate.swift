/// Which image URLs may become an item's thumbnail. Feeds carry images that are not pictures of
/// the story, and a reader showing them as the thumbnail shows a blank or a logo:
enum ImageCandidate {
    /// True for tracking pixels and share buttons:
    /// - a declared width or height of at most 2 px: tracking pixels and spacers are 1x1 (a 2 px
    ///   rule line is no picture either);
    /// - feedburner's item beacon `/~r/<feed>/~4/<id>` and its feedflare (`/~ff/`) and ad (`/~a/`)
    ///   images: counters and "share this" widgets injected into every item;
    /// - Medium's `/_/stat?event=...` view beacon and the usual counter hosts and files (WordPress
    ///   stats, `pixel.gif`, `1x1.gif`, `spacer.gif`, e-mail open trackers);
    /// - social share buttons: a path that names a share/social/button/icon and a network, or a
    ///   file named after the network (`twitter.png`, `facebook-share-button.png`).
    static func isTracker(_ url: String, width: String? = nil, height: String? = nil) -> Bool {
        if let w = width.flatMap(pixels), w <= 2 { return true }
        if let h = height.flatMap(pixels), h <= 2 { return true }
        let lower = url.lowercased()
        let afterScheme = lower.range(of: "://").map { lower[$0.upperBound...] } ?? Substring(lower)
        let hostEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        let host = afterScheme[..<hostEnd]
        let path = afterScheme[hostEnd...]
        if path.contains("/~r/") && path.contains("/~4/") { return true }
        if path.contains("/~ff/") || path.contains("/~a/") { return true }
        if path.hasPrefix("/_/stat") { return true }
        if host == "pixel.wp.com" || host == "stats.wordpress.com" { return true }
        // Exact file names and endpoints only: "pixel" or "beacon" alone also name real photo
        // CDNs and stories.
        for beacon in ["/pixel.gif", "/pixel.png", "/1x1.gif", "/1x1.png", "/spacer.gif", "/track/open", "/wf/open", "/open.gif"]
            where path.contains(beacon) { return true }
        let networks = ["twitter", "facebook", "linkedin", "pinterest", "whatsapp", "reddit", "tweet", "email-share"]
        guard networks.contains(where: { path.contains($0) }) else { return false }
        let file = path.split(separator: "?").first.map { $0.split(separator: "/").last.map(String.init) ?? "" } ?? ""
        if ["share", "social", "sharing", "button", "icon"].contains(where: { path.contains($0) }) { return true }
        return networks.contains { file.hasPrefix($0) }
    }

    /// A declared dimension (`1`, `1px`, ` 2 `) in pixels; nil when not a plain number.
    private static func pixels(_ raw: String) -> Int? {
        var digits = Substring(raw.trimming(" \t\r\n"))
        if digits.lowercased().hasSuffix("px") { digits = digits.dropLast(2) }
        return Int(digits)
    }
}
