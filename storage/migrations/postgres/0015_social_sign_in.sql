-- Social sign-in (issue 37). An attempt is one trip to a provider and back:
-- its state (only the hash kept), PKCE verifier and nonce, single use, for
-- about 10 minutes. Kept here rather than in memory so that the callback
-- may reach another node, or this one after a restart.
CREATE TABLE oauth_attempts (
    id UUID PRIMARY KEY,
    provider TEXT NOT NULL,
    state_hash TEXT NOT NULL,
    code_verifier TEXT NOT NULL,
    nonce TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    return_to TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    consumed_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX oauth_attempts_expiry ON oauth_attempts (expires_at);

-- Which user a provider's person signs in as: one user per (provider,
-- subject); a user may have several.
CREATE TABLE user_identities (
    provider TEXT NOT NULL,
    subject TEXT NOT NULL,
    user_id UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (provider, subject)
);
CREATE INDEX user_identities_user ON user_identities (user_id);
