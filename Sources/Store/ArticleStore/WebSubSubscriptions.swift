import FoundationEssentials
import Postgres

/// One source's WebSub subscription as the listener and the subscriber read it.
public struct WebSubSubscription: Sendable, Equatable {
    public enum State: String, Sendable, CaseIterable { case pending, subscribed, unsubscribed, denied, failed }
    public enum Mode: String, Sendable { case subscribe, unsubscribe }

    public var sourceID: String
    public var slug: String
    public var hub: String
    public var topic: String
    /// Hex of the 32-byte HMAC key; never logged, never readable by the API roles.
    public var secret: String
    /// The random last segment of the subscription's callback (`{callback_url}/{slug}/{token}`):
    /// only the hub learns it. Nil for a subscription made before tokens, until it is re-sent.
    public var callbackToken: String?
    public var state: State
    public var pendingMode: Mode?
    public var leaseExpiresAt: Date?
    public var requestedAt: Date?
    public var failures: Int
    public var sourceActive: Bool

    static let columns = """
        w.source_id, s.slug, w.hub, w.topic, w.secret, w.callback_token, w.state, w.pending_mode, w.lease_expires_at,
        w.requested_at, w.failures, s.is_active
        """

    init(row: QueryResult.Row) {
        sourceID = row["source_id"] ?? ""
        slug = row["slug"] ?? ""
        hub = row["hub"] ?? ""
        topic = row["topic"] ?? ""
        secret = row["secret"] ?? ""
        callbackToken = row["callback_token"]
        state = row["state"].flatMap(State.init(rawValue:)) ?? .failed
        pendingMode = row["pending_mode"].flatMap(Mode.init(rawValue:))
        leaseExpiresAt = row.date("lease_expires_at")
        requestedAt = row.date("requested_at")
        failures = row.int("failures") ?? 0
        sourceActive = row.bool("is_active") ?? false
    }
}

/// Subscription state in PostgreSQL: the only coordinator between the daemon that subscribes and
/// the daemons that receive. Every write that ends a live subscription also makes the source due
/// at once, so it goes back to its normal schedule instead of waiting out the relaxed interval.
extension ArticleStore {
    /// The subscription of the source called `slug`, if any (the listener's lookup).
    public func webSubSubscription(slug: String) async throws -> WebSubSubscription? {
        try await connection.withReconnect(label: "websub by slug") { db in
            try db.query("""
                SELECT \(WebSubSubscription.columns)
                FROM public.websub_subscriptions w JOIN public.sources s ON s.id = w.source_id
                WHERE s.slug = $1
                """, [slug], label: "websub by slug").rows.first.map(WebSubSubscription.init(row:))
        }
    }

    /// What a successful fetch discovered. A new hub or topic (or a source that had none, or one
    /// whose subscription ended) gets a fresh subscription with `secret` and a callback `token`, to
    /// be sent at once; the
    /// same hub and topic leave a live or pending subscription alone. No hub: a live or pending
    /// subscription is unsubscribed. Returns true when something changed.
    @discardableResult
    public func observeHub(sourceID: String, hub: String?, topic: String?, secret: String, token: String,
                           at now: Date = Date()) async throws -> Bool {
        try await connection.withReconnect(label: "websub observe") { db in
            if let hub, let topic {
                return try db.query("""
                    INSERT INTO public.websub_subscriptions AS w (source_id, hub, topic, secret, callback_token, state,
                        pending_mode, next_action_at, updated_at)
                    VALUES ($1::uuid, $2, $3, $4, $6, 'pending', 'subscribe', $5::timestamptz, $5::timestamptz)
                    ON CONFLICT (source_id) DO UPDATE SET hub = $2, topic = $3, secret = $4, callback_token = $6,
                        state = 'pending',
                        pending_mode = 'subscribe', next_action_at = $5::timestamptz, requested_at = NULL,
                        lease_expires_at = NULL, failures = 0, last_error = NULL, updated_at = $5::timestamptz
                    WHERE w.hub IS DISTINCT FROM $2 OR w.topic IS DISTINCT FROM $3 OR w.state = 'unsubscribed'
                    """, [sourceID, hub, topic, secret, now, token], label: "websub observe").affectedRows > 0
            }
            return try db.query("""
                UPDATE public.websub_subscriptions SET pending_mode = 'unsubscribe', next_action_at = $2::timestamptz,
                    requested_at = NULL, updated_at = $2::timestamptz
                WHERE source_id = $1::uuid AND state IN ('pending', 'subscribed')
                  AND pending_mode IS DISTINCT FROM 'unsubscribe'
                """, [sourceID, now], label: "websub observe").affectedRows > 0
        }
    }

    /// Claims up to `limit` subscriptions with an action due, for `workerID` (FOR UPDATE SKIP
    /// LOCKED and a claim lease, as sources are claimed). Subscriptions of deactivated sources are
    /// turned into unsubscriptions first.
    public func claimWebSubActions(workerID: String, limit: Int, claim: Duration,
                                   at now: Date = Date()) async throws -> [WebSubSubscription] {
        try await connection.withReconnect(label: "websub claim") { db in
            try db.query("""
                UPDATE public.websub_subscriptions w SET pending_mode = 'unsubscribe', next_action_at = $1::timestamptz,
                    requested_at = NULL
                FROM public.sources s
                WHERE s.id = w.source_id AND NOT s.is_active AND w.state IN ('pending', 'subscribed')
                  AND w.pending_mode IS DISTINCT FROM 'unsubscribe'
                """, [now], label: "websub deactivated")
            return try db.query("""
                WITH due AS (
                    SELECT source_id FROM public.websub_subscriptions
                    WHERE next_action_at <= $1::timestamptz AND (claim_until IS NULL OR claim_until < $1::timestamptz)
                    ORDER BY next_action_at LIMIT $2
                    FOR UPDATE SKIP LOCKED
                ), claimed AS (
                    UPDATE public.websub_subscriptions w SET claimed_by = $3,
                        claim_until = $1::timestamptz + make_interval(secs => $4::double precision)
                    FROM due WHERE w.source_id = due.source_id
                    RETURNING w.*
                )
                SELECT \(WebSubSubscription.columns) FROM claimed w JOIN public.sources s ON s.id = w.source_id
                """, [now, limit, workerID, claim.seconds], label: "websub claim").rows.map(WebSubSubscription.init(row:))
        }
    }

    /// A request is about to be sent: until it is verified `mode` stays pending. If no
    /// verification comes by `verifyBy`, the subscriber counts it as a hub failure. `token` is the
    /// callback's (kept when the subscription already has one).
    public func markWebSubRequested(sourceID: String, mode: WebSubSubscription.Mode, token: String, verifyBy: Date,
                                    at now: Date = Date()) async throws {
        try await connection.withReconnect(label: "websub requested") { db in
            try db.query("""
                UPDATE public.websub_subscriptions SET pending_mode = $2, requested_at = $3::timestamptz,
                    next_action_at = $4::timestamptz, claimed_by = NULL, claim_until = NULL, updated_at = $3::timestamptz,
                    callback_token = coalesce(callback_token, $5)
                WHERE source_id = $1::uuid
                """, [sourceID, mode.rawValue, now, verifyBy, token], label: "websub requested")
        }
    }

    /// The hub refused, was unreachable or never verified: the subscription is `failed` (the
    /// source polls normally at once) and is tried again at `retryAt`.
    public func markWebSubFailed(sourceID: String, error: String, retryAt: Date?, at now: Date = Date()) async throws {
        try await connection.withReconnect(label: "websub failed") { db in
            try db.query("""
                WITH failed AS (
                    UPDATE public.websub_subscriptions SET
                        state = CASE WHEN pending_mode = 'unsubscribe' THEN 'unsubscribed' ELSE 'failed' END,
                        pending_mode = CASE WHEN pending_mode = 'unsubscribe' THEN NULL ELSE 'subscribe' END,
                        lease_expires_at = NULL, requested_at = NULL, failures = failures + 1, last_error = left($2, 500),
                        next_action_at = $3::timestamptz, claimed_by = NULL, claim_until = NULL, updated_at = $4::timestamptz
                    WHERE source_id = $1::uuid
                    RETURNING source_id
                )
                UPDATE public.sources s SET next_due_at = least(coalesce(s.next_due_at, $4::timestamptz), $4::timestamptz)
                FROM failed WHERE s.id = failed.source_id
                """, [sourceID, error, retryAt, now], label: "websub failed")
        }
    }

    /// Verification of intent (`GET ?hub.mode=...`): true when the source called `slug` has a
    /// pending request of `mode` for `topic`, which is then confirmed. A subscription's lease
    /// runs from now for `leaseSeconds` (the hub's answer), renewal at `renewAt`.
    public func confirmWebSub(slug: String, token: String, mode: WebSubSubscription.Mode, topic: String,
                              leaseSeconds: Int?, renewAt: Date?, at now: Date = Date()) async throws -> Bool {
        try await connection.withReconnect(label: "websub verify") { db in
            let matched = try db.query("""
                WITH target AS (
                    SELECT w.source_id FROM public.websub_subscriptions w JOIN public.sources s ON s.id = w.source_id
                    WHERE s.slug = $1 AND w.pending_mode = $2 AND w.topic = $3 AND w.callback_token = $7
                ), confirmed AS (
                    UPDATE public.websub_subscriptions w SET
                        state = CASE WHEN $2 = 'subscribe' THEN 'subscribed' ELSE 'unsubscribed' END,
                        pending_mode = NULL, requested_at = NULL, verified_at = $4::timestamptz, failures = 0, last_error = NULL,
                        lease_expires_at = CASE WHEN $2 = 'subscribe'
                            THEN $4::timestamptz + make_interval(secs => coalesce($5::integer, 0)) END,
                        next_action_at = CASE WHEN $2 = 'subscribe' THEN $6::timestamptz END,
                        updated_at = $4::timestamptz
                    FROM target WHERE w.source_id = target.source_id
                    RETURNING w.source_id
                )
                UPDATE public.sources s SET next_due_at = CASE WHEN $2 = 'unsubscribe'
                        THEN least(coalesce(s.next_due_at, $4::timestamptz), $4::timestamptz) ELSE s.next_due_at END
                FROM confirmed WHERE s.id = confirmed.source_id
                RETURNING s.id
                """, [slug, mode.rawValue, topic, now, leaseSeconds, renewAt, token], label: "websub verify")
            return matched.affectedRows > 0
        }
    }

    /// `hub.mode=denied` for `topic` on the callback with `token`: recorded with the hub's reason
    /// (cleaned by the caller); the source polls normally, and a subscription is tried again at
    /// `retryAt`. True when the slug, token and topic matched.
    public func denyWebSub(slug: String, token: String, topic: String, reason: String?, retryAt: Date,
                           at now: Date = Date()) async throws -> Bool {
        try await connection.withReconnect(label: "websub denied") { db in
            try db.query("""
                WITH denied AS (
                    UPDATE public.websub_subscriptions w SET state = 'denied', pending_mode = 'subscribe',
                        lease_expires_at = NULL, requested_at = NULL, last_error = left(coalesce($3, 'denied by the hub'), 500),
                        next_action_at = $4::timestamptz, updated_at = $5::timestamptz
                    FROM public.sources s
                    WHERE s.id = w.source_id AND s.slug = $1 AND w.topic = $2 AND w.state <> 'unsubscribed'
                      AND w.callback_token = $6
                    RETURNING w.source_id
                )
                UPDATE public.sources s SET next_due_at = least(coalesce(s.next_due_at, $5::timestamptz), $5::timestamptz)
                FROM denied WHERE s.id = denied.source_id
                RETURNING s.id
                """, [slug, topic, reason, retryAt, now, token], label: "websub denied").affectedRows > 0
        }
    }

    /// Counts a push for the source (whatever became of its items).
    public func recordWebSubPush(sourceID: String, at now: Date = Date()) async throws {
        try await connection.withReconnect(label: "websub push") { db in
            try db.query("""
                UPDATE public.websub_subscriptions SET pushes_received = pushes_received + 1, last_push_at = $2::timestamptz
                WHERE source_id = $1::uuid
                """, [sourceID, now], label: "websub push")
        }
    }

    /// A push for the source was acknowledged and could not be stored: the source is polled now,
    /// which brings the push's items if the feed still lists them.
    public func makeWebSubSourceDue(sourceID: String, at now: Date = Date()) async throws {
        try await connection.withReconnect(label: "websub push lost") { db in
            try db.query("""
                UPDATE public.sources SET next_due_at = least(coalesce(next_due_at, $2::timestamptz), $2::timestamptz)
                WHERE id = $1::uuid
                """, [sourceID, now], label: "websub push lost")
        }
    }

    /// At start: every source with a live subscription is polled within `spread`, since pushes
    /// acknowledged before a crash may not have been stored. Returns how many were moved.
    @discardableResult
    public func pollSubscribedSourcesSoon(spread: Duration, at now: Date = Date()) async throws -> Int {
        try await connection.withReconnect(label: "websub restart polls") { db in
            try db.query("""
                UPDATE public.sources s
                SET next_due_at = $1::timestamptz + random() * make_interval(secs => $2::double precision)
                FROM public.websub_subscriptions w
                WHERE w.source_id = s.id AND w.state IN ('subscribed', 'pending') AND s.is_active
                  AND (s.due_at IS NULL OR s.due_at > $1::timestamptz + make_interval(secs => $2::double precision))
                """, [now, spread.seconds], label: "websub restart polls").affectedRows
        }
    }

    /// Subscriptions by state (the `pulse_websub_subscriptions` gauge); a lapsed lease counts as
    /// `expired`, not `subscribed`.
    public func webSubStateCounts(at now: Date = Date()) async throws -> [String: Int] {
        try await connection.withReconnect(label: "websub counts") { db in
            var counts: [String: Int] = [:]
            for row in try db.query("""
                SELECT CASE WHEN state = 'subscribed' AND lease_expires_at <= $1::timestamptz THEN 'expired'
                            ELSE state END AS state, count(*) AS n
                FROM public.websub_subscriptions GROUP BY 1
                """, [now], label: "websub counts").rows {
                counts[row["state"] ?? "?", default: 0] += row.int("n") ?? 0
            }
            return counts
        }
    }
}
