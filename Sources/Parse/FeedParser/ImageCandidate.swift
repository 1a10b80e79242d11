import Glibc

/// Which image URLs may become an item's thumbnail. Feeds carry images that are not pictures of
/// the story, and a reader showing them as the thumbnail shows a blank or a logo.
enum ImageCandidate {
    /// True for tracking pixels and share buttons:
    /// - a declared width or height of at most 2 px: tracking pixels and spacers are 1x1 (a 2 px
    ///   rule line is no picture either);
    /// - feedburner's item beacon `/~r/<feed>/~4/<id>` and its feedflare (`/~ff/`) and ad (`/~a/`)
    ///   images: counters and "share this" widgets injected into every item;
    /// - Medium's `/_/stat?event=...` view beacon and the usual counter hosts and files (WordPress
    ///   stats, `pixel.gif`, `1x1.gif`, `spacer.gif`, e-mail open trackers). Exact names only:
    ///   "pixel" or "beacon" alone also name real photo CDNs and stories;
    /// - social share buttons: a URL that names a network and a share/social/button/icon, or a
    ///   file named after the network (`twitter.png`, `facebook-share-button.png`).
    /// Byte searches (memchr) on the lowercased URL: this runs on every thumbnail candidate.
    static func isTracker(_ url: String, width: String? = nil, height: String? = nil) -> Bool {
        if let w = width.flatMap(pixels), w <= 2 { return true }
        if let h = height.flatMap(pixels), h <= 2 { return true }
        var lower = Array(url.utf8)
        for i in lower.indices where lower[i] >= 65 && lower[i] <= 90 { lower[i] += 32 }
        return lower.withUnsafeBufferPointer { u -> Bool in
            func has(_ needle: StaticString) -> Bool {
                let n = needle.utf8CodeUnitCount, p = needle.utf8Start
                guard let base = u.baseAddress, u.count >= n else { return false }
                var i = 0
                while i <= u.count - n, let hit = memchr(base + i, Int32(p[0]), u.count - n - i + 1) {
                    let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + at, p, n) == 0 { return true }
                    i = at + 1
                }
                return false
            }
            if has("/~r/") && has("/~4/") { return true }
            if has("/~ff/") || has("/~a/") || has("/_/stat") { return true }
            if has("//pixel.wp.com/") || has("//stats.wordpress.com/") { return true }
            if has("/pixel.gif") || has("/pixel.png") || has("/1x1.gif") || has("/1x1.png") || has("/spacer.gif")
                || has("/track/open") || has("/wf/open") || has("/open.gif") { return true }
            let network = has("twitter") || has("facebook") || has("linkedin") || has("pinterest") || has("whatsapp")
                || has("reddit") || has("tweet")
            guard network else { return false }
            if has("share") || has("social") || has("button") || has("icon") { return true }
            // A file named after the network: the last path segment starts with its name.
            let pathEnd = u.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? u.count
            let fileStart = (u[..<pathEnd].lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1
            let file = String(decoding: u[fileStart..<pathEnd], as: UTF8.self)
            return ["twitter", "facebook", "linkedin", "pinterest", "whatsapp", "reddit", "tweet"].contains { file.hasPrefix($0) }
        }
    }

    /// A declared dimension (`1`, `1px`, ` 2 `) in pixels; nil when not a plain number.
    private static func pixels(_ raw: String) -> Int? {
        var digits = Substring(raw.trimming(" \t\r\n"))
        if digits.lowercased().hasSuffix("px") { digits = digits.dropLast(2) }
        return Int(digits)
    }
}
