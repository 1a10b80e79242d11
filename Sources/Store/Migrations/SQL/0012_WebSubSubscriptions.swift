// WebSub (push) subscriptions, one per source: the hub and topic the feed named, the secret the
// hub signs pushes with, the lease the hub granted and where the handshake stands. Any daemon
// answers the hub (verification and pushes read and write this table); one daemon at a time
// sends a row's subscription requests, through `claimed_by`/`claim_until` as for fetches.
// The secret is the worker's alone: RLS on with no policy, and no grant to the API roles (a
// table of its own rather than columns of `sources`, whose rows the app may read).
extension Migration {
    static let webSubSubscriptions = Migration(version: 12, name: "websub subscriptions", sql: #"""
CREATE TABLE IF NOT EXISTS public.websub_subscriptions (
    source_id uuid PRIMARY KEY REFERENCES public.sources (id) ON DELETE CASCADE,
    hub text NOT NULL,
    topic text NOT NULL,
    -- 32 random bytes, hex: the HMAC key of `X-Hub-Signature`.
    secret text NOT NULL CHECK (length(secret) >= 64),
    -- pending: a subscription was asked for and not yet verified; subscribed: verified, lease
    -- running; unsubscribed / denied / failed: no push expected, the source polls normally.
    state text NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'subscribed', 'unsubscribed', 'denied', 'failed')),
    -- The request the hub may verify now ('subscribe' or 'unsubscribe'), NULL when none.
    pending_mode text CHECK (pending_mode IN ('subscribe', 'unsubscribe')),
    requested_at timestamptz,
    verified_at timestamptz,
    lease_expires_at timestamptz,
    -- When the subscribing daemon acts next: send the pending request, renew before the lease
    -- ends, or give up waiting for a verification.
    next_action_at timestamptz,
    failures integer NOT NULL DEFAULT 0,
    last_error text,
    pushes_received bigint NOT NULL DEFAULT 0,
    last_push_at timestamptz,
    claimed_by text,
    claim_until timestamptz,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_websub_next_action ON public.websub_subscriptions (next_action_at)
    WHERE next_action_at IS NOT NULL;

ALTER TABLE public.websub_subscriptions ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON public.websub_subscriptions FROM PUBLIC, anon, authenticated;
GRANT ALL ON public.websub_subscriptions TO service_role;
"""#)
}
