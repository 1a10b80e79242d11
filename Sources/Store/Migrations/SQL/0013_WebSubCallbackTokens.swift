// Each subscription's callback ends in a random token (`{callback_url}/{slug}/{token}`) that only
// its hub learns, so a stranger who knows a slug can neither answer a verification nor deny or
// push. Subscriptions made before tokens are sent again at once with a tokened callback; until
// their hub verifies it, pushes to the old callback get 404 and polling covers the gap.
extension Migration {
    static let webSubCallbackTokens = Migration(version: 13, name: "websub callback tokens", sql: #"""
ALTER TABLE public.websub_subscriptions ADD COLUMN IF NOT EXISTS callback_token text
    CHECK (callback_token IS NULL OR length(callback_token) >= 32);
UPDATE public.websub_subscriptions
SET pending_mode = 'subscribe', requested_at = NULL, next_action_at = now(), updated_at = now()
WHERE callback_token IS NULL AND state IN ('pending', 'subscribed');
"""#)
}
