import AddressPolicy
import CCurl
import PulseModel
import TextSupport

/// Everything the loop needs to start one hop (one HTTP request, no redirects followed): the
/// request and the fetcher's settings as they are, and what this hop adds.
struct HopSpec: Sendable {
    let target: HopTarget
    let request: FetchRequest
    let configuration: FetcherConfiguration
    /// What is left of the fetch's total timeout.
    let timeout: Duration
    let exempt: [CIDR]

    var bodyLimit: Int { max(0, request.bodyLimit) }

    /// `configuration.resolve` (plus, in test builds, `resolveForTesting`).
    var resolve: [String] {
        #if DEBUG
        return configuration.resolve + configuration.resolveForTesting
        #else
        return configuration.resolve
        #endif
    }
}

/// What one completed hop produced; the redirect and status logic lives in `HTTPFetcher`.
struct HopResult: Sendable {
    var status: Int
    var effectiveURL: String
    var redirectURL: String?
    var body: [UInt8]
    var contentType: String?
    var etag: String?
    var lastModified: String?
    var retryAfter: String?
    var cacheControl: String?
    var link: String?
    var bytesOnWire: Int?
    /// Time libcurl spent on the hop (queueing for politeness excluded).
    var elapsed: Duration
}

typealias HopContinuation = CheckedContinuation<Result<HopResult, FetchError>, Never>

/// The per-hop state libcurl's callbacks write into. Owned by the loop thread only; the callbacks
/// run on that thread inside `curl_multi_perform`, so no locking is needed.
final class Transfer {
    let id: UInt64
    let spec: HopSpec
    let continuation: HopContinuation
    let easy: UnsafeMutableRawPointer
    var body: [UInt8] = []
    /// Set by the write callback when the decoded body would pass `spec.bodyLimit`.
    var exceededLimit = false
    /// Set when the response is not 2xx: the body is not wanted, so the transfer is cut short.
    var discardedBody = false
    /// Set by the open-socket callback when it refused the address libcurl was about to dial.
    var blocked: (ip: String, reason: String)?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var resolveList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var statusChecked = false

    init?(id: UInt64, spec: HopSpec, continuation: HopContinuation) {
        guard let easy = curl_easy_init() else { return nil }
        self.id = id
        self.spec = spec
        self.continuation = continuation
        self.easy = easy
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        curl_slist_free_all(resolveList)
        errorBuffer.deallocate()
    }

    /// Applies every option for this hop. Returns false if libcurl refused one (treated as a bug).
    func configure() -> Bool {
        let me = Unmanaged.passUnretained(self).toOpaque()
        var ok = true
        func check(_ rc: CURLcode) { if rc != CURLE_OK { ok = false } }

        check(pulse_curl_setopt_str(easy, CURLOPT_URL, spec.target.url))
        check(pulse_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        // A transfer removed while its name is still being resolved (a cancelled fetch, the
        // shutdown) does not wait for the resolver thread: offline, that wait was the resolver's
        // whole timeout (5 s per server) and held the curl loop and the stop with it.
        check(pulse_curl_setopt_long(easy, CURLOPT_QUICK_EXIT, 1))
        // Redirects are followed by HTTPFetcher so every hop is re-checked (scheme, literal host,
        // connect-time address); the protocol lists are a second fence should that ever change.
        check(pulse_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        check(pulse_curl_setopt_str(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        check(pulse_curl_setopt_str(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        // "" = every encoding this libcurl can decode (gzip, deflate, br, zstd here); the write
        // callback then sees decoded bytes, which is what the cap must measure.
        check(pulse_curl_setopt_str(easy, CURLOPT_ACCEPT_ENCODING, ""))
        // Refuses up front when the declared Content-Length is already past the cap.
        check(pulse_curl_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(spec.bodyLimit)))
        check(pulse_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Transfer.milliseconds(spec.configuration.connectTimeout)))
        check(pulse_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, Transfer.milliseconds(spec.timeout)))
        check(pulse_curl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, spec.configuration.lowSpeedLimit))
        check(pulse_curl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(spec.configuration.lowSpeedTime.components.seconds))))
        check(pulse_curl_setopt_str(easy, CURLOPT_USERAGENT, spec.configuration.userAgent))
        check(pulse_curl_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        // Peer and host verification are libcurl's defaults; only where the CAs come from changes.
        if let caFile = spec.configuration.caFile { check(pulse_curl_setopt_str(easy, CURLOPT_CAINFO, caFile)) }
        if let caPath = spec.configuration.caPath { check(pulse_curl_setopt_str(easy, CURLOPT_CAPATH, caPath)) }

        var headers = ["Accept: \(spec.request.kind.acceptHeader)"]
        if let etag = spec.request.etag, let safe = Transfer.headerValue(etag) { headers.append("If-None-Match: \(safe)") }
        if let date = spec.request.lastModified, let safe = Transfer.headerValue(date) { headers.append("If-Modified-Since: \(safe)") }
        if let form = spec.request.form {
            // COPYPOSTFIELDS: libcurl keeps its own copy, so the bytes need not outlive this call.
            headers.append("Content-Type: application/x-www-form-urlencoded")
            check(pulse_curl_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(form.count)))
            check(form.withUnsafeBufferPointer { pulse_curl_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress)) })
        }
        for header in headers { headerList = curl_slist_append(headerList, header) }
        check(pulse_curl_setopt_ptr(easy, CURLOPT_HTTPHEADER, headerList))
        let resolve = spec.resolve
        if !resolve.isEmpty {
            for entry in resolve { resolveList = curl_slist_append(resolveList, entry) }
            check(pulse_curl_setopt_ptr(easy, CURLOPT_RESOLVE, resolveList))
        }

        check(pulse_curl_setopt_ptr(easy, CURLOPT_WRITEDATA, me))
        check(pulse_curl_setopt_write(easy, { data, size, count, user in
            guard let user else { return 0 }
            return Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue().receive(data, size * count)
        }))
        // The SSRF guard runs on the address libcurl is about to connect to, after its own DNS
        // lookup: there is no second lookup an attacker's DNS could answer differently.
        // With a proxy configured through the environment (http_proxy, https_proxy, ALL_PROXY,
        // which libcurl honours by default) this sees the proxy's address instead, and the target
        // is then only covered by the IP-literal check in RedirectPolicy.
        check(pulse_curl_setopt_ptr(easy, CURLOPT_OPENSOCKETDATA, me))
        check(pulse_curl_setopt_opensocket(easy, { user, _, address in
            guard let user, let address else { return CURL_SOCKET_BAD }
            return Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue().openSocket(address)
        }))
        return ok
    }

    private func receive(_ data: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        if !statusChecked {
            statusChecked = true
            var status = 0
            _ = pulse_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            if !(200..<300).contains(status) {
                discardedBody = true
                return 0
            }
        }
        guard body.count + count <= spec.bodyLimit else {
            exceededLimit = true
            return 0 // libcurl stops the transfer with CURLE_WRITE_ERROR
        }
        if count > 0, let data {
            body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
        }
        return count
    }

    private func openSocket(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        guard let ip = SocketAddress.ipAddress(address) else {
            blocked = ("unknown", "address family \(address.pointee.family) is not IPv4 or IPv6")
            return CURL_SOCKET_BAD
        }
        if case .blocked(let reason) = AddressPolicy.verdict(for: ip, allowing: spec.exempt) {
            blocked = (ip.description, reason)
            return CURL_SOCKET_BAD
        }
        return SocketAddress.openSocket(address)
    }

    /// Reads the outcome once libcurl reports the hop done.
    func outcome(_ code: CURLcode) -> Result<HopResult, FetchError> {
        if code == CURLE_OK || (code == CURLE_WRITE_ERROR && discardedBody && !exceededLimit) {
            return .success(collect())
        }
        return .failure(failure(code))
    }

    private func failure(_ code: CURLcode) -> FetchError {
        let message = errorMessage(code)
        if let blocked, code == CURLE_COULDNT_CONNECT {
            return .blockedAddress(ip: blocked.ip, reason: blocked.reason)
        }
        if exceededLimit || code == CURLE_FILESIZE_EXCEEDED { return .tooLarge(limit: spec.bodyLimit) }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST: return .dns(host: spec.target.host)
        case CURLE_COULDNT_CONNECT: return .refused(host: spec.target.host)
        case CURLE_OPERATION_TIMEDOUT:
            // libcurl reports the low-speed abort with the same code; its message tells them apart.
            return TextScan.contains(message, "too slow") ? .lowSpeed : .timeout
        case CURLE_UNSUPPORTED_PROTOCOL: return .badScheme(url: spec.target.url)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED:
            return .tls(message: message)
        default: return .other(code: Int(code.rawValue), message: message)
        }
    }

    private func errorMessage(_ code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }

    private func collect() -> HopResult {
        var status = 0
        _ = pulse_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var downloaded: curl_off_t = -1
        let hasSize = pulse_curl_getinfo_off(easy, CURLINFO_SIZE_DOWNLOAD_T, &downloaded) == CURLE_OK
        var micros: curl_off_t = 0
        _ = pulse_curl_getinfo_off(easy, CURLINFO_TOTAL_TIME_T, &micros)
        return HopResult(
            status: status,
            effectiveURL: infoString(CURLINFO_EFFECTIVE_URL) ?? spec.target.url,
            redirectURL: Transfer.redirectStatusesWithLocation.contains(status) ? infoString(CURLINFO_REDIRECT_URL) : nil,
            body: discardedBody ? [] : body,
            contentType: infoString(CURLINFO_CONTENT_TYPE),
            etag: header("ETag"),
            lastModified: header("Last-Modified"),
            retryAfter: header("Retry-After"),
            cacheControl: header("Cache-Control", joinAll: true),
            link: header("Link", joinAll: true),
            bytesOnWire: hasSize && downloaded >= 0 && !discardedBody ? Int(downloaded) : nil,
            elapsed: .microseconds(Int64(micros))
        )
    }

    static let redirectStatusesWithLocation = RedirectPolicy.redirectStatuses

    private func infoString(_ info: CURLINFO) -> String? {
        var out: UnsafeMutablePointer<CChar>?
        guard pulse_curl_getinfo_str(easy, info, &out) == CURLE_OK, let out else { return nil }
        return String(cString: out)
    }

    /// A response header of the last request via libcurl's header API (no hand-written parser);
    /// the last instance wins unless `joinAll`, which joins repeats with ", " as RFC 9110 allows.
    private func header(_ name: String, joinAll: Bool = false) -> String? {
        var first: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(easy, name, 0, UInt32(CURLH_HEADER), -1, &first) == CURLHE_OK, let first else { return nil }
        let amount = first.pointee.amount
        var values: [String] = []
        for index in 0..<amount {
            var entry: UnsafeMutablePointer<curl_header>?
            if curl_easy_header(easy, name, index, UInt32(CURLH_HEADER), -1, &entry) == CURLHE_OK,
               let entry, let value = entry.pointee.value {
                values.append(String(cString: value))
            }
        }
        return joinAll ? values.joined(separator: ", ") : values.last
    }

    /// Validators come from servers; refuse to echo one that could split our request headers.
    static func headerValue(_ value: String) -> String? {
        guard !value.isEmpty, value.utf8.count <= 1024,
              value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7f })
        else { return nil }
        return value
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
